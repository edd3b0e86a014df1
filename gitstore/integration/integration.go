package integration

import (
	"fmt"

	"git-reason/gitstore"
	"git-reason/record"
)

// What an Integrator did with a fetched task (Integration.Outcome).
const (
	OutcomeCreated     = "created"      // no local ref: created at the fetched head
	OutcomeFastForward = "fast-forward" // the local ref was behind
	OutcomeMerged      = "merged"       // both had records: a merge commit joins them
	OutcomeQuarantined = "quarantined"  // nothing changed: see Codes
	OutcomeUpToDate    = "up-to-date"   // the same head on both sides
	OutcomeAhead       = "ahead"        // the local ref already has everything fetched
)

// Codes of a quarantine that are not verification findings.
const (
	CodeConflict   = gitstore.CodeConflict // one record path (or id) with different content on the two sides
	CodeUnreadable = "unreadable"          // the fetched history could not be read
	CodeTaskName   = "task_name"           // the remote ref names no valid task
	CodeObjects    = "objects"             // git's object checks refused the fetched objects (gitstore.Repo.Fetch)
)

// Integration is what an Integrator did with one fetched task.
type Integration struct {
	Task    string `json:"task"`
	Outcome string `json:"outcome"`
	From    string `json:"from"`    // the local head before ("" when there was none)
	To      string `json:"to"`      // the local head after
	Fetched string `json:"fetched"` // the fetched head, left on the remote-tracking ref
	// Codes and Findings say why a task was quarantined.
	Codes    []string         `json:"codes"`
	Findings []record.Finding `json:"findings"`
	// Refusals are the records the union of two histories made
	// inadmissible (merge_refused), in the new head's history. They are
	// merged all the same; a person settles them with a new record.
	Refusals []record.Finding `json:"refusals"`
}

// Changed reports whether the local ref moved, or the task was
// quarantined: the outcomes pull reports.
func (in *Integration) Changed() bool {
	return in.Outcome != OutcomeUpToDate && in.Outcome != OutcomeAhead
}

func newIntegration(task, fetched string) *Integration {
	return &Integration{Task: task, Fetched: fetched, Codes: []string{}, Findings: []record.Finding{}, Refusals: []record.Finding{}}
}

// Quarantined is task held back at its local head local: the fetched
// head does not reach the local ref, for the findings given (their codes
// are the quarantine's).
func Quarantined(task, local, fetched string, found []record.Finding) *Integration {
	in := newIntegration(task, fetched)
	in.Outcome, in.From, in.To = OutcomeQuarantined, local, local
	in.Codes, in.Findings = record.Codes(found), found
	return in
}

// Refused is the quarantine of a task whose fetched objects git refused
// (gitstore.Repo.Fetch): its local ref is not read or touched.
func Refused(f gitstore.FetchRefusal) *Integration {
	return quarantine(newIntegration(f.Task, f.Head), CodeObjects,
		fmt.Sprintf("git refused the fetched objects: %s", f.Reason))
}

// quarantine holds in back for one finding of its own code.
func quarantine(in *Integration, code, msg string) *Integration {
	in.Outcome, in.Codes = OutcomeQuarantined, []string{code}
	in.Findings = []record.Finding{{Task: in.Task, Commit: in.Fetched, Code: code, Message: msg}}
	return in
}

// reuseOnly reports whether in was quarantined for its reuses alone.
func reuseOnly(in *Integration) bool {
	return in.Outcome == OutcomeQuarantined && len(in.Codes) == 1 && in.Codes[0] == record.FindReuse
}
