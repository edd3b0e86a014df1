package gitstore

import (
	"bytes"
	"context"
	"crypto/hmac"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"git-reason/gitstore/git"
	"git-reason/record"
)

// A saved state is the replay state of a task at one head whose whole
// history replayed with no finding at all: the head's records, as the
// task cache holds them (name, blob, fields), in
// .git/reason/states/<task digest>.state, one file per task, appended to
// when the task moves (below). A status of a later head loads it and
// replays only the commits after it (record.Base with Lazy set: its
// records are decoded when a rule or the summary reads them), instead of
// loading the task and decoding every record again; the state it reaches
// is saved for the next one.
//
// Like Remembered and the memos, it only saves work and is never a
// source of trust: the file carries an HMAC-SHA256, under the repository key
// (verified.key), of the release that saved it, its task, head and
// content, so a file edited, copied from another repository or another
// task, written without the key or by another release (whose replay
// may find what this one's does not) is ignored and the task is read and replayed as if there were
// none. Its head must still be in the ref's history (the replay reaches
// it as the one base, with the records/ tree the file lists: git's tree
// of that head when it was saved, under the MAC), and what the file
// holds is the records, never a verdict or a summary: whatever this
// build derives from them is derived when they are read. Beside them it
// keeps each record's links (record.State.Links: the ids it names, as its
// decoding gave them), so that a question about one assessment decodes
// the records that name it, not every record of the task, and the facts
// the standing conclusions read (record.State.Facts: a conclusion's
// decision, an assessment's subject key, materiality and reversibility, a
// validation's result), so that the task's standing conclusions decode
// none of its records.
//
// The file is written once and then appended to: savedMagic, then
// segments, each a line "<head> <mac> <bytes> <entries> <commits>
// <entries length> <links length> <facts length>" (the first three what
// the history at head counts for against reason.maxTaskBytes, Totals: a
// status of a later head counts from them, and sizes nothing before the
// head again), the records it adds (the task cache's encoding), their
// links (per record with links a line "<id> <link> <link>...") and their
// facts (per record with facts a line "<id>", then " <length>:<fact>" for
// each fact). The state at a
// segment's head is the records of that segment and of every one before
// it. Each segment's MAC covers the task, its head, the MAC of the
// segment before it and its content, so a segment is read only after all
// those before it, as they were written: a segment cut short, or one
// appended by a process that had not read the one before it, ends the
// state where it starts. A status after k new records appends those k
// (it rewrote the whole task's records); the file is rewritten whole,
// as one segment, when it holds more than maxSavedSegments, when the
// new head's records are not the saved ones and more (the ref moved
// back), and when its last segment did not read.
const savedMagic = "git reason state 5\n"

// maxSavedSegments bounds the segments of a saved state: a rewrite every
// that many statuses of a moved head, each of the task's size.
const maxSavedSegments = 64

func (s *Store) savedPath(task string) string {
	return filepath.Join(s.Repo.CommonDir, "reason", "states", fileName(task)+".state")
}

// savedMAC is the MAC of a segment, with what the history at its head
// counts for (t): of the release that saved it too, since a state is
// saved only where that release's replay found nothing, and its facts and
// links are that release's decoding.
func savedMAC(key []byte, task, head, prev string, t Totals, body []byte) string {
	return keyedMAC(key, fmt.Sprintf("git-reason state v6\x00%s\x00%s\x00%s\x00%s\x00%d %d %d\x00", release(), task, head, prev, t.Bytes, t.Entries, t.Commits), body)
}

// segmentLine is the first line of a segment at head, whose MAC is mac,
// of parts of n, m and k bytes.
func segmentLine(head, mac string, t Totals, n, m, k int) string {
	return fmt.Sprintf("%s %s %d %d %d %d %d %d\n", head, mac, t.Bytes, t.Entries, t.Commits, n, m, k)
}

// savedState is a saved state as read: its head, its records and their
// links and facts by record id; mac, size and segments are those of the part of
// the file that read (its last segment's MAC, its length, its segments),
// what an append goes on from; totals is what the history at head counts
// for against the limits.
type savedState struct {
	head     string
	totals   Totals
	entries  []cacheEntry
	links    map[string][]string
	facts    map[string][]string
	mac      string
	size     int
	segments int
	// rest is true when the file goes on after the segments that read
	// (one cut short or not this program's): an append after them
	// would never be read, so the file is written anew.
	rest bool
}

