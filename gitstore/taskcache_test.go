package gitstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"git-reason/gitstore"
	"git-reason/record"
	"git-reason/reliability/harness"
)

// TestTaskCacheDamaged: whatever .git/reason/tasks/<task>.records holds
// (cut short, another task's, garbage, a record's JSON broken), a process
// reads the task's records from the ref, the same as from a good cache.
func TestTaskCacheDamaged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := newRepo(t)
	open := func() *gitstore.Store { return openStore(t, dir) }
	w := cacheWriter(open())
	for i := range 4 {
		for _, task := range []string{"T", "U"} {
			assessTrivially(t, w, task, fmt.Sprintf("s%d", i))
		}
	}
	load := func() string {
		t.Helper()
		head, recs, err := open().Load(ctx, "T")
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		out, _ := json.Marshal(recs)
		return head + string(out)
	}
	want := load()
	path := taskCachePath(dir)
	good, _ := cacheAsWritten(t, path, "a write")
	other := harness.ReadFile(t, filepath.Join(dir, ".git", "reason", "tasks", "U.records"))
	broken := append([]byte(nil), good...)
	broken[len(broken)-3] = '{' // inside the last record's JSON
	for name, data := range map[string][]byte{
		"cut short":      good[:len(good)-10],
		"one byte short": good[:len(good)-1],
		"another task's": other,
		"garbage":        []byte("not a cache\n"),
		"empty":          nil,
		"broken record":  broken,
	} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if got := load(); got != want {
			t.Errorf("with a task cache %s: Load gives\n%s\nwant\n%s", name, got, want)
		}
	}
	// A stale file (an older head) whose records are reused by blob, one
	// of them broken.
	assessTrivially(t, w, "T", "later")
	want = load()
	if err := os.WriteFile(path, broken, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := load(); got != want {
		t.Errorf("with a stale task cache, a record broken: Load gives\n%s\nwant\n%s", got, want)
	}
}

// TestTaskCacheAppends: a write adds its record to the task's cache file
// (the same file, every byte before kept) instead of writing the task's
// records again, so that what it writes grows with the record, not with
// the task; the file then reads at the new head with every record, the
// records a read from git gives. (Before, each write wrote the file whole
// again: a new file, as long as the task.)
func TestTaskCacheAppends(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	w := cacheWriter(openStore(t, dir))
	add := func(i int) {
		t.Helper()
		assessTrivially(t, w, "T", fmt.Sprintf("s%d", i))
	}
	const n = 20
	for i := range n {
		add(i)
	}
	path := taskCachePath(dir)
	before, was := cacheAsWritten(t, path, "a write")
	w.Store = openStore(t, dir) // a new process's store: it reads the file
	add(n)
	after := appendedTo(t, path, was, before, "a write")
	if grew := len(after) - len(before); grew <= 0 || grew > 2*len(before)/n {
		t.Errorf("a write to a task of %d records grew its cache by %d bytes (from %d); want one record's, at most %d",
			n, grew, len(before), 2*len(before)/n)
	}
	readsAsGit(t, dir, path, cacheReadsAtHead(t, dir, n+1))
}

