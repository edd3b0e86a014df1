package gitstore

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"

	"git-reason/gitstore/git"
)

// A journal is a cache file under .git/reason/ that holds an entry per
// task, keyed by the task's head, and is appended to: a read across every
// task that finds k heads moved appends k entries (a later entry of a
// task replaces the earlier), so what it writes grows with what changed,
// not with the tasks. It is compacted (rewritten with one entry per live
// task) when the entries nothing uses outweigh the ones in use, so its
// size stays within twice what it holds, and the rewrites cost, spread
// over the appends that made them necessary, a constant per append.
//
// The file is the line journalMagic, then per entry a line "<task>
// <head> <crc> <length>" (crc: the CRC-32 (IEEE) of the entry's data, in
// hex), <length> bytes of data (the entry as JSON) and a newline. Reading
// stops at the first entry that does not parse exactly (a write cut
// short); the entries before it are used, and the next write compacts.
// A file of another magic (another version, or another release of git
// reason, whose rules may derive differently) is no journal.
const journalMagic = "git reason journal 1 v%d %q\n"

// journalHead is this build's first line of a journal.
func journalHead() string { return fmt.Sprintf(journalMagic, indexVersion, release()) }

// release names the build that writes a journal: entries are keyed by
// heads only, so a journal written by another release was served as that
// release derived it until the head moved. Both programs of one build
// (git-reason and git-reason--net) name the same release and share the
// journals; a development build names its revision, and a change to what
// a journal holds changes indexVersion.
var release = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	return releaseOf(info, programFile)
})

