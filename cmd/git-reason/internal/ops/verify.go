package ops

import (
	"context"

	"git-reason/gitstore/signing"
	"git-reason/record"
)

// VerifyResult is what verification replayed and found.
type VerifyResult struct {
	Tasks    []string         `json:"tasks"`
	Findings []record.Finding `json:"findings"`
	// Signatures is every commit's signature status, newest first per
	// task, as git judged it against the allowed signers; a refused one
	// (signing.Refused under reason.requireSigned) is a finding too.
	Signatures []TaskSignatures `json:"signatures"`
}

// TaskSignatures are the signature checks of one task's history.
type TaskSignatures struct {
	Task   string          `json:"task"`
	Checks []signing.Check `json:"checks"`
}

// Verify replays the named tasks' histories (every task when none is
// named) through the admission rules. ref overrides where a task's history
// starts (task -> commit), for hooks verifying what is about to be pushed.
func (e *Session) Verify(ctx context.Context, tasks []string, at map[string]string) (*VerifyResult, error) {
	heads := map[string]string{}
	if len(tasks) == 0 && len(at) == 0 {
		all, err := e.Store.Tasks(ctx)
		if err != nil {
			return nil, err
		}
		for _, t := range all {
			tasks = append(tasks, t.Task)
			heads[t.Task] = t.Head
		}
	}
	for t, h := range at {
		tasks = append(tasks, t)
		heads[t] = h
	}
	out := &VerifyResult{Tasks: []string{}, Findings: []record.Finding{}, Signatures: []TaskSignatures{}}
	require := e.requireSigned()
	for _, t := range tasks {
		if err := record.CheckTask(t); err != nil {
			return nil, err
		}
		head, ok := heads[t]
		if !ok {
			var err error
			if head, err = e.Repo.ReadRef("refs/reasoning/tasks/" + t); err != nil {
				return nil, err
			}
			if head == "" {
				return nil, Usage("no task %q (see 'git reason status')", t)
			}
		}
		found, err := e.Store.Verify(ctx, t, head)
		if err != nil {
			return nil, err
		}
		checks, err := e.Signatures(ctx, head)
		if err != nil {
			return nil, err
		}
		out.Tasks = append(out.Tasks, t)
		out.Findings = append(append(out.Findings, found...), signatureFindings(t, require, checks)...)
		out.Signatures = append(out.Signatures, TaskSignatures{Task: t, Checks: checks})
	}
	return out, nil
}
