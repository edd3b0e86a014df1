package gitstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"git-reason/gitstore/git"
)

// Repo is a git repository located the way git locates it.
type Repo struct {
	GitDir    string // the per-worktree git dir (HEAD, index, config.worktree)
	CommonDir string // objects, refs, packed-refs, config (== GitDir except in linked worktrees)
	WorkTree  string // "" when bare, or when run inside the git directory
	// ObjectDir is where git writes objects: GIT_OBJECT_DIRECTORY when
	// set, else CommonDir's objects ("" when not known: taken as that).
	ObjectDir string
	// ObjectFormat is the hash naming the repository's objects
	// (extensions.objectFormat): "sha1", or "sha256", in which the store
	// cannot write ("" when not known: taken as sha1).
	ObjectFormat string
	// FetchProgress, when set, is where git fetch's progress goes as it
	// comes (a terminal: see git.Cmd.Progress).
	FetchProgress io.Writer
	// Bare is git's --is-bare-repository: false where WorkTree is "" only
	// because the command runs inside the git directory of a repository
	// that has a work tree (where git says "must be run in a work tree").
	Bare bool
	// RefLog, when set, says how this program's ref updates are logged
	// (RefLogging), asked at each update; unset, none is.
	RefLog RefLogger
}

// ErrNotRepository is wrapped by Discover when no repository is found.
var ErrNotRepository = errors.New("not a git repository")

// ErrRefused is wrapped by Discover when git found a repository and
// refuses to use it by one of its safety rules: owned by another user
// (safe.directory), or a bare repository found by walking up
// (safe.bareRepository).
var ErrRefused = errors.New("repository refused by git")

// Discover asks git which repository dir belongs to: one git rev-parse,
// run in dir with the caller's environment, so that GIT_DIR,
// GIT_COMMON_DIR, GIT_WORK_TREE, GIT_CEILING_DIRECTORIES, gitfiles,
// core.bare, core.worktree, extensions.worktreeConfig and git's ownership
// check (safe.directory) are git's own answers, not a second reading of
// them. Paths are absolute, with symbolic links resolved as git resolves
// them. The error wraps ErrNotRepository when there is no repository and
// ErrRefused when git refuses the one it found; either way it is git's
// message, on one line.
func Discover(dir string) (*Repo, error) {
	// --show-toplevel comes last: with no work tree (a bare repository,
	// or inside a git dir) git prints the directories, the object format
	// and whether the repository is bare, and then fails on it alone. --git-path objects is
	// GIT_OBJECT_DIRECTORY when set.
	// LC_ALL=C (git.Env): git's messages are parsed below.
	args := []string{"rev-parse", "--path-format=absolute"}
	for _, q := range discoverQuestions {
		args = append(args, q...)
	}
	out, err := git.Run(context.Background(), dir, args...)
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	var ge *git.Error
	switch {
	case err == nil && len(lines) == 6:
		return &Repo{GitDir: lines[0], CommonDir: lines[1], WorkTree: lines[5], ObjectDir: lines[2], ObjectFormat: lines[3]}, nil
	case errors.As(err, &ge) && len(lines) == 5 && strings.Contains(ge.Stderr, "must be run in a work tree"):
		return &Repo{GitDir: lines[0], CommonDir: lines[1], ObjectDir: lines[2], ObjectFormat: lines[3], Bare: lines[4] == "true"}, nil
	case err == nil || errors.As(err, &ge) && strings.Contains(ge.Stderr, "must be run in a work tree"):
		// More lines than values: a path holds a line break (a
		// repository in "a\nb", which git itself works in). Each value
		// asked alone is one value, whatever it holds.
		return discoverEach(dir, err == nil)
	case errors.As(err, &ge):
		msg := oneLine(ge.Stderr)
		switch {
		case strings.Contains(msg, "dubious ownership") || strings.Contains(msg, "safe.bareRepository"):
			return nil, &gitSays{msg, ErrRefused}
		case strings.Contains(msg, "not a git repository"):
			return nil, &gitSays{msg, ErrNotRepository}
		case msg != "":
			return nil, fmt.Errorf("discover repository: git rev-parse: %s", msg)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("discover repository in %s: %w", dir, err)
	}
	return nil, fmt.Errorf("discover repository in %s: git rev-parse printed %q", dir, out)
}

// discoverQuestions are what Discover asks git rev-parse, in the order of
// its answer's lines; --show-toplevel last (see Discover).
var discoverQuestions = [][]string{{"--git-dir"}, {"--git-common-dir"}, {"--git-path", "objects"}, {"--show-object-format"}, {"--is-bare-repository"}, {"--show-toplevel"}}

// discoverEach is Discover with one git rev-parse per value, for paths
// whose line breaks make one answer's lines ambiguous; workTree says
// whether git named a work tree.
func discoverEach(dir string, workTree bool) (*Repo, error) {
	var vals []string
	for _, arg := range discoverQuestions {
		if arg[0] == "--show-toplevel" && !workTree {
			break
		}
		out, err := git.Run(context.Background(), dir, append([]string{"rev-parse", "--path-format=absolute"}, arg...)...)
		if err != nil {
			return nil, fmt.Errorf("discover repository in %s: %w", dir, err)
		}
		vals = append(vals, strings.TrimSuffix(string(out), "\n"))
	}
	r := &Repo{GitDir: vals[0], CommonDir: vals[1], ObjectDir: vals[2], ObjectFormat: vals[3], Bare: vals[4] == "true"}
	if workTree {
		r.WorkTree, r.Bare = vals[5], false
	}
	return r, nil
}

// gitSays is git's own message for one of Discover's sentinel errors.
type gitSays struct {
	msg  string
	kind error
}

func (e *gitSays) Error() string { return e.msg }
func (e *gitSays) Unwrap() error { return e.kind }

// oneLine is git's message on one line: "fatal: " dropped, the first
// line, then the others (a hint, the command to run) after a colon.
func oneLine(stderr string) string {
	var parts []string
	for _, l := range strings.Split(stderr, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, strings.TrimPrefix(l, "fatal: "))
		}
	}
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return parts[0] + ": " + strings.Join(parts[1:], " ")
}

// Branch is the branch HEAD names, without refs/heads/ ("" when HEAD is
// detached or unreadable); an unborn branch is a branch. Every caller
// asks here, so that they agree.
func (r *Repo) Branch() string {
	_, target, err := r.readLoose("HEAD")
	if err != nil {
		return ""
	}
	b, _ := strings.CutPrefix(target, "refs/heads/")
	if b == target {
		return ""
	}
	return b
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return s != ""
}
