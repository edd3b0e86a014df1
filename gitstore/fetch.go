package gitstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"git-reason/gitstore/git"
	"git-reason/record"
)

// FetchRefusal is a task whose fetched objects git's own object checks
// refused: nothing of it reached the object store or its tracking ref.
type FetchRefusal struct {
	Task   string
	Head   string // the remote's head of the task
	Reason string // git's words, one line
}

// Fetch fetches remote's tasks (every task, or only those named) into the
// remote-tracking namespace with the user's git, with git's object checks
// on for this fetch (fetch.fsckObjects: what git fsck refuses, such as a
// tree holding one name twice, never reaches the object store). Fetching
// every task prunes tracking refs whose task the remote no longer has.
//
// When git refuses the objects of a batch, the tasks are fetched again in
// halves, down to one task, so that every task whose objects pass still
// arrives and each one refused is returned with git's reason; its tracking
// ref is left as it was. (That round does not prune: a remote holding a
// refused task keeps stale tracking refs until it no longer holds it.)
// Past maxRefetches fetches, a batch git refuses is returned whole.
// The error is for a fetch that failed for another reason (no such
// remote, no connection).
func (r *Repo) Fetch(ctx context.Context, remote string, tasks []string) ([]FetchRefusal, error) {
	first := r.fetch(ctx, remote, tasks)
	if first == nil || !objectsRefused(first) {
		return nil, first
	}
	heads, err := r.remoteHeads(ctx, remote)
	if err != nil {
		return nil, err
	}
	var todo []string
	if len(tasks) == 0 {
		for t, h := range heads {
			if have, _ := r.ReadRef(RemoteRef(remote, t)); have != h {
				todo = append(todo, t)
			}
		}
		sort.Strings(todo)
	} else {
		todo = tasks
	}
	var refused []FetchRefusal
	fetches := 0
	var split func([]string) error
	split = func(ts []string) error {
		if len(ts) == 0 {
			return nil
		}
		if fetches >= maxRefetches {
			for _, t := range ts {
				refused = append(refused, FetchRefusal{Task: t, Head: heads[t], Reason: fmt.Sprintf(
					"not fetched: git refused the objects of more of this remote's tasks than one pull looks for (%d fetches); name a task to fetch it alone: git reason pull %s %s",
					maxRefetches, record.ShellQuote(remote), record.ShellQuote(t))})
			}
			return nil
		}
		fetches++
		err := r.fetch(ctx, remote, ts)
		switch {
		case err == nil:
			return nil
		case !objectsRefused(err):
			return err
		case len(ts) == 1:
			refused = append(refused, FetchRefusal{Task: ts[0], Head: heads[ts[0]], Reason: objectsReason(err)})
			return nil
		}
		if err := split(ts[:len(ts)/2]); err != nil {
			return err
		}
		return split(ts[len(ts)/2:])
	}
	// The whole batch failed already: start with its halves.
	switch len(todo) {
	case 0:
		return nil, first
	case 1:
		refused = append(refused, FetchRefusal{Task: todo[0], Head: heads[todo[0]], Reason: objectsReason(first)})
		return refused, nil
	}
	if err := split(todo[:len(todo)/2]); err != nil {
		return nil, err
	}
	if err := split(todo[len(todo)/2:]); err != nil {
		return nil, err
	}
	return refused, nil
}

// maxRefetches bounds the fetches that look for the tasks whose objects
// git refused: a remote of 300 such tasks cost 600 fetches (a minute on
// one machine, a round trip each over a network), at every pull. Past
// it, the tasks of each batch git refuses are held back whole, each
// with a line saying how to fetch it alone.
const maxRefetches = 32

// fetch runs one git fetch with object checks on: every task of remote
// (pruning), or the named ones. Records are fetched whole: --no-filter,
// since in a partial clone git fetches with the clone's filter
// (remote.<name>.partialCloneFilter), and a history fetched without its
// blobs does not read. --refmap= moves the refs named here alone: git
// also updates, by the remote's configured fetch refspecs, the refs they
// map the fetched refs to, and a mirror clone's (+refs/*:refs/*) maps a
// task to the local task ref, forced: its records not yet pushed were
// dropped, before pull could look at what it fetched.
func (r *Repo) fetch(ctx context.Context, remote string, tasks []string) error {
	args := []string{"-c", "fetch.fsckObjects=true", "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules", "--no-filter", "--refmap="}
	if len(tasks) == 0 {
		args = append(args, "--prune", remote, FetchRefspec(remote))
	} else {
		args = append(args, remote)
		for _, t := range tasks {
			args = append(args, "+"+TaskRef(t)+":"+RemoteRef(remote, t))
		}
	}
	c := r.Command(args...)
	if r.FetchProgress != nil {
		// With --quiet: git's counts, not a line per ref.
		c.Args = slices.Insert(c.Args, slices.Index(c.Args, "--quiet")+1, "--progress")
		c.Progress = r.FetchProgress
	}
	_, err := c.Run(ctx)
	return err
}

// remoteHeads lists the remote's tasks and their heads (git ls-remote).
func (r *Repo) remoteHeads(ctx context.Context, remote string) (map[string]string, error) {
	out, err := r.Git(ctx, "ls-remote", "--refs", remote, TaskPrefix+"*")
	if err != nil {
		return nil, err
	}
	heads := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		h, ref, ok := strings.Cut(line, "\t")
		if task, isTask := strings.CutPrefix(ref, TaskPrefix); ok && isTask {
			heads[task] = h
		}
	}
	return heads, nil
}

// objectsRefused reports whether a failed fetch failed because git's
// object checks refused what the remote sent.
func objectsRefused(err error) bool {
	var ge *GitError
	return errors.As(err, &ge) && strings.Contains(ge.Stderr, "fsck error")
}

// objectsReason is git's own line naming the object it refused and why.
func objectsReason(err error) string {
	var ge *GitError
	if !errors.As(err, &ge) {
		return err.Error()
	}
	for _, line := range strings.Split(ge.Stderr, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "error: object "); ok {
			return record.Printable("object " + rest)
		}
	}
	return record.Printable(git.LastLine(ge.Stderr, ge.Error()))
}
