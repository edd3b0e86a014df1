package gitstore

import (
	"context"
	"fmt"
	"sync"

	"git-reason/record"
)

// Clean implements record.Voucher: the task's history, at its head now,
// reads and replays clean (its own reuses are not followed). A
// standing conclusion is reused only from a task it vouches for, so a
// conclusion forged elsewhere and fetched never spares a review here.
func (s *Store) Clean(ctx context.Context, task string) error {
	return s.cleanFrom(ctx, s.remembered, task)
}

// cleanFrom is Clean going on from the heads m remembers clean (nil:
// none), remembering there the head it finds clean.
func (s *Store) cleanFrom(ctx context.Context, m *Remembered, task string) error {
	head, err := s.Repo.ReadRef(TaskRef(task))
	if err != nil {
		return err
	}
	return s.cleanAt(ctx, m, task, head)
}

// cleanAt is cleanFrom of task at head, a head its ref had ("": none).
func (s *Store) cleanAt(ctx context.Context, m *Remembered, task, head string) error {
	if head == "" {
		return fmt.Errorf("no task %s", task)
	}
	found, _ := s.replayWith(ctx, m, task, head, false, nil)
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(found) > 0 {
		return fmt.Errorf("task %s does not replay clean: %s", task, found[0])
	}
	return nil
}

// ReusedLocal is the reused task u at its local ref, as a reuse check
// must see it (record.CheckReuses): it replays clean (Clean) and its
// records read.
func (s *Store) ReusedLocal(ctx context.Context, u string) record.Reused {
	return s.reusedFrom(ctx, s.remembered, u)
}

// reusedFrom is ReusedLocal with u's history replayed from the heads m
// remembers clean (cleanFrom).
func (s *Store) reusedFrom(ctx context.Context, m *Remembered, u string) record.Reused {
	head, err := s.Repo.ReadRef(TaskRef(u))
	if err != nil {
		return record.Reused{Untrusted: err}
	}
	return s.reusedAt(ctx, m, u, head)
}

// reusedAt is reusedFrom of u at head, a head its ref had ("": none): the
// head replayed is the head whose records are read, so that a ref moved
// between the two (a pull, a fetch) never has one head's records judged
// by another's replay. What it finds is held by u and head for the store
// (reusedHeld): the tasks that reuse one task's conclusions are checked
// against it derived once, not once each (200 tasks reusing a task of
// 400 records decoded 80,000 records at each status after that task
// moved).
func (s *Store) reusedAt(ctx context.Context, m *Remembered, u, head string) record.Reused {
	key := u + "\x00" + head
	if r, ok := s.reusedHeld.get(key); ok {
		return r
	}
	var r record.Reused
	if err := s.cleanAt(ctx, m, u, head); err != nil {
		r = record.Reused{Untrusted: err}
	} else if err := s.CheckTask(u); err != nil {
		r = record.Reused{Unread: err}
	} else if _, urecs, err := s.loadTask(u, head); err != nil {
		r = record.Reused{Unread: record.Unreadable(u, fmt.Errorf("at %s: %w", record.ShortCommit(head), err))}
	} else if st, err := record.Derive(u, urecs); err != nil {
		r = record.Reused{Unread: err}
	} else {
		r = record.Reused{State: st}
	}
	if ctx.Err() == nil {
		s.reusedHeld.put(key, r)
	}
	return r
}

// ReuseCheck is what read surfaces show of the reuses task's history at
// head holds: the first finding of their checks (record.CheckReuses, as
// verify runs them against the reused tasks' refs now), nil when they
// find nothing, and the head each reused task's ref had when they were
// checked ("" for a ref missing). A surface that keeps what it showed of
// task at head keeps Reused with it and asks again only when one of those
// refs moved (ReusedMoved): one ref read per reused task while none did.
// A check found clean is remembered for task at head with the heads it
// was checked against (Remembered.AddReuses, as verify remembers it), so
// a surface that keeps nothing reads task's remembered file and a ref per
// reused task; otherwise task's records are read (its cache) and each
// reused task's history replayed from its latest head remembered clean.
func (s *Store) ReuseCheck(ctx context.Context, task, head string) (*record.Finding, map[string]string, error) {
	return s.reuseCheck(ctx, task, head, nil)
}

