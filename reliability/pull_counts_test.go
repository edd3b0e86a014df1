package reliability

import (
	"fmt"
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
	moved := moveOnOrigin(c, k)
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

// moveOnOrigin moves the first k tasks on c's origin (records written in
// c, pushed by plain git in one push, c's refs set back, as if another
// clone had written them) and returns their names.
func moveOnOrigin(c *sandbox, k int) []string {
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
	return moved
}
