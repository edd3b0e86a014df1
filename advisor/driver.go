package advisor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"git-reason/advisor/material"
	"git-reason/advisor/transport"
	"git-reason/record"
)

// Recorder is the writer as the driver uses it: the one place consultation
// records (and with them model attribution) are written, and the state they
// are admitted against.
type Recorder interface {
	AppendConsultation(ctx context.Context, task string, c *record.Consultation, m *record.Model) (*record.Result, error)
	AppendDriverDisagreement(ctx context.Context, task string, d *record.Disagreement) (*record.Result, error)
	State(ctx context.Context, task string) (*record.State, error)
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
	// Timeout is the deadline of the whole run; 0 means the slowest
	// advisor's own timeout.
	Timeout  time.Duration
	Progress func(Event) // called from one goroutine at a time; may be nil
	// Journal, when set, receives each outcome as it is recorded, with
	// Origin (this clone's): the only input circuits are derived from.
	Journal *Journal
	Origin  string
	// Material, when set, is the consultation's material: each advisor is
	// asked the question it renders for the advisor's ContextBudget, and
	// what was sent is recorded. Nil asks the summaries alone.
	Material *material.Set
}

// Result is what a consult run did for one advisor, in plan order.
type Result struct {
	*Asked
	Record    string `json:"record"`
	Duplicate bool   `json:"duplicate,omitempty"` // a concurrent run recorded this advisor first
	Err       error  `json:"-"`
}

// Skipped is an advisor of the run that was not asked, and why.
type Skipped struct {
	Advisor string `json:"advisor"`
	Reason  string `json:"reason"`
}

