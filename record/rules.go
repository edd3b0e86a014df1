package record

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"git-reason/policy"
)

// rules applies the admission rule of kind to a schema-valid body against
// the task's state and returns the derived fields, or a refusal.
// On a closed task every record but a reopening is refused, whatever its
// own rule says.
func (w *Writer) rules(ctx context.Context, st *State, kind Kind, body any, h hints) (any, error) {
	if err := admitClosed(st, kind); err != nil {
		return nil, err
	}
	return w.kindRule(ctx, st, body, h)
}

// replayRule is rules as replay applies them: the kind's own refusal
// first, so that a record refused only because a merge put it after a
// closure (ClosedError) is known to pass its own rule, and a later
// reopening settles it.
func (w *Writer) replayRule(ctx context.Context, st *State, kind Kind, body any, h hints) (any, error) {
	derived, err := w.kindRule(ctx, st, body, h)
	if err != nil {
		return nil, err
	}
	if err := admitClosed(st, kind); err != nil {
		return nil, err
	}
	return derived, nil
}

// kindRule applies the admission rule of the body's kind.
func (w *Writer) kindRule(ctx context.Context, st *State, body any, h hints) (any, error) {
	switch b := body.(type) {
	case *Assessment:
		return w.admitAssessment(ctx, st, b, h)
	case *Plan:
		return w.admitPlan(ctx, st, b)
	case *Consultation:
		return admitConsultation(st, b, h)
	case *Disagreement:
		return admitDisagreement(st, b, h)
	case *Resolution:
		return &Empty{}, admitResolution(st, b)
	case *Conclusion:
		return admitConclusion(st, b)
	case *Validation:
		return admitValidation(st, b, h)
	case *Attempt:
		_, err := need(st, b.Conclusion, KindConclusion, "conclusion")
		return &Empty{}, err
	case *Closure:
		return admitClosure(st, b)
	case *Reopening:
		return &Empty{}, admitReopening(st, b)
	case *Withdrawal:
		return admitWithdrawal(st, b)
	}
	return nil, fmt.Errorf("no admission rule for %T", body)
}

// hasFileEvidence reports whether any evidence of a points to a file: only
// then does the commit it was assessed at matter.
func hasFileEvidence(a *Assessment) bool {
	for _, ev := range a.Evidence {
		if ev.Kind == "file" {
			return true
		}
	}
	return false
}

// need returns the record id names, which must be of kind want.
func need(st *State, id string, want Kind, field string) (*Entry, error) {
	e := st.Get(id)
	if e == nil {
		return nil, &IDError{Field: field, Err: badInput(fmt.Sprintf("no record %s in task %s", id, st.Task))}
	}
	if e.Kind != want {
		return nil, &IDError{Field: field, Err: badInput(fmt.Sprintf("record %s is %s, not %s", ShortID(id), article(string(e.Kind)), article(string(want))))}
	}
	return e, nil
}

