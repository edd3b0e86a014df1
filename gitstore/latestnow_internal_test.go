package gitstore

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"git-reason/reliability/harness"
)

// TestLatestNowReadsBackOnlyAsWritten: latest.now as keep wrote it reads
// back (its header, base, moved tasks and stamp) under the key it was
// sealed with, and not under another key nor with a byte of its header
// edited: then the refs are listed again.
func TestLatestNowReadsBackOnlyAsWritten(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key, other := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	n := &refsNow{header: "digest-of-the-refs\n", stamp: []byte("stamp 1 2 3\n"), settled: true}
	moved := map[string]TaskLatest{"T": {Task: "T", Head: "1111111111111111111111111111111111111111", Latest: "01J0"}}
	n.keep(dir, key, "base-digest", moved)
	data := harness.ReadFile(t, filepath.Join(dir, latestNowFile))
	k, ok := parseLatestNow(data, key)
	if got, want := fmt.Sprint(k.header, k.base, k.moved, string(k.stamp)), fmt.Sprint(n.header, "base-digest", moved, string(n.stamp)); !ok || got != want {
		t.Errorf("latest.now reads back %v %q; want %q", ok, got, want)
	}
	if _, ok := parseLatestNow(data, other); ok {
		t.Error("latest.now reads under another repository's key")
	}
	edited := bytes.Replace(data, []byte("digest-of"), []byte("digest-on"), 1)
	if _, ok := parseLatestNow(edited, key); ok || bytes.Equal(edited, data) {
		t.Error("latest.now with its header edited reads")
	}
}
