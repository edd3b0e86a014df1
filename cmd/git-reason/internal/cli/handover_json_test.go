package cli

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/gitstore/signing"
	"git-reason/record"
)

// filled returns a T whose every pointer to a struct is set and every list
// of structs holds one element, recursively, with every other list nil:
// with a zero T beside it, each nil list a handover can hold, at any
// depth, including those of fields added after this test was written.
func filled[T any]() T {
	var v T
	fill(reflect.ValueOf(&v).Elem())
	return v
}

func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				fill(f)
			}
		}
	case reflect.Pointer:
		if v.Type().Elem().Kind() == reflect.Struct {
			v.Set(reflect.New(v.Type().Elem()))
			fill(v.Elem())
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Struct {
			v.Set(reflect.MakeSlice(v.Type(), 1, 1))
			fill(v.Index(0))
		}
	}
}

// The handover's own JSON writer prints byte for byte what the generic
// exporter prints: the same fields in the same order, the same
// indentation, HTML characters left as they are, and [] for every nil
// list however deep.
func TestHandoverJSONIsExportJSON(t *testing.T) {
	bare := filled[record.Handover]()
	bare.Task, bare.Subject = "T-1", `<b>bold</b> & "quoted" \ tab	end`
	full := record.Handover{Task: "T-2", Phase: "disputed", Actors: []string{"A <a@b>"}, Next: "git reason resolve T-2",
		Disagreements: []record.HandoverDispute{{ID: "01X", Cites: []string{"file:a.go"}}, {ID: "01Y"}},
		Attempt:       &record.HandoverAttempt{ID: "01Z", Outcome: "failed", Commits: []string{"abc"}},
		Standing:      []record.Standing{{Task: "T-2", Decision: "yes"}}}
	circuit := filled[ops.AdvisorRow]()
	circuit.ID, circuit.Until = "adv-x", "2999-01-01T00:00:00Z"
	for name, r := range map[string]*ops.HandoverReport{
		"empty":    {Since: "2026-01-01T00:00:00Z"},
		"nil open": {Since: "2026-01-01T00:00:00Z", Open: nil, Settled: []record.Handover{}, Circuits: nil},
		"tasks": {Since: "2026-01-01T00:00:00Z", Open: []record.Handover{bare, full, {Task: "T-0"}, bare},
			Settled: []record.Handover{full}, Circuits: []ops.AdvisorRow{circuit, {ID: "adv-y"}}},
		"circuits error": {Since: "2026-01-01T00:00:00Z", Open: []record.Handover{full},
			CircuitsError: "declarations <do not> read"},
		"signatures": {Since: "2026-01-01T00:00:00Z", Open: []record.Handover{full},
			Signatures: map[string]*ops.SignatureSummary{
				"T-2": {Counts: map[signing.Status]int{signing.Good: 2, signing.Unsigned: 1}, Signers: []string{"ada@example.invalid"}},
				"T-1": {Counts: map[signing.Status]int{signing.Unsigned: 3}}}},
	} {
		var want, got bytes.Buffer
		if err := exportJSON(&want, r); err != nil {
			t.Fatal(err)
		}
		if err := writeHandoverJSON(&got, r); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%s: writeHandoverJSON prints\n%s\nexportJSON prints\n%s", name, got.String(), want.String())
		}
		if strings.Contains(got.String(), "null") {
			t.Errorf("%s: a null in\n%s", name, got.String())
		}
	}
}
