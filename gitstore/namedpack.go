package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"git-reason/gitstore/git"
)

// A named pack is what a save of many tasks at once writes (a clone's
// first catch-up verifies and reads every task) instead of a file per
// task, as git packs refs instead of leaving a file per ref: the
// remembered verifications' .git/reason/verified.pack (Remembered) and
// the task caches' .git/reason/tasks.pack (taskcache.go). A save of fewer
// than packedMin tasks writes their files as before, and a task's file,
// when it has one, is its entry: the pack is read only for a task that
// has none (git's loose refs over packed-refs). So a save after a few
// tasks moved writes those tasks' files alone (listed in the loose list,
// which folds them into the pack once it names packedMin, or a
// packFraction-th part of a large pack's tasks: packAt, fold), and a
// lookup reads one file or one entry of the pack, found by a binary
// search of its index in the mapped file (the pages it visits), not the
// whole pack.
//
// The file is a line "<magic><n>", an index of n lines, sorted, each
// "<task file name> <offset> <length>" (fileName's 32 hex digits, then
// two 10-digit numbers: every line packLine bytes), then the entries,
// each what the task's own file would hold (less the file's own first
// line, for the remembered verifications), at offset from the end of the
// index. It is written whole, through its lock (a crash leaves the old
// pack or the new one), with the entries of the pack it replaces that the
// save does not replace, that pack read again under the lock (another
// process's save may have replaced the one this process read); under the
// same lock, before the new pack is put in place, the saved tasks' own
// files go, each only while it is the one the save read (saveRead; a
// file left there, by a crash or a process that wrote it meanwhile,
// holds what was true of some head: it can only make a read do more
// work), and a fold reads the files it takes in under that lock too.
// Its trust is the task files': each entry carries its own MACs, of its
// task, checked by the reader as a file's are, and an entry is taken only
// for the task that asked, under the name the index gives it; an index or
// entry edited matches nothing, and the read falls back to what it does
// without the file.
const (
	rememberedPackFile  = "verified.pack"
	rememberedPackMagic = "git reason verified pack 1 "
	// packedMin is the fewest tasks a save writes into the pack rather
	// than a file each, or the loose list folds (packAt: more for a
	// large pack).
	packedMin = 64
	// packFraction: a save writes into a pack of n entries, or the loose
	// list folds into it, only for n/packFraction tasks or more (packAt).
	packFraction = 16
	// packLine is the length of a line of the pack's index.
	packLine = 32 + 1 + 10 + 1 + 10 + 1
)

// namedPack is a pack as read: the file's bytes (mapped), its n index
// lines from index and its entries from body.
type namedPack struct {
	data           []byte
	n, index, body int
}

// readNamedPack maps the pack at path whose first line starts with
// magic; nil when there is none or it is not one.
func readNamedPack(path, magic string) *namedPack {
	p, _ := readNamedPackFile(path, magic)
	return p
}

// readNamedPackFile is readNamedPack and the state of the file mapped
// (nil when there is none).
func readNamedPackFile(path, magic string) (*namedPack, fs.FileInfo) {
	data, unmap, fi, err := mapSharedFile(path)
	if err != nil {
		return nil, nil
	}
	p := &namedPack{data: data}
	runtime.AddCleanup(p, func(unmap func()) { unmap() }, unmap)
	line, _, ok := bytes.Cut(data, []byte{'\n'})
	count, found := bytes.CutPrefix(line, []byte(magic))
	n, err := strconv.Atoi(string(count))
	// The first line is the mapping's bytes: p, whose cleanup unmaps
	// them, is kept until they are read (on the way out of a file that
	// is no pack too).
	runtime.KeepAlive(p)
	if !ok || !found || err != nil || n < 0 || n > (len(data)-len(line)-1)/packLine {
		return nil, fi
	}
	p.n, p.index = n, len(line)+1
	p.body = p.index + n*packLine
	return p, fi
}

// at is the i-th index line's name and entry; false when the line does
// not parse or its entry is not in the file.
func (p *namedPack) at(i int) (name, entry []byte, ok bool) {
	l := p.data[p.index+i*packLine : p.index+(i+1)*packLine]
	if l[32] != ' ' || l[43] != ' ' || l[54] != '\n' {
		return nil, nil, false
	}
	off, err1 := strconv.Atoi(string(l[33:43]))
	size, err2 := strconv.Atoi(string(l[44:54]))
	if err1 != nil || err2 != nil || off < 0 || size < 0 || off > len(p.data)-p.body || size > len(p.data)-p.body-off {
		return nil, nil, false
	}
	return l[:32], p.data[p.body+off : p.body+off+size], true
}

