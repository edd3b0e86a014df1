package gitstore_test

import (
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
)

// TestTaskCacheDamaged: whatever .git/reason/tasks/<task>.records holds
// (cut short, another task's, garbage, a record's JSON broken), a process
// reads the task's records from the ref, the same as from a good cache.
func TestTaskCacheDamaged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := newRepo(t)
	open := func() *gitstore.Store { return openStore(t, dir) }
	w := &record.Writer{Store: open(), Actor: "Cache Test <cache@example.com>", Origin: "origin-cache"}
	for i := range 4 {
		for _, task := range []string{"T", "U"} {
			if _, err := w.Append(ctx, task, record.KindAssessment, []byte(fmt.Sprintf(
				`{"subject":"s%d","question":"q","materiality":"trivial","reversibility":"reversible"}`, i))); err != nil {
				t.Fatal(err)
			}
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
	path := filepath.Join(dir, ".git", "reason", "tasks", "T.records")
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no task cache written: %v", err)
	}
	other, err := os.ReadFile(filepath.Join(dir, ".git", "reason", "tasks", "U.records"))
	if err != nil {
		t.Fatal(err)
	}
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
	if _, err := w.Append(ctx, "T", record.KindAssessment, []byte(
		`{"subject":"later","question":"q","materiality":"trivial","reversibility":"reversible"}`)); err != nil {
		t.Fatal(err)
	}
	want = load()
	if err := os.WriteFile(path, broken, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := load(); got != want {
		t.Errorf("with a stale task cache, a record broken: Load gives\n%s\nwant\n%s", got, want)
	}
}

// TestTaskCacheWriteBehind: a store that writes its task caches behind
// leaves the file as it was after an append, another store reads the task
// whole from the ref meanwhile, and Flush writes the file at the new head.
func TestTaskCacheWriteBehind(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := newRepo(t)
	s := openStore(t, dir)
	s.WriteBehind(time.Hour)
	w := &record.Writer{Store: s, Actor: "Cache Test <cache@example.com>", Origin: "origin-cache"}
	path := filepath.Join(dir, ".git", "reason", "tasks", "T.records")
	for i := range 3 {
		if _, err := w.Append(ctx, "T", record.KindAssessment, []byte(fmt.Sprintf(
			`{"subject":"s%d","question":"q","materiality":"trivial","reversibility":"reversible"}`, i))); err != nil {
			t.Fatal(err)
		}
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
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("Flush wrote no task cache: %v", err)
	}
	head, _, err := s.Load(ctx, "T")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.SplitN(string(data), "\n", 2)[0], head) {
		t.Errorf("Flush wrote the cache at %q; want the head %s", strings.SplitN(string(data), "\n", 2)[0], head)
	}
}
