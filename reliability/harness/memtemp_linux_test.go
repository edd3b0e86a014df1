//go:build linux

package harness

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
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

// TestSweepOnMemory: sweep removes builds unused for two hours from a
// cache on the memory file system, and keeps them for a day elsewhere.
func TestSweepOnMemory(t *testing.T) {
	mem := memoryDir()
	if mem == "" {
		t.Skip("no tmpfs with room at /dev/shm")
	}
	onMemory, err := os.MkdirTemp(mem, "sweep-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(onMemory) })
	onDisk := t.TempDir()
	if filepath.Dir(onDisk) == mem {
		t.Fatalf("t.TempDir() %s is in the memory directory; this package's tests keep TMPDIR", onDisk)
	}
	for _, root := range []string{onMemory, onDisk} {
		for name, age := range map[string]time.Duration{"hour": time.Hour, "three-hours": 3 * time.Hour, "two-days": 48 * time.Hour} {
			dir := filepath.Join(root, name)
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			then := time.Now().Add(-age)
			if err := os.Chtimes(dir, then, then); err != nil {
				t.Fatal(err)
			}
		}
		sweep(root)
	}
	for root, want := range map[string][]string{onMemory: {"hour"}, onDisk: {"hour", "three-hours"}} {
		entries, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.Name())
		}
		if !slices.Equal(got, want) {
			t.Errorf("after sweep(%s): %q, want %q", root, got, want)
		}
	}
}