// lookup is the entry under task's file name, as the pack holds it (the
// mapped bytes: a caller that reads them keeps p alive until it has, or
// copies them); the caller checks that it is task's.
func (p *namedPack) lookup(task string) ([]byte, bool) {
	if p == nil {
		return nil, false
	}
	name := []byte(fileName(task))
	lo := sort.Search(p.n, func(i int) bool {
		return bytes.Compare(p.data[p.index+i*packLine:p.index+i*packLine+32], name) >= 0
	})
	if lo == p.n {
		return nil, false
	}
	at, e, ok := p.at(lo)
	found := ok && bytes.Equal(at, name)
	runtime.KeepAlive(p) // at is the mapping's bytes
	if !found {
		return nil, false
	}
	return e, true
}

// replaceNamedPack writes the pack at path with its lock held (lock),
// which it releases: entries (task file name to entry; nil: none, the
// entry removed) over the entries of the pack it replaces, read again
// under the lock, so that a save of many tasks keeps what another save
// wrote since this process first read the pack (or since this process's
// own save before).
func replaceNamedPack(lock *git.Lock, path, magic string, entries map[string][]byte) error {
	all := make(map[string][]byte, len(entries))
	// The old pack's entries are its mapped bytes: it is kept (mapped)
	// until they are copied into the new one.
	old := readNamedPack(path, magic)
	defer runtime.KeepAlive(old)
	if old != nil {
		for i := range old.n {
			if name, e, ok := old.at(i); ok {
				all[string(name)] = e
			}
		}
	}
	for name, e := range entries {
		all[name] = e
		if e == nil {
			delete(all, name)
		}
	}
	names := slices.Sorted(maps.Keys(all))
	size := 0
	for _, e := range all {
		size += len(e)
	}
	b := make([]byte, 0, len(magic)+24+len(names)*packLine+size)
	b = append(strconv.AppendInt(append(b, magic...), int64(len(names)), 10), '\n')
	off := 0
	for _, name := range names {
		b = fmt.Appendf(b, "%s %010d %010d\n", name, off, len(all[name]))
		off += len(all[name])
	}
	for _, name := range names {
		b = append(b, all[name]...)
	}
	if err := lock.Replace(b, 0o600); err != nil {
		lock.Abandon()
		return err
	}
	return nil
}

// packAt is the fewest tasks a save writes into the pack at path, or the
// loose list folds into it: packedMin, or n/packFraction of the n entries
// the pack holds when more, as git's geometric repack reasons. Each write
// copies the whole pack, so that a write of packedMin tasks into a pack of
// a year's tasks (tens of MB) would cost each task moved a share that
// grows with the pack; n/packFraction tasks pay for copying n entries,
// packFraction entries' bytes a task (bench: BenchmarkFold), however large
// the pack, and the tasks' own files left loose are at most a
// packFraction-th part of the pack's. Only the pack's first line is read
// ("<magic><n>"); a pack that does not read is none (packedMin).
func packAt(path, magic string) int {
	f, err := os.Open(path)
	if err != nil {
		return packedMin
	}
	defer f.Close()
	head := make([]byte, len(magic)+21)
	k, _ := io.ReadFull(f, head)
	line, _, _ := bytes.Cut(head[:k], []byte{'\n'})
	count, found := bytes.CutPrefix(line, []byte(magic))
	n, err := strconv.Atoi(string(count))
	if !found || err != nil || n/packFraction < packedMin {
		return packedMin
	}
	return n / packFraction
}

// packRead is a pack as a process reads it: mapped the first time it is
// asked for, again once the file is another (this process's save, or
// another process's save or fold, renamed a new pack over it), as git
// reads packed-refs again when its stat changes: a process that lives for
// hours (an MCP server) read the pack it first mapped until its own save,
// and re-derived from git every task another process had packed since.
type packRead struct {
	mu   sync.Mutex
	p    *namedPack
	fi   fs.FileInfo // the file p was read from; nil: none was there
	read bool
	// wrote: a task's own file (path) as this process last wrote it
	// (writeLoose), which a save of many tasks replaces as it replaces
	// the one it read: the save holds what this process knew since.
	wrote map[string]fs.FileInfo
}

// takeWritten is the state of the file at path as this process last
// wrote it (nil when it wrote none), forgotten: a save or fold that asks
// puts the task into the pack, after which that state is of no use (the
// file is gone, or another's), so that a long-running process keeps no
// entry per task it ever wrote.
func (r *packRead) takeWritten(path string) fs.FileInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.wrote[path]
	delete(r.wrote, path)
	return w
}

