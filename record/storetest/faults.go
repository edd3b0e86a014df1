package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"git-reason/record"
)

// ErrInjected is the failure Faulty reports after a write it let through.
var ErrInjected = errors.New("storetest: injected failure after the write")

// Faulty is a record.Store that wraps another and injects the faults a
// real store meets, the way restic wraps its backends: an append that
// loses a compare-and-swap race, an append that fails after the record
// was written (the ref moved, then something after it failed), and a
// slow load. Faults are scheduled by count (the next n appends) or by
// period (every nth append), so that a test knows exactly which call
// fails. It is safe for concurrent use.
type Faulty struct {
	Store record.Store

	// ConflictEvery and FailAfterWriteEvery inject a fault into every nth
	// append (0: never). A conflict stores nothing; a failure after the
	// write stores the record and then returns ErrInjected.
	ConflictEvery, FailAfterWriteEvery int
	// LoadDelay makes every Load wait this long first, or until its
	// context ends, when it returns the context's error.
	LoadDelay time.Duration
	// Racer, when set, runs on the inner store before each injected
	// conflict, as another writer would: the conflict is then real.
	Racer func(ctx context.Context, inner record.Store, task string) error

	mu                 sync.Mutex
	appends            int
	conflicts, afterWr int // scheduled by ConflictNext and FailAfterWriteNext
	stats              FaultStats
}

// FaultStats counts what a Faulty did.
type FaultStats struct {
	Loads, Appends                int
	Conflicts, AfterWrite, Slowed int
}

// ConflictNext makes the next n appends fail with record.ErrConflict.
func (f *Faulty) ConflictNext(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.conflicts = n
}

// FailAfterWriteNext makes the next n appends that the inner store
// accepts return ErrInjected after the record was stored.
func (f *Faulty) FailAfterWriteNext(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.afterWr = n
}

// Stats returns what the wrapper has done so far.
func (f *Faulty) Stats() FaultStats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stats
}

// Load implements record.Store, after LoadDelay.
func (f *Faulty) Load(ctx context.Context, task string) (string, []*record.Record, error) {
	f.mu.Lock()
	f.stats.Loads++
	if f.LoadDelay > 0 {
		f.stats.Slowed++
	}
	f.mu.Unlock()
	if f.LoadDelay > 0 {
		t := time.NewTimer(f.LoadDelay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return "", nil, ctx.Err()
		}
	}
	return f.Store.Load(ctx, task)
}

// Append implements record.Store with the scheduled faults.
func (f *Faulty) Append(ctx context.Context, task, head string, rec *record.Record) (string, error) {
	f.mu.Lock()
	f.appends++
	f.stats.Appends++
	conflict := f.conflicts > 0 || f.ConflictEvery > 0 && f.appends%f.ConflictEvery == 0
	if conflict {
		f.conflicts = max(0, f.conflicts-1)
		f.stats.Conflicts++
	}
	failAfter := !conflict && (f.afterWr > 0 || f.FailAfterWriteEvery > 0 && f.appends%f.FailAfterWriteEvery == 0)
	f.mu.Unlock()
	if conflict {
		if f.Racer != nil {
			if err := f.Racer(ctx, f.Store, task); err != nil {
				return "", fmt.Errorf("storetest: racing writer: %w", err)
			}
		}
		return "", fmt.Errorf("%w (injected)", record.ErrConflict)
	}
	next, err := f.Store.Append(ctx, task, head, rec)
	if err != nil || !failAfter {
		return next, err
	}
	f.mu.Lock()
	f.afterWr = max(0, f.afterWr-1)
	f.stats.AfterWrite++
	f.mu.Unlock()
	return "", ErrInjected
}

// Tasks implements record.Store.
func (f *Faulty) Tasks(ctx context.Context) ([]record.TaskHead, error) { return f.Store.Tasks(ctx) }
