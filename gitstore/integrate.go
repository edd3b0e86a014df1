package gitstore

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"git-reason/record"
)

// CodeConflict is the finding of a merge of two histories that hold one
// record path (or id) with different content (MergeHistories).
const CodeConflict = "conflict"

// Shared is what the Stores that read histories for one pull (or the
// push after it) share, each Store given it by Share: the heads verified
// clean before (Remembered), the commit graph read so far, and what the
// pull may still read (ReadLimits.PullBytes), the replays blind to
// their task (blindReplays) and the histories read (heldHistories). It
// is safe for concurrent
// use and must not be copied once in use.
type Shared struct {
	// Remembered, when set, is what verification remembers across runs
	// (see Remembered); the Stores replay from it.
	Remembered *Remembered
	// graph holds the parents of every commit read so far, so that the
	// ancestry checks and the histories of one pull read each commit's
	// parents once.
	graph commitParents
	// budget counts the record bytes the histories of one pull read,
	// against ReadLimits.PullBytes.
	budget pullBudget
	// blind holds the replays blind to their task, so that the refs of
	// many tasks naming one head replay it once.
	blind blindReplays
	// histories holds the histories read from no remembered head, so
	// that the refs of many tasks naming one head read it once.
	histories heldHistories
	// shared are the heads more than one task is to be replayed at
	// (Expect): blind and histories hold those alone.
	shared sharedHeads
}

// Expect says that the run is to replay a task at each of heads (a head
// once per task naming it): the replays of a head named more than once
// are held (blindReplays, heldHistories) until the last of its tasks has
// been replayed, so that the others take them; those of any other head
// are not, since no other task would take them and holding them cost
// memory that grew with the pull. A Shared not told holds none.
func (m *Shared) Expect(heads []string) {
	m.shared.expect(heads)
}

// sharedHeads counts, by head, the tasks a run is to replay at it, and
// the replays at it still to come. It is safe for concurrent use; a nil
// one names no head.
type sharedHeads struct {
	mu   sync.Mutex
	n    map[string]int
	left map[string]int
}

func (c *sharedHeads) expect(heads []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n, c.left = make(map[string]int, len(heads)), make(map[string]int, len(heads))
	}
	for _, h := range heads {
		c.n[h]++
		c.left[h]++
	}
}

// many reports whether more than one task is to be replayed at head, and
// some of them still are.
func (c *sharedHeads) many(head string) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[head] > 1 && c.left[head] > 0
}

// over notes that a replay at head is over, and reports whether it was
// the last the run expected at a head several tasks name: what was held
// for it is then held for nothing. A pull of task refs in pairs, each
// pair naming a head of its own, held every pair's history until the
// pull ended.
func (c *sharedHeads) over(head string) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.left[head] == 0 {
		return false
	}
	c.left[head]--
	return c.left[head] == 0 && c.n[head] > 1
}

// commitParents maps commits to their parents, as read from the commits.
// It is safe for concurrent use; the zero value is ready, and a nil one
// remembers nothing.
type commitParents struct {
	mu sync.Mutex
	m  map[string][]string
}

func (g *commitParents) get(c string) ([]string, bool) {
	if g == nil {
		return nil, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	ps, ok := g.m[c]
	return ps, ok
}

func (g *commitParents) put(c string, ps []string) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m == nil {
		g.m = map[string][]string{}
	}
	g.m[c] = ps
}

// Share makes s use what m holds: the heads verified clean before
// (Remembered), the commit graph read so far, the pull's read budget,
// the replays blind to their task and the histories read, held for the
// heads m expects more than one task at (Expect).
func (s *Store) Share(m *Shared) {
	s.remembered = m.Remembered
	s.graph = &m.graph
	s.budget = &m.budget
	s.blind = &m.blind
	s.histories = &m.histories
	s.shared = &m.shared
}

// Replay replays the history at head as a history of task and returns its
// findings and, when they read clean, the records of head's tree, for the
// reuse checks (record.CheckReuses), which it does not make. k, when set,
// holds the records already checked clean. A cancelled replay returns
// nothing: it says nothing about the history.
func (s *Store) Replay(ctx context.Context, task, head string, k *record.Checked) ([]record.Finding, []*record.Record) {
	return s.replay(ctx, task, head, true, k)
}

// ReplayTree is Replay that also returns, with head's records, the blob
// of each in head's records/ tree as the replay read it (TreeBlobs), for
// SeedTask; nil when the replay did not read the tree (one another task's
// replay of the same head gave).
func (s *Store) ReplayTree(ctx context.Context, task, head string, k *record.Checked) ([]record.Finding, []*record.Record, []string) {
	found, recs, _, files := s.replayWithState(ctx, s.remembered, task, head, true, k)
	return found, recs, TreeBlobs(files, recs)
}

