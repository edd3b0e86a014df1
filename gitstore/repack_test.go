package gitstore_test

import (
	"context"
	"fmt"
	"testing"

	"git-reason/record"
	"git-reason/reliability/harness"
)

// The store under concurrent writers, git pack-refs and git gc, with real
// processes, is tested end to end in reliability (TestConcurrentWriters).

// TestStoreSurvivesRepackAfterOpen is a failure the concurrent-writers test made
// deterministic: a process opens the store and reads (which loads go-git's
// list of packs), then `git gc` packs the loose objects written since and
// deletes them and the old pack, as a concurrent `git gc --auto` does; the
// process must still read the task and append to it, as git itself does by
// rescanning objects/pack when an object is missing.
func TestStoreSurvivesRepackAfterOpen(t *testing.T) {
	t.Parallel()
	harness.NeedGit(t)
	const task = "T-repack"
	ctx := context.Background()
	dir := newRepo(t)
	gc := func() {
		t.Helper()
		harness.Git(t, dir, "gc", "--quiet")
	}
	writer := func() *record.Writer { return indexedWriter(openStore(t, dir), "Repack") }
	first := writer()
	for i := range 3 {
		assessTrivially(t, first, task, fmt.Sprintf("packed %d", i))
	}
	gc() // pack 1 holds records 1-3
	held := writer()
	assessTrivially(t, held, task, "read through pack 1") // loads the pack list
	assessTrivially(t, writer(), task, "loose, then repacked")
	gc() // pack 2 replaces pack 1 and the loose objects
	if _, recs, err := held.Store.Load(ctx, task); err != nil || len(recs) != 5 {
		t.Errorf("Load after a repack by git gc, on a store opened before it: %d records, %v; want 5, nil", len(recs), err)
	}
	if _, err := held.Append(ctx, task, record.KindAssessment, trivialAssessment("after the repack")); err != nil {
		t.Errorf("append after a repack by git gc, on a store opened before it: %v", err)
	}
}