// Report is what a consult run did: each asked advisor's result in plan
// order, the advisors it did not ask, and the disagreement it opened.
type Report struct {
	Results      []Result
	Skipped      []Skipped
	Disagreement *record.Result // nil when the answers do not conflict
	// Err is the first failure to record an outcome or to open the
	// disagreement; the outcomes recorded before it stand.
	Err error
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

// Consult runs one consultation of a plan. It asks the run's advisors
// concurrently and blind, records each outcome through w as it arrives, and
// returns the results in plan order. An advisor that already answered the
// plan is not asked: the writer admits one answer per advisor and plan, and
// the driver asks it (State.AnsweredBy) before spending a request. When the
// plan's completed answers then take conflicting stances, Consult opens a
// disagreement (opened_by driver) itself.
//
// A cancelled ctx (Ctrl-C) or the run's deadline ends every request; their
// outcomes are still recorded, as cancelled or timeout, with a context that
// outlives the cancellation, so that nothing is left half-written.
func Consult(ctx context.Context, w Recorder, run Run) Report {
	rep := Report{Skipped: []Skipped{}}
	st, err := w.State(ctx, run.Task)
	if err != nil {
		rep.Err = err
		return rep
	}
	var ask []Declaration
	deadline := run.Timeout
	for _, d := range run.Advisors {
		if st.AnsweredBy(run.Plan.ID, d.ID) != nil {
			rep.Skipped = append(rep.Skipped, Skipped{d.ID, "already answered this plan"})
			continue
		}
		ask = append(ask, d)
		if run.Timeout <= 0 {
			deadline = max(deadline, d.TimeoutOrDefault())
		}
	}
	if len(ask) > 0 {
		cctx, cancel := context.WithTimeout(ctx, deadline)
		rep.Results = askAndRecord(cctx, w, run, ask)
		cancel()
	}
	for _, r := range rep.Results {
		if r.Err != nil {
			rep.Err = r.Err
			return rep
		}
	}
	// Earlier runs' answers count too: re-read what is on the task now.
	if st, err = w.State(context.WithoutCancel(ctx), run.Task); err != nil {
		rep.Err = err
		return rep
	}
	if rep.Disagreement, err = OpenDisagreement(ctx, w, st, st.Get(run.Plan.ID)); err != nil {
		rep.Err = fmt.Errorf("open disagreement: %w", err)
	}
	return rep
}

// askAndRecord asks advisors concurrently and records each outcome as it
// arrives; the results are in the order of advisors.
func askAndRecord(ctx context.Context, w Recorder, run Run, advisors []Declaration) []Result {
	pd := run.Plan.Derived.(*record.PlanDerived)
	type arrival struct {
		i     int
		asked *Asked
		cut   bool // ended by the run's deadline before its own timeout
	}
	arrivals := make(chan arrival)
	for i, d := range advisors {
		req, sent := Question(run.Material, run.Assessment, pd.Needs, d)
		go func(i int, d Declaration) {
			a := Ask(ctx, d, req)
			a.Sent = sent
			cut := false
			if a.Failure != nil && ctx.Err() != nil {
				a.Failure = failureOf(ctx.Err())
				cut = run.Timeout > 0 && run.Timeout < d.TimeoutOrDefault()
			}
			arrivals <- arrival{i, a, cut}
		}(i, d)
		if run.Progress != nil {
			run.Progress(Event{Advisor: d.ID})
		}
	}
	// Recording must finish even when ctx is cancelled.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	results := make([]Result, len(advisors))
	for range advisors {
		got := <-arrivals
		results[got.i] = record1(rctx, w, run.Task, run.Plan.ID, got.asked)
		// A deadline the caller chose (--timeout, the MCP tool's
		// timeout_s) shorter than the advisor's own timeout says nothing
		// about the advisor, as a cancelled request says nothing: counted,
		// two such runs opened its circuit, and the next plan asked no one.
		if run.Journal != nil && !got.cut {
			journal(run, got.asked, &results[got.i])
		}
		if run.Progress != nil {
			r := results[got.i]
			run.Progress(Event{Advisor: got.asked.Advisor, Asked: got.asked, Record: r.Record, Err: r.Err})
		}
	}
	return results
}

// journal appends one asked advisor's outcome to this clone's journal. A
// cancelled request says nothing about the advisor and is not journalled.
func journal(run Run, asked *Asked, res *Result) {
	o := Outcome{Advisor: asked.Advisor, Origin: run.Origin, Status: OutcomeCompleted, At: time.Now().UTC()}
	if !asked.Completed() && asked.Failure != nil {
		o.Status, o.FailureKind, o.RetryAfterS = OutcomeFailed, FailureKind(asked.Failure.Kind), asked.Failure.RetryAfterS
	} else if !asked.Completed() {
		o.Status, o.FailureKind = OutcomeFailed, transport.Unavailable
	}
	if o.FailureKind == transport.Cancelled {
		return
	}
	if err := run.Journal.Append(o, run.Task, res.Record); err != nil && res.Err == nil {
		res.Err = fmt.Errorf("record the outcome of %s in this clone's journal: %w", asked.Advisor, err)
	}
}

// EndpointRecorder is a Recorder that also records the endpoint a
// consultation contacted (the writer is one).
type EndpointRecorder interface {
	AppendConsultationFrom(ctx context.Context, task string, c *record.Consultation, m *record.Model, endpoint string) (*record.Result, error)
}

// QuestionRecorder is a Recorder that also records what a consultation
// sent (the writer is one).
type QuestionRecorder interface {
	AppendConsultationSent(ctx context.Context, task string, c *record.Consultation, m *record.Model, endpoint string, q *record.Question) (*record.Result, error)
}

func appendConsultation(ctx context.Context, w Recorder, task string, c *record.Consultation, m *record.Model, endpoint string, q *record.Question) (*record.Result, error) {
	if qw, ok := w.(QuestionRecorder); ok && q != nil {
		return qw.AppendConsultationSent(ctx, task, c, m, endpoint, q)
	}
	if ew, ok := w.(EndpointRecorder); ok && endpoint != "" {
		return ew.AppendConsultationFrom(ctx, task, c, m, endpoint)
	}
	return w.AppendConsultation(ctx, task, c, m)
}

// Question is what advisor d is asked in a run: the question set renders
// for d's ContextBudget, with its manifest, or, without a set, the
// assessment's summaries alone (and no manifest).
func Question(set *material.Set, a *record.Entry, needs []string, d Declaration) (transport.Request, *record.Question) {
	if set == nil {
		return Request(a, needs), nil
	}
	req, q := set.For(ContextBudget(d))
	return req, &q
}

// record1 records one advisor's outcome.
func record1(ctx context.Context, w Recorder, task, plan string, asked *Asked) Result {
	res := Result{Asked: asked}
	c := &record.Consultation{Plan: plan, Advisor: asked.Advisor, Transport: asked.Transport,
		DurationMS: asked.Duration.Milliseconds()}
	if asked.Completed() {
		c.Status, c.Conclusion = "completed", asked.Conclusion
	} else {
		c.Status, c.Failure = "failed", asked.Failure
	}
	stored, err := appendConsultation(ctx, w, task, c, asked.Model, asked.Endpoint, asked.Sent)
	if errors.Is(err, record.ErrInput) && c.Status == "completed" {
		// An answer the writer cannot store is still an outcome the
		// circuits must see: record it as malformed.
		c.Status, c.Conclusion = "failed", nil
		c.Failure = &record.Failure{Kind: string(transport.Malformed), Detail: "the answer could not be stored"}
		asked.Conclusion, asked.Model, asked.Failure = nil, nil, c.Failure
		stored, err = appendConsultation(ctx, w, task, c, nil, asked.Endpoint, asked.Sent)
	}
	switch {
	case errors.Is(err, record.ErrAlreadyAnswered):
		// A concurrent run recorded this advisor's answer first: one
		// answer per advisor and plan, so this one is not counted.
		res.Duplicate = true
	case err != nil:
		res.Err = fmt.Errorf("record consultation of %s: %w", asked.Advisor, err)
	default:
		res.Record = stored.ID
	}
	return res
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
		Summary: fmt.Sprintf("advisors take conflicting stances on plan %s: some endorse, some oppose", record.ShortID(plan.ID))}
	return w.AppendDriverDisagreement(context.WithoutCancel(ctx), st.Task, d)
}
