package record

import (
	"fmt"
	"slices"
	"strings"
)

// Status is a task's state in brief, as 'git reason status' shows it.
type Status struct {
	Task              string     `json:"task"`
	Phase             Phase      `json:"phase"`
	Records           int        `json:"records"`
	Subject           string     `json:"subject,omitempty"`
	Assessment        string     `json:"assessment,omitempty"`
	Review            string     `json:"review,omitempty"`
	Selected          []string   `json:"selected,omitempty"`
	LocalReview       []string   `json:"local_review,omitempty"`
	ReviewCount       int        `json:"review_count"`
	OpenDisagreements []string   `json:"open_disagreements"`
	Standing          []Standing `json:"standing"`
	Reuses            string     `json:"reuses,omitempty"`
	ReusesTask        string     `json:"reuses_task,omitempty"`
	ReusesActor       string     `json:"reuses_actor,omitempty"`
	Next              string     `json:"next,omitempty"`
	// NextTools is Next as the MCP tools take it; set by the MCP server
	// alone (the command line says Next).
	NextTools []ToolCall `json:"next_tools,omitempty"`
	// PersonStep, when set, is the decision a person must make before
	// any command moves the task on; Next is empty then.
	PersonStep *PersonStep `json:"person_step,omitempty"`
	Updated    string      `json:"updated,omitempty"`
	// Closed says how the task is closed; nil while it is open.
	Closed *Closed `json:"closed,omitempty"`
	// DoesNotVerify is the first finding of a replay of the task's
	// history, when it does not replay clean: what else the status says
	// is recomputed by replay, not what its records claim.
	DoesNotVerify *Finding `json:"does_not_verify,omitempty"`
	// AnsweredBy says who answered the latest conclusion's local-review
	// checklist, when its writer knew: "person" or "agent" (self-answered).
	AnsweredBy string `json:"answered_by,omitempty"`
}

// PersonStep is a next step no command can take on its own: what a
// person must decide, and what each choice runs once made. Status and
// handover give it instead of a next command that would be refused now
// (consult when no advisor the plan selected can be asked).
type PersonStep struct {
	Decide  string         `json:"decide"`
	Options []PersonOption `json:"options"`
	// DecideTools is Decide as the MCP tools say it, when it differs
	// (Advice.ToolMessage): the doctor tool where Decide names a command.
	DecideTools string `json:"-"`
}

// PersonOption is one choice of a PersonStep: what the person does, in
// words, and the git reason command that follows it.
type PersonOption struct {
	Choice string `json:"choice"`
	Then   string `json:"then"`
	// ChoiceTools is Choice as the MCP tools say it, when it differs
	// (Advice.ToolMessage): a tool, or a step that is the person's, where
	// Choice names a command.
	ChoiceTools string `json:"-"`
	// ThenTools is Then as the MCP tools take it; set by the MCP server
	// alone.
	ThenTools []ToolCall `json:"then_tools,omitempty"`
}

// SelfAnswered is how every surface says that a local review was
// answered by the MCP client itself, no person having been asked.
const SelfAnswered = "self-answered by an agent"

// AnsweredLine is how surfaces say who answered a local review (a
// conclusion's AnsweredBy): SelfAnswered, that a person answered, or ""
// when the writer did not know.
func AnsweredLine(by string) string {
	switch by {
	case AnsweredAgent:
		return SelfAnswered
	case AnsweredPerson:
		return "answered by a person (asked through MCP elicitation)"
	}
	return ""
}

// Answered is AnsweredLine of the status's AnsweredBy, for templates.
func (st Status) Answered() string { return AnsweredLine(st.AnsweredBy) }

