package gitstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"git-reason/gitstore"
)

// TestInterruptedReadKeepsWhatItRead: the first read of every task in a
// clone (no caches yet) derives and replays each task, which takes
// seconds at thousands of tasks, and a person may well stop it. What it
// had derived was thrown away, and the next command started again from
// the first task. The tasks read before the interrupt are kept, in the
// status index and as verdicts, and the next read derives the rest.
func TestInterruptedReadKeepsWhatItRead(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	w := indexedWriter(openStore(t, dir), "Cache")
	const tasks, stopAt = 12, 5
	for i := range tasks {
		assessTrivially(t, w, fmt.Sprintf("T%02d", i), fmt.Sprintf("subject %d", i))
	}
	// A clone: the refs, and nothing under .git/reason yet.
	if err := os.RemoveAll(filepath.Join(dir, ".git", "reason")); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.OnProgress = func(_ string, done, _ int) {
		if done == stopAt {
			cancel() // Ctrl-C while the task at stopAt is read
		}
	}
	if _, _, err := (gitstore.Index{Store: s}).Tasks(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted read: %v, want context.Canceled", err)
	}
	kept := func() (n int) {
		j := gitstore.OpenSealed(s.Repo, "status.journal", "index")
		for i := range tasks {
			if _, _, ok := j.Entry(fmt.Sprintf("T%02d", i)); ok {
				n++
			}
		}
		return n
	}
	if n := kept(); n != stopAt {
		t.Fatalf("after the interrupt the status index holds %d tasks, want the %d read before it", n, stopAt)
	}
	next := openStore(t, dir)
	for i := range tasks {
		task := fmt.Sprintf("T%02d", i)
		head, err := next.Repo.ReadRef(gitstore.TaskRef(task))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := next.KnownClean(task, head), i < stopAt; got != want {
			t.Errorf("%s known clean without a replay: %v, want %v", task, got, want)
		}
	}
	ths, entries, err := (gitstore.Index{Store: next}).Tasks(context.Background())
	if err != nil || len(ths) != tasks || len(entries) != tasks {
		t.Fatalf("the read after: %d tasks, %d entries, %v; want %d", len(ths), len(entries), err, tasks)
	}
	if n := kept(); n != tasks {
		t.Errorf("after the next read the status index holds %d tasks, want %d", n, tasks)
	}
}
