package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRefsStampCoarseTimes: log -n (and id prefixes and search) take what the task
// refs are from .git/reason/latest.now while the stamp it keeps (the
// modification times of the task refs' directories and packed-refs) is
// unchanged. A file system that keeps times to the second (ext4 with
// 128-byte inodes, ext3, HFS+; FAT to two seconds) gives a ref moved in
// the second the stamp was taken in the same time as before: here git
// update-ref moves T back one record, and the directory's time is set to
// the second it had, as such a file system keeps it. log -n must show the
// records the ref holds, never the one it no longer holds.
func TestRefsStampCoarseTimes(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, "", nil)
	s.assessTrivial("T", "One", "Q?")
	s.assessTrivial("T", "Two", "Q?")
	s.assessTrivial("U", "Other", "Q?")
	dir := filepath.Join(s.dir, ".git", "refs", "reasoning", "tasks")
	// The second the file system keeps: over 100 ms ago, under two
	// seconds ago.
	second := time.Now().Add(-500 * time.Millisecond).Truncate(time.Second)
	if err := os.Chtimes(dir, second, second); err != nil {
		t.Fatal(err)
	}
	if out := s.reason("log", "-n", "5"); !strings.Contains(out, "Two") {
		t.Fatalf("log -n 5 before the move does not show Two:\n%s", out)
	}
	s.git("update-ref", "refs/reasoning/tasks/T", "refs/reasoning/tasks/T^")
	if err := os.Chtimes(dir, second, second); err != nil {
		t.Fatal(err)
	}
	if time.Since(second) >= 2*time.Second {
		t.Skip("the machine took two seconds between the log and the move: the stamp is settled either way")
	}
	out := s.reason("log", "-n", "5")
	if strings.Contains(out, "Two") || !strings.Contains(out, "One") {
		t.Errorf("log -n 5 after T moved back past Two:\n%s", out)
	}
}
