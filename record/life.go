package record

import (
	"errors"
	"fmt"
	"strings"
)

// The kinds of a task's life after its reasoning: closing it, reopening
// it, and withdrawing a mistaken validation or attempt. They change no
// earlier record; derivation reads them.
const (
	KindClosure    Kind = "closure"
	KindReopening  Kind = "reopening"
	KindWithdrawal Kind = "withdrawal"
)

// The outcomes a closure gives a task.
const (
	OutcomeDone       = "done"       // the work is finished: a conclusion stands
	OutcomeAbandoned  = "abandoned"  // given up, concluded or not
	OutcomeSuperseded = "superseded" // replaced by another task (By); a rename is one
)

// Closure closes a task. Only a reopening may follow it.
type Closure struct {
	Outcome string `json:"outcome"`
	By      string `json:"by,omitempty"` // the task that replaces this one
	Reason  string `json:"reason,omitempty"`
}

// ClosureDerived is what a closure closed on: for outcome done, the
// standing conclusion of the task's latest assessment.
type ClosureDerived struct {
	Provenance
	Conclusion string `json:"conclusion,omitempty"`
}

// Reopening reopens a closed task: it names the closure it undoes.
type Reopening struct {
	Closure string `json:"closure"`
	Reason  string `json:"reason,omitempty"`
}

// Withdrawal marks an earlier validation or attempt of the task as
// withdrawn: derivation ignores that record from then on; both stay in
// the history.
type Withdrawal struct {
	Record string `json:"record"`
	Reason string `json:"reason"`
}

// WithdrawalDerived names the kind of the record withdrawn.
type WithdrawalDerived struct {
	Provenance
	Kind Kind `json:"kind"`
}

// ClosedError is the refusal of a record on a closed task. Replay tells
// it apart: a merge that puts a record after a closure is settled by a
// later reopening (State.Reopened).
type ClosedError struct{ Task, Closure, Outcome string }

func (e *ClosedError) Error() string { return e.advised(fmt.Sprintf("'git reason reopen %s'", e.Task)) }

// ToolMessage names the reopen tool (ToolAdvised).
func (e *ClosedError) ToolMessage() string { return e.advised("the reopen tool") }

func (e *ClosedError) advised(reopen string) string {
	return fmt.Sprintf("task %s is closed (%s, %s): %s %s", e.Task, e.Outcome, ShortID(e.Closure), closedMark, reopen)
}

// closedMark is the words of every ClosedError's message that
// ClosedMessage finds again in a stored refusal's text.
const closedMark = "reopen it first with"

// ClosedMessage reports whether a refusal's message (a finding's, as
// stored) is a ClosedError's.
func ClosedMessage(msg string) bool { return strings.Contains(msg, closedMark) }

// Is makes a ClosedError match ErrRefused.
func (e *ClosedError) Is(target error) bool { return target == ErrRefused }

// IsClosed reports whether err is the refusal of a record on a closed task.
func IsClosed(err error) bool {
	var c *ClosedError
	return errors.As(err, &c)
}

// Closure returns the closure that closes the task now, or nil when the
// task is open: the latest closure, unless a reopening names it.
func (s *State) Closure() *Entry {
	c := s.latest(KindClosure, nil)
	if c == nil {
		return nil
	}
	for i := len(s.Entries) - 1; i >= 0 && s.Entries[i].ID != c.ID; i-- {
		if e := s.Entries[i]; e.Kind == KindReopening && s.names(e, c.ID) {
			return nil
		}
	}
	return c
}

// Reopened reports whether a reopening comes after the record (its clock
// above the record's): what settles a record a merge put after a closure.
func (s *State) Reopened(record string) bool {
	r := s.Get(record)
	if r == nil {
		return false
	}
	for i := len(s.Entries) - 1; i >= 0 && s.Entries[i].Clock > r.Clock; i-- {
		if s.Entries[i].Kind == KindReopening {
			return true
		}
	}
	return false
}

