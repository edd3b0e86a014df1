package gitstore

import (
	"reflect"
	"strings"
	"testing"

	"git-reason/record"
)

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
	file := encodeTaskCache(c)
	got := parseTaskCache(file)
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
	if again := encodeTaskCache(got); string(again) != string(file) {
		t.Errorf("written again, the cache file is\n%s\nwant\n%s", again, file)
	}
	for i := len(taskCacheMagic) + len(c.Head); i < len(file); i++ {
		bad := append([]byte(nil), file...)
		bad[i] ^= 0x01
		if parseTaskCache(bad) != nil {
			t.Fatalf("with byte %d changed the file still reads as a cache", i)
		}
	}
}