// TestTaskCacheAppendTakesNoLock: a write appends its record's segment to
// the task's cache file without taking the file's lock (a file created and
// deleted for each append, the costliest thing the append did to that
// file on a file system slow to make files): with the lock held by
// another writer (tasks/T.records.lock present), the file still grows by
// the record and reads at the new head. (Before, the append gave way to
// the lock, and so did the whole write after it: the file stayed at the
// old head.) A segment appended after a segment that does not go on from
// the file's head, as two appends racing leave it, is not read: the file
// reads at the head before it, and the next write of the task writes the
// file at the ref's head again.
func TestTaskCacheAppendTakesNoLock(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	w := cacheWriter(openStore(t, dir))
	const n = 5
	for i := range n {
		assessTrivially(t, w, "T", fmt.Sprintf("s%d", i))
	}
	path := taskCachePath(dir)
	before, was := cacheAsWritten(t, path, "a write")
	if err := os.WriteFile(path+".lock", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	assessTrivially(t, w, "T", "locked")
	appendedTo(t, path, was, before, "a write while the lock is held")
	cacheReadsAtHead(t, dir, n+1)
	if err := os.Remove(path + ".lock"); err != nil {
		t.Fatal(err)
	}

	// A segment from a head the file is not at, then a good one.
	good := harness.ReadFile(t, path)
	stray := "0123456789012345678901234567890123456789 " + strings.TrimPrefix(strings.SplitN(string(good), "\n", 2)[0], gitstore.TaskCacheMagic) + "\n"
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(stray); err != nil {
		t.Fatal(err)
	}
	f.Close()
	w.Store = openStore(t, dir)
	assessTrivially(t, w, "T", "after a stray segment")
	cacheReadsAtHead(t, dir, n+2)
}

// TestTaskCacheCompacts: a task written one record a process (a store
// each) keeps a cache file of at most MaxCacheSegments segments, each a
// MAC a read checks, and the file, written whole again once it holds
// that many, still reads at the ref's head with every record. (Before,
// the file held a segment a record written: 70 here.)
func TestTaskCacheCompacts(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	w := cacheWriter(nil)
	const n = gitstore.MaxCacheSegments + 6
	most := 0
	for i := range n {
		w.Store = openStore(t, dir) // a process a write, each reading the file
		assessTrivially(t, w, "T", fmt.Sprintf("s%d", i))
		most = max(most, gitstore.TaskCacheSegments(openStore(t, dir), "T"))
	}
	if most > gitstore.MaxCacheSegments || most < 2 {
		t.Errorf("after %d writes the task cache file held at most %d segments; want appends (more than 1) up to %d",
			n, most, gitstore.MaxCacheSegments)
	}
	cacheReadsAtHead(t, dir, n)
}

// TestTaskCacheWriteBehind: a store that writes its task caches behind
// leaves the file as it was after an append, another store reads the task
// whole from the ref meanwhile, and Flush writes the file at the new head.
func TestTaskCacheWriteBehind(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, s, w := writingBehind(t)
	path := taskCachePath(dir)
	for i := range 3 {
		assessTrivially(t, w, "T", fmt.Sprintf("s%d", i))
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Fatalf("after append %d, the task cache is written already (%v); want it held back", i, err)
		}
		other := openStore(t, dir)
		if _, recs, err := other.Load(ctx, "T"); err != nil || len(recs) != i+1 {
			t.Fatalf("another store reads %d records (%v) while the cache is held back; want %d", len(recs), err, i+1)
		}
		os.Remove(path) // what the other store wrote
	}
	s.Flush()
	data, _ := cacheAsWritten(t, path, "Flush")
	head, _, err := s.Load(ctx, "T")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.SplitN(string(data), "\n", 2)[0], head) {
		t.Errorf("Flush wrote the cache at %q; want the head %s", strings.SplitN(string(data), "\n", 2)[0], head)
	}
}

// TestTaskCacheWriteBehindAppends: a store that writes its task caches
// behind (the MCP server's) appends, at each flush, what the appends since
// the last one added to the file that holds the task as that flush left
// it: the same file, grown by those records, not the task written whole
// (which it was, at every flush: the whole task encoded again). Another
// process reads the task from that file at the ref's head.
func TestTaskCacheWriteBehindAppends(t *testing.T) {
	t.Parallel()
	dir, s, w := writingBehind(t)
	path := taskCachePath(dir)
	const n = 20
	for i := range n {
		assessTrivially(t, w, "T", fmt.Sprintf("s%d", i))
	}
	s.Flush()
	before, was := cacheAsWritten(t, path, "Flush")
	for round := range 3 {
		for i := range 2 {
			assessTrivially(t, w, "T", fmt.Sprintf("r%d-%d", round, i))
		}
		s.Flush()
	}
	after := appendedTo(t, path, was, before, "a flush")
	if grew := len(after) - len(before); grew <= 0 || grew > 2*6*len(before)/n {
		t.Errorf("3 flushes of 2 appends each to a task of %d records grew its cache by %d bytes (from %d); want six records', at most %d",
			n, grew, len(before), 2*6*len(before)/n)
	}
	readsAsGit(t, dir, path, cacheReadsAtHead(t, dir, n+6))
}