// Rule 1: material and critical assessments carry evidence; a standing
// conclusion on the same subject is reused unless new evidence is declared.
func (w *Writer) admitAssessment(ctx context.Context, st *State, a *Assessment, h hints) (any, error) {
	if (a.Materiality == "material" || a.Materiality == "critical") && len(a.Evidence) == 0 {
		return nil, refuseAdvised(fmt.Sprintf("a %s assessment must carry evidence", a.Materiality),
			": add --evidence KIND:REF:SUMMARY (kind file, command, commit, url or note)",
			`: add evidence, a list of {"kind": "file", "command", "commit", "url" or "note", "ref": what it points at, "summary": what it shows}`)
	}
	if voc, ok := w.Avail.(Vocabulary); ok {
		for _, c := range a.Needs {
			known, err := voc.KnownCapability(ctx, c)
			if err != nil {
				return nil, err
			}
			if !known {
				return nil, badInputAdvised(fmt.Sprintf("needs: capability %q is not declared", c),
					" (see the capabilities in 'git reason doctor')", " (see the capabilities the doctor tool lists)")
			}
		}
	}
	d := &AssessmentDerived{SubjectKey: SubjectKey(a.Subject)}
	if d.SubjectKey == "" {
		return nil, badInput("subject has no letters or digits: say what the decision is about")
	}
	if h.checkout != nil && hasFileEvidence(a) {
		d.Commit = *h.checkout
	}
	if a.NewEvidence {
		return d, nil
	}
	cands := st.Standing()
	idx := w.Index
	if idx == nil {
		idx = ScanIndex{Store: w.Store}
	}
	others, err := idx.Standing(ctx, d.SubjectKey, st.Task)
	if err != nil {
		return nil, fmt.Errorf("look up standing conclusions: %w", err)
	}
	// The task's own conclusions first, then other tasks', each newest
	// first: the first that qualifies is reused.
	cands = append(append([]Standing(nil), others...), cands...)
	for i := len(cands) - 1; i >= 0; i-- {
		c := cands[i]
		if c.SubjectKey != d.SubjectKey || !covers(c, a) {
			continue
		}
		if w.Vouch != nil && w.Vouch.Clean(ctx, c.Task) != nil {
			continue
		}
		if w.Authors != nil {
			if err := w.Authors.AuthorsTrusted(ctx, c.Task, c.Conclusion); err != nil {
				if w.NotReused != nil {
					w.NotReused(fmt.Sprintf("standing conclusion %s of task %s not reused, review asked afresh: %v", ShortID(c.Conclusion), c.Task, err))
				}
				continue
			}
		}
		d.Reuses, d.ReusesTask, d.ReusesActor = c.Conclusion, c.Task, c.Actor
		d.ReusesMateriality, d.ReusesReversibility = c.Materiality, c.Reversibility
		break
	}
	return d, nil
}

// The scales of how much a decision matters and how hard it is to undo,
// least demanding first.
var (
	materialityRank   = map[string]int{"trivial": 1, "minor": 2, "material": 3, "critical": 4}
	reversibilityRank = map[string]int{"reversible": 1, "costly": 2, "irreversible": 3}
)

// covers reports whether a standing conclusion may stand in for a new
// assessment: its own assessment was at least as material and at least as
// irreversible. A conclusion reached on a minor, reversible question never
// spares review of a critical, irreversible one.
func covers(s Standing, a *Assessment) bool {
	m, r := materialityRank[s.Materiality], reversibilityRank[s.Reversibility]
	return m > 0 && r > 0 && m >= materialityRank[a.Materiality] && r >= reversibilityRank[a.Reversibility]
}

// Rule 2: the caller names the assessment; the writer computes the plan from
// the availability snapshot of this moment and stores all of it.
func (w *Writer) admitPlan(ctx context.Context, st *State, p *Plan) (any, error) {
	a, err := need(st, p.Assessment, KindAssessment, "assessment")
	if err != nil {
		return nil, err
	}
	if c := st.ConclusionOf(a.ID); c != nil {
		return nil, refuse(fmt.Sprintf("assessment %s is already concluded by %s: assess again to plan anew", ShortID(a.ID), ShortID(c.ID)))
	}
	avail := w.Avail
	if avail == nil {
		avail = NoAdvisors{}
	}
	profile, snap, err := avail.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	body := a.Body.(*Assessment)
	decided := policy.Decide(policy.Assessment{
		Materiality:   body.Materiality,
		Reversibility: body.Reversibility,
		Needs:         body.Needs,
		Reuses:        a.Derived.(*AssessmentDerived).Reuses,
	}, profile, snap)
	d := &PlanDerived{
		Profile: profile.Name, Mode: string(profile.Mode), Review: string(decided.Review),
		Reason: decided.Reason, Wanted: decided.Wanted, Needs: decided.Needs,
		Selected: append([]string{}, decided.Selected...), Snapshot: []SnapshotEntry{},
		LocalReview: decided.LocalReview,
	}
	for _, s := range snap {
		d.Snapshot = append(d.Snapshot, SnapshotEntry{Advisor: s.ID, Status: string(s.Status),
			Reason: s.Reason, Until: s.Until, Capabilities: s.Capabilities, Local: s.Local})
	}
	return d, nil
}

