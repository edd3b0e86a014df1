package gitstore

import (
	"bytes"
	"crypto/hmac"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"git-reason/gitstore/git"
	"git-reason/record"
)

// taskCacheMagic starts every task cache file; its number changes
// whenever the cache's shape or meaning changes. Version 4: each record
// is stored as its fields, as record.ReadStored parsed them. Version 5:
// the checksum is CRC-32 (IEEE), not CRC-32C. Version 6: an append adds
// a segment at the end instead of writing the file again. Version 7: a
// segment carries a MAC (cacheSeal) where it carried the CRC.
const taskCacheMagic = "git-reason task cache 7 "

// taskCache is a task's records/ tree at one head, with each record
// parsed: .git/reason/tasks/<task>.records (taskCachePath: the name's
// slashes spelled '~'). Reading a task from it costs one small file
// instead of a walk through go-git's packs, whose index
// go-git loads whole, once per process, and no JSON parsing. The ref is
// the truth: the cache is used only when its head is the ref's; otherwise
// the head's tree is read from git and only the records the cache lacks
// are read as blobs.
//
// The file is a line "git-reason task cache 7 <head> <mac> <size>",
// then <size> bytes of entries (mac: cacheSeal's, of the task, the head
// and the entries): per
// entry a line "<name> <blob> <length>", <length> bytes holding the
// record's fields (id, kind, task, created, actor, origin, clock, body,
// derived), each as "<length>:<bytes>", and a newline. An append adds a
// segment, a line "<from> <head> <mac> <size>" and <size> bytes of the
// entries the commit head added to the head from, so that what a write
// writes grows with the record, not with the task. The cache is at the
// last segment's head and holds every segment's entries, in tree order.
// Every record in it passed record.ReadStored when it was read from git,
// or was written by this store. A file whose first segment does not parse
// exactly is no cache; reading stops at the first appended segment that
// does not (an append cut short, or made from another head), and the
// segments before it are the cache, at their head. Each segment is a MAC
// checked at every read, so the file is written whole again, as one
// segment, instead of appended to once it holds maxCacheSegments.
type taskCache struct {
	Head    string
	Entries []cacheEntry // in tree order
	// size is the length of the file that holds exactly this cache (read
	// from it whole, or written as it), 0 when none is known to: an
	// append goes on from a file of that length only.
	size atomic.Int64
	// segments is how many segments that file holds, 0 when unknown.
	segments atomic.Int32
	// tree is the content of Head's records/ tree when this store wrote
	// it (an append keeps it for the next, recordsTreeWith), else nil.
	// It is never changed.
	tree []byte
	// file is the task's own file as read when this cache, or the one it
	// was made from, was read (nil: none was read, its cache came from the
	// pack or there was none), which a save of many tasks removes only
	// while it is still that one (removeUnchanged): another process's
	// written since holds a head this store did not see. Never changed.
	file fs.FileInfo
}

// maxCacheSegments bounds the segments of a task cache file: a task
// written one record a process would otherwise make a reader check one
// MAC a record written (the bench's task of 100 records generated so: 129
// segments); the rewrite, every that many appends, is of the task's size.
const maxCacheSegments = 64

// memTasks is how many tasks a Store keeps in memory, parsed, beside the
// files: the tasks a process (a command, a running MCP server) is working
// on, so that a write does not read and parse back the task it just
// loaded or wrote. The file and the ref stay the truth: an entry is used
// only while its head is the ref's.
const memTasks = 64

// memCache is a Store's in-memory task caches, by task.
type memCache struct {
	mu sync.Mutex
	m  map[string]*taskCache
}

func (m *memCache) get(task, head string) *taskCache {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.m[task]; c != nil && c.Head == head {
		return c
	}
	return nil
}

// latest is the cache of task held in memory, at whatever head.
func (m *memCache) latest(task string) *taskCache {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.m[task]
}

// drop forgets task (deleted).
func (m *memCache) drop(task string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.m, task)
}

func (m *memCache) put(task string, c *taskCache) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[string]*taskCache{}
	}
	putBounded(m.m, task, c, memTasks)
}

// putBounded sets m[k] to v, first dropping any one other key when m
// holds limit keys: the map stays bounded.
func putBounded[K comparable, V any](m map[K]V, k K, v V, limit int) {
	if _, ok := m[k]; !ok && len(m) >= limit {
		for other := range m {
			delete(m, other)
			break
		}
	}
	m[k] = v
}