// noteWritten keeps the state of the file this process just wrote at
// path (stat after its rename: another process's file renamed over it in
// between would be taken for this one's, which costs a read of that
// task, nothing else).
func (r *packRead) noteWritten(path string) {
	fi, err := os.Lstat(path)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		delete(r.wrote, path)
		return
	}
	if r.wrote == nil {
		r.wrote = map[string]fs.FileInfo{}
	}
	r.wrote[path] = fi
}

// get is the pack at path, read again when the file there is not the one
// read before (one stat a lookup, which is made only for a task with no
// file of its own).
func (r *packRead) get(path, magic string) *namedPack {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.read {
		if now, err := os.Stat(path); (err == nil || errors.Is(err, fs.ErrNotExist)) && sameFile(now, r.fi) {
			return r.p
		}
	}
	r.read = true
	r.p, r.fi = readNamedPackFile(path, magic)
	return r.p
}

// errFewForPack: a save of fewer tasks than packAt, which the caller
// writes to their own files instead.
var errFewForPack = errors.New("too few tasks to rewrite the pack for")

// saveMany is saveRead for a save of many tasks at once, which read each
// task's own file as was gives it (nil: it had none): fewer entries than
// packAt are errFewForPack, nothing written.
func (r *packRead) saveMany(pf packFiles, entries map[string][]byte, was map[string]fs.FileInfo) error {
	if len(entries) < packAt(pf.path, pf.magic) {
		return errFewForPack
	}
	return r.saveRead(pf, entries, was, 0)
}

// saveRead writes entries (task to entry) into the pack and removes each
// saved task's own file that is still the one the save read (was) or the
// one this process last wrote (written: left, it held an older entry
// over the pack's for every reader after); another process's file,
// newer, stays, as one written or appended to since; the pack this
// process read is replaced, so a task not asked about yet is looked up
// in the new one. Another process writing the pack is waited for up to
// wait. The files go under the pack's lock, before the new pack is put
// in place, as a fold reads them under it: a fold never reads a task's
// file older than the pack's entry, the save's, and puts it back
// (before, a fold that took the lock between the save's pack and its
// removals did). A reader meanwhile, or a crash, finds the task in the
// pack as it was: older, which costs a read of what it lacks. A task
// whose ref is gone when the save, holding the lock, asks (pf.gone) has
// its entry dropped, not written back: a delete removes the ref, then
// the entry under this lock, so an entry the save writes for a ref it
// found is removed by the delete after it.
func (r *packRead) saveRead(pf packFiles, entries map[string][]byte, was map[string]fs.FileInfo, wait time.Duration) error {
	lock, err := git.TakeLock(pf.path, wait)
	if err != nil {
		return err
	}
	byName := make(map[string][]byte, len(entries))
	for task, e := range entries {
		if pf.gone != nil && pf.gone(task) {
			e = nil
		}
		byName[fileName(task)] = e
		path := pf.fileOf(task)
		if w := r.takeWritten(path); !removeUnchanged(path, was[task]) && w != nil {
			removeUnchanged(path, w)
		}
	}
	err = replaceNamedPack(lock, pf.path, pf.magic, byName)
	r.forget()
	return err
}

// forget has the pack read again when next asked for: this process
// replaced it.
func (r *packRead) forget() {
	r.mu.Lock()
	r.p, r.fi, r.read = nil, nil, false
	r.mu.Unlock()
}

// packFiles is a named pack and its tasks' own files: path and magic,
// the pack's; fileOf, a task's own file; entryOf, the entry the pack
// holds for a task whose file holds file (false: not one); gone, whether
// a task was deleted (its ref is gone), asked by a save of many tasks and
// a fold under the pack's lock for each task they write, whose entry
// then goes instead (nil: no task is).
type packFiles struct {
	path, magic string
	fileOf      func(task string) string
	entryOf     func(file []byte) ([]byte, bool)
	gone        func(task string) bool
}

