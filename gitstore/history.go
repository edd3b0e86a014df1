package gitstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"git-reason/gitstore/git"
	"git-reason/record"
)

// objectSource answers object requests in batches: an object's type and
// size (info, which reads no content; a type of "" is not known until the
// object is read), then its content (contents, in order). A content fn
// no longer needs may be given back with release.
type objectSource interface {
	Infos(hashes []string) ([]git.ObjectInfo, error)
	Contents(hashes []string, fn func(i int, typ string, data []byte) error) error
	Release(b []byte)
}

// shortHistoryBytes is the largest records/ tree at a head (about 900
// records) whose history is read in this process: the trees of a history
// hold about half the head's tree per commit, and go-git reads them at a
// cost that grows faster than git's, while two processes cost their start.
const shortHistoryBytes = 64 << 10

// shortHistory reports whether head's records/ tree is small enough to
// read its history in this process.
func (s *Store) shortHistory(head string) bool {
	if s.longReads || !isHex(head) || len(head) != 40 {
		return false
	}
	tree, err := s.recordsTree(plumbing.NewHash(head))
	if err != nil {
		return false // the long path reports it
	}
	return len(tree.Entries)*73 <= shortHistoryBytes
}

// fewSinceCommits is the most commits after the bases a history read in
// this process may have, whatever the size of its records/ trees: a
// status after a few new records reads those commits and their trees
// with go-git rather than starting git rev-list and git cat-file (and
// git rev-list walking the whole history) for them.
const fewSinceCommits = 32

// fewSince reports whether head's history, not going past the commits of
// stop, holds at most fewSinceCommits commits, every one of its lines
// ending at a commit of stop (a root reached is a long read). The
// commits it reads are kept in src for the read that follows.
func (s *Store) fewSince(head string, stop map[string]bool, src *storeSource) bool {
	if len(stop) == 0 || s.longReads || !isHex(head) || len(head) != 40 {
		return false
	}
	seen := map[string]bool{}
	todo := []string{head}
	for len(todo) > 0 {
		c := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if seen[c] || (stop[c] && c != head) {
			continue
		}
		if seen[c] = true; len(seen) > fewSinceCommits {
			return false
		}
		ps, ok := s.graph.get(c)
		if !ok {
			data, ok := src.peek(c)
			if !ok {
				return false // not a commit this reader keeps: the long read says why
			}
			cm, err := decodeCommit(c, data)
			if err != nil {
				return false
			}
			for _, p := range cm.ParentHashes {
				ps = append(ps, p.String())
			}
		}
		if len(ps) == 0 {
			return false // a root: the history does not stop at a base
		}
		todo = append(todo, ps...)
	}
	return true
}

// storeSource reads objects with go-git: each object's size from its
// header, then the object. A small object is read with its size and kept
// for contents, within a bound, so that it is not looked up and decoded
// twice; a larger one is read only when its content is asked for.
type storeSource struct {
	s    *Store
	kept map[string]plumbing.EncodedObject
	room int64 // bytes kept may still hold
}

// The objects storeSource keeps between infos and contents: each at most
// keepObjectBytes, all at most keptBytes.
const (
	keepObjectBytes = 64 << 10
	keptBytes       = 32 << 20
)

func newStoreSource(s *Store) *storeSource {
	return &storeSource{s: s, kept: map[string]plumbing.EncodedObject{}, room: keptBytes}
}

func (g *storeSource) Infos(hashes []string) ([]git.ObjectInfo, error) {
	out := make([]git.ObjectInfo, len(hashes))
	for i, h := range hashes {
		// The size from the object's header first: an object too large
		// to keep is not inflated here (a hostile history's records,
		// refused by the limits before they are read).
		size, err := g.s.objectSize(plumbing.NewHash(h))
		var obj plumbing.EncodedObject
		if err == nil && size <= keepObjectBytes && size <= g.room {
			obj, err = g.s.encodedObject(plumbing.AnyObject, plumbing.NewHash(h))
		}
		switch {
		case errors.Is(err, plumbing.ErrObjectNotFound):
			out[i].Missing = true
		case err != nil:
			return nil, fmt.Errorf("read %s: %w", h, err)
		default:
			out[i].Size = size
			if inMemory(obj) {
				g.kept[h] = obj
				g.room -= size
			}
		}
	}
	return out, nil
}

