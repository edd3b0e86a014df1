package ops

import (
	"context"
	"errors"
	"slices"

	"git-reason/gitstore"
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
//
// A history whose head this clone remembers verified clean
// (gitstore.Remembered: a commit id under a MAC, as sync remembers what it
// verified) is not replayed again, a history containing one is replayed
// from it, and what replays clean is remembered; reuses of other tasks'
// conclusions are checked every time. So with at too (the pre-push hook):
// a push of tasks that moved on replays what it adds, not each history
// whole (`sh bench/push/update.sh WORLD 300 3`). The signatures of every
// task are asked of git together (signing.VerifyHeads), not one git
// process per task; those of a head whose checks are kept under a MAC
// (headSignatures) are not asked again, and a remembered head whose reuses were checked
// clean against reused tasks that have not moved is not read at all
// (gitstore.Store.VerifyRemembered). A verification of every task first
// asks the bulk form of those memories (gitstore.VerifiedAll, one file):
// a task it lists at its head, with the tasks it reuses at theirs, is not
// looked up task by task, and what its reuse checks find clean is kept
// there, not in each task's file of the memo (which is written for the
// heads a replay adds). The findings of all the tasks are bounded as a
// pull's are (record.RunBound).
func (e *Session) Verify(ctx context.Context, tasks []string, at map[string]string) (*VerifyResult, error) {
	heads := map[string]string{}
	all := len(tasks) == 0 && len(at) == 0
	// A task whose ref file is broken is a finding, not a failure of the
	// whole verification: git leaves such a ref out of its listings.
	var broken []record.Finding
	if all {
		all, bad, err := e.Store.TasksBroken(ctx)
		if err != nil {
			return nil, err
		}
		for _, b := range bad {
			broken = append(broken, b.Finding())
		}
		heads = make(map[string]string, len(all))
		for _, t := range all {
			tasks = append(tasks, t.Task)
			heads[t.Task] = t.Head
		}
	}
	for t, h := range at {
		tasks = append(tasks, t)
		heads[t] = h
	}
	memo := gitstore.OpenRemembered(e.Repo)
	defer memo.Save() // a memo not saved costs a longer verification next time
	var bulk *gitstore.VerifiedAll
	if all {
		bulk = gitstore.OpenVerifiedAll(e.Repo)
		// What the reuse checks find clean goes to the bulk file, not
		// to every task's file of the memo.
		memo.ReusesInBulk()
	}
	named := tasks
	tasks = tasks[:0:0]
	for _, t := range named {
		if err := record.CheckTask(t); err != nil {
			return nil, err
		}
		if _, ok := heads[t]; !ok {
			head, err := e.Repo.ReadRef(gitstore.TaskRef(t))
			var b *gitstore.BrokenRefError
			if errors.As(err, &b) {
				broken = append(broken, gitstore.BrokenTask{Task: t, Err: b}.Finding())
				continue
			}
			if err != nil {
				return nil, err
			}
			if head == "" {
				return nil, e.noTask(t)
			}
			heads[t] = head
		}
		tasks = append(tasks, t)
	}
	out := &VerifyResult{Tasks: []string{}, Findings: append([]record.Finding{}, broken...), Signatures: []TaskSignatures{}}
	require := e.requireSigned()
	var bound record.RunBound // what one verification of 2,000 tasks at one bad commit keeps
	// Every history is replayed before the signatures are asked for: one
	// that does not read (past reason.maxTaskBytes: 300,000 commits that
	// change nothing, refused before any tree is read) is not walked whole
	// by git for its signatures (12 s and 30 git processes here).
	found := make([][]record.Finding, len(tasks))
	var signed []string // the tasks whose signatures are asked for
	for i, t := range tasks {
		e.Store.Progress("Verifying tasks", i, len(tasks))
		head := heads[t]
		var err error
		if bulk == nil || !bulk.Clean(t, head, heads) {
			found[i], err = e.Store.VerifyRemembered(ctx, t, head, memo)
			if reused, ok := memo.ReusesChecked(t, head); ok && err == nil && len(found[i]) == 0 && bulk != nil {
				bulk.Put(t, head, reused)
			}
		}
		if err != nil {
			return nil, err
		}
		found[i] = bound.Keep(found[i])
		if !slices.ContainsFunc(found[i], func(f record.Finding) bool { return f.Code == record.FindUnreadable }) {
			signed = append(signed, t)
		}
	}
	signatures, err := e.headSignatures(ctx, signed, heads, all)
	if err != nil {
		return nil, err
	}
	for i, t := range tasks {
		checks := signatures[heads[t]]
		out.Tasks = append(out.Tasks, t)
		out.Findings = append(out.Findings, found[i]...)
		out.Findings = append(out.Findings, bound.Keep(signatureFindings(t, require, checks))...)
		out.Signatures = append(out.Signatures, TaskSignatures{Task: t, Checks: checks})
	}
	e.Store.Progress("Verifying tasks", len(tasks), len(tasks))
	if bulk != nil {
		_ = bulk.Save() // not saved: the next verification reads a file per task
	}
	return out, nil
}
