package git

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// What this package creates below a shared repository's git directory
// gets its permissions; elsewhere files stay as created. In a process
// that opens a second repository (ShareLater), the one opened last
// decides: a repository shared before it no longer does.
func TestShareLaterFollowsTheLastRepository(t *testing.T) {
	t.Cleanup(func() { ShareUnder("", SharedUmask) })
	old := syscall.Umask(0o077)
	t.Cleanup(func() { syscall.Umask(old) })
	first, second, outside := t.TempDir(), t.TempDir(), t.TempDir()
	mode := func(dir string) os.FileMode {
		t.Helper()
		path := filepath.Join(dir, "reason", "f")
		if err := WriteFile(path, []byte("x"), 0o600, 0, false); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	ShareUnder(first, SharedGroup)
	if got := mode(first); got != 0o660 {
		t.Errorf("below the shared git directory: %v, want -rw-rw----", got)
	}
	if got := mode(outside); got != 0o600 {
		t.Errorf("outside it: %v, want -rw-------", got)
	}
	asked := 0
	ShareLater(second, func() SharedPerm { asked++; return SharedGroup })
	if got := mode(first); got != 0o600 {
		t.Errorf("below the repository shared before the last opened: %v, want -rw-------", got)
	}
	if got := mode(second); got != 0o660 || asked != 1 {
		t.Errorf("below the last repository opened: %v (its setting asked %d times), want -rw-rw---- asked once", got, asked)
	}
}
