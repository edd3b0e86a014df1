package gitstore

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"git-reason/record"
)

// testSeal is the MAC of the caches these tests write and read.
var testSeal = cacheSeal{key: []byte("0123456789abcdef0123456789abcdef"), task: "T-1/x"}

// TestTaskCacheRoundTrip: a cache file reads back as exactly the entries
// it was written from (every field cut from the right place), and one
// byte changed anywhere after the head (which the ref is compared with)
// makes it no cache.
func TestTaskCacheRoundTrip(t *testing.T) {
	c := &taskCache{Head: strings.Repeat("ab", 20)}
	for i, body := range []string{`{"subject": "s é"}`, "{\n  \"a\": 1\n}", `{}`} {
		rec := &record.Record{ID: "01J" + strings.Repeat("X", 22) + string(rune('A'+i)), Kind: record.KindAssessment,
			Task: "T-1/x", Created: "2026-12-01T05:00:00.000Z", Actor: "Ann Example <ann@example.com>",
			Origin: "o" + strings.Repeat("1", i), Clock: int64(10*i + 1), Body: []byte(body), Derived: []byte(`{"k":"v"}`)}
		c.Entries = append(c.Entries, cacheEntry{Name: rec.FileName(), Blob: strings.Repeat(string(rune('0'+i)), 40), Rec: rec})
	}
	file := encodeTaskCache(c, testSeal)
	got := parseTaskCache(file, testSeal)
	if got == nil {
		t.Fatalf("the cache file does not read back:\n%s", file)
	}
	if got.Head != c.Head || len(got.Entries) != len(c.Entries) {
		t.Fatalf("read back head %s with %d entries, want %s with %d", got.Head, len(got.Entries), c.Head, len(c.Entries))
	}
	for i, e := range got.Entries {
		want := c.Entries[i]
		if e.Name != want.Name || e.Blob != want.Blob || !reflect.DeepEqual(e.Rec, want.Rec) {
			t.Errorf("entry %d reads back as\n%q %q %+v\nwant\n%q %q %+v", i, e.Name, e.Blob, *e.Rec, want.Name, want.Blob, *want.Rec)
		}
	}
	// Written again from what it read (each record's fields kept as read),
	// the file is the same.
	if again := encodeTaskCache(got, testSeal); string(again) != string(file) {
		t.Errorf("written again, the cache file is\n%s\nwant\n%s", again, file)
	}
	for i := len(taskCacheMagic) + len(c.Head); i < len(file); i++ {
		bad := append([]byte(nil), file...)
		bad[i] ^= 0x01
		if parseTaskCache(bad, testSeal) != nil {
			t.Fatalf("with byte %d changed the file still reads as a cache", i)
		}
	}
}

// TestTaskCacheSegments: an appended segment adds its entries, in tree
// order, and moves the cache to its head only when it goes on from the
// head before it; reading stops at one that does not (made from another
// head, cut short, an entry there already), leaving the cache at the
// head before it and no file length an append may go on from.
func TestTaskCacheSegments(t *testing.T) {
	entry := func(i int, name string) cacheEntry {
		rec := &record.Record{ID: "01J" + strings.Repeat("Y", 22) + string(rune('A'+i)), Kind: record.KindAssessment,
			Task: "T", Created: "2026-12-01T05:00:00.000Z", Actor: "Ann <ann@example.com>", Origin: "o", Clock: int64(i + 1),
			Body: []byte(`{}`), Derived: []byte(`{}`)}
		return cacheEntry{Name: name, Blob: strings.Repeat(string(rune('0'+i)), 40), Rec: rec}
	}
	h1, h2, h3 := strings.Repeat("1", 40), strings.Repeat("2", 40), strings.Repeat("3", 40)
	first := encodeTaskCache(&taskCache{Head: h1, Entries: []cacheEntry{entry(0, "b.json"), entry(1, "d.json")}}, testSeal)
	seg := func(from, head string, e cacheEntry) []byte {
		return encodeCacheSegment([]byte(from+" "), head, []cacheEntry{e}, testSeal)
	}
	names := func(c *taskCache) string {
		var out []string
		for _, e := range c.Entries {
			out = append(out, e.Name)
		}
		return strings.Join(out, " ")
	}
	two := append(append([]byte(nil), first...), seg(h1, h2, entry(2, "e.json"))...)
	three := append(append([]byte(nil), two...), seg(h2, h3, entry(3, "a.json"))...)
	for _, tc := range []struct {
		name, head, names string
		file              []byte
		whole             bool
	}{
		{"one segment", h1, "b.json d.json", first, true},
		{"appended", h2, "b.json d.json e.json", two, true},
		{"appended, sorting first", h3, "a.json b.json d.json e.json", three, true},
		{"from another head", h1, "b.json d.json", append(append([]byte(nil), first...), seg(h2, h3, entry(2, "e.json"))...), false},
		{"cut short", h2, "b.json d.json e.json", three[:len(three)-1], false},
		{"a name there already", h1, "b.json d.json", append(append([]byte(nil), first...), seg(h1, h2, entry(2, "d.json"))...), false},
	} {
		c := parseTaskCache(tc.file, testSeal)
		if c == nil {
			t.Errorf("%s: no cache", tc.name)
			continue
		}
		if c.Head != tc.head || names(c) != tc.names {
			t.Errorf("%s: the cache is at %s with %s; want %s with %s", tc.name, c.Head, names(c), tc.head, tc.names)
		}
		if whole := c.size.Load() == int64(len(tc.file)); whole != tc.whole {
			t.Errorf("%s: an append may go on from the file: %v (size %d of %d); want %v", tc.name, whole, c.size.Load(), len(tc.file), tc.whole)
		}
	}
}

// TestCacheEntriesAllocateWhatTheyHold: reading entries (a task cache's,
// a saved state's) allocates one record and one entry each, however many
// lines the records' bodies span, their fields cut from the bytes read.
// It made room for a record per two newlines (with bodies written over
// many lines, several times the records read: most of what reading a
// saved state allocated), and copied the whole text once more.
func TestCacheEntriesAllocateWhatTheyHold(t *testing.T) {
	const n = 200
	var entries []cacheEntry
	body := "{\n" + strings.Repeat("  \"field\": \"a value\",\n", 20) + "  \"last\": 1\n}"
	for i := range n {
		rec := &record.Record{ID: fmt.Sprintf("01J%023d", i), Kind: record.KindAssessment, Task: "T",
			Created: "2026-12-01T05:00:00.000Z", Actor: "Ann <ann@example.com>", Origin: "o", Clock: int64(i + 1),
			Body: []byte(body), Derived: []byte(`{}`)}
		entries = append(entries, cacheEntry{Name: rec.FileName(), Blob: fmt.Sprintf("%040d", i), Rec: rec})
	}
	data := encodeCacheEntries(entries)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, ok := parseCacheEntries(data)
	runtime.ReadMemStats(&after)
	if !ok || len(got) != n {
		t.Fatalf("read %d entries (%v), want %d", len(got), ok, n)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	holds := n * uint64(unsafe.Sizeof(record.Record{})+unsafe.Sizeof(cacheEntry{}))
	t.Logf("%d entries, %d bytes: %d bytes allocated, %d held", n, len(data), allocated, holds)
	if allocated > holds+holds/4 {
		t.Errorf("reading %d entries of %d bytes allocated %d bytes, want about what they hold (%d)", n, len(data), allocated, holds)
	}
}
