package ops

import (
	"context"
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

// CurrentBranchTask resolves the current branch's task: the branch from
// HEAD, its branch.<name>.reasonTask from the settings. Every verb run
// without TASK and the prepare-commit-msg hook ask it, so they agree.
func (e *Session) CurrentBranchTask(ctx context.Context) (BranchTask, error) {
	branch := e.Repo.Branch()
	if branch == "" {
		return BranchTask{}, nil // detached: no branch, no task
	}
	bt := BranchTask{Branch: branch, Task: branch}
	st, err := e.Settings()
	if err != nil {
		return BranchTask{}, err
	}
	if v := st.BranchTasks[branch]; v != "" {
		bt.Task, bt.Configured = v, true
	}
	return bt, nil
}
