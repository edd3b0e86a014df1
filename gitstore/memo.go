package gitstore

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
type memoFile struct {
	Task    string          `json:"task"`
	Head    string          `json:"head"`
	Program string          `json:"program"`
	Data    json.RawMessage `json:"data"`
	MAC     string          `json:"mac"`
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
	sum := sha256.Sum256([]byte(task))
	return filepath.Join(s.Repo.CommonDir, "reason", "memo", kind, hex.EncodeToString(sum[:16])+".json")
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
	h := hmac.New(sha256.New, key)
	h.Write([]byte("git-reason memo v1\x00" + kind + "\x00" + f.Task + "\x00" + f.Head + "\x00" + f.Program + "\x00"))
	h.Write(f.Data)
	return hex.EncodeToString(h.Sum(nil))
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
	var f memoFile
	if json.Unmarshal(data, &f) != nil || f.Task != task || f.Head != head || f.Program != program() {
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
// DeriveVerified derived at that head, never anything else. A memo that
// cannot be written costs a derivation next time, nothing else.
func (s *Store) SaveMemo(kind, task, head string, data []byte) {
	key := s.memoKey()
	if key == nil || head == "" || program() == "" {
		return
	}
	f := memoFile{Task: task, Head: head, Program: program(), Data: data}
	f.MAC = memoMAC(key, kind, &f)
	out, err := json.Marshal(f)
	if err != nil {
		return
	}
	_ = writeFileAtomic(s.memoPath(kind, task), out)
}
