package ops

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"git-reason/gitstore"
	"git-reason/gitstore/git"
	"git-reason/hooks"
	"git-reason/policy/neutrality"
	"git-reason/record"
)

// HooksDir is where git runs this repository's hooks from.
func (e *Session) HooksDir() (string, error) {
	st, err := e.Settings()
	if err != nil {
		return "", err
	}
	return hooks.Dir(st.HooksPath, e.Repo.WorkTree, e.Repo.CommonDir), nil
}

// InstallHooks writes the shims where git runs hooks from (see
// hooks.Install). A core.hooksPath directory that git tracks belongs to the
// team's history: it is changed only with force. A bare repository is
// refused: no commit is made there, so the client hooks would never run.
func (e *Session) InstallHooks(ctx context.Context, force bool) (string, []hooks.Status, error) {
	if e.Repo.WorkTree == "" && !e.Repo.Bare {
		return "", nil, e.outsideWorkTree("hooks install")
	}
	if e.Repo.WorkTree == "" {
		return "", nil, Usage("a bare repository makes no commits, so its client hooks never run: run 'git reason hooks install --server' for a hosted repository's pre-receive check, or 'git reason remote setup' to have git fetch bring tasks")
	}
	return e.changeHooks(ctx, "install", force, func(dir string) ([]hooks.Status, error) {
		// Made as git makes its directories in a shared repository, so
		// that the group's other members install and uninstall after
		// this one (hooks.Install finds it made).
		if err := git.MkdirAll(dir, 0o777); err != nil {
			return nil, fmt.Errorf("create hooks directory: %w", err)
		}
		st, err := hooks.Install(dir, force)
		if err != nil {
			return nil, Refused("%v", err)
		}
		return st, nil
	})
}

// UninstallHooks removes the exact shims (see hooks.Uninstall), with the
// same rule for a tracked core.hooksPath directory as InstallHooks.
func (e *Session) UninstallHooks(ctx context.Context, force bool) (string, []hooks.Status, error) {
	return e.changeHooks(ctx, "uninstall", force, hooks.Uninstall)
}

// changeHooks runs change ("install" or "uninstall", verb) on the hooks
// directory, after refusing, without force, a change to a tracked
// core.hooksPath directory.
func (e *Session) changeHooks(ctx context.Context, verb string, force bool, change func(dir string) ([]hooks.Status, error)) (string, []hooks.Status, error) {
	dir, err := e.HooksDir()
	if err != nil {
		return "", nil, err
	}
	if hooks.Changes(dir, hooks.Names, verb == "uninstall") && !force {
		if err := e.refuseTracked(ctx, dir, verb); err != nil {
			return dir, nil, err
		}
	}
	st, err := change(dir)
	return dir, st, err
}

// refuseTracked refuses to change a hooks directory inside the work tree
// that holds files git tracks.
func (e *Session) refuseTracked(ctx context.Context, dir, verb string) error {
	if e.Repo.WorkTree == "" || e.settings.HooksPath == "" { // HooksDir read the settings
		return nil
	}
	rel, err := filepath.Rel(e.Repo.WorkTree, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return nil
	}
	out, err := e.Repo.Git(ctx, "ls-files", "-z", "--", rel)
	if err != nil {
		return fmt.Errorf("list the tracked files of %s: %w", rel, err)
	}
	if len(out) > 0 {
		return Refused("core.hooksPath %s holds files git tracks: changing it changes the team's history; commit the change by hand, or run 'git reason hooks %s --force'", rel, verb)
	}
	return nil
}

// zeroHash is what git's pre-push protocol sends for a missing object.
const zeroHash = "0000000000000000000000000000000000000000"

// emptyTree is git's empty tree, the base for checking a whole commit.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// PushFinding is one reason a push is refused or, marked Warning, what
// the push is told without being refused (a file the neutrality check did
// not read).
type PushFinding struct {
	Ref, Message string
	Warning      bool
}

// ViolationLine is a neutrality violation as a person reads it, one a
// line: its path (a name a clone chose, which may hold a newline), term
// and declaration escaped as every text output is, so that the line stays
// one honest line and a hook's every line keeps its prefix.
func ViolationLine(v neutrality.Violation) string {
	v.Path, v.Name, v.DeclaredAs = record.Printable(v.Path), record.Printable(v.Name), record.Printable(v.DeclaredAs)
	return v.String()
}

// NotChecked is the line saying a file was not checked for neutrality,
// and why.
func NotChecked(s neutrality.Skipped) string {
	return "not checked: " + record.Printable(s.Path) + ": " + s.Reason
}

