package gitstore

import (
	"bytes"
	"crypto/hmac"
	"io"
	"os"
	"path/filepath"

	"git-reason/record"
)

// The record blobs this build's writer validated are kept per task,
// .git/reason/checked.d/<task digest>, a line per blob written,
// "<blob> <mac>", the MAC an HMAC-SHA256 under the repository's key
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
// A reader reads the file's last checkedTail bytes alone: a status goes
// on from the head it showed before, so the records it replays are the
// last few written; an older one is validated as any other. The file
// grows by a line a record written here, as written.d does, and is
// never read whole.

// checkedTail is how much of a task's checked.d file a reader reads: the
// last 64 or so records written.
const checkedTail = 8 << 10

func (s *Store) checkedPath(task string) string {
	return filepath.Join(s.reasonDir(), "checked.d", fileName(task))
}

func checkedMAC(key []byte, task, blob string) string {
	return keyedMAC(key, "git-reason checked v1\x00"+record.SchemasDigest()+"\x00"+task+"\x00"+blob, nil)
}

// noteChecked appends blob, the record the writer validated and stored in
// task, to the task's list under key (repoKey); failing to note it costs
// only its schemas compiled when it is replayed.
func (s *Store) noteChecked(key []byte, task, blob string) {
	if record.SchemasDigest() == "" {
		return
	}
	appendOwnList(s.checkedPath(task), []byte(blob+" "+checkedMAC(key, task, blob)+"\n"))
}

// checkedHere is the blobs of task's list whose MAC is this build's (its
// schemas digest's) under
// this repository's key, of the list's last checkedTail bytes.
func (s *Store) checkedHere(task string) map[string]bool {
	key := s.memoKey()
	if key == nil || record.SchemasDigest() == "" {
		return nil
	}
	f, err := os.Open(s.checkedPath(task))
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
	out := map[string]bool{}
	for len(buf) > 0 {
		line, rest, ok := bytes.Cut(buf, []byte{'\n'})
		buf = rest
		blob, mac, ok1 := bytes.Cut(line, []byte{' '})
		if !ok || !ok1 || len(blob) != 40 || !isHex(string(blob)) {
			continue
		}
		if hmac.Equal(mac, []byte(checkedMAC(key, task, string(blob)))) {
			out[string(blob)] = true
		}
	}
	return out
}

// checkedWritten is a record.Checked holding the records of h's commits
// that this build's writer validated (checkedHere), read from what h read:
// what a replay of h need not validate again. nil when there are none.
func (s *Store) checkedWritten(task string, h *history) *record.Checked {
	var here map[string]bool
	var k *record.Checked
	note := func(name, blob string) bool {
		b, ok := h.blobs[blob]
		if blob == "" || !ok || b.err != nil {
			return true
		}
		if here == nil {
			if here = s.checkedHere(task); here == nil {
				return false
			}
		}
		if here[blob] {
			if k == nil {
				k = &record.Checked{}
			}
			k.Written(task, name, blob, b.data)
		}
		return true
	}
	// A commit on a base comes whole (Files): of its records, only those
	// the history read are new.
	for _, c := range h.commits {
		for _, files := range []map[string]string{c.Changes, c.Files} {
			for name, blob := range files {
				if !note(name, blob) {
					return nil
				}
			}
		}
	}
	return k
}
