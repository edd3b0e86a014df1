package record

import (
	"encoding/json"
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

// The standing conclusions of a saved state's records (a lazy base that
// carries their links and facts, facts.go) decode none of them: not the
// conclusions, not their assessments, not their validations. The answer
// is the decoded state's: every conclusion whose latest validation not
// withdrawn did not fail (C000's failed; C001's failed and was withdrawn,
// its earlier one passed). Without the facts each conclusion, its
// assessment and its validations are decoded (n*3 and more).
func TestStandingOfSavedRecordsDecodesNone(t *testing.T) {
	const n = 20
	var recs []*Record
	clock := int64(0)
	add := func(kind Kind, id string, body, derived any) {
		clock++
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		d, err := json.Marshal(derived)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, &Record{ID: id, Kind: kind, Task: "T-f", Clock: clock, Actor: "A <a@example.com>", Body: b, Derived: d})
	}
	for i := range n {
		a, c := fmt.Sprintf("A%03d", i), fmt.Sprintf("C%03d", i)
		add(KindAssessment, a, &Assessment{Subject: a, Materiality: "minor", Reversibility: "reversible"}, &AssessmentDerived{SubjectKey: "s " + a})
		add(KindConclusion, c, &Conclusion{Assessment: a, Decision: "go " + a}, &ConclusionDerived{})
		add(KindValidation, fmt.Sprintf("V%03d", i), &Validation{Conclusion: c}, &ValidationDerived{Result: "pass"})
	}
	add(KindValidation, "W000", &Validation{Conclusion: "C000"}, &ValidationDerived{Result: "fail"})
	add(KindValidation, "W001", &Validation{Conclusion: "C001"}, &ValidationDerived{Result: "fail"})
	add(KindWithdrawal, "X001", &Withdrawal{Record: "W001", Reason: "wrong directory"}, &WithdrawalDerived{})
	whole, err := Derive("T-f", recs)
	if err != nil {
		t.Fatal(err)
	}
	// What a saved state appends (FactsOf, LinksOf) is the whole state's
	// facts and links of the ids given alone.
	ids := []string{"A001", "C001", "V001", "X001", "not-a-record"}
	gotFacts, gotLinks := whole.FactsOf(ids), whole.LinksOf(ids)
	allFacts, allLinks := whole.Facts(), whole.Links()
	wantFacts := map[string][]string{"A001": allFacts["A001"], "C001": allFacts["C001"], "V001": allFacts["V001"]}
	wantLinks := map[string][]string{"C001": allLinks["C001"], "V001": allLinks["V001"], "X001": allLinks["X001"]}
	if fmt.Sprint(gotFacts) != fmt.Sprint(wantFacts) || len(allFacts["A001"]) != 3 {
		t.Errorf("FactsOf(%v) = %v, want %v", ids, gotFacts, wantFacts)
	}
	if fmt.Sprint(gotLinks) != fmt.Sprint(wantLinks) || len(allLinks["X001"]) != 1 {
		t.Errorf("LinksOf(%v) = %v, want %v", ids, gotLinks, wantLinks)
	}
	want := whole.Standing()
	if len(want) != n-1 || want[0].Conclusion != "C001" || want[0].Decision != "go A001" || want[0].SubjectKey != "s A001" {
		t.Fatalf("the decoded state's standing conclusions: %+v, want C001 to C%03d", want, n-1)
	}
	files := map[string]string{}
	for _, r := range recs {
		files[r.FileName()] = r.ID // any blob name: the base's tree
	}
	for _, facts := range []bool{true, false} {
		b := &Base{Files: files, Records: recs, Lazy: true, Links: whole.Links()}
		if facts {
			b.Facts = whole.Facts()
		}
		st, err := BaseState("T-f", b)
		if err != nil {
			t.Fatal(err)
		}
		before := Decodes()
		got := st.Standing()
		decoded := Decodes() - before
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("facts given %v: the standing conclusions are\n%+v\nwant\n%+v", facts, got, want)
		}
		switch {
		case facts && decoded != 0:
			t.Errorf("the standing conclusions of records that carry their facts decoded %d records, want none", decoded)
		case !facts && decoded < 2*n:
			t.Errorf("without facts the standing conclusions decoded %d records, want at least %d (this test no longer tells the two apart)", decoded, 2*n)
		}
	}
}

// A base whose tree names every record but holds one record twice (its
// tree's other entry unmatched) is refused, lazy or not: no record is
// placed twice in the state a replay goes on from.
func TestBaseRefusesARecordTwice(t *testing.T) {
	a := &Record{ID: "A1", Kind: KindAssessment, Task: "T-b", Clock: 1,
		Body: []byte(`{"subject":"s","question":"q?","materiality":"trivial","reversibility":"reversible"}`), Derived: []byte(`{"subject_key":"s"}`)}
	b := &Record{ID: "A2", Kind: KindAssessment, Task: "T-b", Clock: 2, Body: a.Body, Derived: a.Derived}
	files := map[string]string{a.FileName(): "1", b.FileName(): "2"}
	for _, lazy := range []bool{true, false} {
		if _, err := BaseState("T-b", &Base{Files: files, Records: []*Record{a, b}, Lazy: lazy}); err != nil {
			t.Fatalf("lazy %v: the base as its tree holds it is refused: %v", lazy, err)
		}
		if _, err := BaseState("T-b", &Base{Files: files, Records: []*Record{b, a, a}[1:], Lazy: lazy}); err == nil {
			t.Errorf("lazy %v: a base holding %s twice (and not %s) was taken", lazy, a.ID, b.ID)
		}
	}
}
