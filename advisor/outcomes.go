package advisor

import (
	"encoding/json"
	"fmt"
	"time"

	"git-reason/record"
)

// OutcomesFrom turns the consultation records among recs (records of other
// kinds are skipped) into the outcomes Circuit replays: advisor, origin,
// status, failure kind and retry_after_s from the body, At from the
// envelope's created time. It does not filter by origin; Circuit does. A
// consultation whose body or time cannot be read is an error naming it.
func OutcomesFrom(recs []record.Record) ([]Outcome, error) {
	var out []Outcome
	for _, r := range recs {
		if r.Kind != record.KindConsultation {
			continue
		}
		var c record.Consultation
		if err := json.Unmarshal(r.Body, &c); err != nil {
			return nil, fmt.Errorf("read consultation %s: %w", r.ID, err)
		}
		at, err := time.Parse(time.RFC3339Nano, r.Created)
		if err != nil {
			return nil, fmt.Errorf("read consultation %s: created time: %w", r.ID, err)
		}
		o := Outcome{Advisor: c.Advisor, Origin: r.Origin, Status: c.Status, At: at}
		if c.Failure != nil {
			o.FailureKind = FailureKind(c.Failure.Kind)
			o.RetryAfterS = c.Failure.RetryAfterS
		}
		out = append(out, o)
	}
	return out, nil
}
