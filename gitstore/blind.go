package gitstore

import (
	"context"
	"slices"
	"sync"

	"git-reason/record"
)

// heldByHead holds a value by head until dropped, each made once: while a
// goroutine makes a head's value, another asking for it waits for it.
// The zero value is ready; it is safe for concurrent use.
type heldByHead[T any] struct {
	mu   sync.Mutex
	m    map[string]T
	busy map[string]chan struct{} // head -> closed when its value is made
}

// hold returns the value held for head (held). When none is, it returns
// done, which the caller calls once it has made the value (and put it,
// when it is to be held), so that the others waiting go on; when ctx
// ends while it waits, nothing and a done that does nothing.
func (b *heldByHead[T]) hold(ctx context.Context, head string) (v T, held bool, done func()) {
	b.mu.Lock()
	for {
		if v, ok := b.m[head]; ok {
			b.mu.Unlock()
			return v, true, nil
		}
		busy, ok := b.busy[head]
		if !ok {
			break
		}
		b.mu.Unlock()
		select {
		case <-busy:
		case <-ctx.Done():
			return v, false, func() {}
		}
		b.mu.Lock()
	}
	if b.busy == nil {
		b.busy = map[string]chan struct{}{}
	}
	busy := make(chan struct{})
	b.busy[head] = busy
	b.mu.Unlock()
	return v, false, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		delete(b.busy, head)
		close(busy)
	}
}

// drop lets go of the value held for head.
func (b *heldByHead[T]) drop(head string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.m, head)
}

func (b *heldByHead[T]) put(head string, v T) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[string]T{}
	}
	b.m[head] = v
}

// blindReplays holds, by head, what the replays of one run that were
// blind to their task (record.Checked.ReplayBlind) found, each replayed
// from no remembered head: a replay of that head for another task, from
// no remembered head either, finds the same, each finding that task's. A
// remote of 2,000 task refs naming one commit of entries that are no
// record was replayed 2,000 times by one pull (80 s of CPU, two git
// processes a ref); now once. Only a head the run is to replay for more
// than one task is held (Shared.Expect): a replay's findings (up to
// record.MaxFindings) held for every head of a pull would grow with it.
// A replay that was not blind (a record decoded: its task, the rules and
// the records checked for that task take part) is not held: it is
// replayed for each task, from the history the run holds (heldHistories)
// and the blobs it checked (record.Checked). It is safe for concurrent
// use; a nil one holds nothing.
type blindReplays struct {
	held heldByHead[blindReplay]
}

type blindReplay struct {
	found  []record.Finding
	recs   []*record.Record
	totals Totals
}

// as is what a blind replay of head found, for task, when one is held
// and the replay asked for goes from no remembered head (fresh). While
// another goroutine replays head it waits for that replay; when none
// is held it returns done, which the caller calls once its replay is
// over (and put, if it was blind), so that the others go on.
func (b *blindReplays) as(ctx context.Context, task, head string, fresh bool) ([]record.Finding, []*record.Record, Totals, bool, func()) {
	if b == nil || !fresh {
		return nil, nil, Totals{}, false, func() {}
	}
	r, held, done := b.held.hold(ctx, head)
	if !held {
		return nil, nil, Totals{}, false, done
	}
	found := slices.Clone(r.found)
	for i := range found {
		found[i].Task = task
	}
	return found, slices.Clone(r.recs), r.totals, true, nil
}

func (b *blindReplays) put(head string, found []record.Finding, recs []*record.Record, totals Totals) {
	if b == nil {
		return
	}
	b.held.put(head, blindReplay{slices.Clone(found), slices.Clone(recs), totals})
}

// heldHistories holds, by head, the histories the replays of one run
// read from no remembered head (readHistory with no stop: what it reads,
// the commits, their records/ trees and what each changed, depends on
// the head alone), so that the refs of many tasks naming one head read
// its history once, not two git processes and a read of every commit,
// tree and record blob a ref. Only the history of a head the run is to
// replay for more than one task is held (Shared.Expect): any other would
// be held for nothing, whole, its commits' records/ trees too, for the
// rest of the run (a pull of 16 task refs, each a commit of its own on
// one tree of 200,000 entries, peaked at 1.7 GB where one replay at a
// time took 1.0 GB). A history read from remembered heads is not held:
// those are a task's own heads, clean, so no two tasks share one, and
// the records it skips are the task's. A history is held without the
// content of the blobs the run's record.Checked has checked (which a
// replay through it takes instead), read again if a replay without it
// needs one. It is safe for concurrent use; a nil one holds nothing.
type heldHistories struct {
	held heldByHead[*history]
}

// read is readHistory of head from no remembered head, the history held
// for the run when there is one. kept, called once the replay of it is
// over with the record.Checked it went through (nil: none), holds it,
// when it was read here.
func (b *heldHistories) read(ctx context.Context, s *Store, head string) (h *history, kept func(*record.Checked), err error) {
	if b == nil {
		h, err = s.readHistory(ctx, head, nil, nil, nil, nil)
		return h, func(*record.Checked) {}, err
	}
	h, held, done := b.held.hold(ctx, head)
	if held {
		return h, func(*record.Checked) {}, nil
	}
	if h, err = s.readHistory(ctx, head, nil, nil, nil, nil); err != nil {
		done()
		return nil, nil, err
	}
	return h, func(k *record.Checked) {
		if ctx.Err() == nil {
			b.held.put(head, h.without(k))
		}
		done()
	}, nil
}

// without is h without the content of the blobs k holds checked
// (record.Checked.HasBlob): what a blob did not read as is kept.
func (h *history) without(k *record.Checked) *history {
	out := *h
	out.blobs = make(map[string]blobRead, len(h.blobs))
	for b, r := range h.blobs {
		if r.err == nil && k.HasBlob(b) {
			continue
		}
		out.blobs[b] = r
	}
	return &out
}
