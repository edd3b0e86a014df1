package gitstore

import (
	"context"
	"fmt"

	"git-reason/record"
)

// Clean implements record.Voucher: the task's history, at its head now,
// reads and replays clean (its own reuses are not followed). A
// standing conclusion is reused only from a task it vouches for, so a
// conclusion forged elsewhere and fetched never spares a review here.
func (s *Store) Clean(ctx context.Context, task string) error {
	head, err := s.Repo.ReadRef(TaskRef(task))
	if err != nil {
		return err
	}
	if head == "" {
		return fmt.Errorf("no task %s", task)
	}
	found, err := s.verify(ctx, task, head, false)
	if err != nil {
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
	if err := s.Clean(ctx, u); err != nil {
		return record.Reused{Untrusted: err}
	}
	_, urecs, err := s.Load(ctx, u)
	var st *record.State
	if err == nil {
		st, err = record.Derive(u, urecs)
	}
	if err != nil {
		return record.Reused{Unread: err}
	}
	return record.Reused{State: st}
}
