package advisor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"git-reason/advisor/transport"
	"git-reason/record"
)

// Recorder is the writer as the driver uses it: the one place consultation
// records (and with them model attribution) are written.
type Recorder interface {
	AppendConsultation(ctx context.Context, task string, c *record.Consultation, m *record.Model) (*record.Result, error)
	AppendDriverDisagreement(ctx context.Context, task string, d *record.Disagreement) (*record.Result, error)
}

// Event reports progress of a consult run: an advisor was asked, or its
// outcome was recorded.
type Event struct {
	Advisor string
	Asked   *Asked // nil when the advisor was just asked
	Record  string // the consultation's record id, once recorded
	Err     error  // a failure to record
}

// Run is one consult run over one plan.
type Run struct {
	Task       string
	Plan       *record.Entry // the plan whose selection is consulted
	Assessment *record.Entry // the assessment the plan is for
	Advisors   []Declaration // the advisors to ask, in plan order
	Progress   func(Event)   // called from one goroutine at a time; may be nil
}

// Result is what a consult run did for one advisor, in plan order.
type Result struct {
	*Asked
	Record    string `json:"record"`
	Duplicate bool   `json:"duplicate,omitempty"` // a concurrent run recorded this advisor first
	Err       error  `json:"-"`
}

// Request builds the review request of an assessment: question, subject,
// evidence summaries and the capabilities needed. Every advisor gets the
// same request and none sees another's answer.
func Request(a *record.Entry, needs []string) transport.Request {
	body := a.Body.(*record.Assessment)
	req := transport.Request{Subject: body.Subject, Question: body.Question, Needs: needs,
		Materiality: body.Materiality, Reversibility: body.Reversibility}
	for _, ev := range body.Evidence {
		s := ev.Kind + ": " + ev.Summary
		if ev.Ref != "" {
			s = ev.Kind + " " + ev.Ref + ": " + ev.Summary
		}
		req.Evidence = append(req.Evidence, s)
	}
	return req
}

// Consult asks the run's advisors concurrently and blind, records each
// outcome through w as it arrives, and returns the results in plan order.
// A cancelled ctx (Ctrl-C) or its deadline ends every request; their
// outcomes are still recorded, as cancelled or timeout, with a context that
// outlives the cancellation, so that nothing is left half-written.
func Consult(ctx context.Context, w Recorder, run Run) []Result {
	pd := run.Plan.Derived.(*record.PlanDerived)
	req := Request(run.Assessment, pd.Needs)
	type arrival struct {
		i     int
		asked *Asked
	}
	arrivals := make(chan arrival)
	for i, d := range run.Advisors {
		go func(i int, d Declaration) {
			a := Ask(ctx, d, req)
			if a.Failure != nil && ctx.Err() != nil {
				a.Failure = failureOf(ctx.Err())
			}
			arrivals <- arrival{i, a}
		}(i, d)
		if run.Progress != nil {
			run.Progress(Event{Advisor: d.ID})
		}
	}
	// Recording must finish even when ctx is cancelled.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	results := make([]Result, len(run.Advisors))
	for range run.Advisors {
		got := <-arrivals
		res := Result{Asked: got.asked}
		c := &record.Consultation{Plan: run.Plan.ID, Advisor: got.asked.Advisor, Transport: got.asked.Transport,
			DurationMS: got.asked.Duration.Milliseconds()}
		if got.asked.Completed() {
			c.Status, c.Conclusion = "completed", got.asked.Conclusion
		} else {
			c.Status, c.Failure = "failed", got.asked.Failure
		}
		stored, err := w.AppendConsultation(rctx, run.Task, c, got.asked.Model)
		if errors.Is(err, record.ErrInput) && c.Status == "completed" {
			// An answer the writer cannot store is still an outcome the
			// circuits must see: record it as malformed.
			c.Status, c.Conclusion = "failed", nil
			c.Failure = &record.Failure{Kind: string(transport.Malformed), Detail: "the answer could not be stored"}
			got.asked.Conclusion, got.asked.Model, got.asked.Failure = nil, nil, c.Failure
			stored, err = w.AppendConsultation(rctx, run.Task, c, nil)
		}
		if errors.Is(err, record.ErrAlreadyAnswered) {
			// A concurrent run recorded this advisor's answer first: one
			// answer per advisor and plan, so this one is not counted.
			res.Duplicate = true
		} else if err != nil {
			res.Err = fmt.Errorf("record consultation of %s: %w", got.asked.Advisor, err)
		} else {
			res.Record = stored.ID
		}
		results[got.i] = res
		if run.Progress != nil {
			run.Progress(Event{Advisor: got.asked.Advisor, Asked: got.asked, Record: res.Record, Err: res.Err})
		}
	}
	return results
}

// Conflicting returns the completed consultations of a plan whose stances
// conflict (some endorse while others oppose), or nil when they do not.
// Agreement is never counted: any one opposing answer against any one
// endorsing answer is a disagreement for a person to settle.
func Conflicting(st *record.State, plan string) []*record.Entry {
	var pro, con []*record.Entry
	for _, e := range st.Entries {
		if e.Kind != record.KindConsultation {
			continue
		}
		c := e.Body.(*record.Consultation)
		if c.Plan != plan || c.Conclusion == nil {
			continue
		}
		switch c.Conclusion.Stance {
		case transport.StanceEndorse, transport.StanceEndorseWithChanges:
			pro = append(pro, e)
		case transport.StanceOppose:
			con = append(con, e)
		}
	}
	if len(pro) == 0 || len(con) == 0 {
		return nil
	}
	return append(pro, con...)
}

// OpenDisagreement opens a disagreement (opened_by driver) over the plan's
// conflicting consultations, unless an open disagreement already cites each
// of them. It returns the new record, or nil when none was needed.
func OpenDisagreement(ctx context.Context, w Recorder, st *record.State, plan *record.Entry) (*record.Result, error) {
	conflict := Conflicting(st, plan.ID)
	if conflict == nil {
		return nil, nil
	}
	assessment := plan.Body.(*record.Plan).Assessment
	// Answers already cited by a disagreement, open or settled, are not
	// disputed again: a resolution settles them.
	cited := map[string]bool{}
	for _, d := range st.Entries {
		if d.Kind != record.KindDisagreement || d.Body.(*record.Disagreement).Assessment != assessment {
			continue
		}
		for _, id := range d.Body.(*record.Disagreement).Cites {
			cited[id] = true
		}
	}
	var ids []string
	fresh := false
	for _, e := range conflict {
		ids = append(ids, e.ID)
		fresh = fresh || !cited[e.ID]
	}
	if !fresh {
		return nil, nil
	}
	d := &record.Disagreement{Assessment: assessment, Cites: ids,
		Summary: fmt.Sprintf("advisors take conflicting stances on plan %s: some endorse, some oppose", plan.ID[:10])}
	return w.AppendDriverDisagreement(context.WithoutCancel(ctx), st.Task, d)
}
