package gitstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"git-reason/gitstore/git"
)

// RemotePrefix is where pull keeps what it fetched, one ref per remote and
// task: refs/reasoning/remotes/<remote>/<task>. It is outside TaskPrefix,
// so nothing fetched is a task until pull verified and integrated it, and
// outside refs/remotes/, so `git branch -r` does not list it.
const RemotePrefix = "refs/reasoning/remotes/"

// RemoteRef is the remote-tracking ref of a task fetched from remote.
func RemoteRef(remote, task string) string { return RemotePrefix + remote + "/" + task }

// FetchRefspec is the refspec that fetches every task of remote into its
// remote-tracking namespace. The "+" lets the tracking refs follow a remote
// that was rewritten: they are inspected, never trusted.
func FetchRefspec(remote string) string {
	return "+" + TaskPrefix + "*:" + RemotePrefix + remote + "/*"
}

// GitError is a git command that failed: its arguments, exit status and
// what it said on stderr.
type GitError = git.Error

// Git runs the user's git on this repository (and in its work tree, when
// it has one), with the user's environment and configuration (credential
// helpers, ssh settings, insteadOf), and returns its stdout. A non-zero
// exit is a *GitError. The network is only ever reached this way: go-git's
// own transports ignore most of git's configuration.
func (r *Repo) Git(ctx context.Context, args ...string) ([]byte, error) {
	return r.Command(args...).Run(ctx)
}

// catFile starts the one batch reader of objects on this repository.
func (r *Repo) catFile(ctx context.Context) (*git.CatFile, error) {
	return git.StartCatFile(ctx, r.GitDir, "--git-dir="+r.GitDir)
}

// Command is git with args on this repository (and in its work tree,
// when it has one), for a caller that streams.
func (r *Repo) Command(args ...string) git.Cmd {
	c := git.Cmd{Dir: r.GitDir, Global: []string{"--git-dir=" + r.GitDir}, Args: args}
	if r.WorkTree != "" {
		c.Dir, c.Global = r.WorkTree, append(c.Global, "--work-tree="+r.WorkTree)
	}
	return c
}

// PushResult is what git push said about one ref.
type PushResult struct {
	Ref    string // the remote ref
	Flag   byte   // git's porcelain flag: ' ' fast-forward, '*' new, '=' up to date, '!' rejected
	Status string // git's summary, for example "[rejected] (fetch first)"
	// Conflict is the remote's refusal of a ref that is a directory
	// prefix of one it has, or has one as its own, in git's words
	// ("cannot lock ref 'refs/…/a/b': 'refs/…/a' exists; …"); "" otherwise.
	Conflict string
	// Hook is what the remote's hook said of a ref it declined, its own
	// lines ("remote: …") joined by "; ": the lines naming the ref when
	// some do (git reason's server hook names every ref it refuses),
	// else every line it said; "" when no hook declined the ref.
	Hook string
}

// Moved reports whether the push of this ref was rejected because the
// remote ref moved or is moving (someone pushed first, or is pushing now
// and holds its lock), the case pull-and-retry fixes.
func (p PushResult) Moved() bool {
	if p.Flag != '!' || p.Conflict != "" {
		return false
	}
	for _, why := range []string{"fetch first", "non-fast-forward", "stale info", "failed to lock", "cannot lock", "failed to update ref", "incorrect old value"} {
		if strings.Contains(p.Status, why) {
			return true
		}
	}
	return false
}

// Push runs git push of refspecs ("<commit>:<remote ref>") to remote with
// the user's git: explicit refspecs, never forced. It returns git's verdict
// per ref; a rejection is a result, not an error. The error is for a push
// that did not run (no such remote, no connection).
func (r *Repo) Push(ctx context.Context, remote string, refspecs []string) ([]PushResult, error) {
	if len(refspecs) == 0 {
		return nil, nil
	}
	args := []string{"push", "--porcelain", "--no-recurse-submodules", remote}
	for _, spec := range refspecs {
		if strings.HasPrefix(spec, "+") || !strings.Contains(spec, ":") {
			return nil, fmt.Errorf("push %s: only explicit refspecs, never forced", spec)
		}
	}
	// What a push killed half-way left would travel with a plain git
	// push --mirror and keep its commits: the next push removes it.
	r.dropLeftStaged(ctx)
	if len(refspecs) > pushInline && allTasks(refspecs) {
		ns, err := r.stagePush(ctx, refspecs)
		if err != nil {
			return nil, err
		}
		defer r.dropStaged(ctx, ns)
		args = append(args, ns+"*:"+TaskPrefix+"*")
	} else {
		args = append(args, refspecs...)
	}
	c := r.Command(args...)
	if !strings.ContainsAny(remote, "=\n") {
		// A mirror clone's remote (remote.<name>.mirror, set by git
		// clone --mirror) makes git push refuse every refspec ("--mirror
		// can't be combined with refspecs"): these explicit ones are
		// pushed as to any remote.
		c.Global = append(c.Global, "-c", "remote."+remote+".mirror=false")
	}
	out, err := c.Run(ctx)
	res := parsePorcelain(out)
	if err != nil && len(res) == 0 {
		return nil, err
	}
	if ge := (*GitError)(nil); errors.As(err, &ge) {
		conflicts := remoteConflicts(ge.Stderr)
		for i := range res {
			res[i].Conflict = conflicts[res[i].Ref]
			if res[i].Flag == '!' && strings.Contains(res[i].Status, "hook declined") {
				res[i].Hook = hookSaid(ge.Stderr, res[i].Ref)
			}
		}
	}
	return res, nil
}

// hookSaid is what a remote hook printed (git's "remote: " lines) about
// ref: the lines that name it, else every line, joined by "; ".
func hookSaid(stderr, ref string) string {
	var all, named []string
	for _, line := range strings.Split(stderr, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimRight(line, "\r "), "remote: ")
		if !ok || strings.TrimSpace(rest) == "" {
			continue
		}
		rest = strings.TrimSpace(rest)
		all = append(all, rest)
		if strings.Contains(rest, ref+": ") || strings.HasSuffix(rest, ref) {
			named = append(named, rest)
		}
	}
	if len(named) > 0 {
		return strings.Join(named, "; ")
	}
	return strings.Join(all, "; ")
}

// remoteConflicts reads, from git push's stderr, the remote's refusals of
// refs that collide with its own by directory ("remote: error: cannot
// lock ref 'X': 'Y' exists; cannot create 'X'"), by the ref refused.
func remoteConflicts(stderr string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(stderr, "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "remote:"))
		line = strings.TrimSpace(strings.TrimPrefix(line, "error:"))
		rest, ok := strings.CutPrefix(line, "cannot lock ref '")
		if !ok || !strings.Contains(rest, "' exists; cannot create '") {
			continue
		}
		if ref, _, ok := strings.Cut(rest, "'"); ok {
			out[ref] = line
		}
	}
	return out
}

// parsePorcelain reads `git push --porcelain` lines: "<flag>\t<from>:<to>\t<summary>".
func parsePorcelain(out []byte) []PushResult {
	var res []PushResult
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.SplitN(line, "\t", 3)
		if len(f) < 3 || len(f[0]) != 1 {
			continue
		}
		_, to, ok := strings.Cut(f[1], ":")
		if !ok {
			continue
		}
		res = append(res, PushResult{Ref: to, Flag: f[0][0], Status: f[2]})
	}
	return res
}