type cacheEntry struct {
	Name string
	Blob string
	Rec  *record.Record // never changed: loadTask hands out copies
	// fields are Rec's fields as the file read held them, written back as
	// they are rather than encoded again; nil for a record read from git.
	fields []byte
}

// taskCachePath is task's cache file: directly in .git/reason/tasks/,
// named by the task with its slashes spelled '~', which no task name
// holds. A name's slashes as directories made one task's cache another's
// directory (a.records and a.records/b): the second had no cache, and
// deleting either failed on the other's.
func (s *Store) taskCachePath(task string) string {
	return filepath.Join(s.Repo.CommonDir, "reason", "tasks", strings.ReplaceAll(task, "/", "~")+".records")
}

// removeOldCacheDir removes the directory an earlier release left at a
// task's cache path, which spelled a name's slashes as directories: the
// caches of tasks "<name>.records/..." it holds are read by no path of
// this release's, and in the way they made the task <name> have no cache
// (its file could not be written; a read rebuilds it and writes it), and
// 'task delete <name>' fail on it after removing the ref. true when path
// was a directory, now gone.
func removeOldCacheDir(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.IsDir() && os.RemoveAll(path) == nil
}

// readTaskCache is task's cache: the one a read across many tasks holds
// back (HoldCaches), else its file, else its entry in the pack when it
// has no file.
func (s *Store) readTaskCache(task string) *taskCache {
	c, _ := s.readTaskCacheFile(task)
	return c
}

// readTaskCacheFile is readTaskCache and the task's own file as read
// (nil when none was: the cache the caller makes from it replaces that
// file, which is taskCache.file), also when it holds no cache.
func (s *Store) readTaskCacheFile(task string) (*taskCache, fs.FileInfo) {
	if c := s.held.get(task); c != nil {
		return c, c.file
	}
	data, fi, err := readOwnFile(s.taskCachePath(task))
	if errors.Is(err, fs.ErrNotExist) {
		p := s.taskPack.get(s.taskPackPath(), taskPackMagic)
		e, ok := p.lookup(task)
		if !ok {
			return nil, nil
		}
		// A copy: the entries are made of its bytes, and the mapping
		// goes with the pack (unmapped once p is unreachable, which a
		// save by another goroutine can make it, so p is kept alive
		// until e is copied). No file holds the cache: a write makes
		// the task's own (no append).
		e = bytes.Clone(e)
		runtime.KeepAlive(p)
		c := parseTaskCache(e, s.taskCacheSeal(task, false))
		if c != nil {
			c.size.Store(0)
			c.segments.Store(0)
		}
		return c, nil
	}
	if err != nil {
		return nil, nil
	}
	c := parseTaskCache(data, s.taskCacheSeal(task, false))
	if c != nil {
		c.file = fi
	}
	return c, fi
}

// cacheSeal makes and checks the MAC of a task cache file's segments
// (Sealed's, under the repository key, of the release, the task, the
// segment's head and its entries): the records a reader takes from the
// file by blob id are the ones this release read from git or wrote, never
// ones a stranger wrote into it, nor ones another release's checks
// admitted (a record's text edited, framed again with a good
// checksum, was shown by log and handover as the record's).
type cacheSeal struct {
	key  []byte
	task string
}

// taskCacheSeal is task's cacheSeal; one without a key (none yet, and
// create false, or none can be made) makes no file and reads none.
func (s *Store) taskCacheSeal(task string, create bool) cacheSeal {
	key, _ := repoKey(s.reasonDir(), create)
	return cacheSeal{key: key, task: task}
}

// sum is the MAC of the segment of entries data at head, "" without a key.
// Its scope names this release: the records are kept as its checks
// (record.ReadStored) read them, and another release's may refuse one.
func (c cacheSeal) sum(head string, data []byte) string {
	if c.key == nil {
		return ""
	}
	return (&Sealed{name: "tasks", scope: "task cache " + release(), key: c.key}).mac(c.task, head, data)
}

