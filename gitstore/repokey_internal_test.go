package gitstore

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRepoKeyKeptWhileItsFileIs: repoKey keeps the key it read for the
// process, and reads again when the file is another (.git/reason/ removed
// and the key made anew) or was rewritten in place.
func TestRepoKeyKeptWhileItsFileIs(t *testing.T) {
	dir := t.TempDir()
	first, err := repoKey(dir, true)
	if err != nil || len(first) != 32 {
		t.Fatalf("made key %x, %v", first, err)
	}
	if again, _ := repoKey(dir, false); !bytes.Equal(again, first) {
		t.Fatalf("second read %x, want %x", again, first)
	}
	path := filepath.Join(dir, "verified.key")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if gone, err := repoKey(dir, false); gone != nil || err != nil {
		t.Fatalf("a removed key read as %x, %v; want none", gone, err)
	}
	second, err := repoKey(dir, true)
	if err != nil || bytes.Equal(second, first) {
		t.Fatalf("a key made anew is %x (%v), the removed one was %x", second, err, first)
	}
	// Rewritten in place: the same file, another time.
	third := bytes.Repeat([]byte{7}, 32)
	if err := os.WriteFile(path, third, 0o600); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	if got, _ := repoKey(dir, false); !bytes.Equal(got, third) {
		t.Fatalf("a key rewritten in place read as %x, want %x", got, third)
	}
}
