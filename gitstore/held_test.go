package gitstore_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"git-reason/gitstore"
	"git-reason/record"
)

// The replays of one run, on several goroutines, each with a Store of
// its own sharing one Shared and one record.Checked, as a pull's
// workers replay: the tasks at a head the run expects more than one task
// at find what each finds replayed alone, and only that head's history is
// held for the run. A head one task names was held too, whole, for the
// rest of the run, though no other task would take it: a pull of 16 refs,
// each a commit of its own on a tree of 200,000 entries, peaked at 1.7 GB
// where one replay at a time took 1.0 GB (bench/manyrefs/run.sh).
func TestReplaysHoldOnlyHeadsOthersShare(t *testing.T) {
	t.Parallel()
	h := newForgHistory(t)
	att := h.diverge("k", record.KindAttempt, `{"conclusion":"{k}","commits":["0123456789abcdef0123456789abcdef01234567"],"outcome":"succeeded"}`)
	merge := h.write(&forgCommit{parents: []string{h.commit["v"], att.Commit},
		files: union(h.files(h.commit["v"]), h.files(att.Commit)), msg: "merge: task T from two clones\n",
		when: time.Now(), author: forgActor})
	alone, many := h.commit["k"], merge
	type replay struct{ task, head string }
	var todo []replay
	for _, task := range []string{forgTask, "X1", "X2", "X3", "X4", "X5"} {
		todo = append(todo, replay{task, many})
	}
	todo = append(todo, replay{"Y", alone})
	want := make([]string, len(todo))
	for i, r := range todo {
		found, _ := openStore(t, h.dir).Replay(context.Background(), r.task, r.head, nil)
		want[i] = forgSorted(found)
	}
	if want[0] != "" || want[1] == "" {
		t.Fatalf("the merge replays as task T with findings %q, as X1 with %q; want none and some", want[0], want[1])
	}

	shared := &gitstore.Shared{}
	heads := make([]string, len(todo))
	for i, r := range todo {
		heads[i] = r.head
	}
	shared.Expect(heads)
	var checked record.Checked
	got := make([]string, len(todo))
	var wg sync.WaitGroup
	for i, r := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := openStore(t, h.dir)
			s.Share(shared)
			found, recs := s.Replay(context.Background(), r.task, r.head, &checked)
			if len(found) == 0 {
				// What a clean replay returns is read on as a pull reads it.
				if _, err := record.Derive(r.task, recs); err != nil {
					t.Errorf("%s: derive: %v", r.task, err)
				}
			}
			got[i] = forgSorted(found)
		}()
	}
	wg.Wait()
	for i, r := range todo {
		if got[i] != want[i] {
			t.Errorf("%s at %s, replayed beside the others, found:\n%s\nreplayed alone:\n%s", r.task, r.head[:7], got[i], want[i])
		}
	}
	if held := gitstore.HeldHistories(shared); !slices.Equal(held, []string{many}) {
		t.Errorf("the run holds the histories of %v, want only %s, the head more than one task is replayed at", held, many[:7])
	}
}
