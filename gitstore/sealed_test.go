package gitstore

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"git-reason/reliability/harness"
)

// TestSealedOnlyItsOwnEntries holds what a sealed journal (the signature
// checks verify trusts) gives back to its MAC: an entry read back whole is
// used; one whose data was edited (framed again, as the writer frames),
// moved to another task or head, read under another scope or name, or
// with the repository key replaced, is not. Without the MAC check the
// edited entries are used and this test fails.
func TestSealedOnlyItsOwnEntries(t *testing.T) {
	t.Parallel()
	r := discoverT(t, initRepo(t))
	const x, y = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	s := OpenSealed(r, "test.journal", "scope a")
	s.Put("T", x, []byte("unsigned line"))
	s.Put("U", y, []byte("good line"))
	s.Save(nil)
	path := filepath.Join(r.CommonDir, "reason", "test.journal")
	if got, ok := OpenSealed(r, "test.journal", "scope a").Get("T", x); !ok || string(got) != "unsigned line" {
		t.Fatalf("an entry read back: %q, %v", got, ok)
	}
	for name, c := range map[string]struct {
		task, head, scope string
	}{
		"another head":  {"T", y, "scope a"},
		"another task":  {"U", x, "scope a"},
		"another scope": {"T", x, "scope b"},
	} {
		if got, ok := OpenSealed(r, "test.journal", c.scope).Get(c.task, c.head); ok {
			t.Errorf("%s: entry %q used", name, got)
		}
	}
	// Edited: T's data changed and framed again; U's entry copied to T
	// with its own MAC.
	old := harness.ReadFile(t, path)
	j := readJournalAs(path, scopedJournalHead("sealed scope a"))
	te, ue := j.entries["T"], j.entries["U"]
	for name, forged := range map[string][]byte{
		"data edited": appendJournalEntry(nil, "T", x, bytes.Replace(te.data, []byte("unsigned"), []byte("good"), 1)),
		"moved":       appendJournalEntry(nil, "T", x, ue.data),
	} {
		if err := os.WriteFile(path, append(append([]byte(nil), old...), forged...), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, ok := OpenSealed(r, "test.journal", "scope a").Get("T", x); ok {
			t.Errorf("%s: entry %q used", name, got)
		}
	}
	if err := os.WriteFile(path, old, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.CommonDir, "reason", "verified.key"), bytes.Repeat([]byte{7}, 32), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, ok := OpenSealed(r, "test.journal", "scope a").Get("T", x); ok {
		t.Errorf("another key: entry %q used", got)
	}
}
