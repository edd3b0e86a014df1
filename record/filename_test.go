package record

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestFileNameBuilt: FileName names a record as "%010d-%s-%s.json" does,
// for every clock width, with one allocation (fmt.Sprintf made several; a
// status names every record of its saved state).
func TestFileNameBuilt(t *testing.T) {
	for _, clock := range []int64{0, 1, 42, 999999999, 1000000000, 9999999999, 12345678901, 1 << 62, -1, -123} {
		r := &Record{Clock: clock, Kind: KindConclusion, ID: "01J0000000000000000000000A"}
		if got, want := r.FileName(), fmt.Sprintf("%010d-%s-%s.json", r.Clock, r.Kind, r.ID); got != want {
			t.Errorf("clock %d: %q, want %q", clock, got, want)
		}
	}
	r := &Record{Clock: 1234, Kind: KindAssessment, ID: "01J0000000000000000000000A"}
	if n := testing.AllocsPerRun(100, func() { _ = r.FileName() }); n != 1 {
		t.Errorf("FileName allocates %.0f times, want 1", n)
	}
}

// TestBlob: a record's blob, what the store, the bulk writer of the tests
// and the benchmarks all write as its file, is its JSON indented by two
// spaces with a newline after, the actor's "<" and ">" as they are (git
// show reads them), and it reads back as the record.
func TestBlob(t *testing.T) {
	rec := &Record{ID: "01J0", Kind: KindAssessment, Task: "T", Created: "2026-12-03T15:00:00Z",
		Actor: "Ada <ada@example.invalid>", Origin: "o", Clock: 7, Body: []byte(`{"subject":"a & b"}`), Derived: []byte(`{}`)}
	blob, err := rec.Blob()
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"id\": \"01J0\",\n  \"kind\": \"assessment\",\n  \"task\": \"T\",\n  \"created\": \"2026-12-03T15:00:00Z\",\n" +
		"  \"actor\": \"Ada <ada@example.invalid>\",\n  \"origin\": \"o\",\n  \"clock\": 7,\n" +
		"  \"body\": {\n    \"subject\": \"a & b\"\n  },\n  \"derived\": {}\n}\n"
	if string(blob) != want {
		t.Errorf("the blob is\n%s\nwant\n%s", blob, want)
	}
	var back Record
	if err := json.Unmarshal(blob, &back); err != nil {
		t.Fatal(err)
	}
	if again, err := back.Blob(); err != nil || string(again) != want || back.Actor != rec.Actor || back.Clock != rec.Clock {
		t.Errorf("the blob reads back as %+v, whose blob is\n%s (%v)", back, again, err)
	}
}