// Withdrawn returns the withdrawal of the record id, or nil.
func (s *State) Withdrawn(id string) *Entry { return s.ready(s.withdrawal(id)) }

// withdrawal is the withdrawal that names id, or nil, not decoded (its
// links say what it names).
func (s *State) withdrawal(id string) *Entry {
	if s.withdrawals == nil {
		// Built once until the next add: surfaces ask for every
		// validation and attempt of a task.
		s.withdrawals = map[string]*Entry{}
		for _, e := range s.Entries {
			if e.Kind != KindWithdrawal {
				continue
			}
			if l := s.links(e); len(l) > 0 {
				s.withdrawals[l[0]] = e
			}
		}
	}
	return s.withdrawals[id]
}

// notWithdrawn keeps the entries no withdrawal names, decoding none.
func (s *State) notWithdrawn(e *Entry) bool { return s.withdrawal(e.ID) == nil }

// Closed is how a closed task shows on every surface.
type Closed struct {
	Closure    string `json:"closure"`
	Outcome    string `json:"outcome"`
	By         string `json:"by,omitempty"`
	Reason     string `json:"reason,omitempty"`
	Conclusion string `json:"conclusion,omitempty"`
	Actor      string `json:"actor"`
	Created    string `json:"created"`
}

// Line says in one line how a task is closed: outcome, by whom and when,
// the task that replaces it and why, as every surface prints it.
func (c *Closed) Line() string {
	line := c.Outcome
	if c.By != "" {
		// Before the actor: "superseded by <actor>" would read as if
		// the actor replaced the task.
		line += " (replaced by task " + c.By + ")"
	}
	line += fmt.Sprintf(" by %s, %s (%s)", Printable(c.Actor), c.Created, ShortID(c.Closure))
	if c.Reason != "" {
		line += ": " + Printable(c.Reason)
	}
	return line
}

// ClosedAs returns how the task is closed, or nil when it is open.
func (s *State) ClosedAs() *Closed {
	c := s.Closure()
	if c == nil {
		return nil
	}
	b := c.Body.(*Closure)
	return &Closed{Closure: c.ID, Outcome: b.Outcome, By: b.By, Reason: b.Reason,
		Conclusion: c.Derived.(*ClosureDerived).Conclusion, Actor: c.Actor, Created: c.Created}
}

// admitClosed refuses every record but a reopening on a closed task.
func admitClosed(st *State, kind Kind) error {
	if kind == KindReopening {
		return nil
	}
	if c := st.Closure(); c != nil {
		return &ClosedError{Task: st.Task, Closure: c.ID, Outcome: c.Body.(*Closure).Outcome}
	}
	return nil
}

