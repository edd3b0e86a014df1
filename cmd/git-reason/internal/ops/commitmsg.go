package ops

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"git-reason/gitstore"
	"git-reason/record"
)

// TrailerKey is the commit message trailer that links a commit to a task.
const TrailerKey = "Reason-Task"

// PrepareCommitMsg appends "Reason-Task: TASK" to the commit message in
// file for the current branch's task, as git's prepare-commit-msg hook
// does with what git hands it (the file, and the message's source). It
// returns the task it added, or "" and why it added none. Nothing is
// added to a merge's message or to the reused message of an existing
// commit (--amend, -c, -C), to a message that names a task already, to an
// empty message given on the command line (--allow-empty-message), on a
// detached HEAD (a rebase), or when the branch's task is neither
// configured (branch.<name>.reasonTask) nor a task of this repository:
// a branch such as main gets no trailer for a task nobody started.
func (e *Session) PrepareCommitMsg(ctx context.Context, file, source string) (task, why string, err error) {
	switch source {
	case "merge":
		return "", "a merge: the commits it brings carry their own trailers", nil
	case "commit":
		return "", "the message of an existing commit is reused", nil
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", "", err
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return "", "", fmt.Errorf("read the commit message: %w", err)
	}
	comment := e.commentChar(ctx)
	if source == "message" && len(messageLines(string(data), comment)) == 0 {
		return "", "the message given is empty", nil
	}
	if tasks, err := e.messageTasks(ctx, abs); err != nil {
		return "", "", err
	} else if len(tasks) > 0 {
		return "", "the message names " + tasks[0] + " already", nil
	}
	bt, err := e.CurrentBranchTask(ctx)
	if err != nil {
		return "", "", err
	}
	switch {
	case bt.Branch == "":
		return "", "HEAD is detached", nil
	case bt.Configured && record.CheckTask(bt.Task) != nil:
		return "", "", Usage("branch.%s.reasonTask %q is no valid task name: fix it with 'git config %s TASK'", bt.Branch, bt.Task, record.ShellQuote("branch."+bt.Branch+".reasonTask"))
	case !bt.Configured && record.CheckTask(bt.Task) != nil:
		return "", "the branch name is no task name", nil
	}
	if !bt.Configured {
		head, err := e.Repo.ReadRef(gitstore.TaskRef(bt.Task))
		if err != nil {
			return "", "", err
		}
		if head == "" {
			return "", "no task " + bt.Task + " here (set one with 'git config " + record.ShellQuote("branch."+bt.Branch+".reasonTask") + " TASK')", nil
		}
	}
	if _, err := e.gitOut(ctx, "interpret-trailers", "--in-place", "--trailer", TrailerKey+": "+bt.Task, abs); err != nil {
		return "", "", fmt.Errorf("add the %s trailer: %w", TrailerKey, err)
	}
	return bt.Task, "", nil
}

// CommitMsgEmpty reports whether the final commit message in file holds
// nothing but Reason-Task trailers once git's comments are gone: the
// message was left empty, and git would have aborted the commit had the
// prepare-commit-msg hook not added the trailer.
func (e *Session) CommitMsgEmpty(ctx context.Context, file string) (bool, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return false, fmt.Errorf("read the commit message: %w", err)
	}
	comment := e.commentChar(ctx)
	for _, l := range messageLines(string(data), comment) {
		if !reTrailerLine().MatchString(l) {
			return false, nil
		}
	}
	return true, nil
}

// reTrailerLine is compiled on first use: a package-level regular
// expression is compiled at start-up by every command.
var reTrailerLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^` + TrailerKey + `\s*:`) })

// messageLines are the lines of a commit message git keeps: no comment
// lines, nothing from the scissors line on, no blank lines.
func messageLines(msg, comment string) []string {
	var out []string
	for _, l := range strings.Split(msg, "\n") {
		if strings.HasPrefix(l, comment+" ------------------------ >8 ------------------------") {
			break
		}
		if strings.HasPrefix(l, comment) || strings.TrimSpace(l) == "" {
			continue
		}
		out = append(out, strings.TrimRight(l, " \t\r"))
	}
	return out
}

// commentChar is core.commentChar ("#" when unset or "auto"), from the
// configuration the session read already: no git process of its own. A
// setting of git reason that does not read (reason.pushWithCode
// "sometimes") is not the commit hooks' to refuse: then core.commentChar
// is asked of git alone, as before the settings held it, and the commit
// goes on.
func (e *Session) commentChar(ctx context.Context) string {
	if st, err := e.Settings(); err == nil {
		return st.CommentChar
	}
	out, err := e.gitOut(ctx, "config", "--get", "core.commentChar")
	c := strings.TrimSpace(out)
	if err != nil || c == "" || c == "auto" {
		return "#"
	}
	return c
}

// messageTasks are the Reason-Task trailers of the message in file, read
// by git interpret-trailers as git log reads them.
func (e *Session) messageTasks(ctx context.Context, file string) ([]string, error) {
	out, err := e.gitOut(ctx, "interpret-trailers", "--parse", file)
	if err != nil {
		return nil, fmt.Errorf("read the message's trailers: %w", err)
	}
	var tasks []string
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.EqualFold(strings.TrimSpace(k), TrailerKey) && strings.TrimSpace(v) != "" {
			tasks = append(tasks, strings.TrimSpace(v))
		}
	}
	return tasks, nil
}
