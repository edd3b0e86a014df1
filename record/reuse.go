package record

import (
	"context"
	"fmt"
	"slices"
	"sort"
)

// Reused is a task whose conclusion a reuse names, as the reuse check sees
// it: its state, or why it cannot be trusted (its history does not replay
// clean) or read. Later: the check waits for the head the task will have
// (a set of fetched tasks that reuse each other, integrated together).
type Reused struct {
	State     *State
	Untrusted error
	Unread    error
	Later     bool
}

// ReusedLookup returns the reused task u as a reuse check must see it:
// the storage says where it is read (its local ref, or the head a pull is
// about to give it).
type ReusedLookup func(ctx context.Context, u string) Reused

// CheckReuses checks every reuse that the records at head (recs, as the
// replay read and checked them) claim from another task: the task exists
// and replays clean, and holds the reused conclusion with the subject,
// actor, materiality and reversibility the reuse names, which are what
// the writer read from that conclusion's Standing when it chose to reuse
// it. The reused tasks' own reuses are not followed (lookup does not
// check them), so that a cycle of reuses ends.
func CheckReuses(ctx context.Context, task, head string, recs []*Record, lookup ReusedLookup) []Finding {
	var out []Finding
	add := func(id, format string, args ...any) {
		out = append(out, Finding{Task: task, Commit: head, Record: id, Code: FindReuse,
			Message: Printable(fmt.Sprintf(format, args...))})
	}
	seen := map[string]Reused{}
	for _, r := range recs {
		d := reuseOf(r)
		if d == nil || d.ReusesTask == task {
			continue
		}
		u := d.ReusesTask
		if _, ok := seen[u]; !ok {
			seen[u] = lookup(ctx, u)
		}
		switch ru := seen[u]; {
		case ru.Later:
		case ru.Untrusted != nil:
			add(r.ID, "assessment %s reuses conclusion %s of task %s, which cannot be trusted: %v", ShortID(r.ID), d.Reuses, u, ru.Untrusted)
		case ru.Unread != nil:
			add(r.ID, "reused task %s does not read: %v", u, ru.Unread)
		default:
			if why := matchReuse(ru.State, d); why != "" {
				add(r.ID, "assessment %s reuses conclusion %s of task %s, but %s", ShortID(r.ID), d.Reuses, u, why)
			}
		}
	}
	return out
}

// WithFinding is s marked with f, a finding of its history its own replay
// does not find (a reuse whose reused task no longer holds what it
// reused, found by checking its reuses against that task's ref now): a
// copy, which every surface shows as a history that does not verify,
// naming f. s itself when f is nil or replay found a finding first.
func (s *State) WithFinding(f *Finding) *State {
	if f == nil || s.Unverified != nil {
		return s
	}
	c := s.copy()
	c.Unverified = f
	return c
}

// WithFinding marks a status (a summary kept by head) with f as
// State.WithFinding marks its state: f is the finding it shows first,
// and its next step reads the findings.
func (s *Status) WithFinding(f *Finding) {
	if f == nil || s.DoesNotVerify != nil {
		return
	}
	s.DoesNotVerify, s.Next, s.PersonStep = f, "git reason verify "+s.Task, nil
}

// ReuseBroken reports whether the reuse the status shows (its latest
// assessment's) is what its finding says no longer stands.
func (s *Status) ReuseBroken() bool {
	return s.Reuses != "" && reuseBroken(s.DoesNotVerify, s.Assessment)
}

// ReuseStands reports whether the status may show its reuse as standing:
// read surfaces check a task's reuses (every assessment's) against the
// reused tasks' refs when its latest assessment reuses a conclusion and
// replay found nothing (WithFinding marks what the
// check finds), so a status with no finding has its reuse checked. With
// another finding the reuse was not checked: it is shown as it stood
// (ReuseUnchecked).
func (s *Status) ReuseStands() bool {
	return s.Reuses != "" && s.DoesNotVerify == nil
}

