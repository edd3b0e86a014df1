package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"git-reason/record"
)

// RunFaults runs the contract suite again through a Faulty wrapper that
// makes every third append lose a race and every fifth fail after its
// write, with slow loads (the writer must absorb all of it), then the
// writer's behaviour under each fault alone.
func RunFaults(t *testing.T, newStore Factory) {
	parallel(t, "Contract", func(t *testing.T) {
		Run(t, func(t *testing.T) record.Store {
			return &Faulty{Store: newStore(t), ConflictEvery: 3, FailAfterWriteEvery: 5, LoadDelay: time.Millisecond}
		})
	})
	parallel(t, "ConflictRederives", func(t *testing.T) { testConflictRederives(t, newStore(t)) })
	parallel(t, "ConflictGivesUp", func(t *testing.T) { testConflictGivesUp(t, newStore(t)) })
	parallel(t, "ErrorAfterWrite", func(t *testing.T) { testErrorAfterWrite(t, newStore(t)) })
	parallel(t, "SlowLoadCancelled", func(t *testing.T) { testSlowLoadCancelled(t, newStore(t)) })
}

func assessBody(subject string) []byte {
	return []byte(fmt.Sprintf(`{"subject":%q,"question":"q","materiality":"trivial","reversibility":"reversible"}`, subject))
}

// subjects counts the task's records by subject.
func subjects(t *testing.T, s record.Store, task string) (map[string]int, []*record.Record) {
	t.Helper()
	st, recs := State(t, s, task)
	out := map[string]int{}
	for _, e := range st.Entries {
		if a, ok := e.Body.(*record.Assessment); ok {
			out[a.Subject]++
		}
	}
	return out, recs
}

// testConflictRederives: each injected conflict is a real one (another
// writer appended first); the writer must reload, re-derive (its record
// takes the clock after theirs) and store its record exactly once.
func testConflictRederives(t *testing.T, s record.Store) {
	f := &Faulty{Store: s}
	w := Writer(f, nil)
	assess(t, w, "T-F", "first")
	raced := 0
	f.Racer = func(ctx context.Context, inner record.Store, task string) error {
		raced++
		_, err := Writer(inner, nil).Append(ctx, task, record.KindAssessment, assessBody(fmt.Sprintf("raced %d", raced)))
		return err
	}
	f.ConflictNext(3)
	loadsBefore := f.Stats().Loads
	res := assess(t, w, "T-F", "mine")
	st := f.Stats()
	if st.Conflicts != 3 || raced != 3 {
		t.Fatalf("injected %d conflicts with %d racing appends, want 3 and 3", st.Conflicts, raced)
	}
	if n := st.Loads - loadsBefore; n < 4 {
		t.Errorf("the writer loaded the task %d times for 4 attempts: it did not re-derive after each conflict", n)
	}
	if res.Clock != 5 {
		t.Errorf("record stored after three racing appends has clock %d, want 5", res.Clock)
	}
	seen, recs := subjects(t, s, "T-F")
	if len(recs) != 5 || seen["mine"] != 1 || seen["raced 1"] != 1 || seen["raced 3"] != 1 {
		t.Errorf("task holds %d records %v; want 5, each subject once", len(recs), seen)
	}
}

// testConflictGivesUp: a head that keeps moving ends in an error that says
// to try again, with nothing stored.
func testConflictGivesUp(t *testing.T, s record.Store) {
	f := &Faulty{Store: s}
	w := Writer(f, nil)
	w.MaxAttempts = 3
	assess(t, w, "T-F", "first")
	f.ConflictNext(5)
	_, err := w.Append(context.Background(), "T-F", record.KindAssessment, assessBody("never"))
	if err == nil || !errorsContain(err, "try again") {
		t.Fatalf("append against a head that kept moving: %v, want an error saying to try again", err)
	}
	if got := f.Stats().Conflicts; got != 3 {
		t.Errorf("the writer made %d attempts, want MaxAttempts = 3", got)
	}
	if seen, recs := subjects(t, s, "T-F"); len(recs) != 1 || seen["never"] != 0 {
		t.Errorf("a failed append stored something: %v", seen)
	}
}

// testErrorAfterWrite: when the store fails after writing, the record is
// neither lost nor stored twice: the writer finds it and reports success,
// with the head that holds it, and the next append follows it.
func testErrorAfterWrite(t *testing.T, s record.Store) {
	f := &Faulty{Store: s}
	w := Writer(f, nil)
	assess(t, w, "T-F", "first")
	f.FailAfterWriteNext(1)
	res, err := w.Append(context.Background(), "T-F", record.KindAssessment, assessBody("written, then failed"))
	if err != nil {
		t.Fatalf("append whose store failed after the write: %v; the record is stored, so the caller must be told so", err)
	}
	if got := f.Stats().AfterWrite; got != 1 {
		t.Fatalf("injected %d failures after the write, want 1", got)
	}
	head, _, _ := s.Load(context.Background(), "T-F")
	if res.Commit != head || res.Clock != 2 {
		t.Errorf("result = clock %d at %q; want clock 2 at the head %q", res.Clock, res.Commit, head)
	}
	next := assess(t, w, "T-F", "after")
	seen, recs := subjects(t, s, "T-F")
	if len(recs) != 3 || seen["written, then failed"] != 1 || next.Clock != 3 {
		t.Errorf("task holds %d records %v, next clock %d; want 3, each once, clock 3", len(recs), seen, next.Clock)
	}
}

// testSlowLoadCancelled: a load slower than the caller's deadline ends the
// append with the context's error, promptly, storing nothing; so does a
// deadline that passes while conflicts keep the writer retrying.
func testSlowLoadCancelled(t *testing.T, s record.Store) {
	f := &Faulty{Store: s}
	w := Writer(f, nil)
	assess(t, w, "T-F", "first")

	f.LoadDelay = time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	start := time.Now()
	_, err := w.Append(ctx, "T-F", record.KindAssessment, assessBody("too slow"))
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 10*time.Second {
		t.Errorf("append over a load slower than its deadline: %v after %v; want the deadline's error, promptly", err, time.Since(start))
	}

	f.LoadDelay = 5 * time.Millisecond
	f.ConflictNext(1 << 20)
	ctx, cancel = context.WithTimeout(context.Background(), 200*time.Millisecond)
	start = time.Now()
	_, err = w.Append(ctx, "T-F", record.KindAssessment, assessBody("kept moving"))
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 10*time.Second {
		t.Errorf("append retrying conflicts past its deadline: %v after %v; want the deadline's error, promptly", err, time.Since(start))
	}
	f.ConflictNext(0)
	f.LoadDelay = 0
	if seen, recs := subjects(t, s, "T-F"); len(recs) != 1 {
		t.Errorf("a cancelled append stored something: %v", seen)
	}
}

func errorsContain(err error, s string) bool {
	return err != nil && strings.Contains(err.Error(), s)
}
