package gitstore_test

import (
	"bytes"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"git-reason/gitstore"
	"git-reason/reliability/harness"
)

// TestSignatureLogForgedIsIgnored: the end of a signature log is what a
// status shows of a task's signatures without judging them again, so an
// entry edited, moved to another task, written under another key or
// appended by hand with a MAC of its maker's own is not read: the tail
// is not found (the caller judges the signatures afresh) and the whole
// log stops before it.
func TestSignatureLogForgedIsIgnored(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	harness.Git(t, "", "init", "-q", dir)
	repo, err := gitstore.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(repo.CommonDir, "reason", "verified.key")
	writeKey := func() {
		t.Helper()
		k := make([]byte, 32)
		rand.Read(k)
		if err := os.MkdirAll(filepath.Dir(key), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(key, k, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeKey()
	s := gitstore.NewStore(repo)
	h1, h2 := strings.Repeat("a", 40), strings.Repeat("b", 40)
	s.WriteSignatures("T-1", gitstore.SigEntry{Head: h1, Allowed: "al", Checks: []byte(`["c1"]`), Summary: []byte(`{"n":1}`)})
	tail, ok := s.SignatureTail("T-1")
	if !ok || tail.Head != h1 || string(tail.Summary) != `{"n":1}` || tail.Segments != 1 {
		t.Fatalf("tail of a log written whole: %+v %v", tail, ok)
	}
	if !s.AppendSignatures("T-1", tail, gitstore.SigEntry{Head: h2, Allowed: "al", Checks: []byte(`["c2"]`), Summary: []byte(`{"n":2}`)}) {
		t.Fatal("an entry after the tail was not appended")
	}
	if s.AppendSignatures("T-1", tail, gitstore.SigEntry{Head: h2, Allowed: "al", Checks: []byte(`["c3"]`), Summary: []byte(`{"n":3}`)}) {
		t.Fatal("an entry was appended after a tail that is no longer the log's end")
	}
	if tail, ok := s.SignatureTail("T-1"); !ok || tail.Head != h2 || string(tail.Summary) != `{"n":2}` || tail.Segments != 2 {
		t.Fatalf("tail after an append: %+v %v", tail, ok)
	}
	if log := s.SignatureLog("T-1"); len(log) != 2 || string(log[0].Checks) != `["c1"]` || string(log[1].Checks) != `["c2"]` {
		t.Fatalf("whole log: %+v", log)
	}
	logs, _ := filepath.Glob(filepath.Join(repo.CommonDir, "reason", "signatures", "*.log"))
	if len(logs) != 1 {
		t.Fatalf("signature logs: %v", logs)
	}
	good := harness.ReadFile(t, logs[0])
	s.WriteSignatures("T-2", gitstore.SigEntry{Head: h2, Allowed: "al", Checks: []byte(`["c9"]`), Summary: []byte(`{"n":9}`)})
	var other []byte
	for _, p := range must(filepath.Glob(filepath.Join(repo.CommonDir, "reason", "signatures", "*.log"))) {
		if p != logs[0] {
			other = must(os.ReadFile(p))
		}
	}
	lines := bytes.SplitAfter(good, []byte("\n"))
	lastS := string(lines[len(lines)-2])
	for _, c := range []struct {
		name string
		data []byte
		tail bool // the tail still reads (its own line is intact)
		log  int  // entries the whole log reads
	}{
		{"summary edited", bytes.Replace(good, []byte(`{"n":2}`), []byte(`{"n":7}`), 1), false, 1},
		{"last checks edited", bytes.Replace(good, []byte(`["c2"]`), []byte(`["cX"]`), 1), true, 1},
		{"checks and their digest replaced", []byte(strings.Replace(strings.Replace(string(good), `["c2"]`, `["cX"]`, 1),
			strings.Fields(lastS)[5], strings.Repeat("0", 64), 1)), false, 1},
		{"another task's log", other, false, 0},
		{"an entry appended by hand", append(append([]byte{}, good...), []byte("[\"c4\"]\nS "+h1+" al 3 6 "+strings.Repeat("1", 64)+" "+strings.Repeat("2", 64)+" {\"n\":4}\n")...), false, 2},
		{"cut short", good[:len(good)-3], false, 1},
	} {
		if err := os.WriteFile(logs[0], c.data, 0o600); err != nil {
			t.Fatal(err)
		}
		if tail, ok := gitstore.NewStore(repo).SignatureTail("T-1"); ok != c.tail || ok && string(tail.Summary) != `{"n":2}` {
			t.Errorf("%s: tail %+v read %v, want read %v", c.name, tail, ok, c.tail)
		}
		if log := gitstore.NewStore(repo).SignatureLog("T-1"); len(log) != c.log {
			t.Errorf("%s: the whole log read %d entries, want %d", c.name, len(log), c.log)
		}
	}
	if err := os.WriteFile(logs[0], good, 0o600); err != nil {
		t.Fatal(err)
	}
	writeKey() // another key: nothing this repository wrote before reads
	if _, ok := gitstore.NewStore(repo).SignatureTail("T-1"); ok {
		t.Error("the tail read under another key")
	}
	if log := gitstore.NewStore(repo).SignatureLog("T-1"); len(log) != 0 {
		t.Errorf("the whole log read %d entries under another key", len(log))
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
