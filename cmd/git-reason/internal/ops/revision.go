package ops

import (
	"context"
	"path/filepath"
	"strings"
)

// git runs git in the session's repository (gitstore.Repo.Git) and
// returns its trimmed standard output.
func (e *Session) git(ctx context.Context, args ...string) (string, error) {
	out, err := e.Repo.Git(ctx, args...)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// ResolveCommit returns the full hash of the commit rev names, reading rev
// as git does (HEAD, a branch, a tag, an abbreviated hash, HEAD~2); a rev
// that names no commit of this repository is bad input.
func (e *Session) ResolveCommit(ctx context.Context, rev string) (string, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return "", Usage("--commit %q: give a revision (a hash, HEAD, a branch)", rev)
	}
	if rev == "HEAD" {
		// What is named most, read as HeadCommit reads it: no git process.
		if h := e.HeadCommit(ctx); h != "" {
			return h, nil
		}
	}
	h, err := e.git(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", peeled(rev))
	if err != nil || h == "" {
		return "", Usage("--commit %q: no such commit in this repository", rev)
	}
	return h, nil
}

// Checkout describes where a command validation ran: the commit checked
// out (empty on an unborn branch), whether the worktree differed from it
// (any change git status shows, untracked files included; the index is
// left as it was), and the directory relative to the worktree's root (""
// outside it). RunValidation refuses a bare repository before it asks.
func (e *Session) Checkout(ctx context.Context, dir string) (commit string, dirty bool, rel string) {
	commit = e.HeadCommit(ctx)
	if e.Repo.WorkTree == "" {
		return commit, false, ""
	}
	// --no-optional-locks: git status would otherwise take the index's
	// lock and write the stat data it refreshed, a write of the user's
	// index that a validation has no business doing (a concurrent git
	// commit could find index.lock taken); git documents the option for
	// such background readers of status.
	if st, err := e.git(ctx, "--no-optional-locks", "status", "--porcelain", "--untracked-files=normal"); err == nil {
		dirty = st != ""
	}
	rel, _ = e.InWorkTree(dir)
	return commit, dirty, rel
}

// InWorkTree says where dir is relative to the worktree's root, with
// symbolic links resolved (its slash-separated path, "." for the root),
// and whether it is inside the worktree at all: false outside it, in a
// bare repository, or when either cannot be resolved.
func (e *Session) InWorkTree(dir string) (rel string, ok bool) {
	if e.Repo.WorkTree == "" {
		return "", false
	}
	root, err1 := filepath.EvalSymlinks(e.Repo.WorkTree)
	abs, err2 := filepath.EvalSymlinks(dir)
	if err1 != nil || err2 != nil {
		return "", false
	}
	r, err := filepath.Rel(root, abs)
	if err != nil || r == ".." || strings.HasPrefix(r, "../") {
		return "", false
	}
	return filepath.ToSlash(r), true
}
