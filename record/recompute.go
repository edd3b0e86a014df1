package record

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Recompute derives a task's state from its records the way replay does:
// each record, in (clock, id) order, is put through its admission rule
// against the records admitted before it, and enters the state with the
// derived fields the writer computes, never those it stores. A record the
// rules refuse is left out. It is what a read surface shows of a task
// whose history does not verify (finding is replay's first finding):
// review counts, selections and phases recomputed, not a forger's claims.
// A history that replays clean needs none of this: replay found its
// stored derived fields equal to the computed ones.
func Recompute(ctx context.Context, task string, recs []*Record, finding Finding) (*State, error) {
	st := &State{Task: task, byID: make(map[string]*Entry, len(recs)), Unverified: &finding}
	for _, r := range sortedRecords(recs) {
		e, err := Decode(r)
		if err != nil {
			return nil, err
		}
		if st.byID[e.ID] != nil {
			continue
		}
		derived, err := replayRules(ctx, st, e)
		if err == nil {
			err = e.recomputed(derived)
		}
		if err != nil {
			st.Refused = append(st.Refused, e)
			continue
		}
		st.add(e)
	}
	return st, nil
}

// recomputed replaces e's derived fields, decoded and raw, by derived.
func (e *Entry) recomputed(derived any) error {
	raw, err := json.Marshal(derived)
	if err != nil {
		return err
	}
	want := newDerived(e.Kind)
	if err := json.Unmarshal(raw, want); err != nil {
		return err
	}
	rec := *e.Record
	rec.Derived = raw
	e.Record, e.Derived = &rec, want
	return nil
}

// Find returns the record whose id is id among the state's records and
// those a replay refused, or nil.
func (s *State) Find(id string) *Entry {
	if e := s.Get(id); e != nil {
		return e
	}
	for _, e := range s.Refused {
		if e.ID == id {
			return e
		}
	}
	return nil
}

// NotVerified is the line every surface shows first for a task whose
// history does not verify, naming replay's first finding, and where to
// read the rest: the verify command, or the verify tool; empty for f nil.
func NotVerified(f *Finding) Advice {
	if f == nil {
		return Advice{}
	}
	where := "commit " + ShortCommit(f.Commit)
	if f.Record != "" {
		where = "record " + ShortID(f.Record) + ", " + where
	}
	line := "does not verify: " + f.Code + ": " + Printable(f.Message) + " (" + where + "); see "
	return Advice{CLI: line + "'git reason verify " + f.Task + "'", Tools: line + fmt.Sprintf("the verify tool (tasks: [%q])", f.Task)}
}

// NotVerifiedFirst is what a list's read surface says first of the tasks
// whose history does not verify: a line "T: does not verify: ..." for
// each task of n items (at gives the i-th item's task and replay's first
// finding, nil when it verifies), once per task, in the order first seen.
func NotVerifiedFirst(n int, at func(i int) (string, *Finding)) Advice {
	var cli, tools strings.Builder
	said := map[string]bool{}
	for i := range n {
		if task, f := at(i); f != nil && !said[task] {
			said[task] = true
			line := NotVerified(f)
			cli.WriteString(task + ": " + line.String() + "\n")
			tools.WriteString(task + ": " + line.ToolMessage() + "\n")
		}
	}
	return Advice{CLI: cli.String(), Tools: tools.String()}
}
