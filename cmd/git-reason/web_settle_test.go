package main

// The Reasoning page of a task two clones concluded (issue 24 §3): before
// the merge is settled it shows both conclusions and the record the merge
// made inadmissible; after the conclusion the tool suggests, exactly one
// standing conclusion, on the task page, the handover page and the list,
// as status, status --report and handover show it (sync_settle.txtar).

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

func TestWebSettledMerge(t *testing.T) {
	t.Parallel()
	sandboxPossible(t)
	a := newSandbox(t, "advisors: []\n", nil)
	b := newSandbox(t, "advisors: []\n", nil)
	shareOrigin(t, a, b)

	var assessed, ca, cb, cs struct{ ID string }
	a.reasonJSON(&assessed, "assess", "T", "--subject", "Session store", "--question", "Sticky sessions or a shared store?",
		"--materiality", "material", "--reversibility", "costly", "--evidence", "file:web/session.go:sessions are in memory")
	var plan struct {
		Derived struct {
			LocalReview []string `json:"local_review"`
		}
	}
	a.reasonJSON(&plan, "plan", "T")
	if len(plan.Derived.LocalReview) == 0 {
		t.Fatal("the plan has no local review to answer: the test needs one")
	}
	answers := func(word string) []string {
		var out []string
		for i := range plan.Derived.LocalReview {
			out = append(out, "--local-review", fmt.Sprintf("%d=%s %d", i+1, word, i+1))
		}
		return out
	}
	a.reason("push", "origin")
	b.reason("pull", "origin")
	a.reasonJSON(&ca, append([]string{"conclude", "T", "--decision", "A shared store"}, answers("a")...)...)
	a.reason("push", "origin")
	b.reasonJSON(&cb, append([]string{"conclude", "T", "--decision", "Sticky sessions"}, answers("b")...)...)
	if out := b.reason("sync", "origin"); !strings.Contains(out, "T: merged ") || !strings.Contains(out, "needs a person's record") {
		t.Fatalf("sync did not merge two conclusions into a history that needs a person:\n%s", out)
	}

	base, c := openWeb(t, b)
	standing := regexp.MustCompile(`<dt>Standing</dt>`)
	page := getPage(t, c, base+"/task/T")
	if n := len(standing.FindAllString(page, -1)); n != 2 {
		t.Errorf("before the settlement the task page shows %d standing conclusions, want both:\n%s", n, page)
	}
	if !strings.Contains(page, "Records a merge made inadmissible (1)") || !strings.Contains(page, "settle it with <code>git reason conclude T --supersedes ") {
		t.Errorf("before the settlement the task page does not show the record the merge made inadmissible:\n%s", page)
	}

	// b runs the command status gives, as a person fills it in.
	var st struct {
		Needs []struct{ Command string }
	}
	b.reasonJSON(&st, "status", "T")
	if len(st.Needs) != 1 {
		t.Fatalf("status gives %d settling commands, want 1", len(st.Needs))
	}
	sup := regexp.MustCompile(`--supersedes (\S+)`).FindAllStringSubmatch(st.Needs[0].Command, -1)
	if len(sup) != 2 || !strings.HasPrefix(st.Needs[0].Command, "git reason conclude T ") {
		t.Fatalf("status suggests %q, want a conclusion superseding both", st.Needs[0].Command)
	}
	args := []string{"conclude", "T"}
	for _, m := range sup {
		if !strings.HasPrefix(ca.ID, m[1]) && !strings.HasPrefix(cb.ID, m[1]) {
			t.Fatalf("status suggests superseding %s, which is neither conclusion (%s, %s)", m[1], ca.ID, cb.ID)
		}
		args = append(args, "--supersedes", m[1])
	}
	b.reasonJSON(&cs, append(append(args, "--decision", "A shared store, settled"), answers("both")...)...)
	b.reason("verify")

	// The page reads the refs on each request: one standing conclusion,
	// the settlement's, and nothing left to settle.
	page = getPage(t, c, base+"/task/T")
	if n := len(standing.FindAllString(page, -1)); n != 1 || !strings.Contains(page, "<dt>Standing</dt><dd>A shared store, settled</dd>") {
		t.Errorf("after the settlement the task page shows %d standing conclusions, want the settlement's alone:\n%s", n, page)
	}
	for _, bad := range []string{"Records a merge made inadmissible", `class="unverified"`} {
		if strings.Contains(page, bad) {
			t.Errorf("after the settlement the task page still shows %q:\n%s", bad, page)
		}
	}
	hand := getPage(t, c, base+"/handover")
	if n := strings.Count(hand, "<dt>Standing</dt>"); n != 1 || !strings.Contains(hand, `#rec-`+cs.ID+`" title="`+cs.ID+`"`) {
		t.Errorf("after the settlement the handover page shows %d standing conclusions, want the settlement %s alone:\n%s", n, cs.ID, hand)
	}
	if list := getPage(t, c, base+"/"); strings.Contains(list, "does not verify") || !strings.Contains(list, `href="/task/T"`) {
		t.Errorf("after the settlement the task list marks T as not verifying, or lacks it:\n%s", list)
	}
}
