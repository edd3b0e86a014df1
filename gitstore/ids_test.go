package gitstore_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"git-reason/gitstore"
	"git-reason/record"
	"git-reason/reliability/harness"
)

// TestIDIndex: the id index names the task holding an id, is brought up
// to a task that moved (its new record found), and reads no line whose
// MAC is not the repository key's: a line naming another task for an
// id, appended by hand or signed under another key, names nothing.
func TestIDIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h, s, recs := idIndexHistory(t)
	id := recs[0].ID
	if got, ok := s.IDTasks(ctx, id); !ok || !slices.Equal(got, []string{forgTask}) {
		t.Fatalf("IDTasks(%s) = %v %v, want [%s]", id, got, ok, forgTask)
	}
	res, err := h.w.Append(ctx, "U-1", record.KindAssessment, []byte(`{"subject":"s","question":"q?","materiality":"trivial","reversibility":"reversible","needs":[],"evidence":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := s.IDTasks(ctx, res.Record.ID); !ok || !slices.Equal(got, []string{"U-1"}) {
		t.Fatalf("IDTasks(%s), a record of a task written after the index: %v %v, want [U-1]", res.Record.ID, got, ok)
	}
	shard := filepath.Join(h.dir, ".git", "reason", "ids", strings.ToUpper(id[:record.MinPrefix]))
	data := harness.ReadFile(t, shard)
	other := make([]byte, 32)
	forged := id + " U-1 " + gitstore.IDLineMAC(other, id, "U-1") + "\n" + id + " U-1 " + strings.Repeat("0", 32) + "\n"
	if err := os.WriteFile(shard, append(data, forged...), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, ok := s.IDTasks(ctx, id); !ok || !slices.Equal(got, []string{forgTask}) {
		t.Fatalf("IDTasks(%s) with lines naming U-1 under another key: %v %v, want [%s]", id, got, ok, forgTask)
	}
}

// TestIDIndexCurrent: once the refs' stamp is settled (100 ms), a lookup
// marks the index current for the task refs' header (ids/current) and the
// next lookup reads the shard alone, listing no ref; a record written
// after it moves the refs, and the lookup after it finds the new id, at
// once and when current again.
func TestIDIndexCurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h, _, recs := idIndexHistory(t)
	lookup := func(id string, want ...string) {
		t.Helper()
		if got, ok := openStore(t, h.dir).IDTasks(ctx, id); !ok || !slices.Equal(got, want) {
			t.Fatalf("IDTasks(%s) = %v %v, want %v", id, got, ok, want)
		}
	}
	time.Sleep(150 * time.Millisecond)
	lookup(recs[0].ID, forgTask)
	if _, err := os.Stat(filepath.Join(h.dir, ".git", "reason", "ids", "current")); err != nil {
		t.Fatalf("no ids/current after a lookup with the refs settled: %v", err)
	}
	lookup(recs[0].ID, forgTask)
	for i, task := range []string{"U-2", "U-3"} {
		res, err := h.w.Append(ctx, task, record.KindAssessment, []byte(`{"subject":"s","question":"q?","materiality":"trivial","reversibility":"reversible","needs":[],"evidence":[]}`))
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			time.Sleep(150 * time.Millisecond) // the refs settled after the write
		}
		lookup(res.Record.ID, task)
		time.Sleep(150 * time.Millisecond)
		lookup(res.Record.ID, task)
	}
}

// idIndexHistory is the forged-history fixture with the repository's key
// made, a store on it and the records of its task, which the id index
// tests look up.
func idIndexHistory(t *testing.T) (*forgHistory, *gitstore.Store, []*record.Record) {
	t.Helper()
	h := newForgHistory(t)
	statusState(t, h.dir, strings.TrimSpace(h.git("", "rev-parse", forgRef))) // the repository's key made
	s := openStore(t, h.dir)
	_, recs, err := s.Load(context.Background(), forgTask)
	if err != nil || len(recs) == 0 {
		t.Fatalf("load %s: %d records, %v", forgTask, len(recs), err)
	}
	return h, s, recs
}
