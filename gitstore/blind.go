package gitstore

import (
	"context"
	"slices"
	"sync"

	"git-reason/record"
)

// blindReplays holds, by head, what the replays of one run that were
// blind to their task (record.Checked.ReplayBlind) found, each replayed
// from no remembered head: a replay of that head for another task, from
// no remembered head either, finds the same, each finding that task's. A
// remote of 2,000 task refs naming one commit of entries that are no
// record was replayed 2,000 times by one pull (80 s of CPU, two git
// processes a ref); now once. A replay that was not blind (a record
// decoded: its task, the rules and the records checked for that task
// take part) is not held. It is safe for concurrent use; a nil one holds
// nothing.
type blindReplays struct {
	mu   sync.Mutex
	m    map[string]blindReplay
	busy map[string]chan struct{} // head -> closed when its replay is over
}

type blindReplay struct {
	found []record.Finding
	recs  []*record.Record
}

// as is what a blind replay of head found, for task, when one is held
// and the replay asked for goes from no remembered head (fresh). While
// another goroutine replays head it waits for that replay; when none
// is held it returns done, which the caller calls once its replay is
// over (and put, if it was blind), so that the others go on.
func (b *blindReplays) as(ctx context.Context, task, head string, fresh bool) ([]record.Finding, []*record.Record, bool, func()) {
	if b == nil || !fresh {
		return nil, nil, false, func() {}
	}
	b.mu.Lock()
	for {
		if r, ok := b.m[head]; ok {
			b.mu.Unlock()
			found := slices.Clone(r.found)
			for i := range found {
				found[i].Task = task
			}
			return found, slices.Clone(r.recs), true, nil
		}
		busy, ok := b.busy[head]
		if !ok {
			break
		}
		b.mu.Unlock()
		select {
		case <-busy:
		case <-ctx.Done():
			return nil, nil, false, func() {}
		}
		b.mu.Lock()
	}
	if b.busy == nil {
		b.busy = map[string]chan struct{}{}
	}
	busy := make(chan struct{})
	b.busy[head] = busy
	b.mu.Unlock()
	return nil, nil, false, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		delete(b.busy, head)
		close(busy)
	}
}

func (b *blindReplays) put(head string, found []record.Finding, recs []*record.Record) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[string]blindReplay{}
	}
	b.m[head] = blindReplay{slices.Clone(found), slices.Clone(recs)}
}
