package record_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"git-reason/record"
	"git-reason/record/storetest"
)

// vouching is a MemStore that vouches that its records decode, as
// gitstore's does: the writer then decodes only what admission reads.
type vouching struct{ *record.MemStore }

func (vouching) RecordsDecode() bool { return true }

// Every admission rule and refusal of the contract suite holds when the
// writer derives lazily.
func TestMemStoreDecodingLazily(t *testing.T) {
	storetest.Run(t, func(*testing.T) record.Store { return vouching{record.NewMemStore()} })
}

// A record that does not decode, on a task the writer derives lazily and
// whose admission reads that record, refuses the append with the error
// Derive gives, as when the store vouches for nothing; nothing is written.
func TestLazyDeriveRefusesWhatDoesNotDecode(t *testing.T) {
	ctx := context.Background()
	errs := map[string]string{}
	for name, store := range map[string]interface {
		record.Store
	}{"plain": record.NewMemStore(), "vouching": vouching{record.NewMemStore()}} {
		w := &record.Writer{Store: store, Actor: "Ann <ann@example.com>", Origin: "o"}
		a, err := w.Append(ctx, "T", record.KindAssessment,
			[]byte(`{"subject":"cache","question":"which?","materiality":"trivial","reversibility":"reversible"}`))
		if err != nil {
			t.Fatal(err)
		}
		// A conclusion whose body is JSON but not a conclusion's (its
		// assessment is a number): Standing reads it when the next
		// assessment is admitted.
		head, _, err := store.Load(ctx, "T")
		if err != nil {
			t.Fatal(err)
		}
		bad := &record.Record{ID: "01J0000000000000000000000Z", Kind: record.KindConclusion, Task: "T",
			Created: "2026-12-01T05:00:00.000Z", Actor: w.Actor, Origin: w.Origin, Clock: a.Clock + 1,
			Body: []byte(`{"assessment":5}`), Derived: []byte(`{}`)}
		if head, err = store.Append(ctx, "T", head, bad); err != nil {
			t.Fatal(err)
		}
		_, err = w.Append(ctx, "T", record.KindAssessment,
			[]byte(`{"subject":"cache","question":"again?","materiality":"trivial","reversibility":"reversible"}`))
		if err == nil {
			t.Fatalf("%s store: an assessment was admitted on a task holding a record that does not decode", name)
		}
		errs[name] = err.Error()
		if now, _, _ := store.Load(ctx, "T"); now != head {
			t.Errorf("%s store: the refused append moved the task to %s", name, now)
		}
	}
	if errs["plain"] != errs["vouching"] {
		t.Errorf("derived lazily the refusal is\n%s\nDerive's is\n%s", errs["vouching"], errs["plain"])
	}
}

// keeping is a vouching store whose suite's writers keep each task's
// state from one append to the next (record.Writer.Keep).
type keeping struct{ vouching }

func (keeping) KeepStates() bool { return true }

// Every admission rule and refusal of the contract suite, and the
// re-derivation after a conflict, hold for a writer that goes on from the
// state its last append left (the MCP server's).
func TestMemStoreKeepingStates(t *testing.T) {
	storetest.Run(t, func(*testing.T) record.Store { return keeping{vouching{record.NewMemStore()}} })
	storetest.RunFaults(t, func(*testing.T) record.Store { return keeping{vouching{record.NewMemStore()}} })
}

