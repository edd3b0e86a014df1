package record_test

import (
	"context"
	"testing"
	"time"

	"git-reason/record"
)

// TestShortIDsDifferInOneMillisecond: records a writer makes in one
// millisecond (a clock that does not move) still have short ids of their
// own, which commands accept as unambiguous prefixes; their Created is
// the clock's.
func TestShortIDsDifferInOneMillisecond(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 12, 3, 14, 0, 0, 0, time.UTC)
	w := &record.Writer{Store: record.NewMemStore(), Actor: "Ada <ada@example.invalid>", Origin: "o", Now: func() time.Time { return at }}
	body := []byte(`{"subject":"s","question":"q?","materiality":"trivial","reversibility":"reversible"}`)
	seen := map[string]bool{}
	for range 3 {
		rec, err := w.Append(ctx, "T", record.KindAssessment, body)
		if err != nil {
			t.Fatal(err)
		}
		short := record.ShortID(rec.ID)
		if seen[short] {
			t.Errorf("record %s has the short id %s of an earlier one", rec.ID, short)
		}
		seen[short] = true
		if rec.Created != at.Format(record.TimeLayout) {
			t.Errorf("record %s created %s, want the clock's %s", rec.ID, rec.Created, at.Format(record.TimeLayout))
		}
	}
}
