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

// reused is a task whose conclusion a reuse names, as the reuse check
// sees it: its state, or why it cannot be trusted (its history does not
// replay clean) or read. later: the check waits for the head the task
// will have (Integrator.IntegrateTogether).
type reused struct {
	st        *record.State
	untrusted error
	unread    error
	later     bool
}

// reusedLookup returns the reused task u as a reuse check must see it.
type reusedLookup func(ctx context.Context, u string) reused

// reusedLocal is the reused task at its local ref: it replays clean
// (Clean) and its records read.
func (s *Store) reusedLocal(ctx context.Context, u string) reused {
	if err := s.Clean(ctx, u); err != nil {
		return reused{untrusted: err}
	}
	_, urecs, err := s.Load(ctx, u)
	var st *record.State
	if err == nil {
		st, err = record.Derive(u, urecs)
	}
	if err != nil {
		return reused{unread: err}
	}
	return reused{st: st}
}

// checkReuses checks every reuse that the records at head (recs, as the
// replay read and checked them) claim from another task: the task exists and replays clean, and holds the reused
// conclusion with the subject, actor, materiality and reversibility the
// reuse names. The reused tasks' own reuses are not followed (Clean does
// not check them), so that a cycle of reuses ends. lookup says where a
// reused task is read (nil: its local ref, reusedLocal).
func (s *Store) checkReuses(ctx context.Context, task, head string, recs []*record.Record, lookup reusedLookup) []record.Finding {
	if lookup == nil {
		lookup = s.reusedLocal
	}
	var out []record.Finding
	add := func(id, format string, args ...any) {
		out = append(out, record.Finding{Task: task, Commit: head, Record: id, Code: record.FindReuse,
			Message: record.Printable(fmt.Sprintf(format, args...))})
	}
	seen := map[string]reused{}
	for _, r := range recs {
		e, err := record.Decode(r)
		if err != nil || r.Kind != record.KindAssessment {
			continue
		}
		d := e.Derived.(*record.AssessmentDerived)
		if d.Reuses == "" || d.ReusesTask == task {
			continue
		}
		u := d.ReusesTask
		if _, ok := seen[u]; !ok {
			seen[u] = lookup(ctx, u)
		}
		switch ru := seen[u]; {
		case ru.later:
		case ru.untrusted != nil:
			add(r.ID, "assessment %s reuses conclusion %s of task %s, which cannot be trusted: %v", r.ID[:10], d.Reuses, u, ru.untrusted)
		case ru.unread != nil:
			add(r.ID, "reused task %s does not read: %v", u, ru.unread)
		default:
			if why := matchReuse(ru.st, d); why != "" {
				add(r.ID, "assessment %s reuses conclusion %s of task %s, but %s", r.ID[:10], d.Reuses, u, why)
			}
		}
	}
	return out
}

// matchReuse says what is wrong with a reuse as the reused task's state
// shows it, or "".
func matchReuse(st *record.State, d *record.AssessmentDerived) string {
	c := st.Get(d.Reuses)
	if c == nil || c.Kind != record.KindConclusion {
		return "that task holds no such conclusion"
	}
	a := st.Get(c.Body.(*record.Conclusion).Assessment)
	if a == nil || a.Kind != record.KindAssessment {
		return "the conclusion has no assessment"
	}
	ab := a.Body.(*record.Assessment)
	switch {
	case a.Derived.(*record.AssessmentDerived).SubjectKey != d.SubjectKey:
		return "its subject differs"
	case c.Actor != d.ReusesActor:
		return fmt.Sprintf("it was concluded by %s, not %s", c.Actor, d.ReusesActor)
	case ab.Materiality != d.ReusesMateriality || ab.Reversibility != d.ReusesReversibility:
		return fmt.Sprintf("its assessment was %s and %s, not %s and %s", ab.Materiality, ab.Reversibility,
			d.ReusesMateriality, d.ReusesReversibility)
	}
	return ""
}
