package gitstore

import (
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestStoreSourceReadsIntoItsSize: the in-process reader of a short
// history hands out an object's content read into a buffer of its size
// (a status after one new record reads the new head's records/ tree, 80
// KB at 1,000 records). io.ReadAll grew its buffer by doubling: more than
// twice the object's bytes allocated for each.
func TestStoreSourceReadsIntoItsSize(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "repo")
	gitIn(t, "", "init", "-q", "--bare", dir)
	content := strings.Repeat("100644 0000000001-assessment-01J00000000000000000000000.json\n", 900)
	h := strings.TrimSpace(gitInStdin(t, dir, content, "hash-object", "-w", "--stdin"))
	src := newStoreSource(NewStore(&Repo{GitDir: dir, CommonDir: dir}))
	infos, err := src.Infos([]string{h}) // read and kept: under keepObjectBytes
	if err != nil || infos[0].Size != int64(len(content)) || src.kept[h] == nil {
		t.Fatalf("infos %+v (%v), kept %v: want the object of %d bytes read and kept", infos, err, src.kept[h] != nil, len(content))
	}
	// The least of three reads: a goroutine an earlier test left (the
	// package's tests run in one process) may allocate during one of
	// them, counted in TotalAlloc as this read's.
	least := uint64(math.MaxUint64)
	for range 3 {
		var before, after runtime.MemStats
		var got int
		runtime.ReadMemStats(&before)
		err = src.Contents([]string{h}, func(_ int, _ string, data []byte) error { got = len(data); return nil })
		runtime.ReadMemStats(&after)
		if err != nil || got != len(content) {
			t.Fatalf("contents: %d bytes (%v), want %d", got, err, len(content))
		}
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	if least > uint64(len(content))+4096 {
		t.Errorf("reading an object of %d bytes allocated %d bytes (the least of three reads), want its size (and a little)", len(content), least)
	}
}
