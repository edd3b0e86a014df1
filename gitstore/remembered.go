package gitstore

import (
	"crypto/hmac"
	crand "crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"git-reason/gitstore/git"
)

// Remembered is what sync remembers verified across runs: the task heads
// whose whole history replayed with no finding at all, so that a later
// verification of a history containing one replays only the commits after
// it (record.Checked.ReplayFrom). It lives in .git/reason/verified.d/, a
// file per task named by the task's digest (as written.d/ is), holding
// the task's entry in a journal's format (journal.go): its remembered
// heads, each with its MAC. A lookup reads the one task's file and a save
// rewrites the files of the tasks whose heads changed, so that what a
// catch-up of k moved tasks reads and writes here is k small files
// however many tasks there are (a journal of every task, verified.journal,
// was read whole, 4 MB at 20,000 tasks, by the first lookup of a process).
// A save of many tasks at once (a clone's first catch-up: every task)
// writes them into one pack instead, .git/reason/verified.pack, read by
// a lookup of a task that has no file (namedpack.go), as git packs
// refs rather than leaving a file each.
//
// It is an optimisation only, never a source of trust:
//
//   - an entry names a commit id, which names the commit's whole history;
//     a forged or rewritten ref points at another commit, which matches no
//     entry, and its history is replayed whole;
//   - each head carries an HMAC-SHA256 of the release that replayed it,
//     its task and head under a random key kept beside it
//     (.git/reason/verified.key, created on first use, mode 0600); a head
//     whose MAC does not match (edited, copied to another task or another
//     task's file, written with another key, or by another release,
//     whose rules are not this one's) is ignored, and so is a task's
//     whole entry when a later entry of its file replaces it with one
//     that does not match: editing the files can only make verification
//     do more work;
//   - the replay state at a remembered head is recomputed from that
//     head's own records/ tree and records (see record.Base), never read
//     from the file;
//   - each head keeps, under its MAC, what its history counts for against
//     reason.maxTaskBytes (Totals): a read of the commits after it starts
//     its counts from them, so the limits bound the whole history as a
//     whole replay does, and a head whose totals are past them is not
//     read from. A head of a file written before the totals were kept
//     matches no MAC (the MAC's text names its version) and is not
//     remembered: its history is replayed whole and remembered anew.
//
// Reuse checks depend on other tasks' refs as they are now: one found
// clean is remembered with the head each reused task's ref had then
// (reuseMemo), and holds only while every one of those refs is still
// there. It is safe for concurrent use; two processes saving
// at once lose entries, never correctness.
type Remembered struct {
	dir string

	mu    sync.Mutex
	key   []byte
	heads map[string][]string // task -> remembered heads, oldest first, of the tasks asked about or added
	// totals: task NUL head -> what the head's history counts for, of
	// each head heads holds.
	totals map[string]Totals
	added  map[string]bool // tasks whose heads changed since their file was read
	reads  int             // task files read (for tests)
	// reuses: task -> what its reuse check at one head found clean
	// against, of the tasks asked about (nil: none that matches its MAC).
	reuses map[string]*reuseMemo
	// bulk: what reuse checks find clean is kept in the bulk form
	// (ReusesInBulk), so a task's file is written for its heads alone.
	bulk bool
	// packed is the pack of many tasks' entries (namedpack.go).
	packed packRead
	// files: task -> its own file in verified.d/ as read (entryData),
	// which a save into the pack removes only while it is still that one.
	files map[string]fs.FileInfo
}

// rememberedPerTask bounds the heads remembered per task: the latest few
// are the ones a next verification starts from.
const rememberedPerTask = 8

// rememberedDir is the directory of the task files under .git/reason/;
// rememberedJournal (a journal of every task) and rememberedOld (one JSON
// document, rewritten whole) are the files of the releases before it,
// whose verdicts no MAC of this release's matches: they are removed when
// the directory is first made (Save).
const (
	rememberedDir     = "verified.d"
	rememberedJournal = "verified.journal"
	rememberedOld     = "verified.json"
)

// rememberedMagic is the first line of a task's file (and was the
// journal's). It names no release: each head's MAC does (a replay's
// verdict is the rules of the release that replayed).
const rememberedMagic = "git reason journal 1 verified v1\n"

// rememberedTask is a task's entry: its heads, oldest first, and what
// the reuse check of one of them found clean against.
type rememberedTask struct {
	Heads  []rememberedEntry `json:"heads"`
	Reuses *reuseMemo        `json:"reuses,omitempty"`
}

