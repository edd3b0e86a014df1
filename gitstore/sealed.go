package gitstore

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"path/filepath"
)

// Sealed is a journal (journal.go) kept outside this package whose
// entries a verification trusts: each entry's data carries an
// HMAC-SHA256, under the repository's key (verified.key, as the
// remembered verifications), of the journal's name and scope, the task,
// its head and the data. An entry edited, moved to another task or head,
// or written under another key or scope matches nothing and is ignored,
// so editing the file can only make the reader do more work. Like the
// other journals, it is keyed by heads, appended to, compacted rarely,
// and one of another release holds nothing.
type Sealed struct {
	name, scope string
	dir         string
	key         []byte
	j           *Journal
	put         map[string]sealedEntry
	order       []string
	h           hash.Hash // the MAC under key, made once: a reader checks an entry per task
	buf         []byte    // what the MAC covers before the data, reused: no copy a part
	sum         [sha256.Size]byte
}

type sealedEntry struct {
	head string
	data []byte // MAC and data, as written
}

// sealedMAC is the hex MAC's length at the start of an entry's data.
const sealedMAC = 2 * sha256.Size

// OpenSealed reads the sealed journal name under .git/reason/ for scope
// (what its entries were judged by: another scope holds nothing).
func OpenSealed(r *Repo, name, scope string) *Sealed {
	dir := filepath.Join(r.CommonDir, "reason")
	key, _ := repoKey(dir, false)
	return &Sealed{name: name, scope: scope, dir: dir, key: key,
		j: ReadJournal(filepath.Join(dir, name), "sealed "+scope), put: map[string]sealedEntry{}}
}

func (s *Sealed) mac(task, head string, data []byte) string {
	return string(s.appendMAC(nil, task, head, data))
}

// appendMAC appends the hex MAC of task's entry at head holding data to b.
func (s *Sealed) appendMAC(b []byte, task, head string, data []byte) []byte {
	if s.h == nil {
		s.h = hmac.New(sha256.New, s.key)
	}
	s.h.Reset()
	// The parts before the data written at once from one buffer kept for
	// every entry: io.WriteString would copy each part into a new slice
	// (the hash has no WriteString), an allocation a part an entry.
	s.buf = s.buf[:0]
	for _, part := range [...]string{"git-reason sealed v1\x00", s.name, "\x00", s.scope, "\x00", task, "\x00", head, "\x00"} {
		s.buf = append(s.buf, part...)
	}
	s.h.Write(s.buf)
	s.h.Write(data)
	return hex.AppendEncode(b, s.h.Sum(s.sum[:0]))
}

// Get returns the data of task's entry at head, false when there is none
// at that head or its MAC does not hold.
func (s *Sealed) Get(task, head string) ([]byte, bool) {
	e, ok := s.j.file.lookup(task)
	data := e.data
	if !ok || string(e.head()) != head || s.key == nil || len(data) < sealedMAC {
		return nil, false
	}
	body := data[sealedMAC:]
	var mac [sealedMAC]byte
	if !hmac.Equal(data[:sealedMAC], s.appendMAC(mac[:0], task, head, body)) {
		return nil, false
	}
	return body, true
}

// Entry returns task's entry at the head it was made at, whatever that
// head is now, false when there is none or its MAC does not hold: for a
// reader that decides itself whether an entry of another head serves.
func (s *Sealed) Entry(task string) (head string, data []byte, ok bool) {
	head, _, ok = s.j.Entry(task)
	if !ok {
		return "", nil, false
	}
	data, ok = s.Get(task, head)
	return head, data, ok
}

// Put keeps data as task's entry at head, written by Save. Only what the
// reader would trust after its own full check may be put.
func (s *Sealed) Put(task, head string, data []byte) {
	if s.key == nil {
		key, err := repoKey(s.dir, true)
		if err != nil {
			return
		}
		s.key, s.h = key, nil
	}
	if _, ok := s.put[task]; !ok {
		s.order = append(s.order, task)
	}
	s.put[task] = sealedEntry{head: head, data: append([]byte(s.mac(task, head, data)), data...)}
}

// Save appends the entries put (Journal.Save); tasks, when not nil, is
// every task there is, in order, and a rewrite keeps only theirs.
func (s *Sealed) Save(tasks []string) {
	if len(s.put) == 0 {
		return
	}
	s.j.Save(tasks, func(task string) (string, bool) {
		if e, ok := s.put[task]; ok {
			return e.head, true
		}
		h, _, ok := s.j.Entry(task)
		return h, ok
	}, func(task string) ([]byte, bool) {
		if e, ok := s.put[task]; ok {
			return e.data, true
		}
		_, data, ok := s.j.Entry(task)
		return data, ok
	}, s.order)
	clear(s.put)
	s.order = nil
}
