package reliability

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"git-reason/reliability/harness"
)

// TestVerifyCounts holds verify of every task to what moved, with counts
// that do not depend on timing: after a first verify, a verify with
// nothing moved reads no task's records, replays no history and starts as
// many git processes at 1,000 tasks as at 10, no more than a warm status
// (the remembered heads with
// their reuses checked, and the signature checks kept by head,
// verify-signatures.journal). Before, it read every task's records for
// the reuse checks and asked git for every commit's signature (one git
// rev-list and one git log per 10,000 heads), and then a file per task
// of the remembered verifications (verified.d/), where it reads their
// bulk form (verified.all) now.
func TestVerifyCounts(t *testing.T) {
	harness.SkipShort(t, "generates 1,000 tasks")
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
		// The remembered verifications are read in one file
		// (verified.all), not a file per task (verified.d/).
		if c.read.RememberedFiles != 0 {
			t.Errorf("verify with nothing moved at %d tasks read %d task files of the remembered verifications, want none", c.n, c.read.RememberedFiles)
		}
		if c.gits > c.status {
			t.Errorf("verify with nothing moved at %d tasks started %d git processes, a warm status %d: the signatures were asked of git again", c.n, c.gits, c.status)
		}
	}
	if large.gits != small.gits {
		t.Errorf("verify with nothing moved started %d git processes at 1,000 tasks and %d at 10; want the same", large.gits, small.gits)
	}
}

// TestVerifyAllMoved holds the bulk remembered verifications
// (verified.all) to the heads they were written at: a task moved by
// plain git after they were written is verified again (its history read,
// its task file of verified.d/ looked up), an honest one passes and a
// forged one is caught; a bulk file edited by hand holds nothing (every
// task looked up again) and is written again by that verification.
func TestVerifyAllMoved(t *testing.T) {
	harness.SkipShort(t, "generates tasks")
	const n = 10
	c := scaleWorld(t, n)
	const task = "T-000004"
	ref := taskRef(task)
	old := strings.TrimSpace(c.git("rev-parse", ref))
	c.mustReason("assess", task, "--subject", "moved by plain git", "--question", "q", "--materiality", "trivial", "--reversibility", "reversible")
	honest := strings.TrimSpace(c.git("rev-parse", ref))
	c.git("update-ref", ref, old)
	c.mustReason("verify")
	if got := c.costed("verify"); got.RememberedFiles != 0 || got.Histories != 0 {
		t.Fatalf("verify with nothing moved: %+v, want no task file and no history read", got)
	}

	// Moved by plain git to an honest head: verified again, and passes.
	c.git("update-ref", ref, honest)
	if got := c.costed("verify"); got.Histories != 1 || got.RememberedFiles != 1 {
		t.Errorf("verify after git update-ref moved %s: %+v, want its history read and its task file looked up, once each", task, got)
	}
	if got := c.costed("verify"); got.RememberedFiles != 0 || got.Histories != 0 {
		t.Errorf("verify after the moved task was verified: %+v, want nothing looked up", got)
	}

	// Moved by plain git to a forged head: a record the writer never
	// wrote (an assessment's blob again, under another clock), in a
	// commit made with plumbing.
	records := strings.Split(strings.TrimSpace(c.git("ls-tree", honest+":records")), "\n")
	mode, name, _ := strings.Cut(records[0], "\t")
	forgedName := "9" + name[1:]
	recTree := strings.TrimSpace(c.runStdin(strings.Join(append(records, mode+"\t"+forgedName), "\n")+"\n", "mktree"))
	var root []string
	for _, line := range strings.Split(strings.TrimSpace(c.git("ls-tree", honest)), "\n") {
		if strings.HasSuffix(line, "\trecords") {
			line = "040000 tree " + recTree + "\trecords"
		}
		root = append(root, line)
	}
	rootTree := strings.TrimSpace(c.runStdin(strings.Join(root, "\n")+"\n", "mktree"))
	forged := strings.TrimSpace(c.git("commit-tree", rootTree, "-p", honest, "-m", "assessment: forged"))
	c.git("update-ref", ref, forged)
	r := c.reason("verify")
	if r.code != 3 || !strings.Contains(r.stdout+r.stderr, task) {
		t.Fatalf("verify after git update-ref moved %s to a forged head: exit %d, want 3 naming the task\n%s%s", task, r.code, r.stdout, r.stderr)
	}
	if r := c.reason("verify"); r.code != 3 {
		t.Fatalf("the second verify of the forged head: exit %d, want 3 (never remembered clean)\n%s%s", r.code, r.stdout, r.stderr)
	}
	c.git("update-ref", ref, honest)
	c.mustReason("verify")

	// Edited by hand (a head of another task put in, or any byte): the
	// file holds nothing, every task is looked up, and it is written anew.
	bulk := filepath.Join(c.gitDir(), "reason", "verified.all")
	data := harness.ReadFile(t, bulk)
	edited := strings.Replace(string(data), honest, old, 1)
	if edited == string(data) {
		t.Fatalf("verified.all does not hold %s at %s:\n%s", task, honest, data)
	}
	if err := os.WriteFile(bulk, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := c.costed("verify"); got.RememberedFiles != n {
		t.Errorf("verify with verified.all edited: %+v, want the file ignored and the %d task files looked up", got, n)
	}
	if got := c.costed("verify"); got.RememberedFiles != 0 {
		t.Errorf("verify after verified.all was written again: %+v, want no task file looked up", got)
	}
}

// runStdin runs git with stdin and fails the test unless it exits 0.
func (s *sandbox) runStdin(stdin string, args ...string) string {
	s.t.Helper()
	r := s.run(context.Background(), []byte(stdin), "git", args...)
	if r.err != nil {
		s.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), r.err, r.stderr)
	}
	return r.stdout
}
