package reliability

import (
	"fmt"
	"strings"
	"testing"
)

// errorRecorder is a testing.TB that keeps what a check reports instead of
// failing the test, so that a check itself can be tested.
type errorRecorder struct {
	testing.TB
	errors []string
}

func (r *errorRecorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// TestCheckChainCatchesABrokenHistory: the chain check the concurrency
// and crash tests rely on passes a history the tool wrote and reports one
// in which a commit changed nothing and one that rewrote a record.
func TestCheckChainCatchesABrokenHistory(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	for _, subject := range []string{"first", "second"} {
		s.mustReason("assess", "T-chain", "--subject", subject, "--question", "q",
			"--materiality", "trivial", "--reversibility", "reversible")
	}
	rec := &errorRecorder{TB: t}
	s.t = rec
	s.checkChain("T-chain", s.records("T-chain"))
	if len(rec.errors) > 0 {
		t.Fatalf("a history written by git reason: %q", rec.errors)
	}

	// A commit on top that changes nothing: one commit too many.
	ref := taskRef("T-chain")
	head := strings.TrimSpace(s.git("rev-parse", ref))
	empty := strings.TrimSpace(s.git("commit-tree", "-p", head, "-m", "nothing", head+"^{tree}"))
	s.git("update-ref", ref, empty)
	s.checkChain("T-chain", s.records("T-chain"))
	if !containsAll(rec.errors, "3 first-parent commits for 2 records", "commit 3", "must add exactly one record") {
		t.Errorf("an empty commit on the chain: reported %q", rec.errors)
	}

	// The second commit rewritten to change its record's subject: the
	// head tree's blob is not the one the first commit added.
	rec.errors = nil
	recs := s.records("T-chain")
	first := recs[0]
	blob := s.run(t.Context(), []byte(strings.Replace(s.git("cat-file", "blob", first.blob), "first", "forged", 1)),
		"git", "hash-object", "-w", "--stdin")
	tree := strings.TrimSpace(s.git("ls-tree", "-r", head))
	tree = strings.Replace(tree, first.blob, strings.TrimSpace(blob.stdout), 1)
	recordsTree := s.run(t.Context(), []byte(strings.ReplaceAll(tree, "records/", "")+"\n"), "git", "mktree")
	root := s.run(t.Context(), []byte("040000 tree "+strings.TrimSpace(recordsTree.stdout)+"\trecords\n"), "git", "mktree")
	forged := strings.TrimSpace(s.git("commit-tree", "-p", head, "-m", "forged", strings.TrimSpace(root.stdout)))
	s.git("update-ref", ref, forged)
	s.checkChain("T-chain", s.records("T-chain"))
	if !containsAll(rec.errors, "which the head tree does not hold") {
		t.Errorf("a rewritten record: reported %q", rec.errors)
	}
}

func containsAll(got []string, want ...string) bool {
	all := strings.Join(got, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			return false
		}
	}
	return true
}