// reuseMemo says that the reuses the records at Head hold (none, when
// Reused is empty) were checked with no finding (record.CheckReuses)
// while each reused task's ref was at the head Reused gives it. Whether a
// reuse holds depends only on the reused task's history, so while those
// refs have not moved the check would find nothing again. Its MAC covers
// the task, the head, every reused task and head and the release that
// checked (the reuse rules are the program's).
type reuseMemo struct {
	Head   string            `json:"head"`
	Reused map[string]string `json:"reused,omitempty"`
	MAC    string            `json:"mac"`
}

type rememberedEntry struct {
	Head string `json:"head"`
	MAC  string `json:"mac"`
	Totals
}

// OpenRemembered returns the remembered heads of r, read task by task as
// they are asked about. Without its key a repository remembers nothing.
func OpenRemembered(r *Repo) *Remembered {
	m := &Remembered{dir: filepath.Join(r.CommonDir, "reason"), heads: map[string][]string{}, totals: map[string]Totals{}, added: map[string]bool{}, reuses: map[string]*reuseMemo{}, files: map[string]fs.FileInfo{}}
	if key, err := os.ReadFile(filepath.Join(m.dir, "verified.key")); err == nil && len(key) == 32 {
		// Without it a new key is made when something is saved, and no
		// entry made before matches it.
		m.key = key
	}
	return m
}

// taskPath is task's file.
func (m *Remembered) taskPath(task string) string {
	return filepath.Join(m.dir, rememberedDir, fileName(task))
}

// mac is the MAC of head remembered for task, with its history's totals:
// by this release, whose replay found it clean (another release's rules
// may find otherwise).
func (m *Remembered) mac(task, head string, t Totals) string {
	return keyedMAC(m.key, fmt.Sprintf("git-reason verified v3\x00%s\x00%s\x00%s\x00%d %d %d", release(), task, head, t.Bytes, t.Entries, t.Commits), nil)
}

// reuseMAC is the MAC of a reuse memo of task.
func (m *Remembered) reuseMAC(task string, r *reuseMemo) string {
	var reused []byte
	for _, u := range slices.Sorted(maps.Keys(r.Reused)) {
		reused = append(append(append(append(reused, 0), u...), 0), r.Reused[u]...)
	}
	return keyedMAC(m.key, "git-reason reuses v1\x00"+release()+"\x00"+task+"\x00"+r.Head, reused)
}

// load returns the remembered heads of task, reading and checking its
// file the first time; m.mu is held. Only an entry of task itself counts
// (a file copied to another task's name holds another task's entry), and
// only its last.
func (m *Remembered) load(task string) []string {
	if hs, ok := m.heads[task]; ok {
		return hs
	}
	var hs []string
	if m.key != nil {
		var entry rememberedTask
		data, pack, ok := m.entryData(task)
		// The data may be the pack's mapped bytes: the pack is kept
		// until they are read (entry's strings are copies), not left to
		// m.packed, which holds it only until a save replaces it.
		ok = ok && json.Unmarshal(data, &entry) == nil
		runtime.KeepAlive(pack)
		if ok {
			for _, h := range entry.Heads {
				if len(hs) < rememberedPerTask && isHex(h.Head) && len(h.Head) == 40 && h.Totals.valid() && hmac.Equal([]byte(h.MAC), []byte(m.mac(task, h.Head, h.Totals))) {
					hs = append(hs, h.Head)
					m.totals[task+"\x00"+h.Head] = h.Totals
				}
			}
			if r := entry.Reuses; r != nil && hmac.Equal([]byte(r.MAC), []byte(m.reuseMAC(task, r))) {
				m.reuses[task] = r
			}
		}
	}
	m.heads[task] = hs
	return hs
}