// reuseStands is ReuseStands for assessment id of s, as its report shows
// it: only the latest assessment's reuse is called standing; an older
// one's is shown as it was assessed (ReuseUnchecked), or as broken when
// the check found it so.
func (s *State) reuseStands(id string) bool {
	la := s.LatestAssessment()
	return la != nil && la.ID == id && s.Unverified == nil
}

// LatestReuses is the conclusion the latest assessment reuses, "" when
// it reuses none (or there is no assessment): a state whose reuses read
// surfaces check against the reused tasks' refs (ReuseStands).
func (s *State) LatestReuses() string {
	if a := s.LatestAssessment(); a != nil {
		if d, _ := a.Derived.(*AssessmentDerived); d != nil {
			return d.Reuses
		}
	}
	return ""
}

// ReuseUnchecked is what a surface says of a reuse it did not check
// (ReuseStands false, not broken): what it was, not what it is now.
const ReuseUnchecked = "standing when it was assessed"

// reuseBroken reports whether f is a reuse finding of assessment id.
func reuseBroken(f *Finding, id string) bool {
	return f != nil && f.Code == FindReuse && f.Record == id
}

// ReusedTasks returns the tasks other than task whose conclusions the
// assessments among recs reuse, sorted.
func ReusedTasks(task string, recs []*Record) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range recs {
		if d := reuseOf(r); d != nil && d.ReusesTask != task && !seen[d.ReusesTask] {
			seen[d.ReusesTask] = true
			out = append(out, d.ReusesTask)
		}
	}
	sort.Strings(out)
	return out
}

// reuseOf is the derived part of an assessment that reuses a conclusion,
// or nil.
func reuseOf(r *Record) *AssessmentDerived {
	if r.Kind != KindAssessment {
		return nil
	}
	e, err := Decode(r)
	if err != nil {
		return nil
	}
	if d := e.Derived.(*AssessmentDerived); d.Reuses != "" {
		return d
	}
	return nil
}

// matchReuse says what is wrong with a reuse as the reused task's state
// shows it, or "": the conclusion's Standing (what the writer reuses
// from) must be the one the reuse names.
func matchReuse(st *State, d *AssessmentDerived) string {
	c := st.Get(d.Reuses)
	if c == nil || c.Kind != KindConclusion {
		return "that task holds no such conclusion"
	}
	s, ok := st.standingOf(c)
	switch {
	case !ok:
		return "the conclusion has no assessment"
	case s.SubjectKey != d.SubjectKey:
		return "its subject differs"
	case s.Actor != d.ReusesActor:
		return fmt.Sprintf("it was concluded by %s, not %s", s.Actor, d.ReusesActor)
	case s.Materiality != d.ReusesMateriality || s.Reversibility != d.ReusesReversibility:
		return fmt.Sprintf("its assessment was %s and %s, not %s and %s", s.Materiality, s.Reversibility,
			d.ReusesMateriality, d.ReusesReversibility)
	}
	return ""
}

// Blocking returns the findings that forbid a history from reaching a
// local ref (pull) or a remote (push): all but merge_refused, which
// records what the union of two honest histories made inadmissible and is
// settled by a person, never by refusing the history.
func Blocking(found []Finding) []Finding {
	var out []Finding
	for _, f := range found {
		if f.Code != FindMergeRule {
			out = append(out, f)
		}
	}
	return out
}

// MergeRefusals returns the merge_refused findings: merged all the same,
// each waits for a person's record.
func MergeRefusals(found []Finding) []Finding {
	out := []Finding{}
	for _, f := range found {
		if f.Code == FindMergeRule {
			out = append(out, f)
		}
	}
	return out
}

// Codes returns the distinct codes of findings, sorted (empty, not nil,
// for none).
func Codes(found []Finding) []string {
	out := make([]string, 0, len(found))
	for _, f := range found {
		out = append(out, f.Code)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
