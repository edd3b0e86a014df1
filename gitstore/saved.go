package gitstore

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"git-reason/record"
)

// A saved state is the replay state of a task at one head whose whole
// history replayed with no finding at all: the head's records, as the
// task cache holds them (name, blob, fields), in
// .git/reason/states/<task digest>.state, one file per task, replaced
// whole when the task moves. A status of a later head loads it and
// replays only the commits after it (record.Base with Lazy set: its
// records are decoded when a rule or the summary reads them), instead of
// loading the task and decoding every record again; the state it reaches
// is saved for the next one.
//
// Like Remembered and the memos, it only saves work and is never a
// source of trust: the file carries an HMAC-SHA256, under the key beside
// verified.journal, of its task, head and content, so a file edited,
// copied from another repository or another task, or written without
// the key is ignored and the task is read and replayed as if there were
// none. Its head must still be in the ref's history (the replay reaches
// it as the one base, with the tree git holds for it: every record of the
// file is matched to that tree by name and blob), and what the file
// holds is the records, never a verdict or a summary: whatever this
// build derives from them is derived when they are read. Beside them it
// keeps each record's links (record.State.Links: the ids it names, as its
// decoding gave them), so that a question about one assessment decodes
// the records that name it, not every record of the task.
//
// The file: savedMagic, the head, the MAC and the length of the entries
// part, on one line; the entries (the task cache's encoding); then per
// record with links a line "<id> <link> <link>...".
const savedMagic = "git reason state 2 "

func (s *Store) savedPath(task string) string {
	sum := sha256.Sum256([]byte(task))
	return filepath.Join(s.Repo.CommonDir, "reason", "states", hex.EncodeToString(sum[:16])+".state")
}

