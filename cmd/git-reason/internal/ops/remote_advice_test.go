package ops

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"git-reason/cmd/git-reason/internal/settings"
	"git-reason/record"
)

// A failed fetch or push ends with what to check, by what git said: the
// URL for a path that holds no repository, the user's access for a remote
// that refused them (ssh, and https with git's prompts off), the network
// and the URL for one that could not be reached; nothing for the rest.
// The git transport's "unable to connect to HOST:" has its reason on the
// next line, which the first line takes.
func TestRemoteAdvice(t *testing.T) {
	for _, c := range []struct{ stderr, want string }{
		{"fatal: '/x.git' does not appear to be a git repository\nfatal: Could not read from remote repository.\n", "check the URL of remote r "},
		{"git@host: Permission denied (publickey).\r\nfatal: Could not read from remote repository.\n", "check your access to remote r "},
		{"fatal: could not read Username for 'https://host': terminal prompts disabled\n", "check your access to remote r "},
		{"remote: Invalid username or password.\nfatal: Authentication failed for 'https://host/x.git/'\n", "check your access to remote r "},
		{"fatal: unable to connect to 127.0.0.1:\n127.0.0.1[0: 127.0.0.1]: errno=Connection refused\n", "check that remote r can be reached "},
		{"fatal: unable to access 'https://nohost/x.git/': Could not resolve host: nohost\n", "check that remote r can be reached "},
		{"ssh: connect to host h port 22: Connection timed out\nfatal: Could not read from remote repository.\n", "check that remote r can be reached "},
		{"fatal: the remote end hung up unexpectedly\n", ""},
	} {
		got := urlAdvice("r", c.stderr)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("after %q: %q, want %q", c.stderr, got, c.want)
		}
	}
}

// A failed catch-up's line, as doctor's catch_up_failed finding gives
// it, ends with the pull to run; to the MCP tools (the doctor tool) that
// pull is the person's, no tool fetches: the line said "run 'git reason
// pull origin'" to a client that cannot type it.
func TestCatchUpLineSaysThePersonPulls(t *testing.T) {
	for line, want := range map[string]string{
		"reasoning fetched from origin not integrated: no space left: run 'git reason pull origin'":                    "reasoning fetched from origin not integrated: no space left: 'git reason pull origin', which the person runs (no tool fetches)",
		"fetched reasoning not integrated: locked: run 'git reason pull'":                                              "fetched reasoning not integrated: locked: 'git reason pull', which the person runs (no tool fetches)",
		"3 more fetched tasks from origin quarantined: local refs untouched; 'git reason pull origin' names every one": "",
	} {
		if got := personPulls(line); got != want {
			t.Errorf("%q: %q, want %q", line, got, want)
		}
	}
}

// TestCaughtUpLineStaysReadable: the line saying what a catch-up
// integrated named every task, so the first command after a fetch of a
// team's reasoning (or after a pull Ctrl-C stopped once its fetch was
// done) printed one line of 5,001 names. Past ten tasks it gives the
// count of each outcome, three names and how many more; past ten
// quarantined tasks, one line says how many more.
func TestCaughtUpLineStaysReadable(t *testing.T) {
	res := func(n int) *PullResult {
		r := &PullResult{Remote: "origin"}
		for i := range n {
			outcome := PullCreated
			if i%1000 == 999 {
				outcome = PullFastForward
			}
			r.Tasks = append(r.Tasks, &PulledTask{Task: fmt.Sprintf("T-%06d", i), Outcome: outcome})
		}
		return r
	}
	if got, want := caughtUpLines(res(2)), "integrated reasoning fetched from origin: T-000000 created, T-000001 created"; len(got) != 1 || got[0] != want {
		t.Errorf("two tasks: %q, want [%q]", got, want)
	}
	quarantined := res(25)
	for _, in := range quarantined.Tasks {
		in.Outcome = PullQuarantined
	}
	if got := caughtUpLines(quarantined); len(got) != listedArrivals+1 || !strings.HasPrefix(got[listedArrivals], "15 more fetched tasks from origin quarantined") {
		t.Errorf("25 quarantined tasks: %d lines, want %d ending with the 15 more:\n%s", len(got), listedArrivals+1, strings.Join(got, "\n"))
	}
	got := caughtUpLines(res(5001))
	want := "integrated reasoning fetched from origin: 5001 tasks (4996 created, 5 fast-forward): T-000000 created, T-000001 created, T-000002 created and 4998 more; see them with 'git reason tasks'"
	if len(got) != 1 || got[0] != want {
		t.Errorf("5,001 tasks: %q, want [%q]", got, want)
	}
}

// TestSkippedTasksStayFewLines: a task whose history does not read is
// skipped with a warning line naming it, and fetched refs from elsewhere
// may hold thousands: every command printed a line for each (30 lines
// for 30 forged tasks, by hand, before the status table). The first ten
// are named, then one line says the rest are skipped and that verify
// names every one.
func TestSkippedTasksStayFewLines(t *testing.T) {
	var lines, tools []string
	skip := skipWarner(func(a record.Advice) { lines, tools = append(lines, a.String()), append(tools, a.ToolMessage()) }, new(atomic.Int64))
	for i := range 30 {
		skip(fmt.Sprintf("Bad%d", i), fmt.Errorf("not a tree of a task"))
	}
	if len(lines) != skippedLines+1 {
		t.Fatalf("30 skipped tasks made %d lines, want %d:\n%s", len(lines), skippedLines+1, strings.Join(lines, "\n"))
	}
	if !strings.Contains(lines[0], "skipped task Bad0,") || !strings.Contains(lines[skippedLines-1], "skipped task Bad9,") {
		t.Errorf("the first lines do not name the first tasks:\n%s", strings.Join(lines, "\n"))
	}
	if last := lines[skippedLines]; !strings.Contains(last, "more tasks whose history does not read") || !strings.Contains(last, "git reason verify") {
		t.Errorf("the last line %q does not say the rest were skipped and where to see them", last)
	}
	// To the MCP tools, the verify tool, not a command line.
	if tools[0] != strings.Replace(lines[0], "'git reason verify Bad0'", `the verify tool (tasks: ["Bad0"])`, 1) || strings.Contains(tools[skippedLines], "git reason") {
		t.Errorf("to the tools:\n%s", strings.Join(tools, "\n"))
	}
}

// A fetch refspec that maps refs/reasoning/tasks/ onto itself (a mirror
// clone's +refs/*:refs/*, or narrower) is a mirror of the remote's tasks;
// one that maps them elsewhere, or maps only branches, is not.
func TestMirrorsTasks(t *testing.T) {
	for spec, want := range map[string]bool{
		"+refs/*:refs/*":                                     true,
		"refs/*:refs/*":                                      true,
		"+refs/reasoning/*:refs/reasoning/*":                 true,
		"+refs/reasoning/tasks/*:refs/reasoning/tasks/*":     true,
		"+refs/reasoning/tasks/*:refs/reasoning/remotes/r/*": false,
		"+refs/heads/*:refs/remotes/r/*":                     false,
		"+refs/heads/*:refs/heads/*":                         false,
		"+refs/reasoning/tasks/T-1:refs/reasoning/tasks/T-1": false,
		"refs/*": false,
	} {
		st := &settings.Settings{Remotes: map[string]settings.Remote{"r": {Fetch: []string{"+refs/heads/*:refs/remotes/r/*", spec}}}}
		if got := mirrorsTasks(st, "r"); got != want {
			t.Errorf("%s: mirrorsTasks %v, want %v", spec, got, want)
		}
	}
}