// readSaved returns the saved state of task, nil when there is none whose
// first segment's MAC matches under this repository's key.
func (s *Store) readSaved(task string) *savedState {
	key, data, rest := s.readKeyed(s.savedPath(task), savedMagic)
	if rest == nil {
		return nil
	}
	var st *savedState
	for len(rest) > 0 {
		head, mac, t, entries, links, facts, next, ok := cutSegment(rest)
		prev := ""
		if st != nil {
			prev = st.mac
		}
		if !ok || !t.valid() || !hmac.Equal([]byte(mac), []byte(savedMAC(key, task, head, prev, t, rest[len(rest)-len(next)-len(entries)-len(links)-len(facts):len(rest)-len(next)]))) {
			break
		}
		es, ok1 := parseCacheEntries(entries)
		ls, ok2 := parseLinks(links)
		fs, ok3 := parseFacts(facts)
		if !ok1 || !ok2 || !ok3 {
			break
		}
		if st == nil {
			st = &savedState{links: ls, facts: fs}
		} else {
			for id, l := range ls {
				st.links[id] = l
			}
			for id, f := range fs {
				st.facts[id] = f
			}
		}
		st.head, st.totals, st.mac, st.segments = head, t, mac, st.segments+1
		st.entries = append(st.entries, es...)
		st.size = len(data) - len(next)
		rest = next
	}
	if st != nil {
		st.rest = len(rest) > 0
	}
	return st
}

// readKeyed reads a file of this package's under .git/reason/ whose
// parts carry MACs under the repository's key: the key, the file and
// what follows its first line, magic; rest is nil when there is no key,
// no file or another first line.
func (s *Store) readKeyed(path, magic string) (key, data, rest []byte) {
	if key = s.memoKey(); key == nil {
		return nil, nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, nil
	}
	rest, ok := bytes.CutPrefix(data, []byte(magic))
	if !ok {
		return nil, nil, nil
	}
	return key, data, rest
}

// cutSegment cuts the first segment off b: its head, MAC, totals,
// entries part, links part, facts part and what follows.
func cutSegment(b []byte) (head, mac string, t Totals, entries, links, facts, rest []byte, ok bool) {
	line, body, ok := bytes.Cut(b, []byte{'\n'})
	f := strings.Split(string(line), " ")
	if !ok || len(f) != 8 || len(f[0]) != 40 || !isHex(f[0]) {
		return "", "", t, nil, nil, nil, nil, false
	}
	var v [6]int64
	for i := range v {
		var err error
		if v[i], err = strconv.ParseInt(f[2+i], 10, 64); err != nil || v[i] < 0 {
			return "", "", t, nil, nil, nil, nil, false
		}
	}
	t = Totals{Bytes: v[0], Entries: v[1], Commits: v[2]}
	// Each length is bounded by what is left for it: their sum may
	// overflow (three of 2^62 sum to a small number) and pass a bound.
	n, m, k, left := v[3], v[4], v[5], int64(len(body))
	if n > left || m > left-n || k > left-n-m {
		return "", "", t, nil, nil, nil, nil, false
	}
	return f[0], f[1], t, body[:n], body[n : n+m], body[n+m : n+m+k], body[n+m+k:], true
}

// parseFacts reads the facts part of a segment. Its strings are cut from
// b itself, a file's bytes read for this that nothing changes afterwards
// (as parseCacheEntries does): no allocation per fact.
func parseFacts(b []byte) (map[string][]string, bool) {
	out := make(map[string][]string, bytes.Count(b, []byte{'\n'}))
	text := unsafe.String(unsafe.SliceData(b), len(b))
	for len(b) > 0 {
		id, rest, ok := bytes.Cut(b, []byte{' '})
		if !ok || len(id) == 0 || bytes.IndexByte(id, '\n') >= 0 {
			return nil, false
		}
		idAt := len(text) - len(b)
		var fs []string
		for len(rest) > 0 && rest[0] != '\n' {
			if len(fs) > 0 {
				if rest[0] != ' ' {
					return nil, false
				}
				rest = rest[1:]
			}
			f, next, ok := field(rest)
			if !ok {
				return nil, false
			}
			end := len(text) - len(next)
			fs = append(fs, text[end-len(f):end])
			rest = next
		}
		if len(rest) == 0 || len(fs) == 0 {
			return nil, false
		}
		out[text[idAt:idAt+len(id)]] = fs
		b = rest[1:]
	}
	return out, true
}