// parseTaskCache reads a cache file of seal's task, nil when its first
// segment is not exactly one.
func parseTaskCache(data []byte, seal cacheSeal) *taskCache {
	line, rest, ok := bytes.Cut(data, []byte{'\n'})
	line, found := bytes.CutPrefix(line, []byte(taskCacheMagic))
	if !ok || !found || seal.key == nil {
		return nil
	}
	head, entries, rest, ok := cutCacheSegment(line, rest, seal)
	if !ok {
		return nil
	}
	c := &taskCache{Head: head, Entries: entries}
	segments := int32(1)
	for len(rest) > 0 {
		line, next, ok := bytes.Cut(rest, []byte{'\n'})
		from, line, ok1 := bytes.Cut(line, []byte{' '})
		if !ok || !ok1 || string(from) != c.Head {
			break
		}
		head, added, after, ok := cutCacheSegment(line, next, seal)
		if !ok || !c.add(added) {
			break
		}
		c.Head, rest = head, after
		segments++
	}
	if len(rest) == 0 {
		c.size.Store(int64(len(data)))
		c.segments.Store(segments)
	}
	return c
}

// cutCacheSegment reads a segment's line after its first field ("<head>
// <mac> <size>") and its entries off rest, checking its MAC with seal.
func cutCacheSegment(line, rest []byte, seal cacheSeal) (head string, entries []cacheEntry, after []byte, ok bool) {
	h, line, ok1 := bytes.Cut(line, []byte{' '})
	sum, size, ok2 := bytes.Cut(line, []byte{' '})
	n, err := strconv.Atoi(string(size))
	if !ok1 || !ok2 || len(h) != 40 || !isHex(string(h)) || err != nil || n < 0 || n > len(rest) ||
		!hmac.Equal(sum, []byte(seal.sum(string(h), rest[:n]))) {
		return "", nil, nil, false
	}
	if entries, ok = parseCacheEntries(rest[:n]); !ok {
		return "", nil, nil, false
	}
	return string(h), entries, rest[n:], true
}

// add places entries a segment appended among the cache's, in tree
// order; false, with nothing added, when one's name is there already.
func (c *taskCache) add(entries []cacheEntry) bool {
	for i, e := range entries {
		if _, found := c.find(e.Name); found || slices.ContainsFunc(entries[:i], func(o cacheEntry) bool { return o.Name == e.Name }) {
			return false
		}
	}
	for _, e := range entries {
		i, _ := c.find(e.Name)
		c.Entries = slices.Insert(c.Entries, i, e)
	}
	return true
}

// find is where name is, or would be, among the entries.
func (c *taskCache) find(name string) (int, bool) {
	return slices.BinarySearchFunc(c.Entries, name, func(e cacheEntry, n string) int { return strings.Compare(e.Name, n) })
}

// parseCacheEntries reads the entries of a task cache file (after its
// first line), or of a saved state (saved.go); false when they do not
// parse exactly. rest is a file's bytes, read for this: nothing may
// change them afterwards, for the entries are made of them.
func parseCacheEntries(rest []byte) ([]cacheEntry, bool) {
	var out []cacheEntry
	// Every string field is cut from the file's bytes themselves, as body
	// and derived are slices of them: no allocation per field, and no
	// copy of the file (at 1,000 records a saved state's 600 KB, a tenth
	// of what a status after one new record allocated, each page of it a
	// page fault). Nothing writes to those bytes once read.
	text := unsafe.String(unsafe.SliceData(rest), len(rest))
	var recs []record.Record
	for len(rest) > 0 {
		line, next, ok := bytes.Cut(rest, []byte{'\n'})
		name, line, ok1 := bytes.Cut(line, []byte{' '})
		blob, size, ok2 := bytes.Cut(line, []byte{' '})
		at := len(text) - len(rest) // where this entry starts in text
		if !ok || !ok1 || !ok2 || len(blob) != 40 || !isHex(text[at+len(name)+1:at+len(name)+1+len(blob)]) {
			return nil, false
		}
		n, err := strconv.Atoi(string(size))
		if err != nil || n < 0 || n >= len(next) || next[n] != '\n' {
			return nil, false
		}
		if recs == nil {
			n := countCacheEntries(rest)
			recs, out = make([]record.Record, 0, n), make([]cacheEntry, 0, n)
		}
		recs = append(recs, record.Record{})
		fieldsAt := at + len(rest) - len(next)
		if !decodeFields(next[:n:n], text[fieldsAt:fieldsAt+n], &recs[len(recs)-1]) {
			return nil, false
		}
		out = append(out, cacheEntry{Name: text[at : at+len(name)],
			Blob: text[at+len(name)+1 : at+len(name)+1+len(blob)], Rec: &recs[len(recs)-1], fields: next[:n:n]})
		rest = next[n+1:]
	}
	return out, true
}

