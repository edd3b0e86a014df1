package gitstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"git-reason/gitstore/git"
	"git-reason/record"
)

// A partial clone (git clone --filter=blob:none) holds a task's commits
// and trees without its record blobs when its refs arrived by a plain git
// fetch, which carries the clone's filter: git fetch origin
// 'refs/reasoning/tasks/*:refs/reasoning/tasks/*'. Git reads such an
// object by fetching it from the promisor remote when it finds it missing
// (promisor-remote.c); go-git does not, so an object go-git finds missing
// in a partial clone is fetched here the way git fetches it: one
// `git fetch <remote> --filter=blob:none --stdin` given the objects, with
// the noop negotiation. The fetch is batched: the first object found
// missing fetches every object missing from the histories of the
// repository's tasks (git rev-list --missing=print), so that a command
// over every task costs one fetch, not one per record. The objects
// fetched are read as any other: every rule of the replay still holds
// them to their task's history.
//
// Nothing of this runs while no object is missing: a normal repository
// starts no process for it. Each object is looked for once per process:
// one a fetch did not bring (the remote no longer has it, or cannot be
// reached) is missing for the rest of the process, with the fetch's
// reason and what to run (PromisorError).

// promisor is one repository's state of the fetches of missing objects,
// shared by every Store of the process on that repository.
type promisor struct {
	mu      sync.Mutex
	checked bool     // remotes read from git's configuration
	remotes []string // the promisor remotes, in git's order; none: not a partial clone
	// tried is every object a fetch looked for: nil when the fetch ran
	// (the object is read again), else why it is still missing.
	tried map[plumbing.Hash]*PromisorError
}

// promisors holds each repository's promisor, by objects directory.
var promisors sync.Map

// PromisorError is an object missing from a partial clone that its
// promisor remote did not send. It matches plumbing.ErrObjectNotFound.
type PromisorError struct {
	Object string
	Remote string // the promisor remote asked (the first, when there are more)
	Reason string // git fetch's first line
	// Head is the head of the task whose read found the object missing,
	// when the reader knows it (WithHead): the fetch to run names it.
	Head string
}

func (e *PromisorError) Error() string {
	head := e.Head
	if head == "" {
		head = "<the task's head>"
	}
	return fmt.Sprintf("not in this partial clone, and its promisor remote %s did not send it (%s): once %s can be reached, run the command again, or 'git fetch --refetch --no-filter %s %s'",
		record.Printable(e.Remote), record.Printable(e.Reason), record.Printable(e.Remote), record.Printable(e.Remote), head)
}

func (e *PromisorError) Is(target error) bool { return target == plumbing.ErrObjectNotFound }

// withHead is err with head named in the fetch its PromisorError says to
// run, for a reader of head's history; err as it is otherwise.
func withHead(head string, err error) error {
	var pe *PromisorError
	if !errors.As(err, &pe) || pe.Head != "" || !isHex(head) || len(head) != 40 {
		return err
	}
	named := *pe
	named.Head = head
	return &headed{err: err, text: strings.Replace(err.Error(), pe.Error(), named.Error(), 1)}
}

// headed is an error whose PromisorError names the head to fetch.
type headed struct {
	err  error
	text string
}

func (e *headed) Error() string { return e.text }
func (e *headed) Unwrap() error { return e.err }

// missingObject is why h, which a reader found missing, is missing: the
// fetch's failure when one looked for it, else plumbing.ErrObjectNotFound.
func (s *Store) missingObject(h string) error {
	v, ok := promisors.Load(s.objectsDir())
	if !ok {
		return plumbing.ErrObjectNotFound
	}
	p := v.(*promisor)
	p.mu.Lock()
	defer p.mu.Unlock()
	if pe := p.tried[plumbing.NewHash(h)]; pe != nil {
		return pe
	}
	return plumbing.ErrObjectNotFound
}

func (s *Store) objectsDir() string { return filepath.Join(s.Repo.CommonDir, "objects") }