// Summarize returns the task's status.
func (s *State) Summarize() Status {
	out := Status{Task: s.Task, Phase: s.Phase(), Records: len(s.Entries),
		ReviewCount: s.ReviewCount(), OpenDisagreements: []string{}, Standing: s.Standing(),
		DoesNotVerify: s.Unverified}
	if out.Standing == nil {
		out.Standing = []Standing{}
	}
	if n := len(s.Entries); n > 0 {
		out.Updated = s.Entries[n-1].Created
	}
	a := s.LatestAssessment()
	if a == nil {
		out.Next = "git reason assess " + s.Task
		if s.Unverified != nil {
			// An assessment would be refused on top of it (see next).
			out.Next = "git reason verify " + s.Task
		}
		return out
	}
	out.Assessment, out.Subject = a.ID, a.Body.(*Assessment).Subject
	ad := a.Derived.(*AssessmentDerived)
	out.Reuses, out.ReusesTask, out.ReusesActor = ad.Reuses, ad.ReusesTask, ad.ReusesActor
	if p := s.LatestPlan(a.ID); p != nil {
		pd := p.Derived.(*PlanDerived)
		out.Review, out.Selected, out.LocalReview = pd.Review, pd.Selected, pd.LocalReview
	}
	for _, d := range s.OpenDisagreements(a.ID) {
		out.OpenDisagreements = append(out.OpenDisagreements, d.ID)
	}
	if c := s.ConclusionOf(a.ID); c != nil {
		out.AnsweredBy = c.Derived.(*ConclusionDerived).AnsweredBy
	}
	out.Next = s.next(out)
	if out.Closed = s.ClosedAs(); out.Closed != nil {
		out.Next = "" // a closed task waits for nothing; 'reopen' is a person's choice
	}
	return out
}

// NextVerbs are the verbs of the git reason commands a next step names
// (Status.Next, a PersonOption's Then), in order, each once: the MCP
// tools of the same names take the step.
func NextVerbs(next string) []string {
	var verbs []string
	for {
		_, rest, ok := strings.Cut(next, "git reason ")
		if !ok {
			return verbs
		}
		verb, _, _ := strings.Cut(rest, " ")
		if !slices.Contains(verbs, verb) {
			verbs = append(verbs, verb)
		}
		next = rest
	}
}

func (s *State) next(st Status) string {
	t := s.Task
	if s.Unverified != nil {
		// Nothing recorded after a history that does not verify settles
		// it: a person reads the findings first.
		return "git reason verify " + t
	}
	switch st.Phase {
	case PhaseAssessed, PhaseReused:
		return "git reason plan " + t
	case PhasePlanned:
		if len(st.Selected) > 0 {
			return "git reason consult " + t
		}
		return s.concludeNext(st)
	case PhaseConsulting:
		if len(st.Selected) > 0 && len(s.Completed(st.Assessment)) == 0 {
			next := "git reason consult " + t + " (again), or git reason plan " + t + " to plan anew"
			if ids := s.unreadable(st); len(ids) > 0 {
				// Unreadable answers open no circuit (a question can be
				// crafted to get them), so planning anew asks the same
				// advisors: leaving them out is a person's choice.
				// The command depends on the disable list in force (git -c
				// replaces it), which a task's state does not hold:
				// advisors gives it.
				next += ", or git reason plan " + t + " with " + strings.Join(ids, ", ") +
					" added to the disable list (git reason advisors gives the command) to plan without the advisors whose last two answers did not read"
			}
			return next
		}
		// Some advisor answered, or the latest plan (made anew after
		// advisors failed) selected none: consulting again would ask
		// nobody.
		return s.concludeNext(st)
	case PhaseDisputed:
		return "git reason resolve " + t + " " + ShortID(st.OpenDisagreements[0]) + " --decision ... --evidence KIND:REF:SUMMARY"
	case PhaseConcluded, PhaseValidated:
		if cs := s.Conclusions(st.Assessment); len(cs) > 1 {
			// A merge of two clones that both concluded: a conclusion
			// superseding every one that stands settles it; validating
			// one of them would leave the other standing.
			next := "git reason conclude " + t
			for _, c := range cs {
				next += " --supersedes " + ShortID(c.ID)
			}
			return next + strings.TrimPrefix(s.concludeNext(st), "git reason conclude "+t)
		}
		if st.Phase == PhaseConcluded {
			return "git reason validate " + t + " --run CMD"
		}
	}
	return ""
}

