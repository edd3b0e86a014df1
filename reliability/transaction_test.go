package reliability

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"git-reason/reliability/harness"
)

// movedElsewhere moves tasks on c's remote as another clone would: a
// record written here for each, pushed by plain git in one push, the
// local refs set back. It returns each task's head before and after.
func movedElsewhere(c *sandbox, tasks ...string) (before, after map[string]string) {
	c.t.Helper()
	before, after = map[string]string{}, map[string]string{}
	var specs []string
	for _, task := range tasks {
		ref := taskRef(task)
		before[task] = strings.TrimSpace(c.git("rev-parse", ref))
		c.mustReason("assess", task, "--subject", "moved elsewhere "+task, "--question", "q", "--materiality", "trivial", "--reversibility", "reversible")
		after[task] = strings.TrimSpace(c.git("rev-parse", ref))
		specs = append(specs, ref+":"+ref)
	}
	c.git(append([]string{"push", "-q", "--no-verify", "origin"}, specs...)...)
	for _, task := range tasks {
		c.git("update-ref", taskRef(task), before[task])
	}
	return before, after
}

// TestIntegrationTransactionFails holds the fallback of pull and of the
// catch-up when their one `git update-ref --stdin` transaction, which
// moves every integrated task's ref at once, fails: the refs then move
// one by one, each by compare-and-swap, and none is left half-moved
// (every ref at its old head or at the head integrated, nothing else, no
// lock of ours left behind).
//
//   - git's reference-transaction hook refuses the transaction (as a
//     concurrent process holding a ref would make it fail): the pull
//     integrates every task all the same, and says so as a pull that
//     succeeded does;
//   - a stale lock on one task's ref: the transaction fails, and so does
//     that task's own move; the catch-up after a plain git fetch says so
//     in one line and exits 0, the locked task's ref is untouched, and
//     once the lock is gone the next command integrates it.
func TestIntegrationTransactionFails(t *testing.T) {
	harness.SkipShort(t, "generates tasks")
	moved := []string{"T-000001", "T-000002", "T-000003"}
	atHeads := func(c *sandbox, before, after map[string]string) (at map[string]string) {
		at = map[string]string{}
		for _, task := range moved {
			h := strings.TrimSpace(c.git("rev-parse", taskRef(task)))
			switch h {
			case after[task]:
				at[task] = "integrated"
			case before[task]:
				at[task] = "old"
			default:
				t.Errorf("%s is at %s, neither its old head %s nor the fetched one %s", task, h, before[task], after[task])
			}
		}
		return at
	}

	t.Run("hook refuses the transaction", func(t *testing.T) {
		c := scaleWorld(t, 10)
		before, after := movedElsewhere(c, moved...)
		hooks := strings.TrimSpace(c.git("rev-parse", "--git-path", "hooks"))
		if !filepath.IsAbs(hooks) {
			hooks = filepath.Join(c.dir, hooks)
		}
		marker := filepath.Join(t.TempDir(), "refused")
		hook := fmt.Sprintf("#!/bin/sh\nif test \"$1\" = prepared && grep -q ' refs/reasoning/tasks/'; then echo refused >>'%s'; exit 1; fi\nexit 0\n", marker)
		if err := os.MkdirAll(hooks, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(hooks, "reference-transaction"), []byte(hook), 0o755); err != nil {
			t.Fatal(err)
		}
		r, started := c.children("pull")
		if r.code != 0 {
			t.Fatalf("pull with its transaction refused: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		if !slices.Contains(started, "update-ref") {
			t.Errorf("pull of %d moved tasks started %v: no update-ref transaction", len(moved), started)
		}
		if data, err := os.ReadFile(marker); err != nil || strings.Count(string(data), "refused") != 1 {
			t.Fatalf("the hook refused %q transactions (%v), want one", data, err)
		}
		for task, at := range atHeads(c, before, after) {
			if at != "integrated" {
				t.Errorf("after the pull %s is at its %s head, want the fetched one", task, at)
			}
			if want := fmt.Sprintf("%s: fast-forward %.12s..%.12s", task, before[task], after[task]); !strings.Contains(r.stdout, want) {
				t.Errorf("pull does not say %q:\n%s", want, r.stdout)
			}
		}
		if locks := c.locks(); len(locks) > 0 {
			t.Errorf("locks left behind: %v", locks)
		}
		if f := c.fsck(); f.err != nil || len(f.complaints) > 0 {
			t.Errorf("git fsck after the pull: %v %v", f.err, f.complaints)
		}
	})

	t.Run("stale lock on one ref", func(t *testing.T) {
		c := scaleWorld(t, 10)
		c.mustReason("status")
		before, after := movedElsewhere(c, moved...)
		lock := filepath.Join(c.gitDir(), "refs", "reasoning", "tasks", "T-000002.lock")
		if err := os.MkdirAll(filepath.Dir(lock), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(lock, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		c.git("fetch", "-q", "origin", "+refs/reasoning/tasks/*:refs/reasoning/remotes/origin/*")
		r := c.reason("status", "T-000005")
		if r.code != 0 {
			t.Fatalf("status after a fetch, a ref locked: exit %d, want 0 (a catch-up that fails never fails the command)\n%s%s", r.code, r.stdout, r.stderr)
		}
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if len(lines) != 1 || !strings.Contains(lines[0], "T-000002.lock") {
			t.Errorf("status after a fetch, a ref locked, said on stderr:\n%s\nwant one line naming the lock", r.stderr)
		}
		if at := atHeads(c, before, after); at["T-000002"] != "old" {
			t.Errorf("the locked task T-000002 is at its %s head, want it untouched", at["T-000002"])
		}
		if _, err := os.Stat(lock); err != nil {
			t.Errorf("the stale lock is gone (%v): not ours to remove", err)
		}
		if locks := c.locks(); len(locks) != 1 {
			t.Errorf("locks after the catch-up: %v, want the stale one alone", locks)
		}
		os.Remove(lock)
		c.mustReason("status", "T-000005")
		for task, at := range atHeads(c, before, after) {
			if at != "integrated" {
				t.Errorf("after the lock was gone and a status, %s is at its %s head, want the fetched one", task, at)
			}
		}
		if f := c.fsck(); f.err != nil || len(f.complaints) > 0 {
			t.Errorf("git fsck after the catch-up: %v %v", f.err, f.complaints)
		}
	})
}
