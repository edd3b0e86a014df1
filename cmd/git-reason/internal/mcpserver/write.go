package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"git-reason/advisor"
	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

// recordOut is a stored record as 'git reason VERB --json' prints it: the
// envelope with body and derived, and the commit that stores it.
type recordOut struct {
	*record.Record
	Commit string `json:"commit,omitempty"`
	// Lowered, on a plan, says that the repository's declarations lowered
	// its review.
	Lowered *ops.Lowered `json:"lowered,omitempty"`
	// Signature, on show, is the record's commit's signature.
	Signature *ops.Signature `json:"signature,omitempty"`
	// DoesNotVerify, on show, says that the record's task does not
	// replay clean (its derived fields are then replay's), as 'git
	// reason show --json' says it.
	DoesNotVerify *record.Finding `json:"does_not_verify,omitempty"`
}

// writeSpec says how a write tool builds its body: the record kind and the
// id fields that default to the task's latest record of a kind.
type writeSpec struct {
	kind     record.Kind
	defaults map[string]record.Kind
	edit     func(obj)
	// fill, when not nil, completes the body from the repository before
	// it is written, as the command line's verb does from its flags.
	fill func(ctx context.Context, sess *ops.Session, body map[string]any) error
}

var writeSpecs = map[string]writeSpec{
	"assess":   {kind: record.KindAssessment},
	"plan":     {kind: record.KindPlan, defaults: map[string]record.Kind{"assessment": record.KindAssessment}},
	"disagree": {kind: record.KindDisagreement, defaults: map[string]record.Kind{"assessment": record.KindAssessment}},
	"resolve":  {kind: record.KindResolution},
	"conclude": {kind: record.KindConclusion, defaults: map[string]record.Kind{"assessment": record.KindAssessment}},
	"attempt":  {kind: record.KindAttempt, defaults: map[string]record.Kind{"conclusion": record.KindConclusion}, fill: fullCommits},
	// A task's life: close, reopen (the closure defaults to the latest)
	// and withdraw, the CLI's verbs of the same names.
	"close":    {kind: record.KindClosure},
	"reopen":   {kind: record.KindReopening, defaults: map[string]record.Kind{"closure": record.KindClosure}},
	"withdraw": {kind: record.KindWithdrawal},
	// The server never runs a command it was sent: validate records manual
	// validations only, so "command" is not an argument and "method" can
	// only be manual (and defaults to it).
	"validate": {kind: record.KindValidation, defaults: map[string]record.Kind{"conclusion": record.KindConclusion},
		edit: func(doc obj) {
			props := doc["properties"].(obj)
			delete(props, "command")
			props["method"] = obj{"const": "manual", "description": "manual only: the server runs no command; default manual"}
			req := []any{}
			for _, r := range doc["required"].([]any) {
				if r != "method" {
					req = append(req, r)
				}
			}
			doc["required"] = req
		}},
}

// writeTools returns the tools that append records.
func (s *Server) writeTools() (map[string]*tool, error) {
	out := map[string]*tool{}
	for name, ws := range writeSpecs {
		what := map[string]string{}
		for field, k := range ws.defaults {
			what[field] = string(k)
		}
		in, err := bodyInput(ws.kind, what, ws.edit)
		if err != nil {
			return nil, fmt.Errorf("input schema of %s: %w", name, err)
		}
		o, err := recordOutput(ws.kind)
		if err != nil {
			return nil, fmt.Errorf("output schema of %s: %w", name, err)
		}
		// Its arguments are checked by the writer (the body's schema)
		// unless the tool narrows the body's schema (validate) or may ask
		// a person before it writes (conclude): see handle.
		t := &tool{kind: ws.kind, input: in, output: o, run: s.writer(ws), late: ws.edit == nil}
		if ws.kind == record.KindConclusion {
			// It may ask a person, which must not hold other calls: it
			// takes the server's lock itself (elicit.go).
			t.run, t.own, t.late = s.conclude(ws), true, false
		}
		out[name] = t
	}
	task, err := taskProperty()
	if err != nil {
		return nil, err
	}
	co, err := consultOutput()
	if err != nil {
		return nil, err
	}
	out["consult"] = &tool{own: true, run: s.consult, output: co, input: objectSchema(obj{
		"task":      task,
		"timeout_s": obj{"type": "number", "exclusiveMinimum": 0, "maximum": 3600, "description": "overall deadline in seconds; default: the slowest advisor's own timeout"},
	}, "task")}
	return out, nil
}

