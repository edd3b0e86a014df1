package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// Write replaces the file with the mode asked for, with or without a sync,
// and leaves no temporary file behind.
func TestWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		data string
		perm os.FileMode
		sync bool
	}{{"new", 0o600, false}, {"newer", 0o755, true}} {
		if err := Write(path, []byte(c.data), c.perm, c.sync); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		fi, serr := os.Stat(path)
		if err != nil || serr != nil || string(got) != c.data || fi.Mode().Perm() != c.perm {
			t.Fatalf("after Write(%q, %o): %q %v, mode %v", c.data, c.perm, got, err, fi.Mode())
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left %d files in the directory, want only the target", len(entries))
	}
}

// A failed rename (the target is a directory) keeps the old content and
// removes the temporary file.
func TestWriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "d")
	if err := os.MkdirAll(filepath.Join(target, "child"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(target, []byte("x"), 0o600, false); err == nil {
		t.Fatal("Write over a non-empty directory succeeded")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left %d entries, want only the directory", len(entries))
	}
	if err := Write(filepath.Join(dir, "missing", "f"), []byte("x"), 0o600, false); err == nil {
		t.Error("Write into a missing directory succeeded")
	}
}