// Rule 3: a consultation names an advisor its plan selected, judged by the
// snapshot stored in that plan, not by today's availability.
func admitConsultation(st *State, c *Consultation, h hints) (any, error) {
	if !h.driver {
		return nil, refuse("consultations are written only by 'git reason consult': there is no way to record one by hand")
	}
	p, err := need(st, c.Plan, KindPlan, "plan")
	if err != nil {
		return nil, err
	}
	pd := p.Derived.(*PlanDerived)
	if !slices.Contains(pd.Selected, c.Advisor) {
		return nil, refuse(fmt.Sprintf("advisor %q was not selected by plan %s (selected: %s)", c.Advisor, ShortID(p.ID), list(pd.Selected)))
	}
	assessment := p.Body.(*Plan).Assessment
	if concl := st.ConclusionOf(assessment); concl != nil {
		return nil, refuse(fmt.Sprintf("assessment %s is already concluded by %s: the answer comes too late", ShortID(assessment), ShortID(concl.ID)))
	}
	if c.Status == "completed" {
		if e := st.AnsweredBy(c.Plan, c.Advisor); e != nil {
			return nil, &alreadyAnswered{msg: fmt.Sprintf("advisor %q already answered plan %s (%s): one answer per advisor and plan", c.Advisor, ShortID(c.Plan), ShortID(e.ID))}
		}
	}
	d := &ConsultationDerived{}
	if h.model != nil && h.model.Name != "" {
		if h.model.Source != "reported" && h.model.Source != "declared" {
			return nil, fmt.Errorf("model source %q is neither reported nor declared", h.model.Source)
		}
		m := *h.model
		d.Model = &m
	}
	d.Endpoint = h.endpoint
	d.Question = h.question
	if c.Status == "completed" && d.Model == nil {
		return nil, refuse("a completed consultation must name the model that answered")
	}
	return d, nil
}

// Rule 4: a disagreement cites at least two distinct records of the task
// whose positions conflict.
func admitDisagreement(st *State, d *Disagreement, h hints) (any, error) {
	if _, err := need(st, d.Assessment, KindAssessment, "assessment"); err != nil {
		return nil, err
	}
	for _, id := range d.Cites {
		e := st.Get(id)
		if e == nil {
			return nil, badInput(fmt.Sprintf("cites: no record %s in task %s", id, st.Task))
		}
		switch e.Kind {
		case KindConclusion, KindValidation, KindAttempt:
		case KindPlan, KindDisagreement, KindAssessment, KindResolution, KindClosure, KindReopening, KindWithdrawal:
			return nil, refuse(fmt.Sprintf("cites: %s %s takes no position; cite consultations, conclusions, validations or attempts", article(string(e.Kind)), ShortID(id)))
		case KindConsultation:
			if e.Body.(*Consultation).Status != "completed" {
				return nil, refuse(fmt.Sprintf("cites: consultation %s failed and takes no position", ShortID(id)))
			}
		}
	}
	by := h.openedBy
	if by == "" {
		by = "caller"
	}
	return &DisagreementDerived{OpenedBy: by}, nil
}

// Rule 5: a resolution settles exactly one open disagreement, with evidence.
func admitResolution(st *State, r *Resolution) error {
	if _, err := need(st, r.Disagreement, KindDisagreement, "disagreement"); err != nil {
		return err
	}
	if !st.IsOpenDisagreement(r.Disagreement) {
		return refuse(fmt.Sprintf("disagreement %s is already resolved", ShortID(r.Disagreement)))
	}
	return nil
}