// writer is the handler of a write tool: the body is the arguments less
// the task, with defaulted ids filled in, appended through the one writer.
func (s *Server) writer(ws writeSpec) func(ctx context.Context, c *call) (*outcome, error) {
	return func(ctx context.Context, c *call) (*outcome, error) {
		task, body, err := s.body(ctx, c, ws)
		if err != nil {
			return nil, err
		}
		return s.store(ctx, task, ws.kind, body, "")
	}
}

// body is a write tool's record body: the arguments less the task, with
// defaulted ids filled in.
func (s *Server) body(ctx context.Context, c *call, ws writeSpec) (string, map[string]any, error) {
	task, _ := c.args["task"].(string) // not yet checked against the input schema: see handle
	if err := record.CheckTask(task); err != nil {
		return "", nil, err
	}
	body := map[string]any{}
	for k, v := range c.args {
		if k != "task" {
			body[k] = v
		}
	}
	for field, kind := range ws.defaults {
		if _, given := body[field]; given {
			continue
		}
		id, err := s.latest(ctx, task, kind)
		if err != nil {
			return "", nil, err
		}
		body[field] = id
	}
	if ws.kind == record.KindValidation {
		if _, given := body["method"]; !given {
			body["method"] = "manual"
		}
	}
	if ws.fill != nil {
		if err := ws.fill(ctx, s.env, body); err != nil {
			return "", nil, err
		}
	}
	return task, body, nil
}

// fullCommits names an attempt's commits by their full hashes, as
// 'git reason attempt --commit' does: an abbreviation stays true only
// while no other object shares it, and a hash of no commit here is
// refused rather than recorded. What is no hash is left for the body's
// schema to refuse.
func fullCommits(ctx context.Context, sess *ops.Session, body map[string]any) error {
	list, _ := body["commits"].([]any)
	for i, c := range list {
		h, ok := c.(string)
		if !ok || !isHex(h) {
			continue
		}
		full, err := sess.ResolveCommit(ctx, h)
		if err != nil {
			return ops.Usage("commits: %q: no such commit in this repository", h)
		}
		list[i] = full
	}
	return nil
}