// TreeBlobs is the blob files (a records/ tree: entry name -> blob) holds
// each of recs under, in recs' order; nil when files is nil or does not
// hold exactly recs (by their file names).
func TreeBlobs(files map[string]string, recs []*record.Record) []string {
	if files == nil || len(files) != len(recs) {
		return nil
	}
	out := make([]string, len(recs))
	for i, r := range recs {
		b, ok := files[r.FileName()]
		if !ok {
			return nil
		}
		out[i] = b
	}
	return out
}

// ReplayMerge returns what the replay of the merge commit merge of local
// and fetched finds in its own step (record.Checked.ReplayMerge, the step
// a replay takes for a merge), without replaying the two histories, and
// the merge's records/ tree (file name -> blob).
func (s *Store) ReplayMerge(ctx context.Context, task, local, fetched, merge string, k *record.Checked) ([]record.Finding, map[string]string, error) {
	commits := map[string]*record.Commit{}
	for _, h := range []string{local, fetched, merge} {
		c, err := s.getCommit(plumbing.NewHash(h))
		if err != nil {
			return nil, nil, fmt.Errorf("read commit %s: %w", h, err)
		}
		if commits[h], err = s.commitFor(c); err != nil {
			return nil, nil, err
		}
	}
	own := k.ReplayMerge(ctx, task, commits[merge],
		map[string]map[string]string{local: commits[local].Files, fetched: commits[fetched].Files}, s.ReadBlob)
	return own, commits[merge].Files, ctx.Err()
}

// MergeHistories writes a commit whose parents are local and fetched and
// whose records/ tree is the union of theirs, signed by who says (asked
// only once the trees are written). A record
// path, or a record id, with different content on the two sides is a
// conflict (CodeConflict): nothing is written and the conflicts are
// returned.
func (s *Store) MergeHistories(task, local, fetched string, who func() (Signature, error)) (string, []record.Finding, error) {
	ours, err := s.recordsTree(plumbing.NewHash(local))
	if err != nil {
		return "", nil, err
	}
	theirs, err := s.recordsTree(plumbing.NewHash(fetched))
	if err != nil {
		return "", nil, err
	}
	byName := map[string]TreeEntry{}
	byID := map[string]TreeEntry{}
	var conflicts []record.Finding
	conflict := func(id, format string, args ...any) {
		conflicts = append(conflicts, record.Finding{Task: task, Commit: fetched, Record: id, Code: CodeConflict,
			Message: fmt.Sprintf(format, args...)})
	}
	for _, e := range ours.Entries {
		byName[e.Name] = e
		byID[recordID(e.Name)] = e
	}
	entries := append([]TreeEntry(nil), ours.Entries...)
	for _, e := range theirs.Entries {
		id := recordID(e.Name)
		if o, ok := byName[e.Name]; ok {
			if o.Hash != e.Hash {
				conflict(id, "%s/%s differs between the local and the fetched history", RecordsDir, e.Name)
			}
			continue
		}
		if o, ok := byID[id]; ok {
			conflict(id, "record %s is %s/%s locally and %s/%s in the fetched history", id, RecordsDir, o.Name, RecordsDir, e.Name)
			continue
		}
		entries = append(entries, e)
	}
	if len(conflicts) > 0 {
		return "", conflicts, nil
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	for i := range entries {
		entries[i].Mode = filemode.Regular
	}
	recordsTree, err := s.writeTree(entries)
	if err != nil {
		return "", nil, err
	}
	root, err := s.writeTree(recordsEntry(recordsTree))
	if err != nil {
		return "", nil, err
	}
	sig, err := who()
	if err != nil {
		return "", nil, err
	}
	c := &object.Commit{Author: sig, Committer: sig, TreeHash: root,
		ParentHashes: []plumbing.Hash{plumbing.NewHash(local), plumbing.NewHash(fetched)},
		Message: fmt.Sprintf("merge: %d records of two histories\n\nReason-Task: %s\nReason-Merge: %s\n",
			len(entries), task, fetched)}
	h, err := s.writeCommitObject(c)
	if err != nil {
		return "", nil, err
	}
	return h.String(), nil, nil
}

// recordID is the record id in a records/ entry name
// (<clock>-<kind>-<id>.json).
func recordID(name string) string {
	name = strings.TrimSuffix(name, ".json")
	if i := strings.LastIndexByte(name, '-'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// IsAncestor reports whether commit anc is desc or one of its ancestors.
func (s *Store) IsAncestor(ctx context.Context, anc, desc string) (bool, error) {
	seen := map[string]bool{}
	queue := []string{desc}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		h := queue[0]
		queue = queue[1:]
		if h == anc {
			return true, nil
		}
		if seen[h] {
			continue
		}
		seen[h] = true
		ps, ok := s.graph.get(h)
		if !ok {
			c, err := s.getCommit(plumbing.NewHash(h))
			if err != nil {
				return false, fmt.Errorf("read commit %s: %w", h, err)
			}
			ps = make([]string, len(c.ParentHashes))
			for i, p := range c.ParentHashes {
				ps[i] = p.String()
			}
			s.graph.put(h, ps)
		}
		queue = append(queue, ps...)
	}
	return false, nil
}