// countCacheEntries is how many entries parseCacheEntries reads from b
// at most: their header lines counted, each entry's fields skipped by
// their length. (Counting newlines instead counted those inside the
// records' texts too, and the records made for them, several times
// those read, were most of what reading a saved state allocated.)
func countCacheEntries(b []byte) int {
	n := 0
	for len(b) > 0 {
		n++
		line, next, ok := bytes.Cut(b, []byte{'\n'})
		i := bytes.LastIndexByte(line, ' ')
		size, err := strconv.Atoi(string(line[i+1:]))
		if !ok || i < 0 || err != nil || size < 0 || size >= len(next) {
			break
		}
		b = next[size+1:]
	}
	return n
}

// field takes one "<length>:<bytes>" field off b.
func field(b []byte) (f, rest []byte, ok bool) {
	i := bytes.IndexByte(b, ':')
	if i < 1 || i > 7 {
		return nil, nil, false
	}
	n, err := strconv.Atoi(string(b[:i]))
	if err != nil || n < 0 || n > len(b)-i-1 {
		return nil, nil, false
	}
	return b[i+1 : i+1+n : i+1+n], b[i+1+n:], true
}

// decodeFields reads a record's fields as encodeFields wrote them, from b
// and from text, the same bytes as a string, which the string fields are
// cut from.
func decodeFields(b []byte, text string, r *record.Record) bool {
	var f [9][]byte
	var str [9]string
	whole := len(b)
	for i := range f {
		var ok bool
		if f[i], b, ok = field(b); !ok {
			return false
		}
		end := whole - len(b)
		str[i] = text[end-len(f[i]) : end]
	}
	clock, err := strconv.ParseInt(str[6], 10, 64)
	if err != nil || len(b) != 0 {
		return false
	}
	*r = record.Record{ID: str[0], Kind: record.Kind(str[1]), Task: str[2], Created: str[3],
		Actor: str[4], Origin: str[5], Clock: clock, Body: f[7], Derived: f[8]}
	return true
}

// encodeFields appends a record's fields, each "<length>:<bytes>".
func encodeFields(buf []byte, r *record.Record) []byte {
	var clock [20]byte
	for _, f := range [...][]byte{[]byte(r.ID), []byte(r.Kind), []byte(r.Task), []byte(r.Created),
		[]byte(r.Actor), []byte(r.Origin), strconv.AppendInt(clock[:0], r.Clock, 10), r.Body, r.Derived} {
		buf = append(strconv.AppendInt(buf, int64(len(f)), 10), ':')
		buf = append(buf, f...)
	}
	return buf
}

// writeTaskCache saves the cache, or holds it back while a read across
// many tasks goes on (HoldCaches); one that cannot be written is rebuilt
// next time. A task's first own file is listed in the pack's loose list
// (writeLoose), which folds such files into the pack once they are
// packedMin.
func (s *Store) writeTaskCache(task string, c *taskCache) {
	file := encodeTaskCache(c, s.taskCacheSeal(task, true))
	if file == nil || s.held.put(s, task, c, file) {
		return
	}
	if s.writeCacheFiles(map[string][]byte{task: file}) == nil {
		c.size.Store(int64(len(file)))
		c.segments.Store(1)
	}
}

// The task caches' pack (namedpack.go): .git/reason/tasks.pack, each
// entry a task's cache file as writeTaskCache writes it, its MAC of the
// task (cacheSeal) checked as the file's is.
const (
	taskPackFile  = "tasks.pack"
	taskPackMagic = "git-reason task pack 1 "
	// heldMax bounds the bytes of task caches held back: past it they
	// are written (into the pack) and holding goes on.
	heldMax = 32 << 20
)

func (s *Store) taskPackPath() string {
	return filepath.Join(s.Repo.CommonDir, "reason", taskPackFile)
}

// heldCaches is the task caches a read across many tasks holds back
// (Store.HoldCaches) to write them at its end at once, packedMin or more
// into the pack instead of a file each (a clone's first status read and
// wrote every task's: a file created per task, a fifth of its CPU).
type heldCaches struct {
	mu     sync.Mutex
	depth  int // reads holding
	size   int // bytes of files
	caches map[string]*taskCache
	files  map[string][]byte // task -> its cache file's bytes
}

