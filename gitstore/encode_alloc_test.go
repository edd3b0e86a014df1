package gitstore

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestTreeEncodedIntoItsSize: a records/ tree, which each append writes
// anew, is encoded by go-git into a buffer made at its size and taken as
// written: the same bytes as go-git's own plumbing.MemoryObject holds,
// without the MemoryObject's growth by doubling and the copy out of it
// (more than three times the tree's bytes allocated for each append).
// What is measured is the mean of several encodings after a first one:
// the first call in a process also pays one-time initialisations (it
// measured 163,480 bytes where every later call measured 154,008), which
// made the bound fail on a fresh test binary.
func TestTreeEncodedIntoItsSize(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector allocates beside the encoding: the bound holds without it")
	}
	entries := make([]TreeEntry, 1000)
	for i := range entries {
		entries[i] = TreeEntry{Name: fmt.Sprintf("%010d-assessment-01J%023d.json", i, i), Mode: filemode.Regular,
			Hash: plumbing.ComputeHash(plumbing.BlobObject, []byte{byte(i), byte(i >> 8)})}
	}
	mem := &plumbing.MemoryObject{}
	if err := (&object.Tree{Entries: entries}).Encode(mem); err != nil {
		t.Fatal(err)
	}
	want, err := content(mem)
	if err != nil {
		t.Fatal(err)
	}
	got, err := encodeTree(entries)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("encodeTree: %d bytes (%v), not go-git's %d", len(got), err, len(want))
	}
	const rounds = 8
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range rounds {
		if _, err := encodeTree(entries); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	allocated := (after.TotalAlloc - before.TotalAlloc) / rounds
	t.Logf("a tree of %d bytes: %d bytes allocated", len(want), allocated)
	if allocated > 2*uint64(len(want)) {
		t.Errorf("encoding a tree of %d bytes allocated %d bytes, want less than twice its size", len(want), allocated)
	}
}
