package reliability

import "testing"

// TestVerifyCounts holds verify of every task to what moved, with counts
// that do not depend on timing: after a first verify, a verify with
// nothing moved reads no task's records, replays no history and starts as
// many git processes at 1,000 tasks as at 10, no more than a warm status
// (the remembered heads with
// their reuses checked, and the signature checks kept by head,
// verify-signatures.journal). Before, it read every task's records for
// the reuse checks and asked git for every commit's signature (one git
// rev-list and one git log per 10,000 heads).
func TestVerifyCounts(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 1,000 tasks; skipped with -short")
	}
	type counts struct {
		read cost
		// gits: verify's git processes; status: a warm status's, which
		// asks git nothing about the tasks.
		gits, status int
	}
	measure := func(n int) counts {
		c := scaleWorld(t, n)
		c.mustReason("verify")
		var got counts
		got.read, got.gits = c.costedTraced(true, "verify")
		c.mustReason("status")
		_, got.status = c.costedTraced(true, "status")
		return got
	}
	small, large := measure(10), measure(1000)
	t.Logf("verify with nothing moved: %+v and %d git processes at 10 tasks, %+v and %d at 1,000", small.read, small.gits, large.read, large.gits)
	for _, c := range []struct {
		n int
		counts
	}{{10, small}, {1000, large}} {
		if c.read.Tasks != 0 || c.read.Histories != 0 {
			t.Errorf("verify with nothing moved at %d tasks read %d tasks' records and replayed %d histories, want none", c.n, c.read.Tasks, c.read.Histories)
		}
		if c.gits > c.status {
			t.Errorf("verify with nothing moved at %d tasks started %d git processes, a warm status %d: the signatures were asked of git again", c.n, c.gits, c.status)
		}
	}
	if large.gits != small.gits {
		t.Errorf("verify with nothing moved started %d git processes at 1,000 tasks and %d at 10; want the same", large.gits, small.gits)
	}
}
