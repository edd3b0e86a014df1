package ops

import (
	"context"
	"encoding/json"

	"git-reason/record"
)

// TaskStatus is what `status TASK` shows of a task (its summary, as
// replay derives it, and its signatures in brief), with the head it is
// of. The summary of a head this program derived before is kept as a memo
// keyed by that head (gitstore.Store.Memo), so that a status of a head
// already shown reads one small file, not the task's records: a
// 1,000-record task's status costs what a 1-record task's does. Any
// other head (a new record, a fetched one) is loaded and replayed
// (State), and its summary kept for next time. The signatures part is
// the memo's only while git judges signatures by what it was judged by
// (readDigest), and never when one of them depends on more
// (SignatureSummary.Kept).
func (e *Session) TaskStatus(ctx context.Context, task string) (record.Status, *SignatureSummary, string, error) {
	m, head, err := e.taskMemo(ctx, task, statusMemoKind, nil)
	return m.Status, m.Signatures, head, err
}

// TaskReport is TaskStatus with the task's markdown report (`status
// --report`), kept as a memo of its own keyed by head in the same way:
// a report of a head shown before reads one file, not the task.
func (e *Session) TaskReport(ctx context.Context, task string) (record.Status, *SignatureSummary, string, error) {
	m, _, err := e.taskMemo(ctx, task, reportMemoKind, (*record.State).Report)
	return m.Status, m.Signatures, m.Report, err
}

// taskMemo is what a memo of kind keeps of task at its head: the memo
// when this program wrote one for that head, else the task loaded,
// replayed and derived (State), kept for next time. report, when not
// nil, writes the memo's report from the state.
func (e *Session) taskMemo(ctx context.Context, task, kind string, report func(*record.State) string) (statusMemo, string, error) {
	head, err := e.Store.Head(task)
	if err != nil {
		return statusMemo{}, "", err
	}
	allowed, _ := e.readDigest(ctx) // "": signatures are read afresh
	var m statusMemo
	// A memo of a head whose reuses were checked holds while the reused
	// tasks' refs are where they were then (a ref read each).
	if data := e.Store.Memo(kind, task, head); data != nil && json.Unmarshal(data, &m) == nil && !e.Store.ReusedMoved(m.Reused) {
		if m.Allowed != allowed || allowed == "" {
			m.Signatures = e.TaskSignatures(ctx, task, head)
		} else {
			e.noticeSummary(task, m.Signatures)
		}
		return m, head, nil
	}
	st, head, err := e.savedState(ctx, task, head)
	if err != nil {
		return statusMemo{}, "", err
	}
	st, reused, err := e.reuseChecked(ctx, task, head, st)
	if err != nil {
		return statusMemo{}, "", err
	}
	m = statusMemo{Status: st.Summarize(), Signatures: e.TaskSignatures(ctx, task, head), Allowed: allowed, Reused: reused}
	if report != nil {
		if err := st.Decoded(); err != nil {
			return statusMemo{}, "", record.Unreadable(task, err)
		}
		m.Report = report(st)
	}
	if !m.Signatures.Kept() {
		m.Allowed = "" // not read, or not to be kept: read again next time
	}
	if data, err := json.Marshal(m); err == nil {
		e.Store.SaveMemo(kind, task, head, data)
	}
	return m, head, nil
}

// savedState is the state of task at head as State gives it, from the
// state saved at an earlier head when there is one to go on from
// (gitstore.Store.DeriveSaved: the records after it replayed, the
// others decoded as the summary reads them), else loaded and derived
// (State), its state then saved for the next status. Read its Entries
// only after State.Decoded.
func (e *Session) savedState(ctx context.Context, task, head string) (*record.State, string, error) {
	if st, ok := e.Store.DeriveSaved(ctx, task, head); ok {
		e.Store.SaveVerdicts()
		return st, head, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	st, head, err := e.State(ctx, task)
	if err == nil {
		e.Store.SaveState(task, head, st)
	}
	return st, head, err
}

// reuseChecked is st, task's state at head, marked with the first finding
// of its reuses checked against the reused tasks' refs now
// (gitstore.Store.ReuseCheck) when its latest assessment reuses another
// task's conclusion and replay found nothing first, with the heads of the
// reused tasks it was checked against: a surface keeping what it shows
// of st keeps them with it and asks again once one moved. A task whose
// latest assessment reuses nothing is not asked about (nil).
func (e *Session) reuseChecked(ctx context.Context, task, head string, st *record.State) (*record.State, map[string]string, error) {
	f, reused, err := e.reuseFinding(ctx, task, head, st.LatestReuses(), st.Unverified)
	return st.WithFinding(f), reused, err
}

// reuseFinding is what reuseChecked asks of a task whose latest
// assessment reuses conclusion reuses ("": none) and whose replay found
// unverified first (nil: none): the first finding of its reuses' check
// and the reused tasks' heads it was checked against.
func (e *Session) reuseFinding(ctx context.Context, task, head, reuses string, unverified *record.Finding) (*record.Finding, map[string]string, error) {
	if reuses == "" || unverified != nil {
		return nil, nil, nil
	}
	f, reused, err := e.Store.ReuseCheck(ctx, task, head)
	if err != nil {
		return nil, nil, record.Unreadable(task, err)
	}
	return f, reused, nil
}

// The memos of status TASK and status TASK --report under
// .git/reason/memo/.
const (
	statusMemoKind = "status"
	reportMemoKind = "report"
)

// statusMemo is what TaskStatus (and TaskReport) keeps of a task at one
// head.
type statusMemo struct {
	Status     record.Status     `json:"status"`
	Signatures *SignatureSummary `json:"signatures,omitempty"`
	// Allowed is the digest of what git judged Signatures by
	// (readDigest).
	Allowed string `json:"allowed,omitempty"`
	// Reused is the head each task whose conclusion the status's
	// reuses name had when they were checked (reuseChecked): the memo
	// holds while they do.
	Reused map[string]string `json:"reused,omitempty"`
	// Report is the task's markdown report (report memos only).
	Report string `json:"report,omitempty"`
}
