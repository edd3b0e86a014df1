package gitstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"runtime/debug"
	"strconv"
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
	id := info.Main.Version
	for _, kv := range info.Settings {
		if kv.Key == "vcs.revision" || kv.Key == "vcs.modified" {
			id += " " + kv.Value
		}
	}
	return id
})

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
	size    int  // bytes of the file
	whole   bool // the file is a journal and every entry parsed: it may be appended to
}

// readJournal reads the journal at path, counting it as a read of a file
// that holds an entry per task. A missing or foreign file holds nothing.
func readJournal(path string) journalFile {
	data, err := readShared(path)
	j := journalFile{entries: map[string]journalEntry{}, size: len(data)}
	magic := journalHead()
	if err != nil || !bytes.HasPrefix(data, []byte(magic)) {
		return j
	}
	rest := data[len(magic):]
	for len(rest) > 0 {
		task, head, body, next, ok := cutJournalEntry(rest)
		if !ok {
			return j
		}
		j.entries[task] = journalEntry{head: head, data: body, size: len(rest) - len(next)}
		rest = next
	}
	j.whole = true
	return j
}

// cutJournalEntry takes one entry off b.
func cutJournalEntry(b []byte) (task, head string, data, rest []byte, ok bool) {
	line, next, found := bytes.Cut(b, []byte{'\n'})
	f := bytes.Fields(line)
	if !found || len(f) != 4 || len(f[1]) != 40 || !isHex(string(f[1])) {
		return "", "", nil, nil, false
	}
	n, err := strconv.Atoi(string(f[3]))
	if err != nil || n < 0 || n >= len(next) || next[n] != '\n' {
		return "", "", nil, nil, false
	}
	data = next[:n:n]
	if string(f[2]) != strconv.FormatUint(uint64(crc32.ChecksumIEEE(data)), 16) {
		return "", "", nil, nil, false
	}
	return string(f[0]), string(f[1]), data, next[n+1:], true
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

// saveJournal brings the journal at path, read as old, to live (each
// task's entry at its current head), where changed are the tasks whose
// entry old lacks or holds at another head, and tasks every task in the
// order a rewrite lists them. It appends the changed entries, or
// rewrites the file whole when old is no whole journal or its dead
// entries (replaced, of tasks gone) would outweigh the live ones. It
// gives way to a process holding the file's lock: a cache that is not
// written is rebuilt by the next read.
func saveJournal[E interface{ head() string }](path string, old journalFile, tasks []string, live map[string]E, changed []string) {
	encode := func(b []byte, task string) []byte {
		data, err := json.Marshal(live[task])
		if err != nil {
			return b // not cached: derived again next time
		}
		return appendJournalEntry(b, task, live[task].head(), data)
	}
	var add []byte
	for _, t := range changed {
		add = encode(add, t)
	}
	kept := 0 // bytes of old's entries that stay live
	for _, t := range tasks {
		if e, ok := old.entries[t]; ok && e.head == live[t].head() {
			kept += e.size
		}
	}
	magic := journalHead()
	dead := old.size - len(magic) - kept
	if old.whole && (dead <= kept+len(add) || old.size+len(add) < journalMin) {
		if len(add) == 0 {
			return
		}
		if appendJournal(path, add) == nil {
			countWritten(len(add))
			return
		}
	}
	whole := []byte(magic)
	for _, t := range tasks {
		if _, ok := live[t]; ok {
			whole = encode(whole, t)
		}
	}
	if writeFileAtomic(path, whole) == nil {
		countWritten(len(whole))
	}
}

// appendJournal appends data to the journal at path under its lock: an
// append never meets a compaction's rename half-way.
func appendJournal(path string, data []byte) error {
	l, err := git.TakeLock(path, 0)
	if err != nil {
		return err
	}
	defer l.Release()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return err // compacted away meanwhile: written whole by the caller
	}
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