// The loose list (<pack>.loose) names the tasks given a file of their
// own since the pack last took them in, one a line, as git counts its
// loose objects for gc --auto: a task that moves after the pack took
// it is written to its own file again, and a save of many tasks at once
// (a clone's first status) is what packs, which a team's steady use (a
// few tasks moving a day, commands of one task) never makes, so the
// files went on growing in number, one per task in the end. Once the
// list names packAt tasks (packedMin, or a packFraction-th part of a
// large pack's), the files it names are folded into the pack (fold). A
// write lists only a file it created (the task had none): one append per
// command that creates any, and a read of the list (names of at most a
// packFraction-th part of the tasks); nothing reads the directory of
// files. The list is a count, never a source of truth:
// a name lost from it (a crash, a lock held) leaves a file loose until a
// save of many tasks takes it; a name of a task with no file is dropped.
// Its lock is taken once, as a task cache's is, and the append skipped
// when another process holds it: its loss costs a later fold.
func looseListPath(pack string) string { return pack + ".loose" }

// writeLoose writes tasks' own files (task to the file's bytes), each
// through its lock (a file another process is writing is left to it),
// and lists those that had no file in the loose list, folding them into
// the pack when it names packAt tasks. It returns the error of each
// file it did not write.
func (r *packRead) writeLoose(pf packFiles, files map[string][]byte) map[string]error {
	var failed map[string]error
	var created []byte
	for task, file := range files {
		path := pf.fileOf(task)
		_, err := os.Lstat(path)
		had := !errors.Is(err, fs.ErrNotExist)
		if err := git.WriteFile(path, file, 0o600, 0, false); err != nil {
			if failed == nil {
				failed = map[string]error{}
			}
			failed[task] = err
			continue
		}
		r.noteWritten(path)
		if !had && strings.IndexByte(task, '\n') < 0 {
			created = append(append(created, task...), '\n')
		}
	}
	if len(created) > 0 {
		r.listLoose(pf, created)
	}
	return failed
}

// listLoose appends names (lines) to the pack's loose list and folds
// when it names packAt tasks (the pack's first line read only once it
// names packedMin).
func (r *packRead) listLoose(pf packFiles, names []byte) {
	list := looseListPath(pf.path)
	if git.AppendFile(list, names, 0o600, 0, true, -1) != nil {
		return
	}
	if data, err := os.ReadFile(list); err == nil {
		if named := bytes.Count(data, []byte{'\n'}); named >= packedMin {
			if least := packAt(pf.path, pf.magic); named >= least {
				r.fold(pf, least)
			}
		}
	}
}

// fold takes the files the loose list names into the pack, all under
// the pack's lock (another process writing it leaves the fold to a later
// write): the list is read and emptied under its own lock (another
// process folding leaves it to that one); each named file is read; with
// least (packAt) or more, each is removed under its own lock only while
// it is still the one read (the same file, size and time: a file
// another process wrote or appended to meanwhile is newer than its entry
// and stays, listed again, its own file read over the entry), and the
// pack written with their entries over the ones it holds. A save of many
// tasks removes its tasks' files under the same lock, before it puts its
// pack in place, so that no file a fold reads is older than the pack's
// entry. Fewer (a save of many tasks took the others in, or their tasks
// were deleted) are listed again, the pack left as it is. A task deleted
// (pf.gone, under the pack's lock) has its file removed and no entry:
// its ref went while the fold held the lock (its delete waits for it),
// or a reader wrote the file after the delete; its cache does not come
// back into the pack.
func (r *packRead) fold(pf packFiles, least int) {
	packLock, err := git.TakeLock(pf.path, 0)
	if err != nil {
		return
	}
	list := looseListPath(pf.path)
	lock, err := git.TakeLock(list, 0)
	if err != nil {
		packLock.Release()
		return
	}
	data, err := os.ReadFile(list)
	if err != nil {
		lock.Abandon()
		packLock.Release()
		return
	}
	type loose struct {
		task string
		fi   fs.FileInfo
	}
	var found []loose
	entries := map[string][]byte{}
	for line := range bytes.Lines(data) {
		task := string(bytes.TrimSuffix(line, []byte{'\n'}))
		if _, dup := entries[task]; dup || task == "" {
			continue
		}
		if e, fi, ok := readLoose(pf, task); ok {
			entries[task] = e
			found = append(found, loose{task, fi})
		}
	}
	var left []byte
	if len(found) < least {
		for _, l := range found {
			left = append(append(left, l.task...), '\n')
		}
		if lock.Replace(left, 0o600) != nil {
			lock.Abandon()
		}
		packLock.Release()
		return
	}
	if lock.Replace(nil, 0o600) != nil {
		lock.Abandon()
		packLock.Release()
		return
	}
	byName := make(map[string][]byte, len(entries))
	for task, e := range entries {
		if pf.gone != nil && pf.gone(task) {
			e = nil // its ref is gone: the file goes, no entry comes
		}
		byName[fileName(task)] = e
	}
	for _, l := range found {
		r.takeWritten(pf.fileOf(l.task))
		if !removeUnchanged(pf.fileOf(l.task), l.fi) {
			left = append(append(left, l.task...), '\n')
		}
	}
	if replaceNamedPack(packLock, pf.path, pf.magic, byName) == nil {
		r.forget()
	}
	if len(left) > 0 {
		_ = git.AppendFile(list, left, 0o600, 0, true, -1)
	}
}

