//go:build linux

package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// MemoryTemp points TMPDIR, for this process and every process it
// starts, at a private directory of this user on a memory file system
// (/dev/shm, when it is a tmpfs with at least a GiB free), so that the
// repositories the tests make (t.TempDir, the scripts' work directories,
// the cached git-reason build) are made there and not on the disk, whose
// file system's work creating files and syncing them is much of the
// suite's system time. The tests prove what git reason does to a
// repository, not what a disk keeps after a power cut: a write's fsyncs
// are still made (TestWriteSyncsOnce counts them), and a process killed
// with -9 leaves its files as on a disk. A TMPDIR the caller set is kept
// (TMPDIR=/tmp runs the suite on the disk). TestMain calls it before
// anything makes a temporary file; it returns the directory it set, or
// "" when it set none.
func MemoryTemp() string {
	if os.Getenv("TMPDIR") != "" {
		return ""
	}
	dir := memoryDir()
	if dir != "" {
		os.Setenv("TMPDIR", dir)
	}
	return dir
}

// memoryDir is this user's private directory on /dev/shm, made if need
// be, or "" when /dev/shm is no tmpfs with a GiB free or the directory is
// not this user's alone. MemoryTemp points TMPDIR at it; Binary keeps its
// builds there whatever TMPDIR says, so that the packages which point
// TMPDIR at it and those which do not share one build.
func memoryDir() string {
	const shm, tmpfsMagic, room = "/dev/shm", 0x01021994, 1 << 30
	var fs syscall.Statfs_t
	if syscall.Statfs(shm, &fs) != nil || fs.Type != tmpfsMagic || int64(fs.Bavail)*int64(fs.Bsize) < room {
		return ""
	}
	dir := filepath.Join(shm, fmt.Sprintf("git-reason-tests-%d", os.Getuid()))
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		return ""
	}
	// Another user's directory, or one others may write, would let them
	// replace what the tests run (the cached git-reason among it).
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 || !ownedByMe(fi) {
		return ""
	}
	return dir
}
