package gitstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A push of more task refs than fit git push's command line well goes
// through a namespace of the process's own and one wildcard refspec:
// git's pre-push hook sees the staged refs as the local names, the
// remote gets each commit under its task ref, and no staged ref is left.
// A namespace a process that is gone left is removed; a live one stays.
func TestPushStagesManyTasks(t *testing.T) {
	r, c1, c2 := refTestRepo(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	gitIn(t, r.WorkTree, "init", "-q", "--bare", remote)
	gitIn(t, r.WorkTree, "remote", "add", "origin", remote)
	seen := filepath.Join(t.TempDir(), "pre-push")
	hook := filepath.Join(r.GitDir, "hooks", "pre-push")
	if err := os.MkdirAll(filepath.Dir(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ncat >> '"+seen+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	live := fmt.Sprintf("%s%d-1/", stagedPrefix, os.Getpid())
	gone := stagedPrefix + "2147483646-1/" // past any pid_max
	for _, ref := range []string{live + "x", gone + "x", gone + "y/z"} {
		gitIn(t, r.WorkTree, "update-ref", ref, c1)
	}

	push := func(n int) {
		t.Helper()
		var specs []string
		for i := range n {
			c := c1
			if i%2 == 1 {
				c = c2
			}
			specs = append(specs, fmt.Sprintf("%s:%sT-%d/a", c, TaskPrefix, i))
		}
		res, err := r.Push(context.Background(), "origin", specs)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != n {
			t.Fatalf("push of %d task refs: %d results %v", n, len(res), res)
		}
		for i, p := range res {
			if p.Flag != '*' || !strings.HasPrefix(p.Ref, TaskPrefix+"T-") {
				t.Fatalf("result %d of %d: %+v, want a created task ref", i, n, p)
			}
		}
		for i := range n {
			want := c1
			if i%2 == 1 {
				want = c2
			}
			if got := gitIn(t, remote, "rev-parse", fmt.Sprintf("%sT-%d/a", TaskPrefix, i)); got != want {
				t.Fatalf("remote's T-%d/a = %s, want %s", i, got, want)
			}
		}
	}

	defer func(n int) { pushInline = n }(pushInline)
	pushInline = 4
	push(3) // named on the command line
	b, _ := os.ReadFile(seen)
	if strings.Contains(string(b), stagedPrefix) {
		t.Fatalf("a push of 3 refs, 4 inline, staged them:\n%s", b)
	}
	os.Remove(seen)
	for _, ref := range strings.Fields(gitIn(t, remote, "for-each-ref", "--format=%(refname)", TaskPrefix)) {
		gitIn(t, remote, "update-ref", "-d", ref)
	}

	push(9) // staged
	b, _ = os.ReadFile(seen)
	if n := strings.Count(string(b), " "+TaskPrefix); n != 9 {
		t.Fatalf("the pre-push hook saw %d task refs, want 9:\n%s", n, b)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.HasPrefix(line, stagedPrefix) {
			t.Fatalf("a push of 9 refs, 4 inline: the hook saw %q, want a staged local ref", line)
		}
	}
	left := gitIn(t, r.WorkTree, "for-each-ref", "--format=%(refname)", stagedPrefix)
	if left != live+"x" {
		t.Fatalf("refs under %s after the push:\n%s\nwant only the live process's %sx", stagedPrefix, left, live)
	}
}