// unreadable lists the advisors the latest plan selected whose last two
// consultations on the assessment failed with an answer that did not read
// (malformed or empty): consulting again is likely to fail the same way,
// and, since such answers open no circuit, so is a plan made anew.
func (s *State) unreadable(st Status) []string {
	last := map[string][]string{} // advisor -> failure kinds of its consultations, in order
	for _, e := range s.Consultations(st.Assessment) {
		c := e.Body.(*Consultation)
		kind := ""
		if c.Failure != nil {
			kind = c.Failure.Kind
		}
		last[c.Advisor] = append(last[c.Advisor], kind)
	}
	var out []string
	for _, id := range st.Selected {
		ks := last[id]
		if n := len(ks); n >= 2 && unreadableKind(ks[n-1]) && unreadableKind(ks[n-2]) {
			out = append(out, id)
		}
	}
	return out
}

func unreadableKind(k string) bool { return k == "malformed" || k == "empty" }

// concludeNext is the conclude command the latest plan admits: every
// completed consultation of the assessment weighed, and, when the plan
// selected no advisor, its checklist answered. A plan that needs no
// review (trivial, minor and reversible, or reusing a standing
// conclusion) has neither: a checklist answer would be refused, since
// there is no item to answer.
func (s *State) concludeNext(st Status) string {
	next := "git reason conclude " + st.Task + " --decision ..."
	// Each completed consultation by its id, as a merge's settling
	// conclusion names them: "ID" left a person (or an agent) to find
	// them with log and show, one record at a time.
	for _, c := range s.Completed(st.Assessment) {
		next += " --weigh " + ShortID(c.ID) + "=TREATMENT:REASON"
	}
	if len(st.Selected) == 0 && len(st.LocalReview) > 0 {
		next += " --local-review N=ANSWER ..."
	}
	return next
}

// Report renders the task as markdown: the question, the plan, what each
// advisor said, disagreements, the conclusion and how it was checked.
func (s *State) Report() string { return s.report(Advice.String) }

// ToolReport is Report for the MCP tools and resources: where it advises
// a command it names the tool that takes the step (Advice.ToolMessage).
func (s *State) ToolReport() string { return s.report(Advice.ToolMessage) }

func (s *State) report(say func(Advice) string) string {
	var b strings.Builder
	st := s.Summarize()
	fmt.Fprintf(&b, "# Reasoning: %s\n\n", s.Task)
	if s.Unverified != nil {
		fmt.Fprintf(&b, "**%s**\n\n", say(NotVerified(s.Unverified)))
	}
	fmt.Fprintf(&b, "Phase: **%s** · records: %d · review count: %d\n", st.Phase, st.Records, st.ReviewCount)
	if st.Closed != nil {
		reportClosed(&b, st.Closed)
	}
	for _, a := range s.all(KindAssessment, nil) {
		s.reportAssessment(&b, a)
	}
	if len(s.Entries) == 0 {
		b.WriteString("\nNo records yet.\n")
	}
	return b.String()
}

