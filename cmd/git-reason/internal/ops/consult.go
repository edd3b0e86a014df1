package ops

import (
	"context"
	"fmt"
	"time"

	"git-reason/advisor"
	"git-reason/policy"
	"git-reason/record"
)

// ConsultRequest asks for the latest plan of a task to be consulted.
type ConsultRequest struct {
	Task     string
	Timeout  time.Duration       // overall deadline; 0 means the slowest advisor's own timeout
	Progress func(advisor.Event) // live progress; may be nil
}

// Skipped is a selected advisor the run did not ask, and why.
type Skipped struct {
	Advisor string `json:"advisor"`
	Reason  string `json:"reason"`
}

// ConsultResult is what a consult run asked, recorded and opened.
type ConsultResult struct {
	Task         string           `json:"task"`
	Plan         string           `json:"plan"`
	Results      []advisor.Result `json:"-"`
	Skipped      []Skipped        `json:"skipped"`
	Disagreement *record.Result   `json:"-"`
	LocalReview  []string         `json:"local_review,omitempty"`
}

// Consult asks the advisors that the task's latest plan selected,
// concurrently and blind, and records each outcome as it arrives. Advisors
// that already answered this plan, or that are unavailable now (an open
// circuit, a disable), are skipped and reported, not asked. When completed
// answers conflict it opens a disagreement. A plan that selected no advisor
// is no error: the local review is the review.
func (e *Session) Consult(ctx context.Context, req ConsultRequest) (*ConsultResult, error) {
	if err := e.Identify(); err != nil {
		return nil, err
	}
	st, _, err := e.State(ctx, req.Task)
	if err != nil {
		return nil, err
	}
	a := st.LatestAssessment()
	if a == nil {
		return nil, Usage("task %s has no assessment: run 'git reason assess %s' first", req.Task, req.Task)
	}
	plan := st.LatestPlan(a.ID)
	if plan == nil {
		return nil, Usage("assessment %s has no plan: run 'git reason plan %s' first", a.ID[:10], req.Task)
	}
	if c := st.ConclusionOf(a.ID); c != nil {
		return nil, fmt.Errorf("%w: assessment %s is already concluded by %s: assess again to ask anew", record.ErrRefused, a.ID[:10], c.ID[:10])
	}
	pd := plan.Derived.(*record.PlanDerived)
	out := &ConsultResult{Task: req.Task, Plan: plan.ID, Skipped: []Skipped{}}
	if len(pd.Selected) == 0 {
		out.LocalReview = pd.LocalReview
		return out, nil
	}
	cat, _, err := e.Catalog()
	if err != nil {
		return nil, err
	}
	_, snap, err := e.Availability(ctx, time.Now())
	if err != nil {
		return nil, err
	}
	now := map[string]policy.Advisor{}
	for _, s := range snap {
		now[s.ID] = s
	}
	answered := map[string]bool{}
	for _, c := range st.Consultations(a.ID) {
		if b := c.Body.(*record.Consultation); b.Plan == plan.ID && b.Status == "completed" {
			answered[b.Advisor] = true
		}
	}
	run := advisor.Run{Task: req.Task, Plan: plan, Assessment: a, Progress: req.Progress}
	deadline := time.Duration(0)
	for _, id := range pd.Selected {
		d, ok := cat.Advisor(id)
		switch {
		case !ok:
			out.Skipped = append(out.Skipped, Skipped{id, "no longer declared"})
		case answered[id]:
			out.Skipped = append(out.Skipped, Skipped{id, "already answered this plan"})
		case !now[id].Status.Askable():
			out.Skipped = append(out.Skipped, Skipped{id, fmt.Sprintf("%s now: %s", now[id].Status, now[id].Reason)})
		default:
			run.Advisors = append(run.Advisors, d)
			deadline = max(deadline, d.TimeoutOrDefault())
		}
	}
	if req.Timeout > 0 {
		deadline = req.Timeout
	}
	if len(run.Advisors) > 0 {
		cctx, cancel := context.WithTimeout(ctx, deadline)
		out.Results = advisor.Consult(cctx, e.Writer, run)
		cancel()
	}
	for _, r := range out.Results {
		if r.Err != nil {
			return out, r.Err
		}
	}
	st, _, err = e.State(context.WithoutCancel(ctx), req.Task)
	if err != nil {
		return out, err
	}
	if out.Disagreement, err = advisor.OpenDisagreement(ctx, e.Writer, st, st.Get(plan.ID)); err != nil {
		return out, fmt.Errorf("open disagreement: %w", err)
	}
	return out, ctx.Err()
}