// peek returns the content of commit h, read and kept (infos) when it
// is a commit no larger than maxCommitBytes; false otherwise (the caller
// reads it its own way). The object stays kept for contents.
func (g *storeSource) peek(h string) ([]byte, bool) {
	if _, ok := g.kept[h]; !ok {
		if _, err := g.Infos([]string{h}); err != nil {
			return nil, false
		}
	}
	obj, ok := g.kept[h]
	if !ok || obj.Type() != plumbing.CommitObject || obj.Size() > maxCommitBytes {
		return nil, false
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, false
	}
	defer rd.Close()
	data, err := io.ReadAll(rd)
	return data, err == nil
}

func (g *storeSource) Contents(hashes []string, fn func(i int, typ string, data []byte) error) error {
	for i, h := range hashes {
		obj, ok := g.kept[h]
		if ok {
			delete(g.kept, h)
			g.room += obj.Size()
		} else {
			var err error
			if obj, err = g.s.encodedObject(plumbing.AnyObject, plumbing.NewHash(h)); err != nil {
				return fmt.Errorf("read %s: %w", h, err)
			}
		}
		if obj.Size() < 0 || obj.Size() > maxTreeBytes {
			return fmt.Errorf("read %s: %d bytes, larger than anything read here (%d)", h, obj.Size(), maxTreeBytes)
		}
		rd, err := obj.Reader()
		if err != nil {
			return fmt.Errorf("read %s: %w", h, err)
		}
		// Read into its size, as its header gives it (io.ReadAll grew
		// its buffer by doubling: a 1,000-record tree's 80 KB cost 250).
		data := make([]byte, obj.Size())
		_, err = io.ReadFull(rd, data)
		if err == nil {
			var more [1]byte
			if n, _ := rd.Read(more[:]); n > 0 {
				err = errors.New("more content than its header says")
			}
		}
		rd.Close()
		if err != nil {
			return fmt.Errorf("read %s: %w", h, err)
		}
		if err := fn(i, obj.Type().String(), data); err != nil {
			return err
		}
	}
	return nil
}

func (*storeSource) Release([]byte) {}

// history is a task's history as read for replay, with every record blob
// it brings already read (parsed, or the error reading it gave).
type history struct {
	commits []*record.Commit
	blobs   map[string]blobRead
	// trees maps each commit to its records/ tree hash ("" for none).
	trees map[string]string
	// bases are the commits of stop the history reached, each with its
	// records/ tree (entry name -> blob hash); their blobs are read too.
	bases map[string]map[string]string
	// totals is what the history counts for against the limits: the
	// bases' totals with what the commits after them add.
	totals Totals
}

// headFiles is the records/ tree (entry name -> blob) of the history's
// last commit, its head (filesAt, from a commit that has Files or a
// base). nil for no commit, or a first parent neither in the history nor
// a base.
func (h *history) headFiles() map[string]string {
	if len(h.commits) == 0 {
		return nil
	}
	return h.filesAt(h.commits[len(h.commits)-1].Hash, func(parent string) (map[string]string, bool) {
		files, ok := h.bases[parent]
		return files, ok
	})
}

type blobRead struct {
	data []byte
	err  error
}

// blob reads a record by blob hash for replay, strictly (ReadBlob): from
// what readHistory read, else from the object store. It is safe for
// concurrent use, as replay needs.
func (h *history) blob(s *Store) func(string) (*record.Record, error) {
	var mu sync.Mutex
	return func(hash string) (*record.Record, error) {
		if b, ok := h.blobs[hash]; ok {
			if b.err != nil {
				return nil, b.err
			}
			return record.ParseRecord(b.data)
		}
		mu.Lock()
		defer mu.Unlock()
		return s.ReadBlob(hash)
	}
}