// encodeFacts is facts as a segment's facts part, in entries' order;
// false when an id is not a word the file can hold.
func encodeFacts(entries []cacheEntry, facts map[string][]string) ([]byte, bool) {
	var out []byte
	for _, e := range entries {
		f := facts[e.Rec.ID]
		if len(f) == 0 {
			continue
		}
		if e.Rec.ID == "" || strings.ContainsAny(e.Rec.ID, " \t\n\r\v\f") {
			return nil, false
		}
		out = append(out, e.Rec.ID...)
		for _, v := range f {
			out = append(strconv.AppendInt(append(out, ' '), int64(len(v)), 10), ':')
			out = append(out, v...)
		}
		out = append(out, '\n')
	}
	return out, true
}

// parseLinks reads the links part of a segment. Its ids are cut from b
// itself, as parseFacts cuts its facts: no allocation per id.
func parseLinks(b []byte) (map[string][]string, bool) {
	out := make(map[string][]string, bytes.Count(b, []byte{'\n'}))
	text := unsafe.String(unsafe.SliceData(b), len(b))
	for len(text) > 0 {
		line, rest, ok := strings.Cut(text, "\n")
		if !ok {
			return nil, false
		}
		id, links, _ := strings.Cut(line, " ")
		f := strings.Fields(links)
		if id == "" || len(f) == 0 || strings.ContainsAny(id, "\t\r\v\f") {
			return nil, false
		}
		out[id] = f
		text = rest
	}
	return out, true
}

// encodeLinks is links as a segment's links part, in entries' order;
// false when a link is not a word the file can hold.
func encodeLinks(entries []cacheEntry, links map[string][]string) ([]byte, bool) {
	var out []byte
	for _, e := range entries {
		l := links[e.Rec.ID]
		if len(l) == 0 {
			continue
		}
		for _, w := range append([]string{e.Rec.ID}, l...) {
			if w == "" || strings.ContainsAny(w, " \t\n\r\v\f") {
				return nil, false
			}
		}
		out = append(append(out, strings.Join(append([]string{e.Rec.ID}, l...), " ")...), '\n')
	}
	return out, true
}

// segment is the segment that adds entries (with their links and facts)
// to the state whose last MAC is prev, at head, whose history counts for
// t; nil when it cannot be written.
func segment(key []byte, task, head, prev string, t Totals, entries []cacheEntry, links, facts map[string][]string) []byte {
	body := encodeCacheEntries(entries)
	lines, ok1 := encodeLinks(entries, links)
	known, ok2 := encodeFacts(entries, facts)
	if body == nil || !ok1 || !ok2 {
		return nil
	}
	n := len(body)
	body = append(append(body, lines...), known...)
	line := segmentLine(head, savedMAC(key, task, head, prev, t, body), t, n, len(lines), len(known))
	return append(append(make([]byte, 0, len(line)+len(body)), line...), body...)
}

// writeSaved saves entries (head's records/ tree, each record with its
// blob) with their links and facts as the state of task at head, whose
// history counts for t against the limits: the records that
// old (the saved state as read, or nil) lacks appended to its file as a
// segment when old's records are all among entries, else the file
// rewritten whole. A state not saved costs a longer status next time,
// nothing else.
func (s *Store) writeSaved(task, head string, t Totals, old *savedState, entries []cacheEntry, links, facts map[string][]string) {
	key := s.memoKey()
	if key == nil {
		return
	}
	path := s.savedPath(task)
	if old != nil && old.segments < maxSavedSegments && !old.rest {
		if added, ok := addedEntries(old.entries, entries); ok {
			if seg := segment(key, task, head, old.mac, t, added, links, facts); seg != nil {
				_ = appendSaved(path, old.size, seg)
			}
			return
		}
	}
	seg := segment(key, task, head, "", t, entries, links, facts)
	if seg != nil && git.MkdirAll(filepath.Dir(path), 0o777) == nil {
		_ = writeFileAtomic(path, append([]byte(savedMagic), seg...))
	}
}

// addedEntries is the entries old lacks, when every entry of old is one
// of entries (the same name and blob).
func addedEntries(old, entries []cacheEntry) ([]cacheEntry, bool) {
	if len(old) >= len(entries) {
		return nil, false
	}
	had := make(map[string]string, len(old))
	for _, e := range old {
		had[e.Name] = e.Blob
	}
	added := make([]cacheEntry, 0, len(entries)-len(old))
	for _, e := range entries {
		blob, ok := had[e.Name]
		switch {
		case !ok:
			added = append(added, e)
		case blob != e.Blob:
			return nil, false
		}
	}
	return added, len(added) == len(entries)-len(old)
}