// releaseOf is the release of the build info describes. A build of
// changed sources (vcs.modified) names, beside its revision, the size and
// time of the git-reason file next to the running program (stat of that
// path): two builds of one commit with different changes would otherwise
// name one release, and each take the other's caches and verdicts as its
// own. Both programs of a build are installed side by side, so they name
// the same file; without one, the release names none.
func releaseOf(info *debug.BuildInfo, stat func() (os.FileInfo, error)) string {
	id := info.Main.Version
	modified := false
	for _, kv := range info.Settings {
		if kv.Key == "vcs.revision" || kv.Key == "vcs.modified" {
			id += " " + kv.Value
			modified = modified || kv.Key == "vcs.modified" && kv.Value == "true"
		}
	}
	if modified {
		if fi, err := stat(); err == nil {
			id += fmt.Sprintf(" %d %d", fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return id
}

// programFile stats the git-reason program next to the running one.
func programFile() (os.FileInfo, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return os.Stat(filepath.Join(filepath.Dir(exe), "git-reason"))
}

// journalEntry is one task's entry as read: "<task> <head>" (the
// file's own bytes), its data and how many bytes of the file it takes.
type journalEntry struct {
	names []byte
	data  []byte
	size  int
}

// task is the entry's task, head its head, both the file's bytes.
func (e journalEntry) task() []byte { return e.names[:len(e.names)-41] }
func (e journalEntry) head() []byte { return e.names[len(e.names)-40:] }

// journalFile is what a journal holds, its last entry per task. A journal
// is written sorted by task (a rewrite lists the tasks in order) and then
// appended to: its leading entries in increasing task order are kept as
// offsets into the file's bytes (16 bytes an entry, no string or map
// entry made for each) and found by a binary search, or at once when
// asked for in order, and only the entries after them (a task's later
// entry replacing its earlier) in a map. Reading a journal of every task
// is then one pass over the file. It is not for concurrent use (lookup
// keeps where the last one found its entry).
type journalFile struct {
	file   []byte                  // the bytes sorted's offsets are in
	sorted []sortedEntry           // the leading entries, each task above the one before
	later  map[string]journalEntry // the entries after them, the last per task; they replace sorted's
	next   int                     // the index into sorted after lookup's last find
	n      int                     // tasks with an entry
	size   int                     // bytes of the file
	live   int                     // bytes of its last entry per task
	whole  bool                    // the file is a journal and every entry parsed: it may be appended to
	magic  string                  // its first line, as this build writes it
}

// sortedEntry is an entry of a journal's leading run: the offsets in its
// file of its line, the end of its "<task> <head>", its data and the
// data's end.
type sortedEntry struct{ at, names, data, end uint32 }

func (j *journalFile) task(e sortedEntry) []byte { return j.file[e.at : e.names-41] }

func (j *journalFile) entry(e sortedEntry) journalEntry {
	return journalEntry{names: j.file[e.at:e.names:e.names], data: j.file[e.data:e.end:e.end], size: int(e.end+1) - int(e.at)}
}

// lookup returns task's entry.
func (j *journalFile) lookup(task string) (journalEntry, bool) {
	if e, ok := j.later[task]; ok {
		return e, true
	}
	// A reader of every task asks in order: the entry after the last
	// found is tried first.
	i, found := j.next, j.next < len(j.sorted) && compareBytes(j.task(j.sorted[j.next]), task) == 0
	if !found {
		i, found = slices.BinarySearchFunc(j.sorted, task, func(e sortedEntry, task string) int {
			return compareBytes(j.task(e), task)
		})
	}
	if !found {
		return journalEntry{}, false
	}
	j.next = i + 1
	return j.entry(j.sorted[i]), true
}

// compareBytes is bytes.Compare of b and s, without making either of the
// other's type (a string of b would be an allocation a comparison).
func compareBytes(b []byte, s string) int {
	for i := range min(len(b), len(s)) {
		if b[i] != s[i] {
			return cmp.Compare(b[i], s[i])
		}
	}
	return cmp.Compare(len(b), len(s))
}

// add takes e, read or written after every entry j holds; at is its
// offset in j.file, -1 when it is not there.
func (j *journalFile) add(e journalEntry, at int) {
	if at >= 0 && len(j.later) == 0 && int64(len(j.file)) <= math.MaxUint32 &&
		(len(j.sorted) == 0 || bytes.Compare(j.task(j.sorted[len(j.sorted)-1]), e.task()) < 0) {
		names, end := at+len(e.names), at+e.size-1
		j.sorted = append(j.sorted, sortedEntry{uint32(at), uint32(names), uint32(end - len(e.data)), uint32(end)})
		j.n++
		j.live += e.size
		return
	}
	if old, ok := j.lookup(string(e.task())); ok {
		j.live -= old.size
	} else {
		j.n++
	}
	if j.later == nil {
		j.later = map[string]journalEntry{}
	}
	j.later[string(e.task())] = e
	j.live += e.size
}

// tasks is every task with an entry, unsorted.
func (j *journalFile) tasks() []string {
	out := make([]string, 0, j.n)
	for _, e := range j.sorted {
		if _, ok := j.later[string(j.task(e))]; !ok {
			out = append(out, string(j.task(e)))
		}
	}
	for t := range j.later {
		out = append(out, t)
	}
	return out
}

// scopedJournalHead is the first line of a journal whose entries hold for
// one scope only (the allowed signers the signature summaries were
// judged against): a journal of another scope holds nothing, as one of
// another release holds nothing.
func scopedJournalHead(scope string) string {
	return strings.TrimSuffix(journalHead(), "\n") + " " + strconv.Quote(scope) + "\n"
}

// readJournalAs reads the journal at path whose first line is magic. A
// missing or foreign file holds nothing.
func readJournalAs(path, magic string) journalFile {
	data, _ := ReadShared(path)
	return parseJournal(data, magic)
}

// parseJournal reads data, a journal whose first line is magic.
func parseJournal(data []byte, magic string) journalFile {
	j := journalFile{file: data, size: len(data), magic: magic}
	if !bytes.HasPrefix(data, []byte(magic)) {
		return j
	}
	rest := data[len(magic):]
	if _, _, next, ok := cutJournalEntry(rest); ok {
		// Room for every entry were all the size of the first, and a
		// quarter more: entries of one journal are of like size.
		j.sorted = make([]sortedEntry, 0, len(rest)/(len(rest)-len(next))*5/4+16)
	}
	for len(rest) > 0 {
		names, body, next, ok := cutJournalEntry(rest)
		if !ok {
			return j
		}
		j.add(journalEntry{names: names, data: body, size: len(rest) - len(next)}, len(data)-len(rest))
		rest = next
	}
	j.whole = true
	return j
}

// cutJournalEntry takes one entry off b: its "<task> <head>", the bytes
// of b.
func cutJournalEntry(b []byte) (names, data, rest []byte, ok bool) {
	line, next, found := bytes.Cut(b, []byte{'\n'})
	// "<task> <head> <crc> <length>", as appendJournalEntry writes it: the
	// task and head are left in b, so that reading a journal of every
	// task makes no string per entry (it made a slice and four, then one).
	var f [4][]byte
	tail := line
	for i := range f {
		if i < 3 {
			f[i], tail, ok = bytes.Cut(tail, []byte{' '})
		} else {
			f[i], ok = tail, bytes.IndexByte(tail, ' ') < 0
		}
		if !ok || len(f[i]) == 0 {
			return nil, nil, nil, false
		}
	}
	if !found || len(f[1]) != 40 || !isHexBytes(f[1]) {
		return nil, nil, nil, false
	}
	n, err := strconv.Atoi(string(f[3]))
	if err != nil || n < 0 || n >= len(next) || next[n] != '\n' {
		return nil, nil, nil, false
	}
	data = next[:n:n]
	// The checksum as strconv.FormatUint writes it, compared without
	// making its text.
	var crc [8]byte
	if !bytes.Equal(f[2], strconv.AppendUint(crc[:0], uint64(crc32.ChecksumIEEE(data)), 16)) {
		return nil, nil, nil, false
	}
	return line[: len(f[0])+1+len(f[1]) : len(f[0])+1+len(f[1])], data, next[n+1:], true
}

// appendJournalEntry appends task's entry to b.
func appendJournalEntry(b []byte, task, head string, data []byte) []byte {
	b = append(append(append(append(b, task...), ' '), head...), ' ')
	b = strconv.AppendUint(b, uint64(crc32.ChecksumIEEE(data)), 16)
	b = append(strconv.AppendInt(append(b, ' '), int64(len(data)), 10), '\n')
	return append(append(b, data...), '\n')
}

// journalMin is the size below which a journal is not compacted for
// its dead entries alone: rewriting a small file saves nothing.
const journalMin = 64 << 10

// writeJournal brings the journal at path, read as old, to the entries
// head and encode give (a task's head, false for a task that has no
// entry; its data, false for one not to keep), where changed are the
// tasks whose entry old lacks or holds at another head, and tasks every
// task in the order a rewrite lists them; encode is asked only of the
// tasks it writes. A nil tasks is every task of old and of changed, none
// gone, listed (sorted) only for a rewrite: then what an append costs
// does not depend on how many tasks old holds. It appends the changed entries, or rewrites the file
// whole when old is no whole journal or its dead entries (replaced, of
// tasks gone) would outweigh the live ones. It gives way to a process
// holding the file's lock (ErrLocked): a cache that is not written is
// rebuilt by the next read. It returns the journal as it is after.
func writeJournal(path string, old journalFile, tasks []string, head func(string) (string, bool),
	encode func(string) ([]byte, bool), changed []string) (journalFile, error) {
	magic := old.magic
	if magic == "" {
		magic = journalHead()
	}
	var add []byte
	for _, t := range changed {
		h, live := head(t)
		if !live {
			continue
		}
		if data, ok := encode(t); ok {
			add = appendJournalEntry(add, t, h, data)
		}
	}
	kept := 0 // bytes of old's entries that stay live
	if tasks == nil {
		kept = old.live
		for _, t := range changed {
			e, _ := old.lookup(t)
			kept -= e.size
		}
	} else {
		for _, t := range tasks {
			if e, ok := old.lookup(t); ok {
				if h, live := head(t); live && string(e.head()) == h {
					kept += e.size
				}
			}
		}
	}
	dead := old.size - len(magic) - kept
	if old.whole && (dead <= kept+len(add) || old.size+len(add) < journalMin) {
		if len(add) == 0 {
			return old, nil
		}
		if err := appendJournal(path, add); err == nil {
			CountWritten(len(add))
			// The appended entries follow every entry old holds.
			for rest := add; len(rest) > 0; {
				names, data, next, _ := cutJournalEntry(rest)
				old.add(journalEntry{names: names, data: data, size: len(rest) - len(next)}, -1)
				rest = next
			}
			old.size += len(add)
			return old, nil
		} else if errors.Is(err, git.ErrLocked) {
			return old, err
		}
	}
	if tasks == nil {
		tasks = old.tasks()
		for _, t := range changed {
			if _, ok := old.lookup(t); !ok {
				tasks = append(tasks, t)
			}
		}
		slices.Sort(tasks)
	}
	whole := []byte(magic)
	for _, t := range tasks {
		h, live := head(t)
		if !live {
			continue
		}
		data, ok := encode(t)
		if !ok {
			continue
		}
		whole = appendJournalEntry(whole, t, h, data)
	}
	if err := writeFileAtomic(path, whole); err != nil {
		return old, err
	}
	CountWritten(len(whole))
	// Read back from what was written (whole is not changed again).
	return parseJournal(whole, magic), nil
}

// appendJournal appends data to the journal at path under its lock: an
// append never meets a compaction's rename half-way.
func appendJournal(path string, data []byte) error {
	return git.AppendFile(path, data, 0, 0, false, -1)
}

// Journal is a journal kept outside this package (the signature
// summaries of package ops): an entry per task, keyed by the task's head,
// read whole and appended to, in this file's format. Its entries hold for
// one scope: a journal written for another scope (or by another release)
// holds nothing.
type Journal struct {
	path string
	file journalFile
}

// ReadJournal reads the journal at path for scope, counting the read
// (Cost.SharedBytes).
func ReadJournal(path, scope string) *Journal {
	return &Journal{path: path, file: readJournalAs(path, scopedJournalHead(scope))}
}

// Entry returns task's entry: the head it was made at and its data.
func (j *Journal) Entry(task string) (head string, data []byte, ok bool) {
	e, ok := j.file.lookup(task)
	if !ok {
		return "", nil, false
	}
	return string(e.head()), e.data, true
}

// Len is how many tasks have an entry.
func (j *Journal) Len() int { return j.file.n }

// Save brings the journal to the entries head and data give (a task's
// head, false for a task without an entry; its data, false for one not to
// keep), where changed are the tasks whose entry it lacks or holds at
// another head, and tasks every task in the order a rewrite lists them:
// it appends the changed entries, and rewrites the file whole rarely
// (counted: Cost.WrittenBytes). A journal not written is rebuilt by the
// next read.
func (j *Journal) Save(tasks []string, head func(string) (string, bool), data func(string) ([]byte, bool), changed []string) {
	if f, err := writeJournal(j.path, j.file, tasks, head, data, changed); err == nil {
		j.file = f
	}
}
