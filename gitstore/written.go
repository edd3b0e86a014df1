package gitstore

import (
	"bytes"
	"crypto/hmac"
	"os"
	"path/filepath"
	"strings"

	"git-reason/record"
)

// The commits this clone's writer made are what "written in this clone"
// means when a standing conclusion is weighed for reuse. A record's
// origin field cannot say it: anyone who has seen this clone's records
// can copy it into a forged one, while these files are written by nothing
// that fetches. They are kept per task, .git/reason/written.d/<sha256 of
// the task>, a line per commit, "<commit> <mac>", the MAC an HMAC-SHA256
// of the task and the commit under the repository's key (repoKey): a
// reuse check reads the one task's file, whose size is that task's
// records, never a list of every write the clone made, and a line edited,
// moved to another task's file or copied from another repository matches
// nothing. Losing them loses only reuse of unsigned local conclusions (a
// fresh review is asked).
//
// Each append's line also carries the record blob it added, under its
// own MAC (checked.go: "<commit> <mac> <blob> <mac>"), so that an append
// opens and writes one file of its own per task.
//
// Clones of older releases kept one list of every commit written,
// .git/reason/written, a commit a line with no MAC: anything that could
// write a line there could make a commit count as written here. It is
// not read: a clone that wrote before asks for a fresh review where it
// reused an unsigned conclusion of its own.

func (s *Store) reasonDir() string { return filepath.Join(s.Repo.CommonDir, "reason") }

func (s *Store) writtenPath(task string) string {
	return filepath.Join(s.reasonDir(), "written.d", fileName(task))
}

// writtenMAC is the MAC of a line of task's list naming commit. Its
// version says which writer made the commit: 2, a writer that appends only
// on a head that replays clean (record.Writer's check of its base, which
// asks writtenLately); 1, the releases before that check, which appended
// on whatever head a task had, a forged one fetched by plain git
// included. Both are this clone's writes (WrittenHere); only a version 2
// line says its commit replays clean.
func writtenMAC(key []byte, version byte, task, commit string) string {
	return keyedMAC(key, "git-reason written v"+string('0'+version)+"\x00"+task+"\x00"+commit, nil)
}

// noteAppended appends to task's list, under key (repoKey), the line of
// one append: commit, the commit the writer made, and blob, the record it
// added, which it validated (checked.go): one line, one write. Failing to
// note it costs only the commit's reuse unsigned and the record's schemas
// compiled when it is replayed.
func (s *Store) noteAppended(key []byte, task, commit, blob string) {
	line := commit + " " + writtenMAC(key, 2, task, commit)
	if record.SchemasDigest() != "" {
		line += " " + blob + " " + checkedMAC(key, task, blob)
	}
	appendOwnList(s.writtenPath(task), []byte(line+"\n"))
}

// writtenLately reports whether this clone's writer made head, one of
// task's commits, among the last lines of its list (listTail): the head
// an append of its own left is its last line, so that an append's check
// of its base (CheckBase) reads a file's end, whatever the task's size.
// A line of an older release (version 1, writtenMAC) is not one: its
// writer did not check the head it appended on.
func (s *Store) writtenLately(task, head string) bool {
	key, _ := repoKey(s.reasonDir(), false)
	if key == nil {
		return false
	}
	buf := listTail(s.writtenPath(task))
	for len(buf) > 0 {
		var line []byte
		line, buf, _ = bytes.Cut(buf, []byte{'\n'})
		c, rest, ok := bytes.Cut(line, []byte{' '})
		if !ok || string(c) != head {
			continue
		}
		mac, _, _ := bytes.Cut(rest, []byte{' '}) // then the blob's fields, checked.go's
		if hmac.Equal(mac, []byte(writtenMAC(key, 2, task, head))) {
			return true
		}
	}
	return false
}

// WrittenHere returns which of commits, the commits of task, this clone's
// writer made: those its list holds under this repository's key.
func (s *Store) WrittenHere(task string, commits []string) map[string]bool {
	out := map[string]bool{}
	key, _ := repoKey(s.reasonDir(), false)
	if key == nil {
		return out
	}
	data, _ := os.ReadFile(s.writtenPath(task))
	asked := make(map[string]bool, len(commits))
	for _, c := range commits {
		asked[c] = true
	}
	for _, line := range strings.Split(string(data), "\n") {
		c, rest, ok := strings.Cut(line, " ")
		if !ok || !asked[c] || out[c] {
			continue // only the lines of the commits asked are checked
		}
		mac, _, _ := strings.Cut(rest, " ") // then the blob's fields, checked.go's
		if hmac.Equal([]byte(mac), []byte(writtenMAC(key, 2, task, c))) ||
			hmac.Equal([]byte(mac), []byte(writtenMAC(key, 1, task, c))) {
			out[c] = true
		}
	}
	return out
}
