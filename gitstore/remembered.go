package gitstore

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Remembered is what sync remembers verified across runs: the task heads
// whose whole history replayed with no finding at all, so that a later
// verification of a history containing one replays only the commits after
// it (record.Checked.ReplayFrom). It lives in .git/reason/verified.journal,
// a journal (journal.go): an entry per task, its remembered heads, each
// with its MAC, appended when the task's heads change, so that
// remembering k heads writes k entries however many tasks there are.
//
// It is an optimisation only, never a source of trust:
//
//   - an entry names a commit id, which names the commit's whole history;
//     a forged or rewritten ref points at another commit, which matches no
//     entry, and its history is replayed whole;
//   - each head carries an HMAC-SHA256 of its task and head under a
//     random key kept beside it (.git/reason/verified.key, created on
//     first use, mode 0600); a head whose MAC does not match (edited,
//     copied to another task, or written with another key) is ignored,
//     and so is a task's whole entry when a later entry of the task
//     replaces it with one that does not match: editing the file can
//     only make verification do more work;
//   - the replay state at a remembered head is recomputed from that
//     head's own records/ tree and records (see record.Base), never read
//     from the file.
//
// A task's entry is checked when the task is first asked about, not when
// the file is read: a read of one task costs one entry's MACs.
//
// Reuse checks, which depend on other tasks' refs as they are now, are
// never remembered. It is safe for concurrent use; two processes saving
// at once lose entries, never correctness.
type Remembered struct {
	dir string

	mu    sync.Mutex
	key   []byte
	file  journalFile         // the journal as last read or written
	heads map[string][]string // task -> remembered heads, oldest first, of the tasks asked about or added
	added map[string]bool     // tasks whose heads changed since the file was read
}

// rememberedPerTask bounds the heads remembered per task: the latest few
// are the ones a next verification starts from.
const rememberedPerTask = 8

// rememberedFile is the journal's name under .git/reason/; the file of
// the releases before it (rememberedOld, one JSON document rewritten
// whole) is removed when the journal is first written.
const (
	rememberedFile = "verified.journal"
	rememberedOld  = "verified.json"
)

// rememberedMagic is the journal's first line. Unlike the caches' journals
// it names no release: what it holds is a replay's verdict, kept across
// releases as the file before it was.
const rememberedMagic = "git reason journal 1 verified v1\n"

// rememberedTask is a task's entry: its heads, oldest first.
type rememberedTask struct {
	Heads []rememberedEntry `json:"heads"`
}

type rememberedEntry struct {
	Head string `json:"head"`
	MAC  string `json:"mac"`
}

// OpenRemembered reads the remembered heads of r. A missing, unreadable
// or foreign file remembers nothing; so does a file without its key.
func OpenRemembered(r *Repo) *Remembered {
	m := &Remembered{dir: filepath.Join(r.CommonDir, "reason"), heads: map[string][]string{}, added: map[string]bool{}}
	key, err := os.ReadFile(filepath.Join(m.dir, "verified.key"))
	if err != nil || len(key) != 32 {
		// A new key is made when something is saved, and the file, none
		// of whose entries can match it, is then written anew.
		m.file = journalFile{entries: map[string]journalEntry{}, magic: rememberedMagic}
		return m
	}
	m.key = key
	m.file = readJournalAs(filepath.Join(m.dir, rememberedFile), rememberedMagic)
	if m.file.size == 0 {
		m.file = readRememberedOld(filepath.Join(m.dir, rememberedOld))
	}
	return m
}

// readRememberedOld reads the file of the releases before the journal as
// the entries of a journal to rewrite whole (the first Save writes the
// journal and removes it), so that remembered heads survive the change.
func readRememberedOld(path string) journalFile {
	j := journalFile{entries: map[string]journalEntry{}, magic: rememberedMagic}
	var f struct {
		Version int                          `json:"version"`
		Tasks   map[string][]rememberedEntry `json:"tasks"`
	}
	data, err := readShared(path)
	if err != nil || json.Unmarshal(data, &f) != nil || f.Version != 1 {
		return j
	}
	for task, entries := range f.Tasks {
		if len(entries) == 0 || len(entries[len(entries)-1].Head) != 40 || !isHex(entries[len(entries)-1].Head) {
			continue
		}
		if data, err := json.Marshal(rememberedTask{Heads: entries}); err == nil {
			j.entries[task] = journalEntry{head: entries[len(entries)-1].Head, data: data}
		}
	}
	return j
}