func isHex(s string) bool {
	for _, r := range s {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return s != ""
}

// store appends a write tool's body through the one writer; who, when
// not "", says who answered a conclusion's local review.
func (s *Server) store(ctx context.Context, task string, kind record.Kind, body map[string]any, who string) (*outcome, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	var res *record.Result
	if who == "" {
		res, err = s.env.Append(ctx, task, kind, raw)
	} else {
		res, err = s.env.AppendAnswered(ctx, task, kind, raw, who)
	}
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf("%s %s recorded in %s (commit %.12s): %s", res.Kind, res.ID, res.Task, res.Commit, record.Summary(res.Entry))
	lowered := s.env.PlanLowered(ctx, res)
	if lowered != nil {
		text += "\n" + lowered.Said().ToolMessage()
	}
	return &outcome{out: recordOut{Record: res.Record, Commit: res.Commit, Lowered: lowered}, text: text, task: task, wrote: res}, nil
}

// latest is the id of the task's latest record of kind.
func (s *Server) latest(ctx context.Context, task string, kind record.Kind) (string, error) {
	st, err := s.env.StateBefore(ctx, task)
	if err != nil {
		return "", err
	}
	id, err := ops.LatestID(st, task, kind)
	if errors.Is(err, ops.ErrUsage) {
		return "", missingError{err}
	}
	return id, err
}

// consultOut is what 'git reason consult --json' prints: the run (with
// whether it planned first, whether the repository's declarations lowered
// that plan, and what was sent to each advisor), a row per advisor asked
// and the disagreement opened.
type consultOut struct {
	ops.ConsultResult
	Results      []ops.ConsultRow `json:"results"`
	Disagreement string           `json:"disagreement,omitempty"`
}

func consultOutput() (json.RawMessage, error) {
	return inferredType[consultOut](true)
}

// consult runs the plan's consultations. It opens its own repository
// session, so that reads and writes of other calls go on while advisors
// think. With a progress token, each advisor's outcome is reported as it
// is recorded; a cancelled call ends every request, and the outcomes are
// recorded as cancelled, as Ctrl-C does on the command line.
func (s *Server) consult(ctx context.Context, c *call) (*outcome, error) {
	task := c.args["task"].(string)
	if err := record.CheckTask(task); err != nil {
		return nil, err
	}
	env, err := ops.Open(ctx, ops.Options{Dir: s.dir, Profile: s.profile, Surface: record.SurfaceMCP, Notify: c.notes.add})
	if err != nil {
		return nil, err
	}
	st, err := env.Settings()
	if err != nil {
		return nil, err
	}
	if !s.consults.enter(c.session, st.MCPConsults) {
		return nil, &ToolError{Code: CodeRefused, Message: fmt.Sprintf(
			"reason.mcpConsults: this client has %d consult calls under way, the most it may have at once; nothing was asked: call consult again once one has ended (git config reason.mcpConsults raises it)", st.MCPConsults),
			RecoveryActions: []Action{{Tool: "status", Arguments: map[string]any{"task": task}}}}
	}
	defer s.consults.leave(c.session)
	req := ops.ConsultRequest{Task: task}
	if t, ok := c.args["timeout_s"].(json.Number); ok {
		f, _ := t.Float64()
		req.Timeout = time.Duration(f * float64(time.Second))
	}
	if token := c.req.Params.GetProgressToken(); token != nil {
		req.Progress = s.progress(ctx, c, token)
	}
	res, err := env.Consult(ctx, req)
	if err != nil {
		return nil, err
	}
	res.SayToTools()
	out := consultOut{ConsultResult: *res, Results: res.Rows()}
	if res.Disagreement != nil {
		out.Disagreement = res.Disagreement.ID
	}
	text := fmt.Sprintf("plan %.10s: %s asked, %d skipped", res.Plan, record.Plural(len(out.Results), "advisor"), len(out.Skipped))
	if len(out.Results) == 0 && len(out.Skipped) == 0 {
		// As 'git reason consult' says it: nothing to ask is no failure,
		// and the review, if any, is the local one.
		text = fmt.Sprintf("plan %.10s needs no review: conclude with a decision", res.Plan)
		if len(out.LocalReview) > 0 {
			text = fmt.Sprintf("plan %.10s selected no advisor: the local review is the review; answer its %s in conclude's local_review",
				res.Plan, record.Plural(len(out.LocalReview), "item"))
		}
	}
	for _, sk := range out.Skipped {
		text += fmt.Sprintf("\n%s: skipped: %s", sk.Advisor, sk.Reason)
	}
	if res.Lowered != nil {
		text = res.Lowered.Said().ToolMessage() + "\n" + text
	}
	if res.Planned {
		text = fmt.Sprintf("the assessment had no plan: planned first (plan %.10s)\n", res.Plan) + text
	}
	for _, r := range out.Results {
		if r.Status == "completed" {
			text += fmt.Sprintf("\n%s: %s", r.Advisor, r.Stance)
		} else {
			text += fmt.Sprintf("\n%s: failed: %s", r.Advisor, r.Failure)
		}
	}
	if out.Disagreement != "" {
		text += fmt.Sprintf("\nadvisors disagree: disagreement %s opened; settle it with resolve", out.Disagreement)
	}
	return &outcome{out: out, text: text, task: task}, nil
}

// progress reports each advisor's recorded outcome as a progress
// notification: progress k of n advisors asked.
func (s *Server) progress(ctx context.Context, c *call, token any) func(advisor.Event) {
	asked, done := 0, 0
	return func(ev advisor.Event) {
		if ev.Asked == nil {
			asked++
			return
		}
		done++
		msg := ev.Advisor + ": "
		if ev.Asked.Completed() {
			msg += "answered (" + ev.Asked.Conclusion.Stance + ")"
		} else {
			msg += "failed (" + ev.Asked.Failure.Kind + ")"
		}
		_ = c.session.NotifyProgress(context.WithoutCancel(ctx), &mcp.ProgressNotificationParams{
			ProgressToken: token, Progress: float64(done), Total: float64(asked), Message: msg})
	}
}
