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
// the memo's only while the allowed signers are the ones it was judged
// against.
func (e *Session) TaskStatus(ctx context.Context, task string) (record.Status, *SignatureSummary, string, error) {
	head, err := e.Store.Head(task)
	if err != nil {
		return record.Status{}, nil, "", err
	}
	allowed, _ := e.allowedDigest() // "": signatures are read afresh
	var m statusMemo
	if data := e.Store.Memo(statusMemoKind, task, head); data != nil && json.Unmarshal(data, &m) == nil {
		if m.Allowed == allowed && allowed != "" {
			return m.Status, m.Signatures, head, nil
		}
		return m.Status, e.TaskSignatures(ctx, task, head), head, nil
	}
	st, head, err := e.State(ctx, task)
	if err != nil {
		return record.Status{}, nil, "", err
	}
	m = statusMemo{Status: st.Summarize(), Signatures: e.TaskSignatures(ctx, task, head), Allowed: allowed}
	if m.Signatures == nil {
		m.Allowed = "" // not read: read again next time
	}
	if data, err := json.Marshal(m); err == nil {
		e.Store.SaveMemo(statusMemoKind, task, head, data)
	}
	return m.Status, m.Signatures, head, nil
}

// statusMemoKind names status's memos under .git/reason/memo/.
const statusMemoKind = "status"

// statusMemo is what TaskStatus keeps of a task at one head.
type statusMemo struct {
	Status     record.Status     `json:"status"`
	Signatures *SignatureSummary `json:"signatures,omitempty"`
	// Allowed is the digest of the allowed signers Signatures was judged
	// against (allowedDigest).
	Allowed string `json:"allowed,omitempty"`
}