// ReusesChecked returns the reused tasks and their heads against which
// the reuses of task at head were last checked with no finding; false
// when no such check is remembered (or its MAC does not hold).
func (m *Remembered) ReusesChecked(task, head string) (map[string]string, bool) {
	if m == nil {
		return nil, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.load(task)
	r := m.reuses[task]
	if r == nil || r.Head != head {
		return nil, false
	}
	return r.Reused, true
}

// AddReuses remembers that the reuses of task at head, a remembered head,
// were checked with no finding while each reused task was at the head
// reused gives it. Only a reuse check may say so. After ReusesInBulk it
// is saved only with heads added to the task's file.
func (m *Remembered) AddReuses(task, head string, reused map[string]string) {
	m.addReuses(task, head, reused, false)
}

// AddReusesWithHeads is AddReuses for a check whose memo is worth no
// write of its own: it is saved only in the write of the task's file for
// a head added to it (in this process, before or after), the one write
// of a task an integration moves. A push's verification so remembers the
// reuses of the heads it verified for its pre-push hook without writing
// again the file of a task whose head was remembered before, reuses
// unchecked (the hook checks those again, as before).
func (m *Remembered) AddReusesWithHeads(task, head string, reused map[string]string) {
	m.addReuses(task, head, reused, true)
}

// addReuses is AddReuses; withHeads: saved only with heads added.
func (m *Remembered) addReuses(task, head string, reused map[string]string, withHeads bool) {
	if m == nil || !m.Has(task, head) {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if r := m.reuses[task]; r != nil && r.Head == head && maps.Equal(r.Reused, reused) {
		return
	}
	m.reuses[task] = &reuseMemo{Head: head, Reused: maps.Clone(reused)}
	if !m.bulk && !withHeads {
		m.added[task] = true
	}
}

// ReusesInBulk tells m that the caller keeps what reuse checks find clean
// in the bulk form (VerifiedAll, one file for every task), as a
// verification of every task does: a reuse check remembered (AddReuses)
// is then held for ReusesChecked, and written to the task's file only
// when the file is written for a head added to it. Without it, a
// verification of every task in a clone whose status had remembered
// every head, reuses unchecked, wrote every task's file again, to say
// what the one bulk file says (5,000 files at 5,000 tasks for a first
// verify after a pull that moved one task). A verification of named
// tasks, which does not read the bulk form, checks such a task's reuses
// again and remembers them in its file.
func (m *Remembered) ReusesInBulk() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.bulk = true
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

// Bases returns the remembered heads of task, each with what its history
// counts for against the limits: the heads a read of a later head of the
// task may go on from.
func (m *Remembered) Bases(task string) map[string]Totals {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	hs := m.load(task)
	out := make(map[string]Totals, len(hs))
	for _, h := range hs {
		out[h] = m.totals[task+"\x00"+h]
	}
	return out
}

// Totals returns what the history of head, a remembered head of task,
// counts for against the limits; false when head is not remembered.
func (m *Remembered) Totals(task, head string) (Totals, bool) {
	if m == nil {
		return Totals{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, h := range m.load(task) {
		if h == head {
			return m.totals[task+"\x00"+h], true
		}
	}
	return Totals{}, false
}

// Add remembers that head's history, as a history of task, replays with
// no finding, and what it counts for against the limits (t, as the
// replay counted it). Only a replay may say so. A head remembered already
// keeps the lesser of each total (each bounds the history). Nothing is
// remembered without totals (t.Commits < 1).
func (m *Remembered) Add(task, head string, t Totals) {
	if m == nil || !t.valid() {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	key := task + "\x00" + head
	hs := m.load(task)
	if slices.Contains(hs, head) {
		old := m.totals[key]
		least := Totals{Bytes: min(old.Bytes, t.Bytes), Entries: min(old.Entries, t.Entries), Commits: min(old.Commits, t.Commits)}
		if least != old {
			m.totals[key] = least
			m.added[task] = true
		}
		return
	}
	hs = append(append([]string(nil), hs...), head)
	if len(hs) > rememberedPerTask {
		for _, h := range hs[:len(hs)-rememberedPerTask] {
			delete(m.totals, task+"\x00"+h)
		}
		hs = hs[len(hs)-rememberedPerTask:]
	}
	m.heads[task] = hs
	m.totals[key] = t
	m.added[task] = true
}

// AddMerge remembers merge, a commit whose parents are local and fetched,
// two remembered heads of task, as replaying with no finding: its own
// step checked (record.Checked.ReplayMerge), its records/ tree of files
// entries the union of its parents'. It counts for what its parents'
// histories do together, and its own commit and entries. Nothing is
// remembered when either parent is not.
func (m *Remembered) AddMerge(task, merge, local, fetched string, files int) {
	if t, ok := m.MergeTotals(task, local, fetched, files); ok {
		m.Add(task, merge, t)
	}
}

// MergeTotals is what a merge of local and fetched, two remembered heads
// of task, whose records/ tree has files entries, counts for against the
// limits as AddMerge remembers it: its parents' totals added (what they
// share counts twice), and its own commit and entries. false when either
// parent is not remembered.
func (m *Remembered) MergeTotals(task, local, fetched string, files int) (Totals, bool) {
	a, ok1 := m.Totals(task, local)
	b, ok2 := m.Totals(task, fetched)
	if !ok1 || !ok2 {
		return Totals{}, false
	}
	return a.plus(b).plus(Totals{Entries: int64(files), Commits: 1}), true
}

// Save writes the files of the tasks whose heads were added since they
// were read, each whole (a few hundred bytes), through its lock; a file
// another process is writing is left to it. packAt tasks or more
// (packedMin, or a packFraction-th part of a large pack's) go into the
// pack instead, with the entries it held (savePacked), unless it cannot
// be written then (another process is writing it). A memo that cannot be saved
// costs a longer verification next time, nothing else.
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
		// Heads were loaded without a key (none): what was added is
		// what the task files will hold.
	}
	dir := filepath.Join(m.dir, rememberedDir)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		_ = os.Remove(filepath.Join(m.dir, rememberedJournal))
		_ = os.Remove(filepath.Join(m.dir, rememberedOld))
	}
	if err := git.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	changed := make([]string, 0, len(m.added))
	for t := range m.added {
		changed = append(changed, t)
	}
	slices.Sort(changed)
	entries := make(map[string][]byte, len(changed))
	for _, task := range changed {
		var entry rememberedTask
		hs := m.heads[task]
		for _, h := range hs {
			t := m.totals[task+"\x00"+h]
			entry.Heads = append(entry.Heads, rememberedEntry{Head: h, MAC: m.mac(task, h, t), Totals: t})
		}
		if r := m.reuses[task]; r != nil && slices.Contains(hs, r.Head) {
			entry.Reuses = &reuseMemo{Head: r.Head, Reused: r.Reused, MAC: m.reuseMAC(task, r)}
		}
		data, err := json.Marshal(entry)
		if err != nil {
			return err
		}
		entries[task] = appendJournalEntry(nil, task, hs[len(hs)-1], data)
	}
	clear(m.added)
	// Many tasks at once (a clone's first catch-up) go into the pack; a
	// pack another process is writing leaves them to their files.
	if len(changed) >= packedMin && m.savePacked(entries) == nil {
		return nil
	}
	files := make(map[string][]byte, len(changed))
	for _, task := range changed {
		files[task] = append([]byte(rememberedMagic), entries[task]...)
	}
	failed := m.packed.writeLoose(m.packFiles(), files)
	var first error
	for _, task := range changed {
		if err := failed[task]; err != nil && !errors.Is(err, git.ErrLocked) && first == nil {
			first = err
		}
	}
	return first
}

// keyedMAC is the hex HMAC-SHA256 under key of text and then data: every
// file under .git/reason/ that the repository key seals (repoKey) MACs its
// entries so, text naming the file's format and version first.
func keyedMAC(key []byte, text string, data []byte) string {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(text))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// fileName is the name of the file of task (or of another key, such as a
// subject's) in a folder under .git/reason/ that holds one file each: the
// first 16 bytes of its SHA-256 in hex, whatever characters it has.
func fileName(task string) string {
	sum := sha256.Sum256([]byte(task))
	return hex.EncodeToString(sum[:16])
}

// repoKey is the repository's own random key, .git/reason/verified.key
// (mode 0600) under dir: the HMACs of what .git/reason/ keeps and trusts
// (the remembered verifications, the memos, the commits this clone wrote)
// are made with it, so that an entry edited, or copied from another
// repository, matches nothing. With create, a missing key, or a file
// holding none (a crash of a release before this one could leave it
// empty), is made under its lock (git.MakeKey); a key another process made
// first is read, not replaced. Without, a missing key is nil and no error.
// Where no key can be read or made (a read-only repository, another
// user's), the key is this process's own random one (unwritable): what it
// seals cannot be written there either, and nothing kept there matches
// it, so a read works as with no cache, as git's reads do.
//
// A key read is kept for the process with the file's identity: a read of
// every task asks for it once per task, and a stat of the same file
// answers the asks after the first (a key made anew, after .git/reason/
// was removed, is another file and is read again).
func repoKey(dir string, create bool) ([]byte, error) {
	path := filepath.Join(dir, "verified.key")
	fi, err := os.Stat(path)
	if err == nil {
		if k, ok := readKeys.Load(path); ok && os.SameFile(k.(readKey).fi, fi) && k.(readKey).fi.ModTime().Equal(fi.ModTime()) {
			return k.(readKey).key, nil
		}
	}
	key, err := os.ReadFile(path)
	if err == nil && len(key) == 32 {
		if fi != nil {
			readKeys.Store(path, readKey{key: key, fi: fi})
		}
		return key, nil
	}
	if !create {
		return nil, nil
	}
	key, _, err = git.MakeKey(path, 32, git.Wait)
	if err != nil && !errors.Is(err, git.ErrLocked) {
		k, _ := unwritableKeys.LoadOrStore(path, unwritableKey())
		return k.([]byte), nil
	}
	if err != nil {
		return nil, fmt.Errorf("repository key: %w", err)
	}
	return key, nil
}

// unwritableKeys are the keys repoKey made for this process alone, by
// path, where none could be read or made.
var unwritableKeys sync.Map

func unwritableKey() []byte {
	key := make([]byte, 32)
	_, _ = crand.Read(key) // never fails (crypto/rand)
	return key
}

// readKeys are the keys repoKey read, by path: a readKey each.
var readKeys sync.Map

// readKey is a key repoKey read and the file it read it from.
type readKey struct {
	key []byte
	fi  fs.FileInfo
}