// Rule 6: no conclusion while a disagreement is open; every completed
// consultation is weighed; with no advisor the local review is answered;
// a conclusion of a concluded assessment supersedes all that stand.
// The review count is computed, never supplied.
func admitConclusion(st *State, c *Conclusion) (any, error) {
	a, err := need(st, c.Assessment, KindAssessment, "assessment")
	if err != nil {
		return nil, err
	}
	if err := admitSupersedes(st, a.ID, c.Supersedes); err != nil {
		return nil, err
	}
	if open := st.OpenDisagreements(a.ID); len(open) > 0 {
		return nil, refuseAdvised(fmt.Sprintf("disagreement %s is open on this assessment: settle it first with ", ShortID(open[0].ID)),
			fmt.Sprintf("'git reason resolve %s %s'", st.Task, ShortID(open[0].ID)), fmt.Sprintf("the resolve tool (disagreement: %q)", open[0].ID))
	}
	plan := st.LatestPlan(a.ID)
	if plan == nil {
		return nil, refuseAdvised(fmt.Sprintf("assessment %s has no plan: ", ShortID(a.ID)),
			fmt.Sprintf("run 'git reason plan %s' first", st.Task), "call the plan tool first")
	}
	completed := st.Completed(a.ID)
	want := map[string]bool{}
	for _, e := range completed {
		want[e.ID] = true
	}
	seen := map[string]bool{}
	for _, wgh := range c.Weighed {
		if seen[wgh.Consultation] {
			return nil, badInput(fmt.Sprintf("weighed: consultation %s is weighed twice", ShortID(wgh.Consultation)))
		}
		seen[wgh.Consultation] = true
		if !want[wgh.Consultation] {
			return nil, refuse(fmt.Sprintf("weighed: %s is not a completed consultation of assessment %s", ShortID(wgh.Consultation), ShortID(a.ID)))
		}
	}
	var missing, ids []string
	for _, e := range completed {
		if !seen[e.ID] {
			missing, ids = append(missing, ShortID(e.ID)), append(ids, e.ID)
		}
	}
	if len(missing) > 0 {
		return nil, &UnfilledError{Rule: fmt.Sprintf("the conclusion must weigh every completed consultation; missing %s", strings.Join(missing, ", ")),
			Field: "weigh", Keys: ids, flag: ": add --weigh ID=adopted|partially_adopted|rejected:REASON"}
	}
	pd := plan.Derived.(*PlanDerived)
	if len(completed) == 0 && len(pd.Selected) > 0 {
		return nil, refuseAdvised(fmt.Sprintf("no advisor selected by plan %s has answered: ", ShortID(plan.ID)),
			fmt.Sprintf("run 'git reason consult %s', or plan again", st.Task), "call the consult tool, or plan again")
	}
	if len(pd.Selected) == 0 {
		if err := checkLocalReview(pd.LocalReview, c.LocalReview); err != nil {
			return nil, err
		}
	}
	d := &ConclusionDerived{ReviewCount: len(completed), Advisors: []string{}}
	for _, e := range completed {
		if adv := e.Body.(*Consultation).Advisor; !slices.Contains(d.Advisors, adv) {
			d.Advisors = append(d.Advisors, adv)
		}
	}
	return d, nil
}