// HoldCaches holds back the task caches this store writes until the
// function it returns is called (once, when a read across many tasks
// ends, however it ends; again is nothing): they are written then, when
// no other read holds them, into the pack when they are packedMin or
// more.
func (s *Store) HoldCaches() (write func()) {
	h := &s.held
	h.mu.Lock()
	h.depth++
	h.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			h.depth--
			var files map[string][]byte
			var was map[string]fs.FileInfo
			if h.depth == 0 {
				files, was = h.take()
			}
			h.mu.Unlock()
			s.writeCaches(files, was)
		})
	}
}

// take empties the caches held and returns their files and the tasks'
// own files their caches replace (taskCache.file); h.mu is held.
func (h *heldCaches) take() (map[string][]byte, map[string]fs.FileInfo) {
	files, was := h.files, make(map[string]fs.FileInfo, len(h.caches))
	for task, c := range h.caches {
		if c.file != nil {
			was[task] = c.file
		}
	}
	h.caches, h.files, h.size = nil, nil, 0
	return files, was
}

// put holds c, task's cache, and file, its bytes, while a read holds
// them; false when none does. Past heldMax bytes, what is held is
// written now.
func (h *heldCaches) put(s *Store, task string, c *taskCache, file []byte) bool {
	h.mu.Lock()
	if h.depth == 0 {
		h.mu.Unlock()
		return false
	}
	if h.caches == nil {
		h.caches, h.files = map[string]*taskCache{}, map[string][]byte{}
	}
	h.size += len(file) - len(h.files[task])
	h.caches[task], h.files[task] = c, file
	var files map[string][]byte
	var was map[string]fs.FileInfo
	if h.size > heldMax {
		files, was = h.take()
	}
	h.mu.Unlock()
	s.writeCaches(files, was)
	return true
}

// get is task's cache held, nil when none is.
func (h *heldCaches) get(task string) *taskCache {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.caches[task]
}

// drop forgets task's cache held (the task is deleted).
func (h *heldCaches) drop(task string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if f, ok := h.files[task]; ok {
		h.size -= len(f)
		delete(h.caches, task)
		delete(h.files, task)
	}
}

// writeCaches writes task caches' files (task to bytes): packAt or more
// (packedMin, or a packFraction-th part of a large pack's tasks) into the
// pack, taking the place of their own files that are still as was gives
// them, unless another process is writing it; else a file each, listed
// in the pack's loose list when new (writeLoose), which folds them in
// once it names packAt.
func (s *Store) writeCaches(files map[string][]byte, was map[string]fs.FileInfo) {
	if len(files) >= packedMin && s.taskPack.saveMany(s.taskPackFiles(), files, was) == nil {
		return
	}
	if len(files) > 0 {
		s.writeCacheFiles(files)
	}
}

