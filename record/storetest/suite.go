package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"git-reason/policy"
	"git-reason/record"
)

// Factory returns a new, empty store for one test.
type Factory func(t *testing.T) record.Store

// Run runs the whole contract suite against the stores newStore makes.
// Every case has a store of its own, so the cases run in parallel
// (newStore must be safe to call from parallel tests).
func Run(t *testing.T, newStore Factory) {
	parallel(t, "EmptyTask", func(t *testing.T) { testEmpty(t, newStore(t)) })
	parallel(t, "AppendLoad", func(t *testing.T) { testAppendLoad(t, newStore(t)) })
	parallel(t, "Conflict", func(t *testing.T) { testConflict(t, newStore(t)) })
	parallel(t, "ConcurrentWriters", func(t *testing.T) { testConcurrent(t, newStore(t)) })
	parallel(t, "Rules", func(t *testing.T) { runRules(t, newStore) })
	parallel(t, "Reuse", func(t *testing.T) { testReuse(t, newStore(t)) })
}

// parallel runs f as a subtest that runs in parallel with its siblings.
func parallel(t *testing.T, name string, f func(t *testing.T)) {
	t.Run(name, func(t *testing.T) {
		t.Parallel()
		f(t)
	})
}

// Writer returns a writer over s with a fixed identity and the availability
// given (nil: no advisors); a writer that keeps each task's state
// (record.Writer.Keep, a resident server's) when s is a Keeping store.
func Writer(s record.Store, avail record.Availability) *record.Writer {
	k, _ := s.(Keeping)
	return &record.Writer{Store: s, Avail: avail, Actor: "Test Person <test@example.invalid>", Origin: "origin-test",
		Keep: k != nil && k.KeepStates()}
}

// Keeping is a store whose suite runs with writers that keep each task's
// state from one append to the next, as the MCP server's does.
type Keeping interface{ KeepStates() bool }

// State loads task from s and derives its state, and returns the state
// and the records; it fails the test when either fails.
func State(t testing.TB, s record.Store, task string) (*record.State, []*record.Record) {
	t.Helper()
	_, recs, err := s.Load(context.Background(), task)
	if err != nil {
		t.Fatal(err)
	}
	st, err := record.Derive(task, recs)
	if err != nil {
		t.Fatal(err)
	}
	return st, recs
}

func testEmpty(t *testing.T, s record.Store) {
	ctx := context.Background()
	head, recs, err := s.Load(ctx, "T-1")
	if err != nil || head != "" || len(recs) != 0 {
		t.Fatalf("Load of a missing task = %q, %d records, %v; want \"\", 0, nil", head, len(recs), err)
	}
	tasks, err := s.Tasks(ctx)
	if err != nil || len(tasks) != 0 {
		t.Fatalf("Tasks of an empty store = %v, %v", tasks, err)
	}
}

func assess(t *testing.T, w *record.Writer, task, subject string) *record.Result {
	t.Helper()
	res, err := w.Append(context.Background(), task, record.KindAssessment,
		[]byte(fmt.Sprintf(`{"subject":%q,"question":"which?","materiality":"minor","reversibility":"reversible"}`, subject)))
	if err != nil {
		t.Fatalf("assess %s: %v", task, err)
	}
	return res
}

func testAppendLoad(t *testing.T, s record.Store) {
	ctx := context.Background()
	w := Writer(s, nil)
	a := assess(t, w, "T-1", "first")
	b := assess(t, w, "T-1", "second")
	assess(t, w, "T-2", "other")
	head, recs, err := s.Load(ctx, "T-1")
	if err != nil {
		t.Fatal(err)
	}
	if head != b.Commit {
		t.Errorf("head = %q, want the last append's %q", head, b.Commit)
	}
	if len(recs) != 2 {
		t.Fatalf("T-1 has %d records, want 2", len(recs))
	}
	st, err := record.Derive("T-1", recs)
	if err != nil {
		t.Fatal(err)
	}
	if st.Entries[0].ID != a.ID || st.Entries[1].ID != b.ID {
		t.Errorf("order = %s, %s; want %s, %s", st.Entries[0].ID, st.Entries[1].ID, a.ID, b.ID)
	}
	if st.Entries[0].Clock != 1 || st.Entries[1].Clock != 2 {
		t.Errorf("clocks = %d, %d; want 1, 2", st.Entries[0].Clock, st.Entries[1].Clock)
	}
	if string(recs[0].Body) == "" || recs[0].Actor != w.Actor || recs[0].Origin != w.Origin {
		t.Errorf("record lost its envelope: %+v", recs[0])
	}
	tasks, err := s.Tasks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 2 || tasks[0].Task != "T-1" || tasks[1].Task != "T-2" || tasks[0].Head != head {
		t.Errorf("Tasks = %+v", tasks)
	}
}