// admitSupersedes holds a conclusion to the conclusions of its assessment
// that stand: with none it supersedes nothing; with some it supersedes
// exactly those, so that it alone stands after it. This is how the two
// conclusions a merge of two clones left are settled.
func admitSupersedes(st *State, assessment string, ids []string) error {
	standing := st.Conclusions(assessment)
	if len(standing) > 0 && len(ids) == 0 {
		rule := fmt.Sprintf("assessment %s is already concluded by %s: a new conclusion must supersede it", ShortID(assessment), ShortID(standing[0].ID))
		return refuseAdvised(rule, fmt.Sprintf(" (--supersedes %s), or assess again with new evidence", supersedesList(standing)),
			fmt.Sprintf(" (supersedes: %s), or assess again with new evidence", quotedIDs(standing)))
	}
	stands := map[string]bool{}
	for _, e := range standing {
		stands[e.ID] = true
	}
	named := map[string]bool{}
	for _, id := range ids {
		e, err := need(st, id, KindConclusion, "supersedes")
		if err != nil {
			return err
		}
		if named[id] {
			return badInput(fmt.Sprintf("supersedes: conclusion %s is named twice", ShortID(id)))
		}
		named[id] = true
		if b := e.Body.(*Conclusion); b.Assessment != assessment {
			return refuse(fmt.Sprintf("supersedes: conclusion %s concludes assessment %s, not %s", ShortID(id), ShortID(b.Assessment), ShortID(assessment)))
		}
		if !stands[id] {
			return refuse(fmt.Sprintf("supersedes: conclusion %s is already superseded", ShortID(id)))
		}
	}
	for _, e := range standing {
		if !named[e.ID] {
			rule := fmt.Sprintf("assessment %s is also concluded by %s: supersede every conclusion that stands", ShortID(assessment), ShortID(e.ID))
			return refuseAdvised(rule, fmt.Sprintf(" (--supersedes %s)", supersedesList(standing)), fmt.Sprintf(" (supersedes: %s)", quotedIDs(standing)))
		}
	}
	return nil
}

// supersedesList is the flags' values naming the conclusions given.
func supersedesList(es []*Entry) string {
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = ShortID(e.ID)
	}
	return strings.Join(ids, " --supersedes ")
}

func checkLocalReview(items []string, answers []LocalAnswer) error {
	got := map[string]bool{}
	for _, a := range answers {
		if got[a.Item] {
			return badInput(fmt.Sprintf("local_review: %q is answered twice", a.Item))
		}
		if !slices.Contains(items, a.Item) {
			return badInputAdvised(fmt.Sprintf("local_review: %q is not an item of the plan's checklist", a.Item),
				" (see 'git reason status')", " (the status tool lists them)")
		}
		if strings.TrimSpace(a.Answer) == "" {
			return refuse(fmt.Sprintf("local_review: %q has an empty answer", a.Item))
		}
		got[a.Item] = true
	}
	for i, item := range items {
		if !got[item] {
			return &UnfilledError{Rule: fmt.Sprintf("no advisor reviewed this plan, so its local review must be answered: item %d %q is unanswered", i+1, item),
				Field: "local-review", Keys: []string{strconv.Itoa(i + 1)}, flag: fmt.Sprintf(" (add --local-review %d=ANSWER)", i+1)}
		}
	}
	return nil
}

// Rule 7: a validation cites a conclusion; a command validation is a fact
// the tool observed, a manual one a claim.
func admitValidation(st *State, v *Validation, h hints) (any, error) {
	if _, err := need(st, v.Conclusion, KindConclusion, "conclusion"); err != nil {
		return nil, err
	}
	if v.Method == "manual" {
		return &ValidationDerived{Result: v.Result}, nil
	}
	if h.observed == nil {
		return nil, refuse("a command validation is recorded by running it: use 'git reason validate TASK --run CMD'")
	}
	obs := *h.observed
	if obs.ExitCode == nil {
		return nil, fmt.Errorf("observed validation has no exit code")
	}
	obs.Result = "fail"
	if *obs.ExitCode == 0 {
		obs.Result = "pass"
	}
	return &obs, nil
}

func list(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

// confusions catches, before the schema does, mistakes whose schema
// message would not say what to do.
func confusions(kind Kind, m map[string]any) error {
	if kind != KindValidation {
		return nil
	}
	_, hasResult := m["result"]
	_, hasCommand := m["command"]
	switch m["method"] {
	case "command":
		if hasResult {
			return badInput("result: a command validation's result comes from its exit status; record a claimed result with method manual (--manual pass|fail)")
		}
	case "manual":
		if hasCommand {
			return badInput("command: a manual validation runs nothing; to run a command use method command (--run CMD)")
		}
	}
	return nil
}

// article puts "a" or "an" before a kind's name.
func article(word string) string {
	if strings.ContainsRune("aeiou", rune(word[0])) {
		return "an " + word
	}
	return "a " + word
}
