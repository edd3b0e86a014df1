package record_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"git-reason/record"
)

// Codes, which a quarantined or refused history reports, names each code
// of its findings once, sorted, and none as an empty list (JSON [], not
// null).
func TestCodes(t *testing.T) {
	found := []record.Finding{{Code: "forged"}, {Code: "inadmissible"}, {Code: "forged"}, {Code: "bad_signature"}, {Code: "inadmissible"}}
	if got, want := record.Codes(found), []string{"bad_signature", "forged", "inadmissible"}; !slices.Equal(got, want) {
		t.Errorf("Codes = %q, want %q", got, want)
	}
	if out, _ := json.Marshal(record.Codes(nil)); string(out) != "[]" {
		t.Errorf("Codes of no finding marshals as %s, want []", out)
	}
}

// LatestID, which the commands whose target defaults to the task's latest
// record of a kind read, is the id of the last record of that kind in the
// task's order, and "" for a kind the task has none of.
func TestLatestID(t *testing.T) {
	ctx := context.Background()
	store := record.NewMemStore()
	w := &record.Writer{Store: store, Actor: "Ann <ann@example.com>", Origin: "o"}
	assess := func(q string) *record.Result {
		t.Helper()
		r, err := w.Append(ctx, "T", record.KindAssessment, []byte(`{"subject":"cache","question":"`+q+`","materiality":"trivial","reversibility":"reversible"}`))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a1 := assess("which?")
	p, err := w.Append(ctx, "T", record.KindPlan, []byte(`{"assessment":"`+a1.ID+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	a2 := assess("again?")
	_, recs, err := store.Load(ctx, "T")
	if err != nil {
		t.Fatal(err)
	}
	st, err := record.Derive("T", recs)
	if err != nil {
		t.Fatal(err)
	}
	for kind, want := range map[record.Kind]string{record.KindAssessment: a2.ID, record.KindPlan: p.ID, record.KindConclusion: ""} {
		if got := st.LatestID(kind); got != want {
			t.Errorf("LatestID(%s) = %q, want %q", kind, got, want)
		}
	}
}
