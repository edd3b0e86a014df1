//go:build linux

package harness

import (
	"os"
	"syscall"
	"testing"
)

// TestMemoryTemp: a TMPDIR the caller set is kept; without one,
// MemoryTemp points TMPDIR (and so os.TempDir) at a directory on a tmpfs
// that this user alone may write, where /dev/shm is a tmpfs.
func TestMemoryTemp(t *testing.T) {
	t.Setenv("TMPDIR", "/elsewhere")
	if got := MemoryTemp(); got != "" || os.Getenv("TMPDIR") != "/elsewhere" {
		t.Fatalf("with TMPDIR set: MemoryTemp() = %q, TMPDIR %q; want \"\" and TMPDIR kept", got, os.Getenv("TMPDIR"))
	}
	t.Setenv("TMPDIR", "")
	dir := MemoryTemp()
	var fs syscall.Statfs_t
	if dir == "" {
		if syscall.Statfs("/dev/shm", &fs) == nil && fs.Type == 0x01021994 && int64(fs.Bavail)*int64(fs.Bsize) >= 1<<30 {
			t.Fatal("MemoryTemp set no TMPDIR, but /dev/shm is a tmpfs with room")
		}
		t.Skip("no tmpfs with room at /dev/shm")
	}
	if os.Getenv("TMPDIR") != dir || os.TempDir() != dir {
		t.Errorf("MemoryTemp() = %q, but TMPDIR is %q and os.TempDir() %q", dir, os.Getenv("TMPDIR"), os.TempDir())
	}
	if err := syscall.Statfs(dir, &fs); err != nil || fs.Type != 0x01021994 {
		t.Errorf("%s is not on a tmpfs (statfs: %v, type %#x)", dir, err, fs.Type)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.IsDir() || fi.Mode().Perm() != 0o700 || !ownedByMe(fi) {
		t.Errorf("%s is not a directory of this user alone: %v", dir, fi.Mode())
	}
}
