package gitstore

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"git-reason/reliability/harness"
)

// A memo is read back only as it was written, for its head and task, under
// the repository's key: its data edited (the same length), its head or
// task another's, its file cut short, signed under another key, or in the
// JSON framing of the memos before it, it is nil (the surface derives the
// task anew). The data comes back byte for byte, unparsed.
func TestMemoReadsBackOnlyAsWritten(t *testing.T) {
	dir := t.TempDir()
	s := &Store{Repo: &Repo{GitDir: dir, CommonDir: dir}}
	key := bytes.Repeat([]byte{7}, 32)
	writeKey := func(k []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, "reason"), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "reason", "verified.key"), k, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeKey(key)
	const head, other = "0123456789abcdef0123456789abcdef01234567", "1123456789abcdef0123456789abcdef01234567"
	data := []byte("{\"status\":{\"review_count\":0},\n \"x\": \"a\\u0000b\"}")
	s.SaveMemo("status", "T-1", head, data)
	if got := s.Memo("status", "T-1", head); !bytes.Equal(got, data) {
		t.Fatalf("the memo as written reads %q, want %q", got, data)
	}
	path := s.memoPath("status", "T-1")
	written := harness.ReadFile(t, path)
	if s.Memo("status", "T-1", other) != nil || s.Memo("status", "T-2", head) != nil || s.Memo("report", "T-1", head) != nil {
		t.Error("a memo was read for another head, task or kind")
	}
	for name, file := range map[string][]byte{
		"data edited":    bytes.Replace(written, []byte(`"review_count":0`), []byte(`"review_count":5`), 1),
		"cut short":      written[:len(written)-1],
		"header cut":     written[:len(memoMagic)+10],
		"json framing":   []byte(`{"task":"T-1","head":"` + head + `","program":"p","data":{},"mac":"00"}`),
		"empty":          nil,
		"field too long": append([]byte(memoMagic), "99:"+head+"\n"...),
	} {
		if bytes.Equal(file, written) {
			t.Fatalf("%s: the file is unchanged", name)
		}
		if err := os.WriteFile(path, file, 0o600); err != nil {
			t.Fatal(err)
		}
		if got := s.Memo("status", "T-1", head); got != nil {
			t.Errorf("a memo %s was read: %q", name, got)
		}
	}
	if err := os.WriteFile(path, written, 0o600); err != nil {
		t.Fatal(err)
	}
	writeKey(bytes.Repeat([]byte{8}, 32))
	if got := s.Memo("status", "T-1", head); got != nil {
		t.Errorf("a memo written under another key was read: %q", got)
	}
	writeKey(key)
	if got := s.Memo("status", "T-1", head); !bytes.Equal(got, data) {
		t.Errorf("the memo written again reads %q", got)
	}
}

// A memo of the format before (.json, JSON framing), which no build reads,
// is removed when a memo of the same kind and task is written in its place,
// so an upgrade leaves no dead file per task under .git/reason/memo/.
func TestMemoRemovesTheFormatBefore(t *testing.T) {
	dir := t.TempDir()
	s := &Store{Repo: &Repo{GitDir: dir, CommonDir: dir}}
	if err := os.MkdirAll(filepath.Join(dir, "reason", "memo", "status"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "reason", "verified.key"), bytes.Repeat([]byte{7}, 32), 0o600); err != nil {
		t.Fatal(err)
	}
	old := strings.TrimSuffix(s.memoPath("status", "T-1"), ".memo") + ".json"
	other := strings.TrimSuffix(s.memoPath("status", "T-2"), ".memo") + ".json"
	for _, p := range []string{old, other} {
		if err := os.WriteFile(p, []byte(`{"head":"x","data":{}}`), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	s.SaveMemo("status", "T-1", "0123456789abcdef0123456789abcdef01234567", []byte(`{}`))
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the .json memo of T-1 is still there after its .memo was written (%v)", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("the .json memo of T-2, whose memo was not written, is gone: %v", err)
	}
}
