package ops

import (
	"reflect"
	"testing"

	"git-reason/gitstore/signing"
	"git-reason/record"
)

// fullHandover is a handover with every field set but PersonStep (the
// moment's, never kept) and NextTools (the MCP server's, set on each
// answer), texts holding what a row's format must quote.
func fullHandover() record.Handover {
	return record.Handover{
		Task: "T-1", Subject: "tab\there, \"quoted\"\nand a newline", Phase: record.Phase("concluded"),
		Updated: "2026-12-03T06:29:56.957Z", Actors: []string{"Ada <ada@example.invalid>", "Bo\tb <b@example.invalid>"},
		Next: "git reason consult T-1", Finished: true,
		Disagreements: []record.HandoverDispute{{ID: "01D", OpenedBy: "caller", Actor: "Ada", Cites: []string{"01A", "01B"}, Summary: "s"}},
		LocalReview:   []string{"item one", ""},
		Consultations: []record.HandoverConsult{{ID: "01C", Advisor: "a1", Status: "failed", Failure: "timeout", Detail: "d", Failures: 2}},
		Missing:       []string{"a2"},
		Reuse:         &record.HandoverReuse{Conclusion: "01X", Task: "T-0", Actor: "Ada"},
		Standing:      []record.Standing{{Task: "T-1", Conclusion: "01E", Assessment: "01A", SubjectKey: "k", Decision: "d", Clock: 4, Actor: "Ada", Materiality: "minor", Reversibility: "reversible"}},
		Validation:    &record.HandoverValidation{ID: "01V", Result: "pass", Method: "command", Command: "go test", Created: "2026-12-03T07:00:00Z", Actor: "Ada"},
		Attempt:       &record.HandoverAttempt{ID: "01T", Outcome: "failed", Commits: []string{"abc"}, Created: "2026-12-03T07:01:00Z"},
		Settled:       "2026-12-03T07:00:00Z",
		Closed:        &record.Closed{Closure: "01Z", Outcome: "done", By: "T-2", Reason: "r", Conclusion: "01E", Actor: "Ada", Created: "2026-12-03T08:00:00Z"},
		DoesNotVerify: &record.Finding{Task: "T-1", Commit: "c0ffee", Record: "01A", Code: "order", Message: "m"},
		AnsweredBy:    "person",
	}
}

// TestHandoverRowRoundTrip: a row's entry reads back as the row it was
// made of, for a handover with every field set (a field added to
// record.Handover and not kept in a row fails here: the fixture must set
// it) and for the plain handover most tasks have (no rarer part, empty
// lists, nothing to decode as JSON). Its lists read back empty, not nil,
// as State.Handover makes them: a standing list read back nil was
// 'standing: null', which the handover's published schema refuses, so
// the MCP handover tool failed on every call that read kept rows.
func TestHandoverRowRoundTrip(t *testing.T) {
	full := fullHandover()
	v := reflect.ValueOf(full)
	for i := 0; i < v.NumField(); i++ {
		if name := v.Type().Field(i).Name; name != "PersonStep" && name != "NextTools" && v.Field(i).IsZero() {
			t.Errorf("the fixture leaves record.Handover.%s unset: set it, and keep it in a handover row", name)
		}
	}
	plain := record.Handover{Task: "T-000001", Subject: "bulk subject", Phase: "planned", Updated: "2026-12-03T06:29:56.957Z",
		Actors: []string{"Bulk <bulk@example.invalid>"}, Next: "git reason conclude T-000001 --decision ...",
		Disagreements: []record.HandoverDispute{}, LocalReview: []string{}, Consultations: []record.HandoverConsult{}, Missing: []string{},
		Standing: []record.Standing{}}
	sigs := &SignatureSummary{Counts: map[signing.Status]int{signing.Good: 1, signing.Unsigned: 2}, Signers: []string{"Ada <ada@example.invalid>"}}
	for _, row := range []handoverRow{
		{h: full, selected: []string{"a1", "a2"}, sigs: sigs},
		{h: plain, selected: []string{}, sigs: &SignatureSummary{Counts: map[signing.Status]int{signing.Unsigned: 2}, Signers: []string{}}},
	} {
		data := formatHandoverRow(row)
		got, keep, ok := parseHandoverRow(row.h.Task, data, func(bool, string, []string) bool { return true }, map[string]*SignatureSummary{})
		if !ok || !keep {
			t.Fatalf("the row of %s does not read back (ok %v, kept %v): %q", row.h.Task, ok, keep, data)
		}
		if !reflect.DeepEqual(got, row) {
			t.Errorf("the row of %s read back as\n%+v\nwant\n%+v\n(entry %q)", row.h.Task, got, row, data)
		}
	}
	if data := formatHandoverRow(handoverRow{h: plain, sigs: sigs}); data[len(data)-1] != '-' {
		t.Errorf("a plain handover's row keeps a rarer part: %q", data)
	}
}

// TestHandoverRowShown: a task the handover does not show is read no
// further than what decides it (finished, settled, actors), and an entry
// cut short or with a field that does not read is no row.
func TestHandoverRowShown(t *testing.T) {
	row := handoverRow{h: fullHandover(), sigs: &SignatureSummary{Counts: map[signing.Status]int{}, Signers: []string{}}}
	data := formatHandoverRow(row)
	var asked []string
	_, keep, ok := parseHandoverRow("T-1", data, func(finished bool, settled string, actors []string) bool {
		asked = append(actors, settled)
		return !finished
	}, map[string]*SignatureSummary{})
	if !ok || keep || !reflect.DeepEqual(asked, append(append([]string{}, row.h.Actors...), row.h.Settled)) {
		t.Errorf("a finished task: kept %v (ok %v), shown asked with %q", keep, ok, asked)
	}
	all := func(bool, string, []string) bool { return true }
	for _, bad := range [][]byte{data[:len(data)/2], []byte("maybe" + string(data[4:])), []byte("false\t\"\"\t3\t\"one\"\t-")} {
		if _, _, ok := parseHandoverRow("T-1", bad, all, map[string]*SignatureSummary{}); ok {
			t.Errorf("the entry %q reads as a row", bad)
		}
	}
}