// readHistory reads the history of head, every commit reachable from it,
// parents before children, as replay reads them (a commit's records/ tree
// as its Changes against its first parent's, record.Commit): the commit
// graph, then the commits, their trees and the record blobs, each kind in
// one batch. The size of every object is asked for before the object is,
// so nothing larger than its limit (a commit or blob:
// record.MaxRecordBytes; a tree: maxTreeBytes) is read into this process.
// Each distinct tree is read once and compared with its first parent's
// tree entry by entry.
//
// A long history is read through one `git rev-list` (the graph) and one
// `git cat-file` process (everything else); a short one, whose head holds
// few records, or one of a few commits after the commits of stop
// (fewSince), in this process with go-git, which costs less than
// starting two processes.
//
// The walk does not go past a commit of from (the stops) other than
// head: such a commit is not part of the history returned, and its
// children's records are given whole (Files), against its tree
// (history.bases). from gives what each stop's history counts for against
// the limits (Totals): a history read from stops counts from theirs, the
// records, entries and commits after them added, as a replay of the whole
// history counts them, and nothing before them is sized again.
//
// It does not read the blobs of the bases' records known holds (by blob
// hash: the task's cache), nor those of a base's records its child keeps:
// a history read from a base costs the records added since. baseTrees
// gives the records/ trees of bases the caller holds (a saved state's: its
// MAC covers them, as read from git when it was saved), which are then not
// read again, nor their records, which the caller holds too. baseRaw gives
// some of those trees as the tree reader keeps them (treeOf): a commit
// whose first parent is such a base then carries its Changes against it,
// not its whole tree (Files), and its tree is parsed from the first entry
// it does not share with the base's, so that a history of a few commits
// after a base costs what those commits changed. Each may be nil.
func (s *Store) readHistory(ctx context.Context, head string, from map[string]Totals, known map[string]*record.Record, baseTrees map[string]map[string]string, baseRaw map[string]*rawTree) (_ *history, err error) {
	countHistory()
	defer func() { err = withHead(head, err) }()
	stop := make(map[string]bool, len(from))
	for h := range from {
		stop[h] = true
	}
	var (
		src     objectSource
		order   []string
		parents map[string][]string
	)
	// In a partial clone, what the history misses is fetched first, in
	// one fetch: git's readers would fetch each object by itself.
	if err := s.fetchBefore(head); err != nil {
		return nil, err
	}
	// A few commits after a base are asked about first: shortHistory reads
	// head's whole records/ tree, which the read below reads again.
	if ss := newStoreSource(s); s.fewSince(head, stop, ss) || s.shortHistory(head) {
		src = ss
		order, parents, err = s.walkGraph(ctx, head, stop, ss)
	}
	// A walk past shortWalkCommits is read as a long history, its commits
	// counted by git (commitGraph).
	if src == nil || errors.Is(err, errLongWalk) {
		src = nil
		order, parents, err = s.commitGraph(ctx, head, stop)
		if err == nil {
			var cf *git.CatFile
			if cf, err = s.Repo.catFile(ctx); err == nil {
				defer cf.Close()
				src = cf
			}
		}
	}
	if err != nil {
		return nil, err
	}
	cf := src
	out := &history{trees: map[string]string{}, blobs: map[string]blobRead{}}
	if len(stop) > 0 {
		kept := order[:0:0]
		for _, h := range order {
			if stop[h] && h != head {
				if out.bases == nil {
					out.bases = map[string]map[string]string{}
				}
				if out.bases[h] = baseTrees[h]; out.bases[h] != nil {
					continue
				}
				if out.bases[h], err = s.baseFiles(h); err != nil {
					return nil, err
				}
				continue
			}
			kept = append(kept, h)
		}
		order = kept
	}
	// The commits are bounded before anything of them is read: git counted
	// the whole history (commitGraph; past the bound it refused it), the
	// walk in this process the commits after the bases, whose own count
	// theirs.
	var based Totals
	for b := range out.bases {
		based = based.plus(from[b])
	}
	commits := based.Commits + int64(len(order))
	if _, long := cf.(*git.CatFile); long {
		commits = int64(len(parents))
	}
	if err := s.commitLimit(commits); err != nil {
		return nil, err
	}

	// Commits: sizes first, then contents.
	infos, err := cf.Infos(order)
	if err != nil {
		return nil, err
	}
	for i, h := range order {
		if infos[i].Missing {
			return nil, fmt.Errorf("read commit %s: %w", h, s.notHere())
		}
		if err := checkInfo(h, infos[i], "commit", maxCommitBytes); err != nil {
			return nil, err
		}
	}
	rootOf := make(map[string]string, len(order))
	err = cf.Contents(order, func(i int, typ string, data []byte) error {
		if err := checkType(order[i], typ, "commit"); err != nil {
			return err
		}
		c, err := decodeCommit(order[i], data)
		if err != nil {
			return err
		}
		if !sameHashes(c.ParentHashes, parents[order[i]]) {
			return fmt.Errorf("read commit %s: its parents are not the ones git's commit graph gives", order[i])
		}
		rootOf[order[i]] = c.TreeHash.String()
		rc := &record.Commit{Hash: order[i], Trailers: Trailers(c.Message), When: c.Author.When,
			Author: c.Author.Name + " <" + c.Author.Email + ">", Committer: c.Committer.Name + " <" + c.Committer.Email + ">"}
		for _, p := range c.ParentHashes {
			rc.Parents = append(rc.Parents, p.String())
		}
		out.commits = append(out.commits, rc)
		s.graph.put(rc.Hash, rc.Parents)
		return nil
	})
	if err != nil {
		return nil, err
	}

	// Root trees, then the records/ trees they name.
	roots := distinct(order, func(h string) string { return rootOf[h] })
	byRoot := make(map[string][]string, len(roots))
	for _, h := range order {
		byRoot[rootOf[h]] = append(byRoot[rootOf[h]], h)
	}
	if err := readTrees(cf, roots, "tree", func(i int, data []byte) error {
		sub, err := rootRecords(roots[i], data)
		if err != nil {
			return err
		}
		for _, h := range byRoot[roots[i]] {
			out.trees[h] = sub
		}
		return nil
	}); err != nil {
		return nil, err
	}

	// A base's tree the caller gave whole (baseRaw) stands for the base's
	// records/ tree, under a name no tree hash has; it is the caller's,
	// never released.
	given := map[string]bool{}
	for h := range out.bases {
		if raw := baseRaw[h]; raw != nil && baseTrees[h] != nil {
			key := "base " + h
			out.trees[h], given[key] = key, true
		}
	}

	// The records/ trees, each compared with its first parent's as soon
	// as both are read; a tree is kept only until its last reader is done.
	need := map[string]int{}
	for _, h := range out.commits {
		need[out.trees[h.Hash]]++
		if len(h.Parents) > 0 {
			need[out.trees[h.Parents[0]]]++
		}
	}
	trees := distinct(order, func(h string) string { return out.trees[h] })
	var wanted []string
	for _, t := range trees {
		if t != "" && need[t] > 0 {
			wanted = append(wanted, t)
		}
	}
	// firstOf is, for each tree, the tree of a first parent of a commit
	// holding it: mostly the same bytes, so that parsing can start after
	// the entries both share.
	firstOf := map[string]string{}
	for _, c := range out.commits {
		if t := out.trees[c.Hash]; len(c.Parents) > 0 && firstOf[t] == "" {
			firstOf[t] = out.trees[c.Parents[0]]
		}
	}
	parsed := map[string]*rawTree{"": {}}
	at := map[string]int{"": -1} // tree -> its index in wanted
	for key := range given {
		parsed[key], at[key] = baseRaw[strings.TrimPrefix(key, "base ")], -1
	}
	for i, t := range wanted {
		at[t] = i
	}
	blobs := map[string]bool{}
	baseBlobs := map[string]bool{} // the bases' records read: their totals count them
	for b, files := range out.bases {
		if baseTrees[b] != nil {
			continue // the caller holds the records of the trees it gave
		}
		for _, h := range files {
			if known[h] == nil {
				blobs[h], baseBlobs[h] = true, true
			}
		}
	}
	next := 0                // the next commit to compare
	entries := based.Entries // the entries the commits compared so far change
	compare := func(upto int) error {
		for ; next < len(out.commits); next++ {
			c := out.commits[next]
			mine := out.trees[c.Hash]
			first := ""
			if len(c.Parents) > 0 {
				first = out.trees[c.Parents[0]]
			}
			if at[mine] > upto || (len(c.Parents) > 0 && at[first] > upto) {
				return nil
			}
			t := parsed[mine]
			onBase := len(c.Parents) > 0 && out.bases[c.Parents[0]] != nil && !given[first]
			if len(c.Parents) > 0 && !onBase {
				c.Changes = diffTrees(parsed[first], t)
				for _, h := range c.Changes {
					if h != "" {
						blobs[h] = true
					}
				}
				entries += int64(len(c.Changes))
			} else {
				c.Files = t.files()
				var base map[string]string
				if onBase {
					base = out.bases[c.Parents[0]]
				}
				// A child of a base counts the entries it changes from the
				// base's (a root, its whole tree), as a whole replay
				// counts them: its tree's entries have counted in the
				// base's totals.
				changed := int64(len(base))
				for name, h := range c.Files {
					was, had := base[name]
					if had {
						changed--
					}
					// A base's record the child keeps is replayed from the
					// base's state, never read again.
					if was != h {
						blobs[h] = true
						changed++
					}
				}
				entries += changed
			}
			if err := s.entryLimit(entries); err != nil {
				return err
			}
			for _, u := range []string{mine, first} {
				if len(c.Parents) == 0 && u == first {
					continue
				}
				if need[u]--; need[u] == 0 && u != "" && !given[u] {
					cf.Release(parsed[u].data)
					delete(parsed, u)
				}
			}
		}
		return nil
	}
	if err := compare(-1); err != nil {
		return nil, err
	}
	if err := readTrees(cf, wanted, "records tree", func(i int, data []byte) error {
		t, err := parseTree(wanted[i], data, parsed[firstOf[wanted[i]]])
		if err != nil {
			return err
		}
		parsed[wanted[i]] = t
		return compare(i)
	}); err != nil {
		return nil, err
	}
	if next != len(out.commits) {
		return nil, errors.New("read history: a records tree was not compared") // cannot happen
	}

	// The records the history brings: sizes first, then each parsed.
	var hashes []string
	for h := range blobs {
		hashes = append(hashes, h)
	}
	bi, err := cf.Infos(hashes)
	if err != nil {
		return nil, err
	}
	var readable []string
	var total, read int64 // the task's records' bytes; the bytes read
	total = based.Bytes
	for i, h := range hashes {
		switch info := bi[i]; {
		case info.Missing:
			out.blobs[h] = blobRead{err: withHead(head, fmt.Errorf("read blob %s: %w", h, s.missingObject(h)))}
		case info.Type != "blob" && info.Type != "":
			out.blobs[h] = blobRead{err: plumbing.ErrObjectNotFound}
		case info.Size > record.MaxRecordBytes:
			out.blobs[h] = blobRead{err: fmt.Errorf("blob %s is %d bytes; the limit is %d", h, info.Size, record.MaxRecordBytes)}
		default:
			readable = append(readable, h)
			read += info.Size
			if !baseBlobs[h] {
				total += info.Size
			}
		}
	}
	// Bounded in total before any record is read: by the task's limit
	// (the bases' records by their totals), then by what the pull may
	// still read.
	if err := s.taskLimit(total); err != nil {
		return nil, err
	}
	if read > 0 && s.budget != nil {
		if err := s.budget.take(read, s.limits().PullBytes); err != nil {
			return nil, err
		}
	}
	out.totals = Totals{Bytes: total, Entries: entries, Commits: commits}
	if err := cf.Contents(readable, func(i int, typ string, data []byte) error {
		if typ != "blob" {
			out.blobs[readable[i]] = blobRead{err: plumbing.ErrObjectNotFound}
			return nil
		}
		countBlob()
		out.blobs[readable[i]] = blobRead{data: data}
		return nil
	}); err != nil {
		return nil, err
	}
	return out, nil
}

