package ops

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// git runs git in the session's repository and returns its trimmed
// standard output.
func (e *Session) git(ctx context.Context, args ...string) (string, error) {
	out, stderr, err := e.runGit(ctx, args...)
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, stderr)
	}
	return strings.TrimSpace(out), nil
}

// runGit runs git against the session's repository (and in its work tree,
// when it has one) and returns its standard output as it is and its
// standard error trimmed.
func (e *Session) runGit(ctx context.Context, args ...string) (string, string, error) {
	full := []string{"--git-dir", e.Repo.GitDir}
	if e.Repo.WorkTree != "" {
		full = append(full, "--work-tree", e.Repo.WorkTree)
	}
	cmd := exec.CommandContext(ctx, "git", append(full, args...)...)
	if e.Repo.WorkTree != "" {
		cmd.Dir = e.Repo.WorkTree
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), strings.TrimSpace(errb.String()), err
}

// ResolveCommit returns the full hash of the commit rev names, reading rev
// as git does (HEAD, a branch, a tag, an abbreviated hash, HEAD~2); a rev
// that names no commit of this repository is bad input.
func (e *Session) ResolveCommit(ctx context.Context, rev string) (string, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return "", Usage("--commit %q: give a revision (a hash, HEAD, a branch)", rev)
	}
	h, err := e.git(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil || h == "" {
		return "", Usage("--commit %q: no such commit in this repository", rev)
	}
	return h, nil
}

// Checkout describes where a command validation ran: the commit checked
// out (empty on an unborn branch), whether the worktree differed from it
// (any change git status shows, untracked files included), and the
// directory relative to the worktree's root ("" outside it or in a bare
// repository).
func (e *Session) Checkout(ctx context.Context, dir string) (commit string, dirty bool, rel string) {
	commit, _ = e.git(ctx, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if e.Repo.WorkTree == "" {
		return commit, false, ""
	}
	if st, err := e.git(ctx, "status", "--porcelain", "--untracked-files=normal"); err == nil {
		dirty = st != ""
	}
	root, err1 := filepath.EvalSymlinks(e.Repo.WorkTree)
	abs, err2 := filepath.EvalSymlinks(dir)
	if err1 != nil || err2 != nil {
		return commit, dirty, ""
	}
	if r, err := filepath.Rel(root, abs); err == nil && r != ".." && !strings.HasPrefix(r, "../") {
		rel = filepath.ToSlash(r)
	}
	return commit, dirty, rel
}