// writeCacheFiles writes task caches' own files (writeLoose), each again
// once an earlier release's directory in its way is removed
// (removeOldCacheDir); it returns the error of each file not written.
func (s *Store) writeCacheFiles(files map[string][]byte) map[string]error {
	failed := s.taskPack.writeLoose(s.taskPackFiles(), files)
	again := map[string][]byte{}
	for task := range failed {
		if removeOldCacheDir(s.taskCachePath(task)) {
			again[task] = files[task]
			delete(failed, task)
		}
	}
	if len(again) > 0 {
		for task, err := range s.taskPack.writeLoose(s.taskPackFiles(), again) {
			failed[task] = err
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return failed
}

// taskPackFiles is the task caches' pack and their own files, whose
// entries are the files' bytes; a task whose ref is gone gets none.
func (s *Store) taskPackFiles() packFiles {
	return packFiles{path: s.taskPackPath(), magic: taskPackMagic, fileOf: s.taskCachePath, entryOf: func(file []byte) ([]byte, bool) {
		return file, bytes.HasPrefix(file, []byte(taskCacheMagic))
	}, gone: s.taskGone}
}

// encodeTaskCache is the file holding c, which parseTaskCache reads back;
// nil when an entry's name is not one the file can hold or seal has no
// key.
func encodeTaskCache(c *taskCache, seal cacheSeal) []byte {
	return encodeCacheSegment([]byte(taskCacheMagic), c.Head, c.Entries, seal)
}

// encodeCacheSegment is a segment of a cache file: its line (prefix, then
// "<head> <mac> <size>") and the entries; nil when an entry's name is not
// one the file can hold or seal has no key.
func encodeCacheSegment(prefix []byte, head string, entries []cacheEntry, seal cacheSeal) []byte {
	buf := encodeCacheEntries(entries)
	if buf == nil || seal.key == nil {
		return nil
	}
	sum := seal.sum(head, buf)
	size := strconv.Itoa(len(buf))
	file := make([]byte, 0, len(prefix)+len(head)+len(sum)+len(size)+3+len(buf))
	file = append(append(append(append(append(append(append(file, prefix...), head...), ' '), sum...), ' '), size...), '\n')
	return append(file, buf...)
}

// encodeCacheEntries is the entries of a task cache file or a saved state
// (parseCacheEntries reads them back); nil when an entry's name is not one
// the file can hold.
func encodeCacheEntries(entries []cacheEntry) []byte {
	size := 1
	for _, e := range entries {
		r := e.Rec
		size += len(e.Name) + len(e.Blob) + len(r.ID) + len(r.Kind) + len(r.Task) + len(r.Created) +
			len(r.Actor) + len(r.Origin) + len(r.Body) + len(r.Derived) + 80
	}
	buf := make([]byte, 0, size)
	var fields []byte
	for _, e := range entries {
		// Two IndexByte scans: ContainsAny builds a character set per call.
		if strings.IndexByte(e.Name, ' ') >= 0 || strings.IndexByte(e.Name, '\n') >= 0 {
			return nil // not a name the file can hold: no cache
		}
		f := e.fields
		if f == nil {
			fields = encodeFields(fields[:0], e.Rec)
			f = fields
		}
		buf = append(append(append(append(buf, e.Name...), ' '), e.Blob...), ' ')
		buf = append(strconv.AppendInt(buf, int64(len(f)), 10), '\n')
		buf = append(append(buf, f...), '\n')
	}
	return buf
}

// loadTask returns the task's tree entries and records at head, from the
// cache when it holds that head, else from git (reusing every record the
// cache has by blob), refreshing the cache.
func (s *Store) loadTask(task, head string) (*taskCache, []*record.Record, error) {
	c, err := s.taskAt(task, head)
	if err != nil {
		return nil, nil, err
	}
	return c, c.copyRecords(), nil
}

// taskAt is loadTask without the copies of the records, for a caller that
// reads only the entries (their names and blobs) and changes nothing.
func (s *Store) taskAt(task, head string) (*taskCache, error) {
	if c := s.mem.get(task, head); c != nil {
		return c, nil
	}
	c, file := s.readTaskCacheFile(task)
	if c == nil || c.Head != head {
		var err error
		if c, err = s.readTask(task, head, c); err != nil {
			return nil, withHead(head, err)
		}
		c.file = file // the file it replaces
		s.saveTaskCache(task, c)
	}
	countTask(len(c.Entries))
	s.mem.put(task, c)
	return c, nil
}

// readTask reads the entries of head's records/ tree, taking each record
// old holds (by name and blob) from old and reading and checking every
// other record from git.
func (s *Store) readTask(task, head string, old *taskCache) (*taskCache, error) {
	known := map[string]cacheEntry{}
	if old != nil {
		for _, e := range old.Entries {
			known[e.Name+"\x00"+e.Blob] = e
		}
	}
	tree, err := s.recordsTree(plumbing.NewHash(head))
	if err != nil {
		return nil, err
	}
	// Bounded in total before any record is read from git: the head's
	// records, by the task's limit, as replay bounds its history's.
	// (An object that does not read is recordBlob's to report.)
	var total int64
	fresh := false
	for _, e := range tree.Entries {
		if _, ok := known[e.Name+"\x00"+e.Hash.String()]; !ok {
			fresh = true
			break
		}
	}
	if fresh {
		// In a partial clone, the records missing come in one fetch first.
		if err := s.fetchBeforeTree(head, tree); err != nil {
			return nil, err
		}
		for _, e := range tree.Entries {
			if size, err := s.objectSize(e.Hash); err == nil {
				total += size
			}
		}
	}
	if err := s.taskLimit(total); err != nil {
		return nil, err
	}
	c := &taskCache{Head: head, Entries: make([]cacheEntry, 0, len(tree.Entries))}
	for _, e := range tree.Entries {
		ce, ok := known[e.Name+"\x00"+e.Hash.String()]
		if !ok {
			data, err := s.recordBlob(e)
			if err != nil {
				return nil, err
			}
			rec, err := record.ReadStored(task, e.Name, data)
			if err != nil {
				return nil, fmt.Errorf("%s/%w", RecordsDir, err)
			}
			ce = cacheEntry{Name: e.Name, Blob: e.Hash.String(), Rec: rec}
		}
		c.Entries = append(c.Entries, ce)
	}
	return c, nil
}

// SeedTask caches task at head, in the file and in memory, from head's
// records recs, in tree order, and the blob of each in head's records/
// tree (TreeBlobs), as a replay of head by this release read and checked
// them (integration.Integrator.Records and Blobs: every record passed the
// checks record.ReadStored makes, as readTask's do, its file name among
// them): the command after a pull reads what the pull integrated from one
// file, not from git again. It keeps copies of recs. Nothing is cached
// when blobs is not one 40-digit blob a record, or recs are not in tree
// order.
func (s *Store) SeedTask(task, head string, recs []*record.Record, blobs []string) {
	if len(blobs) != len(recs) || s.CheckTask(task) != nil {
		return
	}
	all := make([]record.Record, len(recs))
	// The task's own file as it is now is the one this cache replaces.
	file, _ := os.Lstat(s.taskCachePath(task))
	c := &taskCache{Head: head, Entries: make([]cacheEntry, len(recs)), file: file}
	for i, r := range recs {
		name := r.FileName()
		if len(blobs[i]) != 40 || !isHex(blobs[i]) || i > 0 && c.Entries[i-1].Name >= name {
			return
		}
		all[i] = *r
		c.Entries[i] = cacheEntry{Name: name, Blob: blobs[i], Rec: &all[i]}
	}
	s.saveTaskCache(task, c)
	s.mem.put(task, c)
}

// copyRecords returns copies of the cache's records, which callers may
// change without changing the cache.
func (c *taskCache) copyRecords() []*record.Record {
	out := make([]*record.Record, len(c.Entries))
	all := make([]record.Record, len(c.Entries))
	for i, e := range c.Entries {
		all[i] = *e.Rec
		out[i] = &all[i]
	}
	return out
}

// treeEntries turns cache entries back into tree entries.
func (c *taskCache) treeEntries() []TreeEntry {
	out := make([]TreeEntry, 0, len(c.Entries)+1)
	for _, e := range c.Entries {
		out = append(out, TreeEntry{Name: e.Name, Mode: filemode.Regular, Hash: plumbing.NewHash(e.Blob)})
	}
	return out
}

// cacheAppended records the task at its new head, prev plus the entry of
// the record just appended (data, its stored JSON, parsed as a later read
// parses it), in the file and in memory, with tree, the content of the
// new head's records/ tree.
func (s *Store) cacheAppended(task, head string, prev *taskCache, name, blob string, data, tree []byte) {
	var rec record.Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return // not cached: the next read takes it from git
	}
	e := cacheEntry{Name: name, Blob: blob, Rec: &rec}
	next := &taskCache{Head: head, Entries: make([]cacheEntry, 0, len(prev.Entries)+1), tree: tree, file: prev.file}
	placed := false
	for _, old := range prev.Entries {
		if !placed && e.Name < old.Name {
			next.Entries = append(next.Entries, e)
			placed = true
		}
		next.Entries = append(next.Entries, old)
	}
	if !placed {
		next.Entries = append(next.Entries, e)
	}
	if !s.holdAppended(task, prev, next, e) && !s.appendTaskCache(task, prev, next, e) {
		s.saveTaskCache(task, next)
	}
	s.mem.put(task, next)
}

// appendTaskCache adds the segment of e, the entry the commit next.Head
// added to prev.Head, to the file that holds prev exactly: one record's
// bytes instead of the task's. False when no file is known to hold prev,
// the file is no longer the one that did, it holds maxCacheSegments
// already, or caches are written behind.
func (s *Store) appendTaskCache(task string, prev, next *taskCache, e cacheEntry) bool {
	size, segments := prev.size.Load(), prev.segments.Load()
	s.behind.mu.Lock()
	behind := s.behind.delay > 0
	s.behind.mu.Unlock()
	if size <= 0 || segments <= 0 || segments >= maxCacheSegments || behind {
		return false
	}
	seg := encodeCacheSegment([]byte(prev.Head+" "), next.Head, []cacheEntry{e}, s.taskCacheSeal(task, true))
	if seg == nil || git.AppendAt(s.taskCachePath(task), seg, size) != nil {
		return false
	}
	next.size.Store(size + int64(len(seg)))
	next.segments.Store(segments + 1)
	return true
}

// saveTaskCache writes the task's cache file now, or, once WriteBehind
// is set, soon after: a long-running process (the MCP server) reads the
// task from memory meanwhile, and another process finding the file stale
// reads the records it lacks from git, as it would after any write by
// someone else.
func (s *Store) saveTaskCache(task string, c *taskCache) {
	b := &s.behind
	b.mu.Lock()
	if b.delay <= 0 {
		b.mu.Unlock()
		s.writeTaskCache(task, c)
		return
	}
	b.hold(task, &heldCache{latest: c}) // the latest wins: it holds the newest head
	if b.timer == nil {
		b.timer = time.AfterFunc(b.delay, s.Flush)
	}
	b.mu.Unlock()
}

// holdAppended holds back, for a store that writes its caches behind,
// the task at next, which the commit next.Head made by adding e to prev:
// as one more segment to append to the file, when the file holds prev
// exactly (its size is known) or what is held already goes on to prev;
// else as the task whole. False when caches are not written behind.
func (s *Store) holdAppended(task string, prev, next *taskCache, e cacheEntry) bool {
	b := &s.behind
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.delay <= 0 {
		return false
	}
	seg := heldSegment{from: prev.Head, to: next.Head, e: e}
	h := b.pending[task]
	switch {
	case h != nil && h.latest == prev && h.base != nil:
		h.latest, h.segs = next, append(h.segs, seg)
	case h == nil && prev.size.Load() > 0:
		b.hold(task, &heldCache{latest: next, base: prev, segs: []heldSegment{seg}})
	default:
		b.hold(task, &heldCache{latest: next})
	}
	if b.timer == nil {
		b.timer = time.AfterFunc(b.delay, s.Flush)
	}
	return true
}

// writeBehind is the task caches waiting to be written, by task.
type writeBehind struct {
	mu      sync.Mutex
	delay   time.Duration
	pending map[string]*heldCache
	timer   *time.Timer
	writing sync.Mutex // held while pending caches are written
}

// hold makes h the task's cache held back; b.mu is held.
func (b *writeBehind) hold(task string, h *heldCache) {
	if b.pending == nil {
		b.pending = map[string]*heldCache{}
	}
	b.pending[task] = h
}

// heldCache is a task's cache held back: latest, the task at its newest
// head, and, when base is set, the segments (one per append since) that
// take the file holding base exactly to latest, which Flush appends to it
// instead of writing the task whole: one flush costs what the appends
// since the last one added, not what the task holds.
type heldCache struct {
	latest *taskCache
	base   *taskCache
	segs   []heldSegment
}

// heldSegment is the entry e one append added, taking the task from the
// head from to the head to.
type heldSegment struct {
	from, to string
	e        cacheEntry
}

// appendHeld appends h's segments to the task's cache file, which must
// still be as long as when it held h.base; false when h has no base, the
// file would hold more than maxCacheSegments, or it is no longer that one
// (the caller writes the task whole).
func (s *Store) appendHeld(task string, h *heldCache) bool {
	if h.base == nil {
		return false
	}
	size, segments := h.base.size.Load(), h.base.segments.Load()
	if size <= 0 || segments <= 0 || int(segments)+len(h.segs) > maxCacheSegments {
		return false
	}
	seal := s.taskCacheSeal(task, true)
	var data []byte
	for _, sg := range h.segs {
		seg := encodeCacheSegment([]byte(sg.from+" "), sg.to, []cacheEntry{sg.e}, seal)
		if seg == nil {
			return false
		}
		data = append(data, seg...)
	}
	if git.AppendAt(s.taskCachePath(task), data, size) != nil {
		return false
	}
	h.latest.size.Store(size + int64(len(data)))
	h.latest.segments.Store(segments + int32(len(h.segs)))
	return true
}

// WriteBehind has the store write each task's cache file up to delay
// after an append instead of during it (several appends to a task within
// delay write it once, appending what they added to the file the last
// write left), for a process that lives on between appends.
// Such a process calls Flush before it exits; a cache it never writes is
// rebuilt from the refs by the next reader.
func (s *Store) WriteBehind(delay time.Duration) {
	s.behind.mu.Lock()
	s.behind.delay = delay
	s.behind.mu.Unlock()
}

// Flush writes every task cache WriteBehind holds back, and returns once
// they are written.
func (s *Store) Flush() {
	b := &s.behind
	b.writing.Lock()
	defer b.writing.Unlock()
	b.mu.Lock()
	pending := b.pending
	b.pending = nil
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	b.mu.Unlock()
	for task, h := range pending {
		if !s.appendHeld(task, h) {
			s.writeTaskCache(task, h.latest)
		}
	}
}