// appendSaved appends seg to the saved state at path, under its lock,
// when the file is still size bytes long (the state seg goes on from):
// otherwise another process saved meanwhile, and its state stands.
func appendSaved(path string, size int, seg []byte) error {
	return git.AppendFile(path, seg, 0, 0, false, int64(size))
}

// SaveState saves the state of task at head from the task's records as
// this store loaded them (Load), with their links and facts as st (the state
// derived from them) gives them, when head is remembered clean (its whole
// history replayed with no finding): the state a later DeriveSaved goes on
// from. Anything else saves nothing.
func (s *Store) SaveState(task, head string, st *record.State) {
	c := s.mem.get(task, head)
	if c == nil {
		return
	}
	t, ok := s.readRemembered().Totals(task, head)
	if !ok {
		return
	}
	saved := s.readSaved(task)
	if saved != nil && saved.head == head {
		return
	}
	s.writeSaved(task, head, t, saved, c.Entries, st.Links(), st.Facts())
}

// DeriveSaved is DeriveVerified for a task whose state this repository
// saved at an earlier head (or at head): the saved records, then the
// commits after them replayed, the records decoded only as they are read
// (call State.Decoded before reading Entries directly). false when there
// is no saved state it can go on from, or the history after it does not
// replay clean: the caller loads and derives the task as before
// (DeriveVerified), which says what is wrong. A clean head is remembered
// and its state saved.
func (s *Store) DeriveSaved(ctx context.Context, task, head string) (*record.State, bool) {
	if len(head) != 40 || !isHex(head) {
		return nil, false
	}
	saved := s.readSaved(task)
	if saved == nil || !s.HasObject(saved.head) {
		return nil, false
	}
	// The saved records are this call's own (readSaved parsed them for
	// it): the state takes them as they are, no copy.
	tree := make(map[string]string, len(saved.entries))
	recs := make([]*record.Record, 0, len(saved.entries))
	for _, e := range saved.entries {
		tree[e.Name] = e.Blob
		recs = append(recs, e.Rec)
	}
	if len(tree) != len(recs) {
		return nil, false // a record added twice: not a state this program wrote
	}
	if saved.head == head {
		st, err := record.BaseState(task, &record.Base{Files: tree, Records: recs, Lazy: true, Links: saved.links, Facts: saved.facts})
		return st, err == nil
	}
	// The saved records/ tree as the tree reader keeps it: the new head's
	// tree is then parsed from the first entry it does not share with it,
	// and the commit after it carries what it changed, not the whole tree.
	var raw map[string]*rawTree
	if t := treeOf(saved.byName()); t != nil {
		raw = map[string]*rawTree{saved.head: t}
	}
	h, err := s.readHistory(ctx, head, map[string]Totals{saved.head: saved.totals}, nil, map[string]map[string]string{saved.head: tree}, raw)
	if err != nil || len(h.bases) != 1 || h.bases[saved.head] == nil {
		return nil, false
	}
	files := h.bases[saved.head]
	b := &record.Base{Files: files, Records: recs, Lazy: true, Links: saved.links, Facts: saved.facts}
	// Records this build's writer validated are taken as it checked them
	// (checked.go): their schemas are not compiled again.
	found, _, st, err := s.checkedWritten(task, head, h).ReplayFrom(ctx, task, map[string]*record.Base{saved.head: b}, h.commits, h.blob(s))
	if err != nil || len(found) > 0 || st == nil || ctx.Err() != nil {
		return nil, false
	}
	s.readRemembered().Add(task, head, h.totals)
	s.truth.verdicts.Store(task+"\x00"+head, (*record.Finding)(nil))
	if s.appendAdded(task, head, saved, h, st) {
		return st, true
	}
	if entries := savedEntries(st, savedHeadFiles(h, saved.head, files, head), saved.entries); entries != nil {
		s.writeSaved(task, head, h.totals, saved, entries, st.Links(), st.Facts())
	}
	return st, true
}

