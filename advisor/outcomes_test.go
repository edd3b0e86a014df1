package advisor

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"git-reason/record"
)

func TestOutcomesFrom(t *testing.T) {
	body := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	recs := []record.Record{
		{ID: "A", Kind: record.KindPlan, Created: "2026-03-01T12:00:00Z", Body: body(map[string]string{"assessment": "X"})},
		{ID: "B", Kind: record.KindConsultation, Origin: me, Created: "2026-03-01T12:01:00Z",
			Body: body(record.Consultation{Plan: "A", Advisor: "alpha", Status: OutcomeFailed,
				Failure: &record.Failure{Kind: "rate_limit", RetryAfterS: 30}})},
		{ID: "C", Kind: record.KindConsultation, Origin: them, Created: "2026-03-01T12:02:00.5Z",
			Body: body(record.Consultation{Plan: "A", Advisor: "bravo", Status: OutcomeCompleted})},
	}
	got, err := OutcomesFrom(recs)
	if err != nil {
		t.Fatal(err)
	}
	want := []Outcome{
		{Advisor: "alpha", Origin: me, Status: OutcomeFailed, FailureKind: FailureRateLimit, RetryAfterS: 30, At: at(1)},
		{Advisor: "bravo", Origin: them, Status: OutcomeCompleted, At: at(2).Add(500 * time.Millisecond)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	recs[1].Created = "yesterday"
	if _, err := OutcomesFrom(recs); err == nil || !strings.Contains(err.Error(), "consultation B") {
		t.Errorf("bad time: got %v", err)
	}
}