func testConflict(t *testing.T, s record.Store) {
	ctx := context.Background()
	w := Writer(s, nil)
	first := assess(t, w, "T-1", "first")
	assess(t, w, "T-1", "second")
	_, recs, _ := s.Load(ctx, "T-1")
	stale := *recs[1]
	stale.ID = "01ARZ3NDEKTSV4RRFFQ69G5FAV"
	if _, err := s.Append(ctx, "T-1", first.Commit, &stale); !errors.Is(err, record.ErrConflict) {
		t.Fatalf("Append on a stale head = %v, want ErrConflict", err)
	}
	if _, err := s.Append(ctx, "T-1", "", &stale); !errors.Is(err, record.ErrConflict) {
		t.Fatalf("Append as new onto an existing task = %v, want ErrConflict", err)
	}
	_, after, _ := s.Load(ctx, "T-1")
	if len(after) != 2 {
		t.Fatalf("a refused append changed the task: %d records", len(after))
	}
}

func testConcurrent(t *testing.T, s record.Store) {
	const writers, each = 4, 10
	w := Writer(s, nil)
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < each; j++ {
				_, err := w.Append(context.Background(), "T-C", record.KindAssessment,
					[]byte(fmt.Sprintf(`{"subject":"s %d %d","question":"q","materiality":"trivial","reversibility":"reversible"}`, i, j)))
				if err != nil {
					errs <- err
				}
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent append: %v", err)
	}
	_, recs, err := s.Load(context.Background(), "T-C")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != writers*each {
		t.Fatalf("%d records after %d acknowledged appends", len(recs), writers*each)
	}
	st, _ := record.Derive("T-C", recs)
	for i, e := range st.Entries {
		if e.Clock != int64(i+1) {
			t.Fatalf("clock %d at position %d: the chain is not linear", e.Clock, i)
		}
	}
}

// Avail is a fixed availability snapshot for tests.
type Avail struct {
	Profile  policy.Profile
	Advisors []policy.Advisor
}

// Snapshot implements record.Availability.
func (a *Avail) Snapshot(context.Context) (policy.Profile, []policy.Advisor, error) {
	p := a.Profile
	if p.Name == "" {
		p = policy.Profile{Name: "default", Mode: policy.ModeNormal}
	}
	return p, append([]policy.Advisor(nil), a.Advisors...), nil
}

func testReuse(t *testing.T, s record.Store) {
	ctx := context.Background()
	w := Writer(s, nil)
	a := assess(t, w, "T-A", "Database migration strategy")
	mustAppend(t, w, "T-A", record.KindPlan, fmt.Sprintf(`{"assessment":%q}`, a.ID))
	c := mustAppend(t, w, "T-A", record.KindConclusion, fmt.Sprintf(`{"assessment":%q,"decision":"online migration"}`, a.ID))

	b := assess(t, w, "T-B", "  database-migration STRATEGY ")
	if got := b.Derived.(*record.AssessmentDerived); got.Reuses != c.ID || got.ReusesTask != "T-A" {
		t.Fatalf("assessment of the same subject: reuses %q in %q, want %s in T-A", got.Reuses, got.ReusesTask, c.ID)
	}
	p := mustAppend(t, w, "T-B", record.KindPlan, fmt.Sprintf(`{"assessment":%q}`, b.ID))
	if pd := p.Derived.(*record.PlanDerived); pd.Review != "none" || len(pd.Selected) != 0 {
		t.Errorf("plan for a reusing assessment = %+v, want no review", pd)
	}
	fresh := mustAppend(t, w, "T-B", record.KindAssessment,
		`{"subject":"database migration strategy","question":"again?","materiality":"minor","reversibility":"reversible","new_evidence":true}`)
	if got := fresh.Derived.(*record.AssessmentDerived).Reuses; got != "" {
		t.Errorf("assessment with new evidence reuses %q, want nothing", got)
	}
	mustAppend(t, w, "T-A", record.KindValidation, fmt.Sprintf(`{"conclusion":%q,"method":"manual","result":"fail"}`, c.ID))
	again := assess(t, w, "T-C", "database migration strategy")
	if got := again.Derived.(*record.AssessmentDerived).Reuses; got != "" {
		t.Errorf("a conclusion whose validation failed is reused: %q", got)
	}
	_ = ctx
}

func mustAppend(t *testing.T, w *record.Writer, task string, kind record.Kind, body string) *record.Result {
	t.Helper()
	res, err := w.Append(context.Background(), task, kind, []byte(body))
	if err != nil {
		t.Fatalf("append %s: %v", kind, err)
	}
	return res
}
