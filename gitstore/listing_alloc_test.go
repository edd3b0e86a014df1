package gitstore

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

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
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := (&packedRefs{data: data}).list(TaskPrefix); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	text := n * len("refs/reasoning/tasks/T-000000"+strings.Repeat("0", 40))
	if allocated, want := after.TotalAlloc-before.TotalAlloc, uint64(text+n*int(unsafe.Sizeof(Ref{}))+2*n*8+8192); allocated > want {
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
	e, ok := j.entries["T-000007"]
	if !j.whole || len(j.entries) != n || !ok || e.head != fmt.Sprintf("%040x", 8) || string(e.data) != "row 7" {
		t.Fatalf("read back %d entries (whole %v), T-000007 %+v: want the %d written", len(j.entries), j.whole, e, n)
	}
	if allocs > n+n/2 {
		t.Errorf("reading a journal of %d entries allocated %.0f times, want at most %d (one string per entry, and the map)", n, allocs, n+n/2)
	}
}