// TestTaskCacheWriteBehindCompacts: the segments a store that writes
// behind appends at its flushes count toward the file's bound
// (gitstore.MaxCacheSegments) as the command line's appends do: 70
// flushes of one append each leave at most that many segments, and the
// file reads at the ref's head with every record.
func TestTaskCacheWriteBehindCompacts(t *testing.T) {
	t.Parallel()
	dir, s, w := writingBehind(t)
	const n = 70
	for i := range n {
		assessTrivially(t, w, "T", fmt.Sprintf("s%d", i))
		s.Flush()
	}
	if got := gitstore.TaskCacheSegments(openStore(t, dir), "T"); got < 1 || got > gitstore.MaxCacheSegments {
		t.Errorf("after %d flushes the task cache holds %d segments; want 1 to %d", n, got, gitstore.MaxCacheSegments)
	}
	cacheReadsAtHead(t, dir, n)
}

// cacheWriter is a writer through s (none yet when nil) without the
// index, the writer of the task cache tests.
func cacheWriter(s *gitstore.Store) *record.Writer {
	return &record.Writer{Store: s, Actor: "Cache Test <cache@example.com>", Origin: "origin-cache"}
}

// writingBehind is a new repository's directory, a store of it that
// writes its task caches behind (as the MCP server's does: not before
// Flush) and a cacheWriter through that store.
func writingBehind(t *testing.T) (string, *gitstore.Store, *record.Writer) {
	t.Helper()
	dir := newRepo(t)
	s := openStore(t, dir)
	s.WriteBehind(time.Hour)
	return dir, s, cacheWriter(s)
}

// taskCachePath is task T's cache file in the repository at dir.
func taskCachePath(dir string) string {
	return filepath.Join(dir, ".git", "reason", "tasks", "T.records")
}

// cacheAsWritten returns the cache file at path, which what (a write,
// Flush) wrote, and its file's information, for appendedTo to compare
// with after more writes; it fails the test when there is no file.
func cacheAsWritten(t *testing.T, path, what string) ([]byte, os.FileInfo) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s wrote no task cache: %v", what, err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return data, info
}

// appendedTo returns the cache file at path after what (a write, a
// flush), checking that what appended to it: the same file as was, every
// byte of before kept at its start.
func appendedTo(t *testing.T, path string, was os.FileInfo, before []byte, what string) []byte {
	t.Helper()
	after := harness.ReadFile(t, path)
	is, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(was, is) || !bytes.HasPrefix(after, before) {
		t.Errorf("%s replaced the task cache (same file %v, its %d bytes kept %v); want it appended to",
			what, os.SameFile(was, is), len(before), bytes.HasPrefix(after, before))
	}
	return after
}

// cacheReadsAtHead checks that task T's cache file in the repository at
// dir, read by a fresh store, is at the ref's head and holds n records,
// and returns the task as that store loaded it.
func cacheReadsAtHead(t *testing.T, dir string, n int) []*record.Record {
	t.Helper()
	fresh := openStore(t, dir)
	cached, records := gitstore.TaskCacheAt(fresh, "T")
	head, loaded, err := fresh.Load(context.Background(), "T")
	if err != nil {
		t.Fatal(err)
	}
	if cached != head || records != n || len(loaded) != n {
		t.Errorf("the cache file reads at %q with %d records (loaded %d); want the ref's head %s with %d", cached, records, len(loaded), head, n)
	}
	return loaded
}

// readsAsGit removes the cache file at path and checks that task T read
// from git alone is fromCache, as the cache gave it.
func readsAsGit(t *testing.T, dir, path string, fromCache []*record.Record) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	_, fromGit, err := openStore(t, dir).Load(context.Background(), "T")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(fromCache)
	want, _ := json.Marshal(fromGit)
	if string(got) != string(want) {
		t.Errorf("from the cache the task reads\n%s\nfrom git\n%s", got, want)
	}
}
