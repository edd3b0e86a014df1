package record

import (
	"fmt"
	"testing"
)

// The standing conclusions of a task read each record's links once or
// so, not once per conclusion: a task of 3n records (n assessments, each
// concluded and validated) reads about 2n links for its standing
// conclusions at any n. One question per conclusion over every record
// read n*n/2 (5,050 at n = 100). The answer is the same: every conclusion
// whose latest validation did not fail.
func TestStandingReadsLinksOnce(t *testing.T) {
	standing := func(n int) (int, int64) {
		st := &State{Task: "T-s", byID: map[string]*Entry{}}
		clock := int64(0)
		add := func(kind Kind, id string, body, derived any) {
			clock++
			st.add(&Entry{Record: &Record{ID: id, Kind: kind, Task: st.Task, Clock: clock}, Body: body, Derived: derived})
		}
		for i := range n {
			a, c := fmt.Sprintf("A%03d", i), fmt.Sprintf("C%03d", i)
			add(KindAssessment, a, &Assessment{Subject: a, Materiality: "minor", Reversibility: "reversible"}, &AssessmentDerived{SubjectKey: a})
			add(KindConclusion, c, &Conclusion{Assessment: a, Decision: "go"}, &ConclusionDerived{})
		}
		for i := range n {
			result := "pass"
			if i == 0 {
				result = "fail" // the first conclusion no longer stands
			}
			add(KindValidation, fmt.Sprintf("V%03d", i), &Validation{Conclusion: fmt.Sprintf("C%03d", i)}, &ValidationDerived{Result: result})
		}
		before := linkReads.Load()
		out := st.Standing()
		return len(out), linkReads.Load() - before
	}
	for _, n := range []int{10, 100} {
		got, reads := standing(n)
		if got != n-1 {
			t.Errorf("%d conclusions, the first one's validation failed: %d stand, want %d", n, got, n-1)
		}
		if reads > int64(3*n) {
			t.Errorf("the standing conclusions of %d concluded assessments read %d links, want at most %d (each record's about once)", n, reads, 3*n)
		}
	}
}