// fetchMissing is told that go-git found object h missing. In a partial
// clone, unless a fetch looked for h already, it fetches h and every
// object missing from the tasks' histories (and head's, when head is not
// "") from the promisor remotes and returns nil: the caller reads h
// again. Otherwise it returns why h is missing (a *PromisorError, or
// plumbing.ErrObjectNotFound).
func (s *Store) fetchMissing(h plumbing.Hash, head string) error {
	v, _ := promisors.LoadOrStore(s.objectsDir(), &promisor{})
	p := v.(*promisor)
	p.mu.Lock()
	defer p.mu.Unlock()
	if pe, ok := p.tried[h]; ok {
		if pe != nil {
			return pe
		}
		return plumbing.ErrObjectNotFound // fetched, and still missing
	}
	ctx := context.Background()
	if !p.checked {
		p.checked = true
		p.remotes = s.promisorRemotes(ctx)
	}
	if len(p.remotes) == 0 {
		return plumbing.ErrObjectNotFound
	}
	want := s.missingFromTasks(ctx, head)
	if !slices.Contains(want, h.String()) {
		want = append(want, h.String())
	}
	if p.tried == nil {
		p.tried = map[plumbing.Hash]*PromisorError{}
	}
	var failed *PromisorError
	for i, remote := range p.remotes {
		err := s.fetchObjects(ctx, remote, want)
		if err == nil {
			failed = nil
			break
		}
		if i == 0 {
			failed = &PromisorError{Remote: remote, Reason: fetchReason(err)}
		}
	}
	for _, w := range want {
		var pe *PromisorError
		if failed != nil {
			e := *failed
			e.Object = w
			pe = &e
		}
		p.tried[plumbing.NewHash(w)] = pe
	}
	if failed != nil {
		return p.tried[h]
	}
	return nil
}

// fetchBefore is told that head's history (or head's records, readTask)
// is about to be read. Git
// fetches an object it finds missing from a partial clone by itself, one
// fetch per object, and says nothing of why one did not come: the git
// processes that read a history (git cat-file: a long history's reader,
// and the reader of packed objects in large packs, packreads.go) would
// cost a round trip to the promisor remote per missing record. So, in a
// partial clone, the blobs of head's records/ tree are looked for first,
// in this process, and the first one missing fetches everything missing
// from the tasks' histories and head's in one fetch (fetchMissing), as
// go-git's reads do. The error is the fetch's failure (PromisorError),
// when the remote did not send it: the history is then not read, where
// git would ask the remote again for each object. A repository without
// a promisor pack (not a partial clone) is not looked at.
func (s *Store) fetchBefore(head string) error {
	if !s.promisorPacks() || !isHex(head) || len(head) != 40 {
		return nil
	}
	tree, err := s.recordsTree(plumbing.NewHash(head))
	if err != nil {
		return nil // the read says why
	}
	return s.fetchBeforeTree(head, tree)
}

// fetchBeforeTree is fetchBefore given head's records/ tree, for a reader
// of its records (readTask) that has read it.
func (s *Store) fetchBeforeTree(head string, tree *tree) error {
	if !s.promisorPacks() {
		return nil
	}
	for _, e := range tree.Entries {
		if err := s.objs.HasEncodedObject(e.Hash); err != plumbing.ErrObjectNotFound {
			continue
		}
		if err := s.fetchMissing(e.Hash, head); err != nil && err != plumbing.ErrObjectNotFound {
			return fmt.Errorf("%s/%s: read blob %s: %w", RecordsDir, record.Printable(e.Name), e.Hash, err)
		}
		return nil
	}
	return nil
}

// promisorPacks reports whether objects/pack holds a promisor pack
// (*.promisor), as a partial clone's does from its clone on: objects
// can be missing only there. It is decided once per Store.
func (s *Store) promisorPacks() bool {
	s.partial.Do(func() {
		entries, _ := os.ReadDir(filepath.Join(s.objectsDir(), "pack"))
		s.partialClone = slices.ContainsFunc(entries, func(e os.DirEntry) bool { return strings.HasSuffix(e.Name(), ".promisor") })
	})
	return s.partialClone
}

