package reliability

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"git-reason/reliability/harness"
)

// TestPullCounts holds a pull to one read of each moved history, with
// counts that do not depend on timing: after k tasks moved on the remote
// (records written in this clone, pushed by plain git in one push, the
// local refs set back, as if another clone had written them), a pull
// replays the k histories and reads no task's records again. Before, the
// integration replayed each and the session then read each moved task
// again for the subject index (NoteStanding): k histories and k tasks.
func TestPullCounts(t *testing.T) {
	harness.SkipShort(t, "generates tasks and moves them")
	const n, k = 30, 12
	c := scaleWorld(t, n)
	c.mustReason("status")
	var moved, specs, olds []string
	for i := range k {
		task := fmt.Sprintf("T-%06d", i)
		ref := taskRef(task)
		olds = append(olds, strings.TrimSpace(c.git("rev-parse", ref)))
		c.mustReason("assess", task, "--subject", "moved elsewhere "+task, "--question", "q", "--materiality", "trivial", "--reversibility", "reversible")
		specs = append(specs, ref+":"+ref)
		moved = append(moved, task)
	}
	c.git(append([]string{"push", "-q", "--no-verify", "origin"}, specs...)...)
	for i, task := range moved {
		c.git("update-ref", taskRef(task), olds[i])
	}
	got := c.costed("pull")
	t.Logf("pull after %d tasks moved: %+v", k, got)
	for _, task := range moved {
		if l, r := c.git("rev-parse", taskRef(task)), c.git("rev-parse", "refs/reasoning/remotes/origin/"+task); l != r {
			t.Errorf("after the pull %s is at %s, its tracking ref at %s", task, l, r)
		}
	}
	if got.Histories != k || got.Tasks != 0 {
		t.Errorf("a pull after %d tasks moved replayed %d histories and read %d tasks' records besides, want %d and 0: each moved history read once", k, got.Histories, got.Tasks, k)
	}
}

// TestNewClonePullSeedsCaches holds the first read after the first pull
// of a new clone (git init, git remote add, git reason pull) to the files
// the pull wrote: the pull's replay read and checked every record of each
// task it integrated, and it caches each task from them (Store.SeedTask),
// so a status after it reads no record blob and writes no task cache.
// Before, the pull kept no task cache and the status read every task's
// records from git again and wrote a cache per task (at 5,000 tasks,
// 3.9 s and 5,004 files). The caches the pull wrote, of tasks it
// created, fast-forwarded from a head remembered clean and merged, are
// byte for byte the ones a read of the tasks from git writes.
func TestNewClonePullSeedsCaches(t *testing.T) {
	harness.SkipShort(t, "generates tasks")
	const n = 30
	world := scaleWorld(t, n)
	c := newSandbox(t)
	c.git("remote", "add", "origin", strings.TrimSpace(world.git("remote", "get-url", "origin")))
	c.mustReason("pull")
	pulled := c.reasonFiles()
	seeded := 0
	for name := range pulled {
		if strings.HasPrefix(name, "tasks/") {
			seeded++
		}
	}
	if seeded != n {
		t.Errorf("the first pull of a new clone of %d tasks left %d task caches, want %d", n, seeded, n)
	}
	got := c.costed("status")
	t.Logf("the first status after the pull: %+v", got)
	if got.Blobs != 0 {
		t.Errorf("the first status after the pull read %d record blobs from git, want 0: the pull checked them all", got.Blobs)
	}
	for name, now := range c.reasonFiles() {
		if was, ok := pulled[name]; strings.HasPrefix(name, "tasks/") && (!ok || !bytes.Equal(was, now)) {
			t.Errorf("the first status after the pull wrote the task cache %s", name)
		}
	}
	// A pull that fast-forwards a task from the head the first pull
	// remembered clean, and one that merges a task written here too.
	moved := []string{"T-000001", "T-000002"}
	for _, task := range moved {
		world.mustReason("assess", task, "--subject", "moved elsewhere "+task, "--question", "q", "--materiality", "trivial", "--reversibility", "reversible")
		world.git("push", "-q", "--no-verify", "origin", taskRef(task)+":"+taskRef(task))
	}
	c.mustReason("assess", "T-000002", "--subject", "written here", "--question", "q", "--materiality", "trivial", "--reversibility", "reversible")
	c.mustReason("pull")
	if parents := strings.Fields(c.git("log", "-1", "--format=%P", taskRef("T-000002"))); len(parents) != 2 {
		t.Fatalf("the pull did not merge T-000002: its head has parents %v", parents)
	}
	pulled = c.reasonFiles()
	for _, task := range moved {
		head := strings.TrimSpace(c.git("rev-parse", taskRef(task)))
		if cache := pulled["tasks/"+task+".records"]; !bytes.Contains(cache, []byte(" "+head+" ")) {
			t.Errorf("the pull did not cache %s at its new head %s: %q", task, head, cache)
		}
	}
	// Every cache but the repository key gone: the status reads each
	// task from git and caches it under the same key.
	reasonDir := filepath.Join(c.gitDir(), "reason")
	ents, err := os.ReadDir(reasonDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != "verified.key" {
			if err := os.RemoveAll(filepath.Join(reasonDir, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := c.costed("status"); got.Blobs < 2*n {
		t.Fatalf("a status with no cache read %d record blobs, want every task's %d at least", got.Blobs, 2*n)
	}
	read := c.reasonFiles()
	for name, was := range pulled {
		if strings.HasPrefix(name, "tasks/") && !bytes.Equal(was, read[name]) {
			t.Errorf("the pull's cache %s is not the one a read of the task from git writes:\n%q\n%q", name, was, read[name])
		}
	}
}