// commitGraph lists head's history with git rev-list: the commits in the
// order replay needs them (parents first, a merge's first parent's line
// before its second's), with each commit's parents. Replacement objects
// and grafts are not followed: the history is the objects' own.
func (s *Store) commitGraph(ctx context.Context, head string, stop map[string]bool) ([]string, map[string][]string, error) {
	if !isHex(head) || len(head) != 40 {
		return nil, nil, fmt.Errorf("read commit %q: not a commit id", head)
	}
	// No more than one commit past the most a history may hold
	// (commitBytes) is listed: git lists the whole history, bases too.
	most := s.maxCommits()
	out, err := s.Repo.Git(ctx, "--no-replace-objects", "rev-list", "--parents", fmt.Sprintf("--max-count=%d", most+1), head, "--")
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) {
			return nil, nil, fmt.Errorf("read the commits of %s: %s", head, git.LastLine(ge.Stderr, err.Error()))
		}
		return nil, nil, err
	}
	parents := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		parents[f[0]] = f[1:]
	}
	if int64(len(parents)) > most {
		return nil, nil, s.tooManyCommits(most)
	}
	if _, ok := parents[head]; !ok {
		if err := s.notFound(plumbing.CommitObject, plumbing.NewHash(head)); err != plumbing.ErrObjectNotFound {
			return nil, nil, fmt.Errorf("read commit %s: %w", head, err)
		}
		return nil, nil, fmt.Errorf("read commit %s: git rev-list does not list it", head)
	}
	order, err := postOrder(ctx, head, func(c string) ([]string, error) {
		if stop[c] && c != head {
			return nil, nil
		}
		ps, ok := parents[c]
		if !ok {
			return nil, fmt.Errorf("read commit %s: %w", c, s.notHere())
		}
		return ps, nil
	})
	return order, parents, err
}