// A writer that keeps states decodes, for an append on the head its last
// append stored, only what it had not decoded before: the task's records
// are not derived again. A head another writer moved is derived anew.
func TestKeepingWriterGoesOnFromItsState(t *testing.T) {
	ctx := context.Background()
	store := vouching{record.NewMemStore()}
	w := &record.Writer{Store: store, Actor: "Ann <ann@example.com>", Origin: "o", Keep: true}
	a, err := w.Append(ctx, "T", record.KindAssessment,
		[]byte(`{"subject":"cache","question":"which?","materiality":"trivial","reversibility":"reversible"}`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := w.Append(ctx, "T", record.KindPlan, []byte(`{"assessment":"`+a.ID+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	if st := w.Kept("T", p.Commit); st != p.State {
		t.Fatalf("the kept state at %s is not the plan's", p.Commit)
	}
	p.State.Summarize() // a surface reads the whole state: every entry decoded once
	before := record.Decodes()
	c, err := w.Append(ctx, "T", record.KindConclusion, []byte(`{"assessment":"`+a.ID+`","decision":"keep it","local_review":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := record.Decodes() - before; got != 0 {
		t.Errorf("a conclusion on the kept head decoded %d records, want 0 (its own is decoded when admitted)", got)
	}
	other := &record.Writer{Store: store, Actor: "Bob <bob@example.com>", Origin: "o2"}
	v, err := other.Append(ctx, "T", record.KindAttempt, []byte(`{"conclusion":"`+c.ID+`","outcome":"succeeded"}`))
	if err != nil {
		t.Fatal(err)
	}
	if w.Kept("T", v.Commit) != nil {
		t.Errorf("a head another writer stored is kept")
	}
	x, err := w.Append(ctx, "T", record.KindAttempt, []byte(`{"conclusion":"`+c.ID+`","outcome":"failed"}`))
	if err != nil {
		t.Fatal(err)
	}
	if x.Clock != v.Clock+1 || x.State.Get(v.ID) == nil {
		t.Errorf("an append after another writer's (clock %d) has clock %d and sees it: %v", v.Clock, x.Clock, x.State.Get(v.ID) != nil)
	}
}

// loadCounting is a keeping store that counts the loads of its tasks.
type loadCounting struct {
	keeping
	loads *atomic.Int32
}

func (s loadCounting) Load(ctx context.Context, task string) (string, []*record.Record, error) {
	s.loads.Add(1)
	return s.keeping.Load(ctx, task)
}

// A writer that keeps states asks a store that tells heads
// (record.HeadStore) for the head alone when it appends on the head its
// last append stored: no record is loaded. A head another writer moved is
// loaded once.
func TestKeepingWriterLoadsNothingOnItsHead(t *testing.T) {
	ctx := context.Background()
	var loads atomic.Int32
	store := loadCounting{keeping{vouching{record.NewMemStore()}}, &loads}
	w := &record.Writer{Store: store, Actor: "Ann <ann@example.com>", Origin: "o", Keep: true}
	a, err := w.Append(ctx, "T", record.KindAssessment,
		[]byte(`{"subject":"cache","question":"which?","materiality":"trivial","reversibility":"reversible"}`))
	if err != nil {
		t.Fatal(err)
	}
	loads.Store(0)
	if _, err := w.Append(ctx, "T", record.KindPlan, []byte(`{"assessment":"`+a.ID+`"}`)); err != nil {
		t.Fatal(err)
	}
	if n := loads.Load(); n != 0 {
		t.Errorf("a plan on the kept head loaded the task %d times, want 0", n)
	}
	other := &record.Writer{Store: store, Actor: "Bob <bob@example.com>", Origin: "o2"}
	c, err := other.Append(ctx, "T", record.KindConclusion, []byte(`{"assessment":"`+a.ID+`","decision":"keep it","local_review":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	loads.Store(0)
	x, err := w.Append(ctx, "T", record.KindAttempt, []byte(`{"conclusion":"`+c.ID+`","outcome":"succeeded"}`))
	if err != nil {
		t.Fatal(err)
	}
	if n := loads.Load(); n != 1 || x.State.Get(c.ID) == nil {
		t.Errorf("an append after another writer's loaded the task %d times (want 1) and sees its conclusion: %v", n, x.State.Get(c.ID) != nil)
	}
}

// A writer that keeps states keeps at most record.KeptTasks of them: one
// that wrote to more tasks does not hold every one.
func TestKeepingWriterKeepsFewTasks(t *testing.T) {
	ctx := context.Background()
	w := &record.Writer{Store: vouching{record.NewMemStore()}, Actor: "Ann <ann@example.com>", Origin: "o", Keep: true}
	heads := map[string]string{}
	for i := range record.KeptTasks + 6 {
		task := fmt.Sprintf("T-%d", i)
		res, err := w.Append(ctx, task, record.KindAssessment,
			[]byte(`{"subject":"cache","question":"which?","materiality":"trivial","reversibility":"reversible"}`))
		if err != nil {
			t.Fatal(err)
		}
		heads[task] = res.Commit
	}
	kept := 0
	for task, head := range heads {
		if w.Kept(task, head) != nil {
			kept++
		}
	}
	if kept != record.KeptTasks {
		t.Errorf("a writer that appended to %d tasks keeps %d states, want %d", len(heads), kept, record.KeptTasks)
	}
	last := fmt.Sprintf("T-%d", record.KeptTasks+5)
	if w.Kept(last, heads[last]) == nil {
		t.Errorf("the state of the task written last is not kept")
	}
}