func (m *Remembered) mac(task, head string) string {
	h := hmac.New(sha256.New, m.key)
	h.Write([]byte("git-reason verified v1\x00" + task + "\x00" + head))
	return hex.EncodeToString(h.Sum(nil))
}

// load returns the remembered heads of task, checking its entry in the
// file the first time; m.mu is held.
func (m *Remembered) load(task string) []string {
	if hs, ok := m.heads[task]; ok {
		return hs
	}
	var hs []string
	var entry rememberedTask
	if e, ok := m.file.entries[task]; ok && m.key != nil && json.Unmarshal(e.data, &entry) == nil {
		for _, h := range entry.Heads {
			if len(hs) < rememberedPerTask && isHex(h.Head) && len(h.Head) == 40 && hmac.Equal([]byte(h.MAC), []byte(m.mac(task, h.Head))) {
				hs = append(hs, h.Head)
			}
		}
	}
	m.heads[task] = hs
	return hs
}

// Heads returns the remembered heads of task.
func (m *Remembered) Heads(task string) []string {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.load(task)...)
}

// Has reports whether head of task is remembered.
func (m *Remembered) Has(task, head string) bool {
	for _, h := range m.Heads(task) {
		if h == head {
			return true
		}
	}
	return false
}

// Add remembers that head's history, as a history of task, replays with
// no finding. Only a replay may say so.
func (m *Remembered) Add(task, head string) {
	if m == nil || m.Has(task, head) {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	hs := append(append([]string(nil), m.load(task)...), head)
	if len(hs) > rememberedPerTask {
		hs = hs[len(hs)-rememberedPerTask:]
	}
	m.heads[task] = hs
	m.added[task] = true
}

// Save appends the entries of the tasks whose heads were added since the
// file was read (or rewrites the file, rarely: journal.go). A memo that
// cannot be saved costs a longer verification next time, nothing else.
func (m *Remembered) Save() error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.added) == 0 {
		return nil
	}
	if m.key == nil {
		key, err := repoKey(m.dir, true)
		if err != nil {
			return err
		}
		m.key = key
	}
	changed := make([]string, 0, len(m.added))
	for t := range m.added {
		changed = append(changed, t)
	}
	slices.Sort(changed)
	// A task asked about is written as checked (an entry that did not
	// match is dropped by a rewrite); one never asked about keeps its
	// entry as read, checked when it is.
	head := func(task string) (string, bool) {
		if hs, ok := m.heads[task]; ok {
			if len(hs) == 0 {
				return "", false
			}
			return hs[len(hs)-1], true
		}
		e, ok := m.file.entries[task]
		return e.head, ok
	}
	encode := func(task string) ([]byte, bool) {
		hs, ok := m.heads[task]
		if !ok {
			return m.file.entries[task].data, true
		}
		var entry rememberedTask
		for _, h := range hs {
			entry.Heads = append(entry.Heads, rememberedEntry{Head: h, MAC: m.mac(task, h)})
		}
		data, err := json.Marshal(entry)
		return data, err == nil
	}
	old := !m.file.whole
	f, err := writeJournal(filepath.Join(m.dir, rememberedFile), m.file, nil, head, encode, changed)
	if err != nil {
		return err
	}
	m.file = f
	clear(m.added)
	if old {
		_ = os.Remove(filepath.Join(m.dir, rememberedOld)) // its entries are in the journal now
	}
	return nil
}

// repoKey is the repository's own random key, .git/reason/verified.key
// (mode 0600) under dir: the HMACs of what .git/reason/ keeps and trusts
// (the remembered verifications, the memos, the commits this clone wrote)
// are made with it, so that an entry edited, or copied from another
// repository, matches nothing. With create, a missing key is made; a key
// another process made first is read, not replaced. Without, a missing
// key is nil and no error.
func repoKey(dir string, create bool) ([]byte, error) {
	path := filepath.Join(dir, "verified.key")
	key, err := os.ReadFile(path)
	if err == nil && len(key) == 32 {
		return key, nil
	}
	if !create {
		return nil, nil
	}
	if err == nil {
		return nil, errors.New("repository key: unreadable verified.key")
	}
	key = make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	// Exclusive: a key another process made first is read, not replaced.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case errors.Is(err, fs.ErrExist):
		if key, err = os.ReadFile(path); err != nil || len(key) != 32 {
			return nil, errors.New("repository key: unreadable verified.key")
		}
		return key, nil
	case err != nil:
		return nil, err
	}
	_, err = f.Write(key)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return nil, err
	}
	return key, nil
}
