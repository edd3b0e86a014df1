package gitstore

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// The tests that hold a read or a write of the store to the allocations
// it makes, in bytes (allocated) or in count (testing.AllocsPerRun).

// allocated is how many bytes f allocated while it ran, as the process's
// TotalAlloc counts them: the least of three runs of f, since a goroutine
// an earlier test left (the package's tests run in one process) may
// allocate during one of them, counted in TotalAlloc as f's (listing
// 1,000 packed refs came out 3.6 KB over its bound once in a run of
// `go test -short ./...`, and passes run alone).
func allocated(f func()) uint64 {
	least := uint64(math.MaxUint64)
	for range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	return least
}

// TestListingAllocatesLittlePerTask holds the two reads every listing of
// every task makes (status, handover, tasks, verify) to allocations that
// do not grow by several per task: listing 1,000 packed task refs cuts
// every name and hash from one string (two strings per ref before, and a
// slice grown by appending), and reading a journal of 1,000 entries makes
// one string per entry for its task and head (a slice of fields, two
// strings and the checksum's text before). Counts, not time: without the
// change listing allocates about 2,000 times and the journal about 4,000.
func TestListingAllocatesLittlePerTask(t *testing.T) {
	const n = 1000
	var packed strings.Builder
	packed.WriteString("# pack-refs with: peeled fully-peeled sorted \n")
	for i := range n {
		fmt.Fprintf(&packed, "%040x refs/reasoning/tasks/T-%06d\n", i+1, i)
	}
	fmt.Fprintf(&packed, "%040x refs/tags/v1\n", n+1)
	data := []byte(strings.TrimPrefix(packed.String(), "# pack-refs with: peeled fully-peeled sorted \n"))
	var refs []Ref
	allocs := testing.AllocsPerRun(5, func() {
		var err error
		if refs, err = (&packedRefs{data: data}).list(TaskPrefix); err != nil {
			t.Fatal(err)
		}
	})
	if len(refs) != n || refs[7].Name != "refs/reasoning/tasks/T-000007" || refs[7].Hash != fmt.Sprintf("%040x", 8) {
		t.Fatalf("listed %d refs, the eighth %+v: want %d task refs as written", len(refs), refs[min(7, len(refs)-1)], n)
	}
	if allocs > n/10 {
		t.Errorf("listing %d packed task refs allocated %.0f times, want at most %d (one string for them all)", n, allocs, n/10)
	}
	// The bytes: the names and hashes once, the refs and their offsets,
	// rounded to the allocator's sizes (a buffer grown by doubling and
	// then copied: 452 KB for these 69 KB of names and hashes).
	var err error
	listed := allocated(func() { _, err = (&packedRefs{data: data}).list(TaskPrefix) })
	if err != nil {
		t.Fatal(err)
	}
	text := n * len("refs/reasoning/tasks/T-000000"+strings.Repeat("0", 40))
	if allocated, want := listed, uint64(text+n*int(unsafe.Sizeof(Ref{}))+2*n*8+8192); allocated > want {
		t.Errorf("listing %d packed task refs allocated %d bytes, want at most %d (their %d bytes of names and hashes once)", n, allocated, want, text)
	}

	const magic = "a journal\n"
	var journal []byte
	journal = append(journal, magic...)
	for i := range n {
		journal = appendJournalEntry(journal, fmt.Sprintf("T-%06d", i), fmt.Sprintf("%040x", i+1), []byte(fmt.Sprintf("row %d", i)))
	}
	var j journalFile
	allocs = testing.AllocsPerRun(5, func() { j = parseJournal(journal, magic) })
	e, ok := j.lookup("T-000007")
	if !j.whole || j.n != n || !ok || string(e.head()) != fmt.Sprintf("%040x", 8) || string(e.data) != "row 7" {
		t.Fatalf("read back %d entries (whole %v), T-000007 %+v: want the %d written", j.n, j.whole, e, n)
	}
	if allocs > n+n/2 {
		t.Errorf("reading a journal of %d entries allocated %.0f times, want at most %d (one string per entry, and the map)", n, allocs, n+n/2)
	}
}

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
	each := allocated(func() {
		for range rounds {
			if _, err = encodeTree(entries); err != nil {
				break
			}
		}
	}) / rounds
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a tree of %d bytes: %d bytes allocated", len(want), each)
	if each > 2*uint64(len(want)) {
		t.Errorf("encoding a tree of %d bytes allocated %d bytes, want less than twice its size", len(want), each)
	}
}

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
	var got int
	least := allocated(func() {
		if err == nil {
			err = src.Contents([]string{h}, func(_ int, _ string, data []byte) error { got = len(data); return nil })
		}
	})
	if err != nil || got != len(content) {
		t.Fatalf("contents: %d bytes (%v), want %d", got, err, len(content))
	}
	if least > uint64(len(content))+4096 {
		t.Errorf("reading an object of %d bytes allocated %d bytes (the least of three reads), want its size (and a little)", len(content), least)
	}
}