func (s *State) reportAssessment(b *strings.Builder, a *Entry) {
	body := a.Body.(*Assessment)
	fmt.Fprintf(b, "\n## %s\n\n", Markdown(body.Subject))
	fmt.Fprintf(b, "%s\n- assessment `%s`: %s, %s\n", MarkdownQuote(body.Question), ShortID(a.ID), Markdown(body.Materiality), Markdown(body.Reversibility))
	if d := a.Derived.(*AssessmentDerived); d.Reuses != "" {
		switch {
		case reuseBroken(s.Unverified, a.ID):
			fmt.Fprintf(b, "- reuses conclusion `%s` of task %s, which no longer stands there (see above)\n", ShortID(d.Reuses), Markdown(d.ReusesTask))
		case s.reuseStands(a.ID):
			fmt.Fprintf(b, "- reuses standing conclusion `%s` of task %s\n", ShortID(d.Reuses), Markdown(d.ReusesTask))
		default:
			fmt.Fprintf(b, "- reused conclusion `%s` of task %s, %s\n", ShortID(d.Reuses), Markdown(d.ReusesTask), ReuseUnchecked)
		}
	}
	for _, ev := range body.Evidence {
		reportEvidence(b, ev)
	}
	if p := s.LatestPlan(a.ID); p != nil {
		pd := p.Derived.(*PlanDerived)
		fmt.Fprintf(b, "\n### Plan\n\nReview %s: %s (profile %s, mode %s).\n", Markdown(pd.Review), Markdown(pd.Reason), Markdown(pd.Profile), Markdown(pd.Mode))
		if len(pd.Selected) > 0 {
			fmt.Fprintf(b, "Advisors asked: %s.\n", markdowns(pd.Selected))
		}
		for i, item := range pd.LocalReview {
			fmt.Fprintf(b, "%d. %s\n", i+1, Markdown(item))
		}
	}
	if cs := s.Consultations(a.ID); len(cs) > 0 {
		b.WriteString("\n### Consultations\n\n| advisor | outcome | model | summary |\n|---|---|---|---|\n")
		for _, c := range cs {
			cb, cd := c.Body.(*Consultation), c.Derived.(*ConsultationDerived)
			model, outcome, summary := "", cb.Status, ""
			if cd.Model != nil {
				model = Markdown(cd.Model.Name) + " (" + Markdown(cd.Model.Source) + ")"
			}
			if cb.Conclusion != nil {
				outcome, summary = cb.Conclusion.Stance, oneLine(cb.Conclusion.Summary)
			} else if cb.Failure != nil {
				outcome = "failed: " + cb.Failure.Kind
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", Markdown(cb.Advisor), Markdown(outcome), model, Markdown(summary))
		}
	}
	for _, d := range s.all(KindDisagreement, func(e *Entry) bool { return e.Body.(*Disagreement).Assessment == a.ID }) {
		state := "open"
		if !s.IsOpenDisagreement(d.ID) {
			state = "resolved"
		}
		fmt.Fprintf(b, "\n### Disagreement `%s` (%s, opened by %s)\n\n%s", ShortID(d.ID), state,
			Markdown(d.Derived.(*DisagreementDerived).OpenedBy), MarkdownQuote(d.Body.(*Disagreement).Summary))
		for _, r := range s.all(KindResolution, func(e *Entry) bool { return e.Body.(*Resolution).Disagreement == d.ID }) {
			rb := r.Body.(*Resolution)
			fmt.Fprintf(b, "\nResolved by `%s`: %s\n", ShortID(r.ID), Markdown(rb.Decision))
			for _, ev := range rb.Evidence {
				reportEvidence(b, ev)
			}
		}
	}
	c := s.ConclusionOf(a.ID)
	if c == nil {
		return
	}
	cb, cd := c.Body.(*Conclusion), c.Derived.(*ConclusionDerived)
	fmt.Fprintf(b, "\n### Conclusion `%s`\n\n%s\n", ShortID(c.ID), Markdown(cb.Decision))
	if len(cb.Supersedes) > 0 {
		ids := make([]string, len(cb.Supersedes))
		for i, id := range cb.Supersedes {
			ids[i] = "`" + ShortID(id) + "`"
		}
		fmt.Fprintf(b, "\nSupersedes %s.\n", strings.Join(ids, ", "))
	}
	if cb.Rationale != "" {
		fmt.Fprintf(b, "\n%s", MarkdownQuote(cb.Rationale))
	}
	fmt.Fprintf(b, "\nReview count: %d", cd.ReviewCount)
	if len(cd.Advisors) > 0 {
		fmt.Fprintf(b, " (%s)", markdowns(cd.Advisors))
	}
	b.WriteString("\n")
	for _, w := range cb.Weighed {
		fmt.Fprintf(b, "- `%s` %s: %s\n", ShortID(w.Consultation), Markdown(w.Treatment), Markdown(w.Reason))
	}
	if line := AnsweredLine(cd.AnsweredBy); line != "" && len(cb.LocalReview) > 0 {
		fmt.Fprintf(b, "Local review %s:\n", line)
	}
	for _, la := range cb.LocalReview {
		fmt.Fprintf(b, "- %s — %s\n", Markdown(la.Item), Markdown(la.Answer))
	}
	for _, v := range s.all(KindValidation, func(e *Entry) bool { return e.Body.(*Validation).Conclusion == c.ID }) {
		vb, vd := v.Body.(*Validation), v.Derived.(*ValidationDerived)
		switch {
		case vb.Method == "command" && vd.ExitCode == nil:
			// Only a hand-made record lacks it; verify reports that one.
			fmt.Fprintf(b, "\nValidated by running %s: %s (exit status not recorded).\n", MarkdownCode(vb.Command), Markdown(vd.Result))
		case vb.Method == "command":
			fmt.Fprintf(b, "\nValidated by running %s: %s (exit %d, %d ms).\n", MarkdownCode(vb.Command), Markdown(vd.Result), *vd.ExitCode, deref(vd.DurationMS))
		default:
			fmt.Fprintf(b, "\nManual validation claimed: %s.\n", Markdown(vd.Result))
		}
		s.reportWithdrawn(b, v)
	}
	for _, at := range s.all(KindAttempt, func(e *Entry) bool { return e.Body.(*Attempt).Conclusion == c.ID }) {
		ab := at.Body.(*Attempt)
		if len(ab.Commits) == 0 {
			fmt.Fprintf(b, "\nAttempt: %s.\n", Markdown(ab.Outcome))
		} else {
			fmt.Fprintf(b, "\nAttempt: %s (%s).\n", Markdown(ab.Outcome), markdowns(ab.Commits))
		}
		s.reportWithdrawn(b, at)
	}
}

// reportWithdrawn says, under a validation or attempt, that it is
// withdrawn and why.
func (s *State) reportWithdrawn(b *strings.Builder, e *Entry) {
	if w := s.Withdrawn(e.ID); w != nil {
		fmt.Fprintf(b, "Withdrawn by `%s` (%s): %s\n", ShortID(w.ID), Markdown(w.Actor), Markdown(w.Body.(*Withdrawal).Reason))
	}
}

// reportClosed says how a closed task was closed.
func reportClosed(b *strings.Builder, c *Closed) {
	fmt.Fprintf(b, "\nClosed **%s**", Markdown(c.Outcome))
	if c.By != "" {
		fmt.Fprintf(b, " (replaced by task %s)", Markdown(c.By))
	}
	fmt.Fprintf(b, " by `%s` (%s, %s)", ShortID(c.Closure), Markdown(c.Actor), Markdown(c.Created))
	if c.Reason != "" {
		fmt.Fprintf(b, ": %s", Markdown(c.Reason))
	}
	b.WriteString("\n")
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// reportEvidence is one evidence line of a report: an assessment's, or
// the evidence a resolution rests on.
func reportEvidence(b *strings.Builder, ev Evidence) {
	if ev.Ref == "" {
		fmt.Fprintf(b, "- evidence (%s): %s\n", Markdown(ev.Kind), Markdown(ev.Summary))
	} else {
		fmt.Fprintf(b, "- evidence (%s %s): %s\n", Markdown(ev.Kind), Markdown(ev.Ref), Markdown(ev.Summary))
	}
}

// markdowns is texts of a record made inert by Markdown, joined by ", ".
func markdowns(xs []string) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = Markdown(x)
	}
	return strings.Join(out, ", ")
}