// PushLine is one ref a push sends, as git's pre-push hook hands it over
// on stdin: "<local ref> <local sha> <remote ref> <remote sha>".
type PushLine struct {
	LocalRef, LocalSHA, RemoteRef, RemoteSHA string
}

// ReadPushLines reads the pre-push hook's stdin.
func ReadPushLines(stdin io.Reader) ([]PushLine, error) {
	return readHookLines(stdin, "pre-push", 4, func(f []string) PushLine {
		return PushLine{LocalRef: f[0], LocalSHA: f[1], RemoteRef: f[2], RemoteSHA: f[3]}
	})
}

// readHookLines reads what git hands hook on stdin: a line of n fields
// a ref (blank lines skipped), each made into a T by line; any other line
// is bad input.
func readHookLines[T any](stdin io.Reader, hook string, n int, line func([]string) T) ([]T, error) {
	var out []T
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != n {
			return nil, Usage("%s: unexpected input line %q", hook, sc.Text())
		}
		out = append(out, line(f))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s input: %w", hook, err)
	}
	return out, nil
}

// PrePush checks what a push sends (lines, from ReadPushLines):
// reasoning refs are replayed by verify at the commit being pushed; other
// refs have the files changed by the pushed commits checked for neutrality.
func (e *Session) PrePush(ctx context.Context, lines []PushLine) ([]PushFinding, error) {
	var out []PushFinding
	// The task refs are verified together, in one verification: one a
	// ref cost a push of 300 tasks 12.2 s of CPU against 1.4 s without
	// the hook (`sh bench/push/first.sh BASE WORLD 300 3 hooks`).
	at := map[string]string{}
	var pushed []string // the tasks, in the order git names them
	for _, l := range lines {
		// What is pushed is decided by where it lands: the remote ref, not
		// the local name (HEAD, a hash, another ref) it is pushed from.
		localSHA, remoteRef, remoteSHA := l.LocalSHA, l.RemoteRef, l.RemoteSHA
		if localSHA == zeroHash {
			continue // a deletion sends nothing
		}
		if task, ok := strings.CutPrefix(remoteRef, gitstore.TaskPrefix); ok {
			if err := record.CheckTask(task); err != nil {
				out = append(out, PushFinding{Ref: remoteRef, Message: "not a valid task name: " + task})
				continue
			}
			if _, ok := at[task]; !ok {
				pushed = append(pushed, task)
			}
			at[task] = localSHA
			continue
		}
		if strings.HasPrefix(remoteRef, "refs/reasoning/") {
			continue
		}
		base := remoteSHA
		if base == zeroHash || !e.Store.HasObject(base) {
			base = emptyTree
		}
		res, err := e.CheckNeutrality(ctx, NeutralityRequest{Range: base + ".." + localSHA, Dir: e.Repo.WorkTree})
		if err != nil {
			// A tag may name a blob (as some projects publish a signing
			// key): it holds no files to check, and a range to it is
			// refused as bad input.
			if typ, terr := e.Repo.Git(ctx, "cat-file", "-t", localSHA+"^{}"); terr == nil && strings.TrimSpace(string(typ)) == "blob" {
				out = append(out, PushFinding{Ref: remoteRef, Message: NotChecked(neutrality.Skipped{Path: localSHA, Reason: "a blob, not a commit: it holds no files"}), Warning: true})
				continue
			}
			return nil, err
		}
		for _, v := range res.Violations {
			out = append(out, PushFinding{Ref: remoteRef, Message: ViolationLine(v)})
		}
		for _, s := range res.Skipped {
			out = append(out, PushFinding{Ref: remoteRef, Message: NotChecked(s), Warning: true})
		}
	}
	if len(at) == 0 {
		return out, nil
	}
	res, err := e.Verify(ctx, nil, at)
	if err != nil {
		return nil, err
	}
	// A record a merge made inadmissible travels: a person settles it
	// with a new record; refusing the push would strand it.
	// Each finding under its task's ref, in the order git named them.
	order := make(map[string]int, len(pushed))
	for i, task := range pushed {
		order[task] = i
	}
	bad := record.Blocking(res.Findings)
	slices.SortStableFunc(bad, func(a, b record.Finding) int { return order[a.Task] - order[b.Task] })
	for _, fd := range bad {
		out = append(out, PushFinding{Ref: gitstore.TaskRef(fd.Task), Message: fd.String()})
	}
	return out, nil
}

// outsideWorkTree is the error of verb, which needs the work tree, run
// inside the git directory of a repository that has one: not a bare
// repository, whose advice would not apply (git's own commands say "must
// be run in a work tree" there).
func (e *Session) outsideWorkTree(verb string) error {
	return Usage("%s needs the work tree, and this is inside the git directory %s: run it from the work tree", verb, e.Repo.GitDir)
}
