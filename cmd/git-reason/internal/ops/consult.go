package ops

import (
	"context"
	"fmt"
	"slices"
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

// ConsultResult is what a consult run asked, recorded and opened.
type ConsultResult struct {
	Task         string            `json:"task"`
	Plan         string            `json:"plan"`
	Results      []advisor.Result  `json:"-"`
	Skipped      []advisor.Skipped `json:"skipped"`
	Disagreement *record.Result    `json:"-"`
	LocalReview  []string          `json:"local_review,omitempty"`
	// Planned is true when consult planned first: the task's latest
	// assessment had no plan, and Plan was written by this run.
	Planned bool `json:"planned,omitempty"`
	// Lowered, when consult planned first, says that the repository's
	// declarations lowered that plan's review (see PlanLowered).
	Lowered *Lowered `json:"lowered,omitempty"`
	// Questions says what each advisor asked was sent: the material, what
	// was cut, the question's size and digest.
	Questions []AdvisorQuestion `json:"questions,omitempty"`
}

// Consult runs the consult driver over the task's latest plan. Advisors of
// the plan that are no longer declared or are unavailable now (an open
// circuit, a disable) are skipped and reported, not asked; the driver
// skips those that already answered, records every outcome and opens a
// disagreement when the answers conflict. A plan that selected no advisor
// is no error: the local review is the review. An assessment with no plan
// is planned first, as plan would. When the plan selected advisors but
// none of them can be asked now, the result lists them as skipped and the
// error is a refusal saying what to do instead.
func (e *Session) Consult(ctx context.Context, req ConsultRequest) (*ConsultResult, error) {
	// The identity now, the origin only when an advisor is asked: a
	// consult with nothing to ask writes nothing, not even the origin.
	if err := e.IdentifyWriter(); err != nil {
		return nil, err
	}
	st, _, err := e.State(ctx, req.Task)
	if err != nil {
		return nil, err
	}
	a := st.LatestAssessment()
	if a == nil {
		return nil, usageAdvised(fmt.Sprintf("task %s has no assessment: run 'git reason assess %s' first", req.Task, req.Task),
			fmt.Sprintf("task %s has no assessment: call the assess tool first", req.Task))
	}
	if c := st.ConclusionOf(a.ID); c != nil {
		return nil, fmt.Errorf("%w: assessment %s is already concluded by %s: assess again to ask anew", record.ErrRefused, record.ShortID(a.ID), record.ShortID(c.ID))
	}
	plan, planned := st.LatestPlan(a.ID), false
	var lowered *Lowered
	if plan == nil {
		res, err := e.Append(ctx, req.Task, record.KindPlan, Marshal(&record.Plan{Assessment: a.ID}))
		if err != nil {
			return nil, err
		}
		plan, planned, lowered = res.Entry, true, e.PlanLowered(ctx, res)
	}
	pd := plan.Derived.(*record.PlanDerived)
	out := &ConsultResult{Task: req.Task, Plan: plan.ID, Skipped: []advisor.Skipped{}, Planned: planned, Lowered: lowered}
	if len(pd.Selected) == 0 {
		if cat, _, err := e.Catalog(); err == nil {
			e.noticeUntrusted(cat) // it may be why nothing was selected
		}
		out.LocalReview = pd.LocalReview
		return out, nil
	}
	cat, snap, err := e.catalogNow(ctx)
	if err != nil {
		return nil, err
	}
	run := advisor.Run{Task: req.Task, Plan: plan, Assessment: a, Timeout: req.Timeout, Progress: req.Progress,
		Journal: e.Journal()}
	ask, skipped := selectedNow(cat, snap, pd.Selected)
	run.Advisors = ask
	out.Skipped = append(out.Skipped, skipped...)
	if len(run.Advisors) == 0 {
		return out, noneAskable(req.Task, out.Skipped, snap, pd.Selected)
	}
	set, qs, err := e.questions(ctx, st, plan, run.Advisors)
	if err != nil {
		return nil, err
	}
	if err := e.checkConsultCap(qs); err != nil {
		return nil, err
	}
	if err := e.Identify(); err != nil { // the outcomes journalled name this clone's origin
		return nil, err
	}
	run.Origin = e.Writer.Origin
	run.Material, out.Questions = set, qs
	rep := advisor.Consult(ctx, e.Writer, run)
	out.Results, out.Disagreement = rep.Results, rep.Disagreement
	asked := map[string]bool{}
	for _, r := range rep.Results {
		asked[r.Advisor] = true
	}
	out.Questions = slices.DeleteFunc(out.Questions, func(q AdvisorQuestion) bool { return !asked[q.Advisor] })
	out.Skipped = append(out.Skipped, rep.Skipped...)
	if rep.Err != nil {
		return out, rep.Err
	}
	return out, ctx.Err()
}

// ConsultRow is one advisor's outcome as both surfaces print it: the
// command line's consult --json and the MCP consult tool.
type ConsultRow struct {
	Advisor    string  `json:"advisor"`
	Status     string  `json:"status"`
	Stance     string  `json:"stance,omitempty"`
	Summary    string  `json:"summary,omitempty"`
	Confidence float64 `json:"confidence,omitempty"`
	Failure    string  `json:"failure,omitempty"`
	// FailureDetail says what went wrong in the failure's kind (what a
	// malformed answer lacked, which credential is not set), as the
	// consultation records it.
	FailureDetail string `json:"failure_detail,omitempty"`
	RetryAfter    int    `json:"retry_after_s,omitempty"`
	Model         string `json:"model,omitempty"`
	Source        string `json:"model_source,omitempty"`
	DurationMS    int64  `json:"duration_ms"`
	Record        string `json:"record,omitempty"`
	Duplicate     bool   `json:"duplicate,omitempty"`
}

// Rows returns the result's outcomes in plan order, never nil.
func (r *ConsultResult) Rows() []ConsultRow {
	rows := []ConsultRow{}
	for _, a := range r.Results {
		row := ConsultRow{Advisor: a.Advisor, DurationMS: a.Duration.Milliseconds(), Record: a.Record, Duplicate: a.Duplicate}
		if a.Completed() {
			row.Status, row.Stance, row.Summary, row.Confidence = "completed", a.Conclusion.Stance, a.Conclusion.Summary, a.Conclusion.Confidence
		} else {
			row.Status, row.Failure, row.FailureDetail, row.RetryAfter = "failed", a.Failure.Kind, a.Failure.Detail, a.Failure.RetryAfterS
		}
		if a.Model != nil {
			row.Model, row.Source = a.Model.Name, a.Model.Source
		}
		rows = append(rows, row)
	}
	return rows
}

// noneAskable is the refusal of a consult whose plan selected advisors
// that cannot be asked now: it says when the first circuit reopens, and
// the other ways on (enable an advisor, or plan anew for a local review).
// To the MCP tools, the advisors tool lists the advisors, enabling one is
// the person's step (git config, which no tool sets), and the first
// skipped reason names the doctor tool (advisor.ToolReason).
func noneAskable(task string, skipped []advisor.Skipped, snap []policy.Advisor, selected []string) error {
	until := reopensAt(snap, selected)
	wait := ""
	if until != "" {
		wait = "wait until " + until + " (a circuit reopens) and consult again, "
	}
	none, first := noneOfPlan(len(skipped)), skipped[0].Advisor+": "
	return &refusal{
		msg: fmt.Sprintf("%s (%s%s): %senable one (git config reason.disable, git reason advisors), or plan anew for a local review with 'git reason plan %s'",
			none, first, skipped[0].Reason, wait, task),
		tools: fmt.Sprintf("%s (%s%s): %shave the person enable one with git config reason.disable (no tool enables an advisor; the advisors tool lists them), or plan anew for a local review with the plan tool",
			none, first, advisor.ToolReason(skipped[0].Reason), wait)}
}

// SayToTools says each skipped advisor's reason as the MCP tools say it
// (advisor.ToolReason): the doctor tool, where the command line names
// 'git reason doctor'.
func (r *ConsultResult) SayToTools() {
	for i := range r.Skipped {
		r.Skipped[i].Reason = advisor.ToolReason(r.Skipped[i].Reason)
	}
}