// admitClosure: a task with records can be closed; done needs a standing
// conclusion of the latest assessment, superseded names the task that
// replaces it, and only superseded names one.
func admitClosure(st *State, c *Closure) (any, error) {
	if len(st.Entries) == 0 {
		return nil, refuse(fmt.Sprintf("task %s has no records: nothing to close (a task never pushed is removed with 'git reason task delete %s')", st.Task, st.Task))
	}
	switch {
	case c.Outcome == OutcomeSuperseded && c.By == "":
		return nil, badInputAdvised("", "--outcome superseded needs --by TASK, the task that replaces this one",
			`outcome "superseded" needs by: the task that replaces this one`)
	case c.Outcome != OutcomeSuperseded && c.By != "":
		return nil, badInputAdvised("",
			fmt.Sprintf("--by goes with --outcome superseded, not --outcome %s: drop --by, or close it --outcome superseded", c.Outcome),
			fmt.Sprintf(`by goes with outcome "superseded", not %q: leave by out, or give outcome "superseded"`, c.Outcome))
	case c.By == st.Task:
		return nil, badInputAdvised(fmt.Sprintf("task %s cannot replace itself: ", c.By),
			"name the task that replaces it with --by", "name the task that replaces it in by")
	}
	if c.By != "" {
		if err := CheckTask(c.By); err != nil {
			return nil, err
		}
	}
	d := &ClosureDerived{}
	if c.Outcome == OutcomeDone {
		a := st.LatestAssessment()
		var k *Entry
		if a != nil {
			k = st.ConclusionOf(a.ID)
		}
		switch {
		case k == nil:
			// The latest assessment is what is done or not: the conclusion
			// of an earlier one it reuses still stands, and is not its own.
			latest := ""
			if a != nil {
				latest = " " + ShortID(a.ID)
			}
			return nil, refuseAdvised(fmt.Sprintf("task %s is not done: its latest assessment%s has no conclusion: conclude it first, or close it", st.Task, latest),
				" --outcome abandoned", ` with outcome "abandoned"`)
		case !st.Holds(k.ID):
			v := st.LatestValidation(k.ID)
			return nil, refuseAdvised(fmt.Sprintf("task %s is not done: its conclusion %s failed validation %s: validate it again, withdraw that validation if it was mistaken, conclude anew", st.Task, ShortID(k.ID), ShortID(v.ID)),
				fmt.Sprintf(" with --supersedes %s, or close it --outcome abandoned", ShortID(k.ID)),
				fmt.Sprintf(` with supersedes: [%q], or close it with outcome "abandoned"`, k.ID))
		}
		d.Conclusion = k.ID
	}
	return d, nil
}

// NotClosed refuses a reopening of a task that no closure closes now:
// one reopened already, or never closed (a surface that defaults the
// closure to the latest finds none to name, and says the same).
func NotClosed(task string) error {
	return refuse(fmt.Sprintf("task %s is not closed: there is nothing to reopen", task))
}

// admitReopening: a reopening names the closure that closes the task now.
func admitReopening(st *State, r *Reopening) error {
	if _, err := need(st, r.Closure, KindClosure, "closure"); err != nil {
		return err
	}
	c := st.Closure()
	if c == nil {
		return NotClosed(st.Task)
	}
	if c.ID != r.Closure {
		return refuse(fmt.Sprintf("closure %s is already reopened; task %s is closed by %s", ShortID(r.Closure), st.Task, ShortID(c.ID)))
	}
	return nil
}

// admitWithdrawal: only a validation or an attempt is withdrawn, once. A
// review never disappears, and a conclusion is replaced only by another
// that supersedes it.
func admitWithdrawal(st *State, wd *Withdrawal) (any, error) {
	e := st.Get(wd.Record)
	if e == nil {
		return nil, badInput(fmt.Sprintf("record: no record %s in task %s", wd.Record, st.Task))
	}
	switch e.Kind {
	case KindValidation, KindAttempt:
	case KindConsultation:
		return nil, refuse(fmt.Sprintf("consultation %s cannot be withdrawn: a review never disappears", ShortID(e.ID)))
	case KindConclusion:
		if len(e.Body.(*Conclusion).LocalReview) > 0 {
			return nil, refuse(fmt.Sprintf("conclusion %s cannot be withdrawn: its local-review answers are a review, which never disappears", ShortID(e.ID)))
		}
		return nil, refuseAdvised(fmt.Sprintf("conclusion %s cannot be withdrawn: conclude again", ShortID(e.ID)),
			fmt.Sprintf(" with --supersedes %s to replace it", ShortID(e.ID)), fmt.Sprintf(" with supersedes: [%q] to replace it", e.ID))
	default:
		return nil, refuse(fmt.Sprintf("%s %s cannot be withdrawn: only a validation or an attempt is", article(string(e.Kind)), ShortID(e.ID)))
	}
	if w := st.Withdrawn(e.ID); w != nil {
		return nil, refuse(fmt.Sprintf("%s %s is already withdrawn by %s", e.Kind, ShortID(e.ID), ShortID(w.ID)))
	}
	return &WithdrawalDerived{Kind: e.Kind}, nil
}