// readLoose is the pack entry task's own file holds and the file's
// state as read; false when it has none, or it is not one, or it grew
// while read.
func readLoose(pf packFiles, task string) ([]byte, fs.FileInfo, bool) {
	data, fi, err := readOwnFile(pf.fileOf(task))
	if err != nil || !fi.Mode().IsRegular() || int64(len(data)) != fi.Size() {
		return nil, nil, false
	}
	e, ok := pf.entryOf(data)
	return e, fi, ok
}

// readOwnFile is os.ReadFile that also gives the state of the file read
// (from the open file: of the bytes read, even when the file is replaced
// meanwhile), which a save of many tasks compares before it removes the
// file (removeUnchanged). fi is nil when err is not.
func readOwnFile(path string) (data []byte, fi fs.FileInfo, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, nil, err
	}
	data = make([]byte, 0, fi.Size()+1) // to its end, as os.ReadFile: one that grew reads whole
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if errors.Is(err, io.EOF) {
			return data, fi, nil
		}
		if err != nil {
			return nil, nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

// removeUnchanged removes the file at path under its lock (no process
// replaces it meanwhile) when it is still was: the same file, of the
// same size and time; was nil (none was read), only none is. true when
// it is gone.
func removeUnchanged(path string, was fs.FileInfo) bool {
	if was == nil {
		_, err := os.Lstat(path)
		return errors.Is(err, fs.ErrNotExist)
	}
	lock, err := git.TakeLock(path, 0)
	if err != nil {
		return false
	}
	defer lock.Release()
	now, err := os.Lstat(path)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	if !sameFile(now, was) {
		return false
	}
	return os.Remove(path) == nil
}

// packEntry is task's entry in the remembered verifications' pack (its
// data, as the journal entry holds it): only an entry under task's name
// that is task's, whole. The data is p's mapped bytes, as is what it
// reads: the caller keeps p alive until it has read them.
func packEntry(p *namedPack, task string) ([]byte, bool) {
	e, ok := p.lookup(task)
	if !ok {
		return nil, false
	}
	names, data, rest, ok := cutJournalEntry(e)
	if !ok || string((journalEntry{names: names}).task()) != task || len(rest) != 0 {
		return nil, false
	}
	return data, true
}

// pack is the remembered verifications' pack.
func (m *Remembered) pack() *namedPack {
	return m.packed.get(m.packPath(), rememberedPackMagic)
}

func (m *Remembered) packPath() string { return filepath.Join(m.dir, rememberedPackFile) }

// entryData is task's remembered entry, its data as its journal entry
// holds it: its file in verified.d/, or the pack's entry when it has
// none, then the pack's mapped bytes: the caller keeps pack (nil for a
// file) alive until it has read them (runtime.KeepAlive). m.mu is held.
func (m *Remembered) entryData(task string) (data []byte, pack *namedPack, ok bool) {
	data, fi, err := readOwnFile(m.taskPath(task))
	if fi != nil {
		m.files[task] = fi
	}
	if errors.Is(err, fs.ErrNotExist) {
		pack = m.pack()
		d, ok := packEntry(pack, task)
		if ok {
			m.reads++
			countRememberedFile()
		}
		return d, pack, ok
	}
	if err == nil {
		m.reads++
		countRememberedFile()
	}
	j := parseJournal(data, rememberedMagic)
	e, ok := j.lookup(task)
	return e.data, nil, ok
}

// packFiles is the pack and the task files of verified.d/ it takes in.
func (m *Remembered) packFiles() packFiles {
	return packFiles{path: m.packPath(), magic: rememberedPackMagic, fileOf: m.taskPath, entryOf: func(file []byte) ([]byte, bool) {
		return bytes.CutPrefix(file, []byte(rememberedMagic))
	}}
}

// savePacked writes the entries of tasks (task to journal entry) into
// the pack and removes their files of verified.d/ that are still the ones
// read; m.mu is held.
func (m *Remembered) savePacked(entries map[string][]byte) error {
	return m.packed.saveMany(m.packFiles(), entries, m.files)
}
