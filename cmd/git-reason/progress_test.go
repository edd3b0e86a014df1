package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProgressOnATerminal: a read across every task that has to replay
// their histories (the first after a clone, here after the caches are
// removed) says on a terminal how far it has come, as git's long steps
// do, verify, pull and push do for the tasks they verify, and the first show of
// an id prefix does for the tasks whose record ids it indexes; never in a pipe,
// and not for a read that ends within git's progress delay.
func TestProgressOnATerminal(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, fakeVendor, nil)
	for _, task := range []string{"T-1", "T-2", "T-3"} {
		s.assessTrivial(task, "Retry budget "+task, "Three or five?")
	}
	forget := func() {
		t.Helper()
		if err := os.RemoveAll(filepath.Join(s.dir, ".git", "reason")); err != nil {
			t.Fatal(err)
		}
	}
	now := []string{"GIT_PROGRESS_DELAY=0", "GIT_PAGER=cat"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"reason", "status"}, "Reading tasks: 100% (3/3), done.\r\n"},
		{[]string{"reason", "tasks"}, "Reading tasks: 100% (3/3), done.\r\n"},
		{[]string{"reason", "log", "-n", "2"}, "Reading tasks: 100% (3/3), done.\r\n"},
		{[]string{"reason", "search", "budget"}, "Reading tasks: 100% (3/3), done.\r\n"},
		{[]string{"reason", "handover"}, "Reading tasks: 100% (3/3), done.\r\n"},
		{[]string{"reason", "verify"}, "Verifying tasks: 100% (3/3), done.\r\n"},
	} {
		forget()
		p := startPTY(t, s, now, c.args...)
		if code := p.wait(); code != 0 {
			t.Fatalf("%s on a terminal exited %d:\n%s", strings.Join(c.args, " "), code, p.output())
		}
		if out := p.output(); !strings.Contains(out, "  0% (0/3)") || !strings.Contains(out, c.want) {
			t.Errorf("%s on a terminal, GIT_PROGRESS_DELAY=0: want its progress from 0%% to %q; it showed:\n%q",
				strings.Join(c.args, " "), c.want, out)
		}
	}

	// The first show of an id prefix indexes every task's record ids.
	id := strings.TrimSpace(s.reason("log", "T-2", "--json", "--jq", ".[0].id"))
	if err := os.RemoveAll(filepath.Join(s.dir, ".git", "reason", "ids")); err != nil {
		t.Fatal(err)
	}
	p := startPTY(t, s, now, "reason", "show", strings.Trim(id, `"`)[:10])
	if code := p.wait(); code != 0 {
		t.Fatalf("show on a terminal exited %d:\n%s", code, p.output())
	}
	if out := p.output(); !strings.Contains(out, "Indexing record ids:   0% (0/3)") || !strings.Contains(out, "Indexing record ids: 100% (3/3), done.\r\n") {
		t.Errorf("the first show of an id on a terminal, GIT_PROGRESS_DELAY=0: want its progress from 0%% to done; it showed:\n%q", out)
	}

	// push to a remote that has none of the tasks verifies each first.
	bare := shareOrigin(t, s)
	p = startPTY(t, s, now, "reason", "push")
	if code := p.wait(); code != 0 {
		t.Fatalf("push on a terminal exited %d:\n%s", code, p.output())
	}
	if out := p.output(); !strings.Contains(out, "Verifying tasks:   0% (0/3)") || !strings.Contains(out, "Verifying tasks: 100% (3/3), done.\r\n") {
		t.Errorf("push of 3 tasks on a terminal, GIT_PROGRESS_DELAY=0: want its progress from 0%% to done; it showed:\n%q", out)
	}

	// pull into a clone that has none of the tasks verifies each.
	peer := &sandbox{t: t, dir: filepath.Join(filepath.Dir(s.dir), "peer"), env: s.env}
	s.git("init", "-q", peer.dir)
	peer.git("remote", "add", "origin", bare)
	p = startPTY(t, peer, now, "reason", "pull", "origin")
	if code := p.wait(); code != 0 {
		t.Fatalf("pull on a terminal exited %d:\n%s", code, p.output())
	}
	if out := p.output(); !strings.Contains(out, "Verifying tasks:   0% (0/3)") || !strings.Contains(out, "Verifying tasks: 100% (3/3), done.\r\n") {
		t.Errorf("pull of 3 tasks on a terminal, GIT_PROGRESS_DELAY=0: want its progress from 0%% to done; it showed:\n%q", out)
	}
	// git fetch's own counts come first; its errors do not: the one line
	// of git reason's error says it once.
	if out := p.output(); !strings.Contains(out, "remote: Enumerating objects: ") {
		t.Errorf("pull on a terminal: want git fetch's progress; it showed:\n%q", out)
	}
	peer.git("remote", "add", "gone", filepath.Join(filepath.Dir(s.dir), "no-such.git"))
	p = startPTY(t, peer, now, "reason", "pull", "gone")
	if code := p.wait(); code != 1 || strings.Count(p.output(), "does not appear to be a git repository") != 1 {
		t.Errorf("pull from a remote that is not there, on a terminal: exit %d, want 1 and git's reason once:\n%q", code, p.output())
	}
	if _, stderr, _ := peer.run("reason", "pull"); strings.Contains(stderr, "objects") || strings.Contains(stderr, "tasks:") {
		t.Errorf("pull in a pipe showed progress:\n%s", stderr)
	}

	// In a pipe, nothing.
	forget()
	_, stderr, code := s.run(append([]string{"-c", "core.pager=cat"}, "reason", "status")...)
	if code != 0 || strings.Contains(stderr, "tasks:") {
		t.Errorf("status in a pipe: exit %d, stderr %q: want no progress", code, stderr)
	}
	// Within the delay (git's default, 2 s, when the variable is unset),
	// nothing either: three tasks read in far less.
	forget()
	start := time.Now()
	p = startPTY(t, s, []string{"GIT_PAGER=cat"}, "reason", "status")
	if code := p.wait(); code != 0 {
		t.Fatalf("status on a terminal exited %d:\n%s", code, p.output())
	}
	if out := p.output(); strings.Contains(out, "Reading tasks") && time.Since(start) < 2*time.Second {
		t.Errorf("status on a terminal that took %v showed progress within the delay:\n%q", time.Since(start), out)
	}
}
