package record

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// TimelineEntry is one line of a task's history.
type TimelineEntry struct {
	Clock   int64  `json:"clock"`
	ID      string `json:"id"`
	Kind    Kind   `json:"kind"`
	Created string `json:"created"`
	Actor   string `json:"actor"`
	Summary string `json:"summary"`
	// Withdrawn is the withdrawal that withdrew this record, if any.
	Withdrawn string `json:"withdrawn,omitempty"`
	// Surface is the surface that wrote the record ("" before surfaces
	// were recorded).
	Surface string `json:"surface,omitempty"`
}

// Timeline returns the task's history in (clock, id) order.
func (s *State) Timeline() []TimelineEntry {
	out := make([]TimelineEntry, 0, len(s.Entries)+len(s.Refused))
	for _, e := range s.Entries {
		t := TimelineEntry{Clock: e.Clock, ID: e.ID, Kind: e.Kind,
			Created: e.Created, Actor: e.Actor, Summary: Summary(e), Surface: SurfaceOf(e)}
		if e.Kind == KindValidation || e.Kind == KindAttempt {
			if w := s.Withdrawn(e.ID); w != nil {
				t.Withdrawn = w.ID
				t.Summary = oneLine("(withdrawn) " + t.Summary)
			}
		}
		out = append(out, t)
	}
	if len(s.Refused) == 0 {
		return out
	}
	// History keeps what replay refuses: shown, and said to be refused.
	for _, e := range s.Refused {
		out = append(out, TimelineEntry{Clock: e.Clock, ID: e.ID, Kind: e.Kind,
			Created: e.Created, Actor: e.Actor, Summary: "refused by replay: " + Summary(e)})
	}
	slices.SortStableFunc(out, func(a, b TimelineEntry) int {
		return Compare(&Record{Clock: a.Clock, ID: a.ID}, &Record{Clock: b.Clock, ID: b.ID})
	})
	return out
}

// Summary is a record's one-line description, as used in commit messages
// and timelines.
func Summary(e *Entry) string {
	switch b := e.Body.(type) {
	case *Assessment:
		s := fmt.Sprintf("%s (%s, %s)", b.Subject, b.Materiality, b.Reversibility)
		if d, ok := e.Derived.(*AssessmentDerived); ok && d.Reuses != "" {
			s += ", reuses " + ShortID(d.Reuses)
		}
		return oneLine(s)
	case *Plan:
		d := e.Derived.(*PlanDerived)
		if len(d.Selected) == 0 && len(d.LocalReview) == 0 {
			return "review " + d.Review
		}
		if len(d.Selected) == 0 {
			return fmt.Sprintf("review %s; local review of %s", d.Review, Plural(len(d.LocalReview), "item"))
		}
		return fmt.Sprintf("review %s; ask %s", d.Review, strings.Join(d.Selected, ", "))
	case *Consultation:
		if b.Status == "completed" && b.Conclusion != nil {
			return oneLine(fmt.Sprintf("%s: %s: %s", b.Advisor, b.Conclusion.Stance, b.Conclusion.Summary))
		}
		if b.Failure != nil {
			return fmt.Sprintf("%s: failed: %s", b.Advisor, b.Failure.Kind)
		}
		return b.Advisor + ": " + b.Status
	case *Disagreement:
		return oneLine(b.Summary)
	case *Resolution:
		return oneLine(fmt.Sprintf("settles %s: %s", ShortID(b.Disagreement), b.Decision))
	case *Conclusion:
		d := e.Derived.(*ConclusionDerived)
		return oneLine(fmt.Sprintf("%s (reviews: %d)", b.Decision, d.ReviewCount))
	case *Validation:
		d := e.Derived.(*ValidationDerived)
		if b.Method == "command" {
			return oneLine(fmt.Sprintf("%s: %s", d.Result, b.Command))
		}
		return d.Result + " (manual claim)"
	case *Attempt:
		switch len(b.Commits) {
		case 0:
			return b.Outcome
		case 1:
			return b.Outcome + ", 1 commit"
		}
		return fmt.Sprintf("%s, %d commits", b.Outcome, len(b.Commits))
	case *Closure:
		s := "closed " + b.Outcome
		if b.By != "" {
			s += " by task " + b.By
		}
		if b.Reason != "" {
			s += ": " + b.Reason
		}
		return oneLine(s)
	case *Reopening:
		if b.Reason != "" {
			return oneLine("reopened: " + b.Reason)
		}
		return "reopened"
	case *Withdrawal:
		return oneLine(fmt.Sprintf("withdraws %s: %s", ShortID(b.Record), b.Reason))
	}
	return string(e.Kind)
}

// oneLine folds whitespace and cuts s to a length fit for a subject line.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 72 {
		s = string(r[:71]) + "…"
	}
	return s
}

// Message is the commit message that stores a record: a subject line
// "<kind>: <summary>" and the Reason-* trailers.
func Message(e *Entry) string {
	return fmt.Sprintf("%s: %s\n\nReason-Task: %s\nReason-Kind: %s\nReason-Record: %s\n",
		e.Kind, Summary(e), e.Task, e.Kind, e.ID)
}

// Plural is n and what, with an s unless n is 1: "1 record", "2 records".
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