// appendAdded appends to the saved state old the records h added after
// it, when h is a line of commits each adding records (Changes) on
// top of old's head (the usual case: a status after records written
// here or fetched), from st, the state replayed at head: their entries,
// links and facts alone, so that what it costs grows with the records added,
// not with the task. false, with nothing written, when h is anything
// else, or the file is to be written anew (writeSaved).
func (s *Store) appendAdded(task, head string, old *savedState, h *history, st *record.State) bool {
	if old.segments >= maxSavedSegments || old.rest || len(h.commits) == 0 {
		return false
	}
	by := make(map[string]*record.Commit, len(h.commits))
	for _, c := range h.commits {
		by[c.Hash] = c
	}
	added := map[string]string{} // name -> blob
	c := by[head]
	for n := 0; ; n++ {
		if c == nil || c.Files != nil || len(c.Parents) != 1 || n >= len(h.commits) {
			return false
		}
		for name, blob := range c.Changes {
			if blob == "" {
				return false
			}
			added[name] = blob
		}
		if c.Parents[0] == old.head {
			if n+1 != len(h.commits) {
				return false // commits h holds beside the line
			}
			break
		}
		c = by[c.Parents[0]]
	}
	entries := make([]cacheEntry, 0, len(added))
	ids := make([]string, 0, len(added))
	// The added records are the latest: st's last entries, as a rule.
	for i := len(st.Entries) - 1; i >= 0 && len(entries) < len(added); i-- {
		e := st.Entries[i]
		if blob, ok := added[e.FileName()]; ok {
			entries = append(entries, cacheEntry{Name: e.FileName(), Blob: blob, Rec: e.Record})
			ids = append(ids, e.ID)
		}
	}
	if len(entries) != len(added) {
		return false
	}
	slices.SortFunc(entries, func(a, b cacheEntry) int { return strings.Compare(a.Name, b.Name) })
	key := s.memoKey()
	if key == nil {
		return true // nothing is saved without the key
	}
	if seg := segment(key, task, head, old.mac, h.totals, entries, st.LinksOf(ids), st.FactsOf(ids)); seg != nil {
		_ = appendSaved(s.savedPath(task), old.size, seg)
	}
	return true
}

// byName is the saved records in name order (a tree's order).
func (st *savedState) byName() []cacheEntry {
	if slices.IsSortedFunc(st.entries, func(a, b cacheEntry) int { return strings.Compare(a.Name, b.Name) }) {
		return st.entries
	}
	out := slices.Clone(st.entries)
	slices.SortFunc(out, func(a, b cacheEntry) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// savedHeadFiles is the records/ tree of head in h, read from a base (base,
// with its tree files), following first parents back to a commit whose
// tree h holds whole or to the base; nil when neither is reached.
func savedHeadFiles(h *history, base string, files map[string]string, head string) map[string]string {
	return h.filesAt(head, func(parent string) (map[string]string, bool) { return files, parent == base })
}

// filesAt is the records/ tree of head in h: following first parents back
// to a commit whose tree h holds whole (Files) or whose first parent base
// gives the tree of, that tree with the Changes of the commits after it.
// nil when neither is reached. It changes none of h's maps.
func (h *history) filesAt(head string, base func(parent string) (map[string]string, bool)) map[string]string {
	by := make(map[string]*record.Commit, len(h.commits))
	for _, c := range h.commits {
		by[c.Hash] = c
	}
	var chain []*record.Commit
	var start map[string]string
	for c := by[head]; ; {
		if c == nil {
			return nil
		}
		chain = append(chain, c)
		if c.Files != nil {
			start = c.Files
			break
		}
		if len(c.Parents) == 0 {
			return nil
		}
		if files, ok := base(c.Parents[0]); ok {
			start = files
			break
		}
		c = by[c.Parents[0]]
	}
	out := make(map[string]string, len(start)+len(chain))
	for name, blob := range start {
		out[name] = blob
	}
	for i := len(chain) - 1; i >= 0; i-- {
		if chain[i].Files != nil {
			continue // start itself
		}
		for name, blob := range chain[i].Changes {
			if blob == "" {
				delete(out, name)
			} else {
				out[name] = blob
			}
		}
	}
	return out
}

// savedEntries is the state st (at a clean head whose records/ tree is
// files) as a saved state's entries, each saved record's fields kept as
// read; nil when st's records are not exactly the tree's.
func savedEntries(st *record.State, files map[string]string, saved []cacheEntry) []cacheEntry {
	if files == nil || len(files) != len(st.Entries) {
		return nil
	}
	old := make(map[string]cacheEntry, len(saved))
	for _, e := range saved {
		old[e.Name] = e
	}
	out := make([]cacheEntry, 0, len(st.Entries))
	for _, e := range st.Entries {
		name := e.FileName()
		blob, ok := files[name]
		if !ok {
			return nil
		}
		if o, ok := old[name]; ok && o.Blob == blob {
			out = append(out, o)
			continue
		}
		out = append(out, cacheEntry{Name: name, Blob: blob, Rec: e.Record})
	}
	return out
}
