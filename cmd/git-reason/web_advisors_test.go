package main

// The advisors page of the Reasoning page, served by the real binary while
// consultations fail: an advisor's circuit opens on the page (issue 28
// §1: availability and its reason, the circuit and when it reopens, this
// clone's recent outcomes), with no restart of the server.

import (
	"strings"
	"testing"
)

const circuitOverlay = `advisors:
  - {id: adv-flaky, transport: cli, adapter: exec, executable: fake-flaky, command: [fake-flaky], capabilities: [reasoning], cooldown: 1h}
`

func TestWebAdvisorCircuit(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, circuitOverlay, map[string]string{"fake-flaky": "cat >/dev/null\necho 'service unavailable' >&2\nexit 1\n"})
	s.reason("assess", "L", "--subject", "Live circuit", "--question", "q", "--materiality", "material", "--reversibility", "costly", "--evidence", "note::n")
	s.reason("plan", "L")
	base, c := openWeb(t, s)
	row := func() string {
		t.Helper()
		page := getPage(t, c, base+"/advisors")
		i := strings.Index(page, `<tr id="adv-adv-flaky">`)
		if i < 0 {
			t.Fatalf("the advisors page has no row for adv-flaky:\n%s", page)
		}
		row, _, _ := strings.Cut(page[i:], "</tr>")
		return row
	}
	if r := row(); !strings.Contains(r, `<span class="status-available">available</span>`) || !strings.Contains(r, "none yet") ||
		!strings.Contains(r, "<td>repository<br>") || strings.Contains(r, "circuit reopens") {
		t.Errorf("before any consultation adv-flaky's row is:\n%s", r)
	}
	for range 2 {
		if _, errs, code := s.run("reason", "consult", "L"); code != 1 {
			t.Fatalf("consult with a failing advisor: exit %d: %s", code, errs)
		}
	}
	r := row()
	for _, want := range []string{`<span class="status-open">open</span>: circuit open after 2 transient failures in a row, the last unavailable`,
		"circuit reopens 20", "failed (unavailable)", "reasoning"} {
		if !strings.Contains(r, want) {
			t.Errorf("after two failures adv-flaky's row lacks %q:\n%s", want, r)
		}
	}
	if n := strings.Count(r, "<li>failed (unavailable)"); n != 2 {
		t.Errorf("adv-flaky's row lists %d failed outcomes, want 2:\n%s", n, r)
	}
}

// An advisor whose last two answers did not read stays available (such
// answers open no circuit); its row says so with the command that plans
// without it, as advisors, doctor and the task's next step say it.
func TestWebAdvisorUnreadable(t *testing.T) {
	t.Parallel()
	overlay := "advisors:\n  - {id: adv-prose, transport: cli, adapter: exec, executable: fake-prose, command: [fake-prose], capabilities: [reasoning]}\n"
	s := newSandbox(t, overlay, map[string]string{"fake-prose": "cat >/dev/null\necho 'I would merge it.'\n"})
	s.reason("assess", "P", "--subject", "Prose", "--question", "q", "--materiality", "material", "--reversibility", "costly", "--evidence", "note::n")
	s.reason("plan", "P")
	base, c := openWeb(t, s)
	for range 2 {
		if _, errs, code := s.run("reason", "consult", "P"); code != 1 {
			t.Fatalf("consult with an advisor answering prose: exit %d: %s", code, errs)
		}
	}
	page := getPage(t, c, base+"/advisors")
	i := strings.Index(page, `<tr id="adv-adv-prose">`)
	if i < 0 {
		t.Fatalf("the advisors page has no row for adv-prose:\n%s", page)
	}
	r, _, _ := strings.Cut(page[i:], "</tr>")
	for _, want := range []string{`<span class="status-available">available</span>`, "its last two answers did not read",
		"<code>git -c reason.disable=adv-prose reason plan P</code> plans without it"} {
		if !strings.Contains(r, want) {
			t.Errorf("after two malformed answers adv-prose's row lacks %q:\n%s", want, r)
		}
	}
}
