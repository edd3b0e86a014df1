package record

import (
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
