package gitstore

import (
	"bytes"
	"crypto/hmac"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// A memo is what a read surface showed of one task at one head (status:
// its summary and signatures), kept in .git/reason/memo/<kind>/ so that
// the next read of that exact head, by the same program, shows it without
// loading, replaying or deriving the task. The ref stays the truth and
// the trust rule holds: a memo is written only from what was derived by
// replay at its head (Store.DeriveVerified), and used only while the ref
// still points at that head; any other head is read and replayed.
//
// Like Remembered, a memo only saves work: it carries an HMAC-SHA256, under
// the repository key (verified.key), of its kind, task, head, the program that
// wrote it and its content, so a memo edited, copied from another
// repository, another task or another build of git reason is ignored.
//
// The file is memoMagic, then its head, task, program and MAC, each
// "<length>:<bytes>", a newline and the data as the surface gave it: a
// read compares the head before it reads further, and neither a read nor
// a write parses or re-encodes the data (a status memo of a task of a
// hundred standing conclusions is tens of kilobytes of JSON, which the
// memo's own JSON framing scanned twice a read and compacted a write).
type memoFile struct {
	Task    string
	Head    string
	Program string
	Data    []byte
	MAC     string
}

// memoMagic starts every memo file; its number changes with the file's
// shape.
const memoMagic = "git-reason memo 2\n"

// parseMemo reads a memo file; false when it is not exactly one.
func parseMemo(data []byte) (memoFile, bool) {
	rest, ok := bytes.CutPrefix(data, []byte(memoMagic))
	var f [4][]byte
	for i := range f {
		if !ok {
			return memoFile{}, false
		}
		f[i], rest, ok = field(rest)
	}
	if !ok || len(rest) == 0 || rest[0] != '\n' {
		return memoFile{}, false
	}
	return memoFile{Head: string(f[0]), Task: string(f[1]), Program: string(f[2]), MAC: string(f[3]), Data: rest[1:]}, true
}

// encodeMemo is f as its file holds it.
func encodeMemo(f *memoFile) []byte {
	out := make([]byte, 0, len(memoMagic)+len(f.Head)+len(f.Task)+len(f.Program)+len(f.MAC)+4*8+1+len(f.Data))
	out = append(out, memoMagic...)
	for _, v := range [...]string{f.Head, f.Task, f.Program, f.MAC} {
		out = append(strconv.AppendInt(out, int64(len(v)), 10), ':')
		out = append(out, v...)
	}
	return append(append(out, '\n'), f.Data...)
}

// program is the build that runs: the executable's path, size and time.
// A memo holds what this build derived; another build derives anew.
var program = sync.OnceValue(func() string {
	path, err := os.Executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s %d %d", path, fi.Size(), fi.ModTime().UnixNano())
})

func (s *Store) memoPath(kind, task string) string {
	return filepath.Join(s.Repo.CommonDir, "reason", "memo", kind, fileName(task)+".memo")
}

// memoKey is the key of the remembered verifications (verified.key), nil
// while there is none: no memo is written or read without it.
func (s *Store) memoKey() []byte {
	key, err := os.ReadFile(filepath.Join(s.Repo.CommonDir, "reason", "verified.key"))
	if err != nil || len(key) != 32 {
		return nil
	}
	return key
}

func memoMAC(key []byte, kind string, f *memoFile) string {
	return keyedMAC(key, "git-reason memo v1\x00"+kind+"\x00"+f.Task+"\x00"+f.Head+"\x00"+f.Program+"\x00", f.Data)
}

// Memo returns the memo of kind that this program wrote for task at head,
// nil when there is none that matches exactly (see memoFile).
func (s *Store) Memo(kind, task, head string) []byte {
	if head == "" || program() == "" {
		return nil
	}
	data, err := os.ReadFile(s.memoPath(kind, task))
	if err != nil {
		return nil
	}
	f, ok := parseMemo(data)
	if !ok || f.Head != head || f.Task != task || f.Program != program() {
		return nil
	}
	key := s.memoKey()
	if key == nil || !hmac.Equal([]byte(f.MAC), []byte(memoMAC(key, kind, &f))) {
		return nil
	}
	countMemo()
	return f.Data
}

// SaveMemo keeps data (JSON) as the memo of kind for task at head: what
// DeriveVerified derived at that head (or MergeRefusals' replay found
// there), never anything else. A memo that
// cannot be written costs a derivation next time, nothing else.
func (s *Store) SaveMemo(kind, task, head string, data []byte) {
	key := s.memoKey()
	if key == nil || head == "" || program() == "" {
		return
	}
	f := memoFile{Task: task, Head: head, Program: program(), Data: data}
	f.MAC = memoMAC(key, kind, &f)
	path := s.memoPath(kind, task)
	if writeFileAtomic(path, encodeMemo(&f)) == nil {
		// The memo of the format before (its JSON framing, at .json
		// beside it) holds nothing any build reads: it goes with the
		// first memo written in its place.
		_ = os.Remove(strings.TrimSuffix(path, ".memo") + ".json")
	}
}
