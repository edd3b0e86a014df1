package gitstore

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"git-reason/reliability/harness"

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
	// Each record is read once (a pass counted them, a second copied
	// them): the bytes looked at are the file's and the binary searches'.
	before := costs.sharedBytes.Load()
	if _, err := (&packedRefs{data: data}).list(TaskPrefix); err != nil {
		t.Fatal(err)
	}
	if looked, most := costs.sharedBytes.Load()-before, int64(len(data)+4096); looked > most {
		t.Errorf("listing %d packed task refs (%d bytes) looked at %d bytes of records, want at most %d (each record once)", n, len(data), looked, most)
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

}

// TestJournalReadAllocatesLittlePerTask holds the read every table of
// every task makes of its sealed journal (status-rows.journal, 4 MB at
// 20,000 tasks) to allocations that do not grow with the tasks: opening
// a journal of 1,000 entries written sorted by task, 20 more appended
// after them (rewrites and new tasks), and getting each task's entry in
// order, makes no string or map entry per task (a string each and a map
// of them all before: about 1,100 allocations and 190 KB besides the
// file's bytes here); its bytes past the file's are the sorted entries'
// offsets (16 bytes each, room for a quarter more) and the few appended.
// Counts, not time. Every entry got is the last put for its task.
func TestJournalReadAllocatesLittlePerTask(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector allocates beside the read: the bound holds without it")
	}
	const n, later = 1000, 20
	r := discoverT(t, initRepo(t))
	want := map[string]string{}
	j := OpenSealed(r, "rows.journal", "test")
	put := func(task, data string) {
		j.Put(task, fmt.Sprintf("%040x", len(task)), []byte(data))
		want[task] = data
	}
	for i := range n {
		put(fmt.Sprintf("T-%06d", i), fmt.Sprintf("row %d", i))
	}
	j.Save(nil)
	j = OpenSealed(r, "rows.journal", "test")
	for i := range later / 2 {
		put(fmt.Sprintf("T-%06d", 7*i), fmt.Sprintf("row %d again", 7*i))
		put(fmt.Sprintf("A-%d", i), fmt.Sprintf("new %d", i))
	}
	j.Save(nil)
	path := filepath.Join(r.CommonDir, "reason", "rows.journal")
	if data := harness.ReadFile(t, path); !bytes.Contains(data, []byte("\nA-0 ")) || bytes.Index(data, []byte("\nA-0 ")) < bytes.Index(data, []byte("\nT-000999 ")) {
		t.Fatal("the second save did not append its entries after the sorted ones")
	}
	tasks := slices.Sorted(maps.Keys(want))
	heads := map[int]string{len("T-000000"): fmt.Sprintf("%040x", len("T-000000")), len("A-0"): fmt.Sprintf("%040x", len("A-0"))}
	read := func() {
		j := OpenSealed(r, "rows.journal", "test")
		for _, task := range tasks {
			if data, ok := j.Get(task, heads[len(task)]); !ok || string(data) != want[task] {
				t.Fatalf("%s: entry %q (found %v), want %q", task, data, ok, want[task])
			}
		}
	}
	read()
	if allocs := testing.AllocsPerRun(5, read); allocs > 3*later+40 {
		t.Errorf("reading a journal of %d entries and getting each allocated %.0f times, want at most %d (none per entry)", len(want), allocs, 3*later+40)
	}
	size := uint64(len(harness.ReadFile(t, path)))
	if bytes, most := allocated(read), size+32*n+24<<10; bytes > most {
		t.Errorf("reading a journal of %d entries (%d bytes) and getting each allocated %d bytes, want at most %d", len(want), size, bytes, most)
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
