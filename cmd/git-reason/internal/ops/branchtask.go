package ops

import (
	"context"
	"strings"
)

// BranchTask is the task of the current branch: git config
// branch.<name>.reasonTask when set (Configured), else the branch name.
// Branch and Task are "" on a detached HEAD. The name is not checked: a
// caller decides what an invalid or unknown task means for it.
type BranchTask struct {
	Branch     string `json:"branch"`
	Task       string `json:"task"`
	Configured bool   `json:"configured"`
}

// CurrentBranchTask resolves the current branch's task (two git
// processes: the branch, then its configuration).
func (e *Session) CurrentBranchTask(ctx context.Context) (BranchTask, error) {
	out, err := e.gitOut(ctx, "symbolic-ref", "--quiet", "--short", "HEAD")
	branch := strings.TrimSpace(out)
	if err != nil || branch == "" {
		return BranchTask{}, nil // detached: no branch, no task
	}
	bt := BranchTask{Branch: branch, Task: branch}
	// git config exits 1 for a key that is not set: that is no error here.
	if v, err := e.gitOut(ctx, "config", "--get", "branch."+branch+".reasonTask"); err == nil && strings.TrimSpace(v) != "" {
		bt.Task, bt.Configured = strings.TrimSpace(v), true
	}
	return bt, nil
}