// promisorRemotes are the repository's promisor remotes in the order git
// asks them: from the configuration the command listed (Promisors), else
// from a git config process of their own.
func (s *Store) promisorRemotes(ctx context.Context) []string {
	if s.Promisors != nil {
		if remotes, err := s.Promisors(); err == nil {
			return remotes
		}
	}
	out, err := s.Repo.Git(ctx, "config", "-z", "--get-regexp", `^(extensions\.partialclone|remote\..*\.promisor)$`)
	if err != nil {
		return nil // exit 1: no such key; anything else: not known as one
	}
	var p PromisorRemotes
	for _, kv := range strings.Split(string(out), "\x00") {
		key, value, hasValue := strings.Cut(kv, "\n")
		p.Add(key, value, hasValue)
	}
	return p.Remotes
}

// PromisorRemotes collects a repository's promisor remotes from its
// configuration, given each variable as git lists it (section and
// variable name lowercased), in git's order (Add). Remotes are in the
// order git asks them: extensions.partialClone's, then each
// remote.<name>.promisor set true, in configuration order.
type PromisorRemotes struct {
	Remotes []string
}

// Add is told one variable of the configuration; hasValue is false for
// one written without "=" (true, for a boolean).
func (p *PromisorRemotes) Add(key, value string, hasValue bool) {
	switch {
	case key == "extensions.partialclone" && value != "":
		p.Remotes = slices.Insert(slices.DeleteFunc(p.Remotes, func(r string) bool { return r == value }), 0, value)
	case strings.HasPrefix(key, "remote.") && strings.HasSuffix(key, ".promisor"):
		name := strings.TrimSuffix(strings.TrimPrefix(key, "remote."), ".promisor")
		switch strings.ToLower(value) {
		case "true", "yes", "on", "1":
		case "":
			if hasValue {
				return // an empty value is false, as git reads a boolean
			}
		default:
			return
		}
		if name != "" && !slices.Contains(p.Remotes, name) {
			p.Remotes = append(p.Remotes, name)
		}
	}
}

// missingFromTasks lists the objects missing from the histories of the
// repository's tasks, and of head when it is not ""; git rev-list fetches
// nothing with --missing=print.
func (s *Store) missingFromTasks(ctx context.Context, head string) []string {
	args := []string{"--no-replace-objects", "rev-list", "--objects", "--missing=print", "--glob=" + TaskPrefix + "*"}
	if isHex(head) && len(head) == 40 {
		args = append(args, head)
	}
	out, err := s.Repo.Git(ctx, args...)
	if err != nil {
		return nil // the object asked for is fetched alone
	}
	var missing []string
	for _, line := range strings.Split(string(out), "\n") {
		if h, ok := strings.CutPrefix(line, "?"); ok && isHex(h) && len(h) == 40 {
			missing = append(missing, h)
		}
	}
	return missing
}

// fetchObjects fetches the objects want from remote as git's own lazy
// fetch of a partial clone does (promisor-remote.c): no refs move.
func (s *Store) fetchObjects(ctx context.Context, remote string, want []string) error {
	c := s.Repo.Command("-c", "fetch.negotiationAlgorithm=noop", "fetch", remote, "--no-tags", "--no-write-fetch-head",
		"--recurse-submodules=no", "--filter=blob:none", "--stdin")
	c.Stdin = strings.NewReader(strings.Join(want, "\n") + "\n")
	_, err := c.Run(ctx)
	return err
}

// fetchReason is a failed fetch's reason in git's words, on one line.
func fetchReason(err error) string {
	var ge *GitError
	if errors.As(err, &ge) {
		return git.FirstLine(ge.Stderr, ge.Error())
	}
	return err.Error()
}