// shortWalkCommits is the most commits walkGraph reads: an honest history
// whose head holds few records (shortHistory: about 900) has a commit for
// each and fewer merges. A longer one is walked by git rev-list, which
// reads a commit in a small part of what go-git takes (65,536 empty
// commits cost the walk here 4.8 s of CPU and 139 MB) and stops past the
// most a history may hold (commitBytes).
const shortWalkCommits = 4096

// errLongWalk is walkGraph's answer for a history past shortWalkCommits.
var errLongWalk = errors.New("more commits than a walk in this process reads")

// walkGraph is commitGraph in this process, for at most shortWalkCommits
// commits: each commit's size is checked before go-git reads it.
func (s *Store) walkGraph(ctx context.Context, head string, stop map[string]bool, src *storeSource) ([]string, map[string][]string, error) {
	parents := map[string][]string{}
	walked := 0
	order, err := postOrder(ctx, head, func(c string) ([]string, error) {
		if stop[c] && c != head {
			return nil, nil
		}
		if walked++; walked > shortWalkCommits {
			return nil, errLongWalk
		}
		if ps, ok := s.graph.get(c); ok {
			// Read before: readHistory reads and checks it again.
			parents[c] = ps
			return ps, nil
		}
		var cm *object.Commit
		if data, ok := src.peek(c); ok {
			// Read once, size checked: contents takes it again.
			var err error
			if cm, err = decodeCommit(c, data); err != nil {
				return nil, err
			}
		} else {
			h := plumbing.NewHash(c)
			if err := s.checkSize(h, maxCommitBytes, "commit"); err != nil {
				return nil, err
			}
			var err error
			if cm, err = s.getCommit(h); err != nil {
				return nil, fmt.Errorf("read commit %s: %w", c, err)
			}
		}
		ps := make([]string, len(cm.ParentHashes))
		for i, p := range cm.ParentHashes {
			ps[i] = p.String()
		}
		parents[c] = ps
		return ps, nil
	})
	return order, parents, err
}

