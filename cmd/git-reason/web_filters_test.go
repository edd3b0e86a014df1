package main

// The task list's filters by signatures and quarantine, and its text
// filter through the search index, served by the real binary over
// repositories its own commands wrote and signed with real ssh keys, one
// of whose pulls held a fetched history back.

import (
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"git-reason/reliability/harness"
)

func TestWebTaskFilters(t *testing.T) {
	t.Parallel()
	harness.NeedTools(t, "ssh-keygen")
	s := newSandbox(t, "advisors: []\n", nil)
	root := filepath.Dir(s.dir)
	ada, eve := filepath.Join(root, "ada_key"), filepath.Join(root, "eve_key")
	for _, k := range []string{ada, eve} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", filepath.Base(k), "-f", k).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v: %s", err, out)
		}
	}
	pub := harness.ReadFile(t, ada+".pub")
	allowed := filepath.Join(root, "allowed_signers")
	harness.WriteFile(t, allowed, "ada@example.invalid "+string(pub))
	s.git("config", "gpg.format", "ssh")
	s.git("config", "user.signingKey", ada)
	s.git("config", "gpg.ssh.allowedSignersFile", allowed)
	signed := []string{"-c", "commit.gpgSign=true"}
	assess := func(sb *sandbox, task, subject, question string, cfg ...string) {
		sb.git(append(cfg, "reason", "assess", task, "--subject", subject, "--question", question, "--materiality", "trivial", "--reversibility", "reversible")...)
	}
	// S: every record signed by ada; U: none signed; M: one of two; E:
	// signed with a key no allowed signer holds.
	assess(s, "S-signed", "Signed throughout", "Which way?", signed...)
	s.git(append(signed, "reason", "plan", "S-signed")...)
	assess(s, "U-unsigned", "Never signed", "Which way?")
	assess(s, "M-mixed", "Half signed", "Which way?", signed...)
	s.reason("plan", "M-mixed")
	assess(s, "E-eve", "Signed by a stranger", "Which pager to ship?", "-c", "commit.gpgSign=true", "-c", "user.signingKey="+eve)

	// Another clone appends an unsigned record to U; this repository
	// requires fetched records to be signed, so its pull holds U back.
	remote := shareOrigin(t, s)
	s.reason("push")
	a := &sandbox{t: t, dir: filepath.Join(root, "a"), env: s.env}
	s.git("clone", "-q", remote, a.dir)
	a.reason("pull")
	a.reason("plan", "U-unsigned")
	assess(a, "N-new", "Only fetched", "Which way?")
	a.reason("push")
	s.git("config", "reason.requireSigned", "fetched")
	if _, errs, code := s.run("reason", "pull"); code != 3 || !strings.Contains(errs, "quarantined") {
		t.Fatalf("pull of an unsigned record under requireSigned: exit %d: %s", code, errs)
	}

	base, c := openWeb(t, s)
	list := getPage(t, c, base+"/")
	for _, want := range []string{"5 of 5 tasks", `<span class="sig sig-good"`, `<span class="sig sig-bad"`, "partly signed",
		`<span class="phase phase-quarantined"`, `<option value="unsigned">a record unsigned</option>`, "quarantined only (2)"} {
		if !strings.Contains(list, want) {
			t.Errorf("task list lacks %q", want)
		}
	}
	shows := func(query string, want ...string) {
		t.Helper()
		page := getPage(t, c, base+"/?"+query)
		for _, task := range []string{"S-signed", "U-unsigned", "M-mixed", "E-eve", "N-new"} {
			listed := strings.Contains(page, `href="/task/`+task+`"`)
			if expected := strings.Contains(" "+strings.Join(want, " ")+" ", " "+task+" "); listed != expected {
				t.Errorf("/?%s: %s listed %v, want %v", query, task, listed, expected)
			}
		}
	}
	shows("sig=signed", "S-signed")
	shows("sig=unsigned", "U-unsigned", "M-mixed")
	shows("sig=unverified", "E-eve")
	shows("quarantined=1", "U-unsigned", "N-new")
	shows("quarantined=1&sig=signed")
	// The text filter finds a record's text, not only a task's name or
	// subject: the question of E is in no subject.
	shows("q="+url.QueryEscape("PAGER"), "E-eve")
	shows("q="+url.QueryEscape("m-mix"), "M-mixed")
	shows("q=nowhere")

	// The page of the held-back task says so and why.
	page := getPage(t, c, base+"/task/U-unsigned")
	for _, want := range []string{"Fetched history quarantined", "refs/reasoning/remotes/origin/U-unsigned", "git reason pull origin U-unsigned", "unsigned"} {
		if !strings.Contains(page[strings.Index(page, "<main>"):], want) {
			t.Errorf("the quarantined task's page lacks %q", want)
		}
	}
	// A task whose only history was held back has a page that says so.
	page = getPage(t, c, base+"/task/N-new")
	for _, want := range []string{"Fetched history quarantined", "refs/reasoning/remotes/origin/N-new", "No history of this task is here"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page of a task only fetched lacks %q", want)
		}
	}
	if p := getPage(t, c, base+"/task/S-signed"); strings.Contains(p, "quarantined") {
		t.Errorf("a task no pull held back is said to be quarantined")
	}

	// A record written while serving moves its task between the filters.
	s.assessTrivial("S-signed", "Signed no more", "Which pager now?")
	shows("sig=signed")
	shows("sig=unsigned", "U-unsigned", "M-mixed", "S-signed")
	shows("q=pager", "E-eve", "S-signed")

	// What a page polls (/head) moves with everything the page shows,
	// not only with the task refs, and stays while nothing does.
	heads := func() map[string]string {
		t.Helper()
		out := map[string]string{}
		for _, task := range []string{"", "M-mixed", "E-eve", "S-signed"} {
			out[task] = getPage(t, c, base+"/head?task="+task)
		}
		return out
	}
	moved := func(what string, before map[string]string, want ...string) map[string]string {
		t.Helper()
		now := heads()
		for task, h := range now {
			if got, expect := h != before[task], slices.Contains(want, task); got != expect {
				t.Errorf("%s: /head?task=%s moved %v, want %v", what, task, got, expect)
			}
		}
		return now
	}
	h := moved("nothing changed", heads())
	refs := s.git("for-each-ref", "refs/reasoning/tasks/")
	// A pull holds back another fetched history: no task ref moves.
	assess(a, "M-mixed", "Fetched unsigned", "Which way?")
	a.reason("push")
	if _, errs, code := s.run("reason", "pull"); code != 3 || !strings.Contains(errs, "3 tasks from origin quarantined") {
		t.Fatalf("pull of an unsigned record of M-mixed: exit %d: %s", code, errs)
	}
	if now := s.git("for-each-ref", "refs/reasoning/tasks/"); now != refs {
		t.Fatalf("the pull moved task refs:\n%s\nthen\n%s", refs, now)
	}
	h = moved("a pull quarantined M-mixed", h, "", "M-mixed")
	shows("quarantined=1", "U-unsigned", "N-new", "M-mixed")
	// The allowed signers change: eve's signature becomes good.
	evePub := harness.ReadFile(t, eve+".pub")
	harness.WriteFile(t, allowed, "ada@example.invalid "+string(pub)+"ada@example.invalid "+string(evePub))
	h = moved("eve's key allowed", h, "", "M-mixed", "E-eve", "S-signed")
	shows("sig=unverified")
	// Released from quarantine: the same history fetched, no longer
	// required to be signed.
	s.git("config", "reason.requireSigned", "false")
	s.reason("pull")
	moved("the quarantine released", h, "", "M-mixed")
	shows("quarantined=1")
}