func savedMAC(key []byte, task, head string, body []byte) string {
	h := hmac.New(sha256.New, key)
	h.Write([]byte("git-reason state v2\x00" + task + "\x00" + head + "\x00"))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// savedState is a saved state as read: its head, its records and their
// links by record id.
type savedState struct {
	head    string
	entries []cacheEntry
	links   map[string][]string
}

// readSaved returns the saved state of task, nil when there is none whose
// MAC matches under this repository's key.
func (s *Store) readSaved(task string) *savedState {
	key := s.memoKey()
	if key == nil {
		return nil
	}
	data, err := os.ReadFile(s.savedPath(task))
	if err != nil {
		return nil
	}
	line, body, ok := bytes.Cut(data, []byte{'\n'})
	line, found := bytes.CutPrefix(line, []byte(savedMagic))
	head, line, ok1 := bytes.Cut(line, []byte{' '})
	mac, size, ok2 := bytes.Cut(line, []byte{' '})
	n, err := strconv.Atoi(string(size))
	if !ok || !found || !ok1 || !ok2 || err != nil || n < 0 || n > len(body) || len(head) != 40 || !isHex(string(head)) ||
		!hmac.Equal(mac, []byte(savedMAC(key, task, string(head), body))) {
		return nil
	}
	entries, ok := parseCacheEntries(body[:n])
	links, ok1 := parseLinks(body[n:])
	if !ok || !ok1 {
		return nil
	}
	return &savedState{head: string(head), entries: entries, links: links}
}

// parseLinks reads the links part of a saved state.
func parseLinks(b []byte) (map[string][]string, bool) {
	out := make(map[string][]string, bytes.Count(b, []byte{'\n'}))
	for len(b) > 0 {
		line, rest, ok := bytes.Cut(b, []byte{'\n'})
		f := strings.Fields(string(line))
		if !ok || len(f) < 2 {
			return nil, false
		}
		out[f[0]] = f[1:]
		b = rest
	}
	return out, true
}

// encodeLinks is links as a saved state's links part, in entries' order;
// nil when a link is not a word the file can hold.
func encodeLinks(entries []cacheEntry, links map[string][]string) []byte {
	var out []byte
	for _, e := range entries {
		l := links[e.Rec.ID]
		if len(l) == 0 {
			continue
		}
		for _, w := range append([]string{e.Rec.ID}, l...) {
			if w == "" || strings.ContainsAny(w, " \t\n\r\v\f") {
				return nil
			}
		}
		out = append(append(out, strings.Join(append([]string{e.Rec.ID}, l...), " ")...), '\n')
	}
	return out
}

// writeSaved saves entries (head's records/ tree, each record with its
// blob) as the state of task at head. A state not saved costs a longer
// status next time, nothing else.
func (s *Store) writeSaved(task, head string, entries []cacheEntry, links map[string][]string) {
	key := s.memoKey()
	body := encodeCacheEntries(entries)
	lines := encodeLinks(entries, links)
	if key == nil || body == nil || lines == nil && len(links) > 0 {
		return
	}
	n := len(body)
	body = append(body, lines...)
	file := make([]byte, 0, len(savedMagic)+40+1+64+1+20+1+len(body))
	file = append(append(append(append(append(file, savedMagic...), head...), ' '), savedMAC(key, task, head, body)...), ' ')
	file = append(strconv.AppendInt(file, int64(n), 10), '\n')
	path := s.savedPath(task)
	if os.MkdirAll(filepath.Dir(path), 0o777) == nil {
		_ = writeFileAtomic(path, append(file, body...))
	}
}

// SaveState saves the state of task at head from the task's records as
// this store loaded them (Load), with their links as st (the state
// derived from them) gives them, when head is remembered clean (its whole
// history replayed with no finding): the state a later DeriveSaved goes on
// from. Anything else saves nothing.
func (s *Store) SaveState(task, head string, st *record.State) {
	c := s.mem.get(task, head)
	if c == nil || !s.readRemembered().Has(task, head) {
		return
	}
	if saved := s.readSaved(task); saved != nil && saved.head == head {
		return
	}
	s.writeSaved(task, head, c.Entries, st.Links())
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
	known := make(map[string]*record.Record, len(saved.entries))
	for _, e := range saved.entries {
		known[e.Blob] = e.Rec
	}
	if saved.head == head {
		files := make(map[string]string, len(saved.entries))
		recs := make([]*record.Record, 0, len(saved.entries))
		for _, e := range saved.entries {
			files[e.Name] = e.Blob
			rec := *e.Rec
			recs = append(recs, &rec)
		}
		st, err := record.BaseState(task, &record.Base{Files: files, Records: recs, Lazy: true, Links: saved.links})
		return st, err == nil
	}
	h, err := s.readHistoryKnown(ctx, head, map[string]bool{saved.head: true}, known)
	if err != nil || len(h.bases) != 1 || h.bases[saved.head] == nil {
		return nil, false
	}
	files := h.bases[saved.head]
	b := &record.Base{Files: files, Records: make([]*record.Record, 0, len(files)), Lazy: true, Links: saved.links}
	for _, blob := range files {
		r := known[blob]
		if r == nil {
			return nil, false // the saved records are not the tree's
		}
		rec := *r
		b.Records = append(b.Records, &rec)
	}
	found, _, st, err := (*record.Checked)(nil).ReplayFromState(ctx, task, map[string]*record.Base{saved.head: b}, h.commits, h.blob(s))
	if err != nil || len(found) > 0 || st == nil || ctx.Err() != nil {
		return nil, false
	}
	s.readRemembered().Add(task, head)
	s.truth.verdicts.Store(task+"\x00"+head, (*record.Finding)(nil))
	if entries := savedEntries(st, savedHeadFiles(h, saved.head, files, head), saved.entries); entries != nil {
		s.writeSaved(task, head, entries, st.Links())
	}
	return st, true
}

// savedHeadFiles is the records/ tree of head in h, read from a base (base,
// with its tree files), following first parents back to a commit whose
// tree h holds whole or to the base; nil when neither is reached.
func savedHeadFiles(h *history, base string, files map[string]string, head string) map[string]string {
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
		if c.Parents[0] == base {
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
