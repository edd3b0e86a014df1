package gitstore

import (
	"bytes"
	"crypto/hmac"
	"io"
	"os"
	"slices"
	"strings"

	"git-reason/record"
)

// The record blobs this build's writer validated are kept per task, in
// the task's list of what this clone's writer did (written.go's
// .git/reason/written.d/<task digest>): each append's line ends with the
// blob it added and a MAC, "<commit> <mac> <blob> <mac>", this MAC an
// HMAC-SHA256 under the repository's key
// (repoKey) of the task, the blob and what validating a record means in
// the build (record.SchemasDigest: the record schemas and the library
// that validates them, the same in git-reason and git-reason--net): a
// replay of a commit that adds such a blob takes the record
// as the writer checked it (record.Checked.Written) instead of compiling
// its kind's schemas and validating it again, the largest part of a
// status after one record this clone wrote. A blob id names its content,
// so the line vouches for exactly the bytes the writer validated; a line
// edited, moved to another task's file, copied from another repository
// or written by a build that validates otherwise matches nothing, and a record fetched from
// elsewhere has no line: it is validated when replayed, as before.
//
// A reader reads the list's last checkedTail bytes alone: a status goes
// on from the head it showed before, so the records it replays are the
// last few written; an older one is validated as any other. The list
// grows by a line a record written here and is never read whole for
// this.
//
// The releases before kept these lines in a file of their own,
// .git/reason/checked.d/<task digest>, beside written.d's: an append
// opened, and a new task created, two files where one does. That file is
// no longer read: a record it vouched for that a status has not replayed
// yet is validated when it is, as one fetched from elsewhere is.

// checkedTail is how much of a task's list a reader reads: the last 64 or
// so records written (a line is about 210 bytes).
const checkedTail = 16 << 10

func checkedMAC(key []byte, task, blob string) string {
	return keyedMAC(key, "git-reason checked v1\x00"+record.SchemasDigest()+"\x00"+task+"\x00"+blob, nil)
}

// checkedHere is the blobs of task's list whose MAC is this build's (its
// schemas digest's) under
// this repository's key, of the list's last checkedTail bytes.
func (s *Store) checkedHere(task string) map[string]bool {
	key := s.memoKey()
	if key == nil || record.SchemasDigest() == "" {
		return nil
	}
	buf := listTail(s.writtenPath(task))
	out := map[string]bool{}
	for len(buf) > 0 {
		line, rest, ok := bytes.Cut(buf, []byte{'\n'})
		buf = rest
		// "<commit> <mac> <blob> <mac>": the commit's fields are written.go's.
		_, line, ok1 := bytes.Cut(line, []byte{' '})
		_, line, ok2 := bytes.Cut(line, []byte{' '})
		blob, mac, ok3 := bytes.Cut(line, []byte{' '})
		if !ok || !ok1 || !ok2 || !ok3 || len(blob) != 40 || !isHex(string(blob)) {
			continue
		}
		if hmac.Equal(mac, []byte(checkedMAC(key, task, string(blob)))) {
			out[string(blob)] = true
		}
	}
	return out
}

// listTail is the last checkedTail bytes of the list at path (written.d's
// file of a task), from its first whole line; nil when it does not read.
func listTail(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	at := max(fi.Size()-checkedTail, 0)
	buf := make([]byte, fi.Size()-at)
	n, err := f.ReadAt(buf, at)
	if err != nil && err != io.EOF {
		return nil
	}
	countChecked(n)
	buf = buf[:n]
	if at > 0 { // the first line may be cut: start after it
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:]
		}
	}
	return buf
}

// checkedWritten is a record.Checked holding the records of h's commits
// (h the history of task at head) that need not be validated again: those
// this process read at head already (loadTask's, each read from git by
// record.ReadStored, which checks what a replay checks, or from the task
// cache this release sealed), and those this build's writer validated
// (checkedHere). So a first read of a task, which reads its records and
// then replays its history, validates each record once. nil when there
// are none.
func (s *Store) checkedWritten(task, head string, h *history) *record.Checked {
	c := s.mem.get(task, head)
	var here map[string]bool
	looked := false
	var k *record.Checked
	note := func(name, blob string) {
		b, ok := h.blobs[blob]
		if blob == "" || !ok || b.err != nil {
			return
		}
		if r := c.record(name, blob); r != nil {
			if k == nil {
				k = &record.Checked{}
			}
			if k.Stored(task, name, blob, r) {
				return
			}
		}
		if !looked {
			here, looked = s.checkedHere(task), true
		}
		if here[blob] {
			if k == nil {
				k = &record.Checked{}
			}
			k.Written(task, name, blob, b.data)
		}
	}
	// A commit on a base comes whole (Files): of its records, only those
	// the history read are new.
	for _, c := range h.commits {
		for _, files := range []map[string]string{c.Changes, c.Files} {
			for name, blob := range files {
				note(name, blob)
			}
		}
	}
	return k
}

// record is the record c holds as name with blob, nil when it holds none
// (or c is nil). Its entries are in tree order, sorted by name as git
// sorts a tree of files: a lookup costs what the history brings, not
// what the task holds. (A forged tree out of order only misses, and its
// record is validated as any other.)
func (c *taskCache) record(name, blob string) *record.Record {
	if c == nil {
		return nil
	}
	i, ok := slices.BinarySearchFunc(c.Entries, name, func(e cacheEntry, n string) int { return strings.Compare(e.Name, n) })
	if !ok || c.Entries[i].Blob != blob {
		return nil
	}
	return c.Entries[i].Rec
}