// postOrder lists head and its ancestors, parents before children, a
// merge's first parent's line before its second's: an iterative
// post-order walk, so that a long history does not exhaust the stack.
func postOrder(ctx context.Context, head string, parentsOf func(string) ([]string, error)) ([]string, error) {
	type frame struct {
		c    string
		ps   []string
		next int
	}
	ps, err := parentsOf(head)
	if err != nil {
		return nil, err
	}
	var order []string
	seen := map[string]bool{head: true}
	stack := []*frame{{c: head, ps: ps}}
	for len(stack) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		top := stack[len(stack)-1]
		if top.next < len(top.ps) {
			p := top.ps[top.next]
			top.next++
			if seen[p] {
				continue
			}
			seen[p] = true
			ps, err := parentsOf(p)
			if err != nil {
				return nil, err
			}
			stack = append(stack, &frame{c: p, ps: ps})
			continue
		}
		stack = stack[:len(stack)-1]
		order = append(order, top.c)
	}
	return order, nil
}

func sameHashes(a []plumbing.Hash, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].String() != b[i] {
			return false
		}
	}
	return true
}

// distinct returns key(x) for each x, each value once, in order of first
// appearance, without "".
func distinct(xs []string, key func(string) string) []string {
	seen := map[string]bool{"": true}
	var out []string
	for _, x := range xs {
		if k := key(x); !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// checkInfo refuses an object that is missing, of another type or larger
// than limit, with the errors the go-git read path gives. An unknown type
// ("") is checked when the object is read (checkType).
func checkInfo(h string, info git.ObjectInfo, what string, limit int64) error {
	if info.Missing {
		return fmt.Errorf("read %s %s: %w", what, h, plumbing.ErrObjectNotFound)
	}
	if info.Type != "" {
		if err := checkType(h, info.Type, what); err != nil {
			return err
		}
	}
	if info.Size > limit {
		return fmt.Errorf("%s %s is %d bytes; the limit is %d", what, h, info.Size, limit)
	}
	return nil
}

// checkType refuses an object of another type than what names.
func checkType(h, typ, what string) error {
	want := what
	if what == "records tree" {
		want = "tree"
	}
	if typ != want {
		return fmt.Errorf("read %s %s: %w", what, h, plumbing.ErrObjectNotFound)
	}
	return nil
}

// readTrees checks the sizes of the trees, then reads each.
func readTrees(cf objectSource, hashes []string, what string, fn func(i int, data []byte) error) error {
	infos, err := cf.Infos(hashes)
	if err != nil {
		return err
	}
	for i, h := range hashes {
		if err := checkInfo(h, infos[i], what, maxTreeBytes); err != nil {
			return err
		}
	}
	return cf.Contents(hashes, func(i int, typ string, data []byte) error {
		if err := checkType(hashes[i], typ, what); err != nil {
			return err
		}
		return fn(i, data)
	})
}

func (s *Store) commitFor(c *object.Commit) (*record.Commit, error) {
	rc := &record.Commit{Hash: c.Hash.String(), Files: map[string]string{}, Trailers: Trailers(c.Message), When: c.Author.When,
		Author: c.Author.Name + " <" + c.Author.Email + ">", Committer: c.Committer.Name + " <" + c.Committer.Email + ">"}
	for _, p := range c.ParentHashes {
		rc.Parents = append(rc.Parents, p.String())
	}
	tree, err := s.recordsTreeOf(c)
	if err != nil {
		return nil, err
	}
	for _, e := range tree.Entries {
		rc.Files[e.Name] = e.Hash.String()
	}
	return rc, nil
}

// ReadBlob reads one record by its blob hash, strictly (see
// record.ParseRecord): verification must see fields a plain read drops.
func (s *Store) ReadBlob(hash string) (*record.Record, error) {
	data, err := s.readBlob(plumbing.NewHash(hash))
	if err != nil {
		return nil, err
	}
	return record.ParseRecord(data)
}

// Trailers parses "Key: value" lines of a commit message's last paragraph.
func Trailers(msg string) map[string]string {
	out := map[string]string{}
	paras := strings.Split(strings.TrimSpace(msg), "\n\n")
	for _, line := range strings.Split(paras[len(paras)-1], "\n") {
		if k, v, ok := strings.Cut(line, ": "); ok && !strings.Contains(k, " ") {
			out[k] = strings.TrimSpace(v)
		}
	}
	return out
}

// Verify replays the history of a task's ref and returns every finding. A
// history whose commits or trees do not read is one finding, not an error:
// the error is for the context ending. Every reuse of another task's
// standing conclusion is checked against that task too (record.CheckReuses).
func (s *Store) Verify(ctx context.Context, task, head string) ([]record.Finding, error) {
	return s.verify(ctx, task, head, true)
}

// VerifyRemembered is Verify going on from the heads m remembers
// verified clean (a head remembered is not replayed at all; see
// Remembered) and remembering in m each head that replays clean. The
// reuses of other tasks are checked as Verify checks them, unless m
// remembers them checked clean at this head against the heads the reused
// tasks' refs still have: then the task's records are not read at all.
func (s *Store) VerifyRemembered(ctx context.Context, task, head string, m *Remembered) ([]record.Finding, error) {
	var found []record.Finding
	var recs []*record.Record
	if m.Has(task, head) {
		if reused, ok := m.ReusesChecked(task, head); ok && s.refsAt(reused) {
			return nil, ctx.Err()
		}
		// Not replayed: the head's records, for the reuse checks, come
		// from its cache at that head (one file) when it has one.
		if _, r, err := s.loadTask(task, head); err == nil {
			recs = r
		}
	}
	if recs == nil {
		found, recs = s.replayWith(ctx, m, task, head, true, nil)
	}
	if ctx.Err() == nil && recs != nil {
		found = append(found, s.CheckReusesRemembered(ctx, task, head, recs, len(found) == 0, m.AddReuses)...)
	}
	return found, ctx.Err()
}

// CheckReusesRemembered checks the reuses of task's records recs at head
// against the local refs, as Verify does, and tells remember
// (Remembered.AddReuses, or AddReusesWithHeads) that they were checked
// clean when they were and the history replayed clean (clean): then a
// later verification of the head, remembered, reads none of its records.
// Remembered only when the reused refs did not move while they were
// checked: the heads kept are the ones the check saw.
func (s *Store) CheckReusesRemembered(ctx context.Context, task, head string, recs []*record.Record, clean bool, remember func(task, head string, reused map[string]string)) []record.Finding {
	reused := s.refsOf(record.ReusedTasks(task, recs))
	reuses := record.CheckReuses(ctx, task, head, recs, s.ReusedLocal)
	if clean && ctx.Err() == nil && len(reuses) == 0 && reused != nil && s.refsAt(reused) {
		remember(task, head, reused)
	}
	return reuses
}

// refsOf is the head of each of tasks' refs now; nil when one does not
// read or is missing.
func (s *Store) refsOf(tasks []string) map[string]string {
	out := make(map[string]string, len(tasks))
	for _, u := range tasks {
		h, err := s.Repo.ReadRef(TaskRef(u))
		if err != nil || h == "" {
			return nil
		}
		out[u] = h
	}
	return out
}

// refsAt reports whether each task of heads has its ref at that head.
func (s *Store) refsAt(heads map[string]string) bool { return !s.ReusedMoved(heads) }

func (s *Store) verify(ctx context.Context, task, head string, reuses bool) ([]record.Finding, error) {
	return s.verifyChecked(ctx, task, head, reuses, nil)
}

// verifyChecked is verify reusing and remembering the records k holds.
func (s *Store) verifyChecked(ctx context.Context, task, head string, reuses bool, k *record.Checked) ([]record.Finding, error) {
	found, recs := s.replay(ctx, task, head, reuses, k)
	if reuses && ctx.Err() == nil && recs != nil {
		found = append(found, record.CheckReuses(ctx, task, head, recs, s.ReusedLocal)...)
	}
	return found, ctx.Err()
}
