package ops

import (
	"context"

	"git-reason/record"
)

// TaskStatusDoc is one task's status as 'git reason status TASK --json'
// publishes it (schemas/output.status.json), and as the MCP status tool
// answers it: the status, its records' signatures in brief, the records
// fetched for it that need a person (Needs, never null) and, when asked,
// the markdown report.
type TaskStatusDoc struct {
	record.Status
	Signatures *SignatureSummary `json:"signatures,omitempty"`
	Needs      []Need            `json:"needs"`
	Report     string            `json:"report,omitempty"`
	// Remote is where the task stands on the default remote as last
	// fetched (Shared), the line text status prints: absent with no
	// remote, or when git fetch does not bring tasks.
	Remote string `json:"remote,omitempty"`
}

// StatusListRow is one task of 'git reason status --json' with no task (the
// list the document publishes), as the MCP status tool lists it too: its
// status and its signatures in brief.
type StatusListRow struct {
	record.Status
	Signatures *SignatureSummary `json:"signatures,omitempty"`
	// Quarantined is, for a task that exists here only as a remote's
	// history a pull quarantined (HeldOnly), that history: the row has
	// no record, and every verb given the task says so.
	Quarantined *HeldHistory `json:"quarantined,omitempty"`
	// RemoteQuarantined is, for a task that has a local history, the
	// history of it fetched from a remote that a pull quarantined and
	// holds back still, as 'git reason tasks' marks it.
	RemoteQuarantined *HeldHistory `json:"remote_quarantined,omitempty"`
}

// StatusList is every task's status with its signatures in brief, kept by
// head: none for a task when git could not be asked (a read surface shows
// none rather than failing); then a row for each task that exists here
// only as a quarantined remote history (HeldOnly).
func (e *Session) StatusList(ctx context.Context) ([]StatusListRow, error) {
	all, err := e.StatusAll(ctx)
	if err != nil {
		return nil, err
	}
	sums, _ := e.SignatureSummaries(ctx)
	held := e.RemoteQuarantined()
	rows := make([]StatusListRow, len(all))
	for i, s := range all {
		rows[i] = StatusListRow{Status: s, Signatures: sums[s.Task], RemoteQuarantined: held[s.Task]}
	}
	for _, h := range e.HeldOnly() {
		rows = append(rows, StatusListRow{Status: record.Status{Task: h.Task, Phase: record.PhaseEmpty,
			OpenDisagreements: []string{}, Standing: []record.Standing{}}, Quarantined: &h.History})
	}
	return rows, nil
}