// reuseCheck is ReuseCheck with task's records at head when the caller
// has them in hand (nil: read when needed).
func (s *Store) reuseCheck(ctx context.Context, task, head string, recs []*record.Record) (*record.Finding, map[string]string, error) {
	m := s.readRemembered()
	if reused, ok := m.ReusesChecked(task, head); ok && !s.ReusedMoved(reused) {
		return nil, reused, nil
	}
	var err error
	if recs == nil {
		if _, recs, err = s.loadTask(task, head); err != nil {
			return nil, nil, err
		}
	}
	names := record.ReusedTasks(task, recs)
	reused := make(map[string]string, len(names))
	var unread map[string]error
	for _, u := range names {
		h, err := s.Repo.ReadRef(TaskRef(u))
		if err != nil {
			// A reused ref that does not read (its file broken) is the
			// reuse's finding, as verify reports it: the reusing task
			// still reads. It counts as no ref, as listings leave it out.
			if unread == nil {
				unread = make(map[string]error, 1)
			}
			unread[u] = err
		}
		reused[u] = h
	}
	// A reused task's history is replayed from its latest head
	// remembered clean, as Verdict replays (a read surface's store shares
	// no Remembered: ReusedLocal replayed it whole, each time), and a
	// head found clean is remembered with the check. Each is read at the
	// head just read from its ref, the head the check is kept with.
	found := record.CheckReuses(ctx, task, head, recs, func(ctx context.Context, u string) record.Reused {
		if err := unread[u]; err != nil {
			return record.Reused{Untrusted: err}
		}
		return s.reusedAt(ctx, m, u, reused[u])
	})
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	// Remembered only when the reused refs did not move while they were
	// checked; a surface keeping reused then sees one moved and asks
	// again.
	if len(found) == 0 && !s.ReusedMoved(reused) {
		m.AddReuses(task, head, reused)
	}
	_ = m.Save()
	if len(found) > 0 {
		return &found[0], reused, nil
	}
	return nil, reused, nil
}

// ListedHeads is each task's head as tasks lists them ("" for a task not
// listed), for comparing what a cache kept of reused tasks' heads
// (MovedFrom) with the refs a read lists anyway: its map is made at the
// first lookup, so a read whose caches name no reused task makes none.
func ListedHeads(tasks []record.TaskHead) func(task string) string {
	var heads map[string]string
	return func(task string) string {
		if heads == nil {
			heads = make(map[string]string, len(tasks))
			for _, t := range tasks {
				heads[t.Task] = t.Head
			}
		}
		return heads[task]
	}
}

// MovedFrom reports whether a task of reused ("": no ref) is at another
// head than at (ListedHeads) gives it now: ReusedMoved for a reader that
// has listed the refs, with no ref read.
func MovedFrom(reused map[string]string, at func(task string) string) bool {
	for u, h := range reused {
		if at(u) != h {
			return true
		}
	}
	return false
}

// ReusedMoved reports whether a reused task's ref is no longer at the
// head reused gives it ("": missing), as ReuseCheck found them.
func (s *Store) ReusedMoved(reused map[string]string) bool {
	for u, h := range reused {
		if now, err := s.Repo.ReadRef(TaskRef(u)); err != nil || now != h {
			return true
		}
	}
	return false
}

// heldReuses is what reuse checks found of reused tasks (reusedAt), by
// task and head: at most memTasks of them, as many as the tasks a store
// keeps in hand (memCache), whose records they hold.
type heldReuses struct {
	mu sync.Mutex
	m  map[string]record.Reused
}

func (h *heldReuses) get(key string) (record.Reused, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, ok := h.m[key]
	return r, ok
}

func (h *heldReuses) put(key string, r record.Reused) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = map[string]record.Reused{}
	}
	putBounded(h.m, key, r, memTasks)
}
