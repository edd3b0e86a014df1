package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
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

// journalEntry is one task's entry as read: its head, its data and how
// many bytes of the file it takes.
type journalEntry struct {
	head string
	data []byte
	size int
}

// journalFile is what a journal holds, its last entry per task.
type journalFile struct {
	entries map[string]journalEntry
	size    int    // bytes of the file
	live    int    // bytes of its last entry per task
	whole   bool   // the file is a journal and every entry parsed: it may be appended to
	magic   string // its first line, as this build writes it
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
	j := journalFile{entries: map[string]journalEntry{}, size: len(data), magic: magic}
	if !bytes.HasPrefix(data, []byte(magic)) {
		return j
	}
	rest := data[len(magic):]
	// Two lines an entry, when its data holds none: the map is made once
	// at its size.
	j.entries = make(map[string]journalEntry, bytes.Count(rest, []byte{'\n'})/2)
	for len(rest) > 0 {
		task, head, body, next, ok := cutJournalEntry(rest)
		if !ok {
			return j
		}
		j.live -= j.entries[task].size
		j.entries[task] = journalEntry{head: head, data: body, size: len(rest) - len(next)}
		j.live += len(rest) - len(next)
		rest = next
	}
	j.whole = true
	return j
}

// cutJournalEntry takes one entry off b.
func cutJournalEntry(b []byte) (task, head string, data, rest []byte, ok bool) {
	line, next, found := bytes.Cut(b, []byte{'\n'})
	// "<task> <head> <crc> <length>", as appendJournalEntry writes it: the
	// task and head are cut from one string, so that reading a journal of
	// every task makes one string per entry (it made a slice and four).
	var f [4][]byte
	tail := line
	for i := range f {
		if i < 3 {
			f[i], tail, ok = bytes.Cut(tail, []byte{' '})
		} else {
			f[i], ok = tail, bytes.IndexByte(tail, ' ') < 0
		}
		if !ok || len(f[i]) == 0 {
			return "", "", nil, nil, false
		}
	}
	if !found || len(f[1]) != 40 || !isHexBytes(f[1]) {
		return "", "", nil, nil, false
	}
	n, err := strconv.Atoi(string(f[3]))
	if err != nil || n < 0 || n >= len(next) || next[n] != '\n' {
		return "", "", nil, nil, false
	}
	data = next[:n:n]
	// The checksum as strconv.FormatUint writes it, compared without
	// making its text.
	var crc [8]byte
	if !bytes.Equal(f[2], strconv.AppendUint(crc[:0], uint64(crc32.ChecksumIEEE(data)), 16)) {
		return "", "", nil, nil, false
	}
	names := string(line[:len(f[0])+1+len(f[1])])
	return names[:len(f[0])], names[len(f[0])+1:], data, next[n+1:], true
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
	var added []string
	for _, t := range changed {
		h, live := head(t)
		if !live {
			continue
		}
		if data, ok := encode(t); ok {
			add = appendJournalEntry(add, t, h, data)
			added = append(added, t)
		}
	}
	kept := 0 // bytes of old's entries that stay live
	if tasks == nil {
		kept = old.live
		for _, t := range changed {
			kept -= old.entries[t].size
		}
	} else {
		for _, t := range tasks {
			if e, ok := old.entries[t]; ok {
				if h, live := head(t); live && e.head == h {
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
			rest := add
			for _, t := range added {
				_, h, data, next, _ := cutJournalEntry(rest)
				old.live -= old.entries[t].size
				old.entries[t] = journalEntry{head: h, data: data, size: len(rest) - len(next)}
				old.live += len(rest) - len(next)
				rest = next
			}
			old.size += len(add)
			return old, nil
		} else if errors.Is(err, git.ErrLocked) {
			return old, err
		}
	}
	if tasks == nil {
		tasks = make([]string, 0, len(old.entries)+len(changed))
		for t := range old.entries {
			tasks = append(tasks, t)
		}
		for _, t := range changed {
			if _, ok := old.entries[t]; !ok {
				tasks = append(tasks, t)
			}
		}
		slices.Sort(tasks)
	}
	whole := []byte(magic)
	out := journalFile{entries: make(map[string]journalEntry, len(tasks)), magic: magic, whole: true}
	for _, t := range tasks {
		h, live := head(t)
		if !live {
			continue
		}
		data, ok := encode(t)
		if !ok {
			continue
		}
		n := len(whole)
		whole = appendJournalEntry(whole, t, h, data)
		out.entries[t] = journalEntry{head: h, data: whole[len(whole)-len(data)-1 : len(whole)-1 : len(whole)-1], size: len(whole) - n}
	}
	if err := writeFileAtomic(path, whole); err != nil {
		return old, err
	}
	CountWritten(len(whole))
	out.size = len(whole)
	out.live = len(whole) - len(magic)
	return out, nil
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
	e, ok := j.file.entries[task]
	return e.head, e.data, ok
}

// Len is how many tasks have an entry.
func (j *Journal) Len() int { return len(j.file.entries) }

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
