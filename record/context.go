package record

// TaskContext is the reasoning behind a task as the reviewer of a change
// needs it: each assessment with how its review was reached, the
// disagreements and how they were settled, the conclusion, and how it was
// checked. It is a pure function of the task's records.
type TaskContext struct {
	Task        string              `json:"task"`
	Subject     string              `json:"subject,omitempty"`
	Phase       Phase               `json:"phase"`
	Decision    string              `json:"decision,omitempty"` // the latest assessment's conclusion, or the one it reuses
	ReviewCount int                 `json:"review_count"`
	Updated     string              `json:"updated,omitempty"`
	Assessments []ContextAssessment `json:"assessments"`
	Graph       Graph               `json:"graph"`
	// DoesNotVerify is replay's first finding when the task's history
	// does not replay clean; what else it says is recomputed.
	DoesNotVerify *Finding `json:"does_not_verify,omitempty"`
	// Closed is how the task is closed; nil while it is open.
	Closed *Closed `json:"closed,omitempty"`
}

// ContextAssessment is one assessment of a task and everything that
// answers it, in history order.
type ContextAssessment struct {
	ID            string                `json:"id"`
	Subject       string                `json:"subject"`
	Question      string                `json:"question"`
	Materiality   string                `json:"materiality"`
	Reversibility string                `json:"reversibility"`
	Actor         string                `json:"actor"`
	Created       string                `json:"created"`
	Evidence      []Evidence            `json:"evidence"`
	Reuses        *ContextReuse         `json:"reuses,omitempty"`
	Plan          *ContextPlan          `json:"plan,omitempty"`
	Consultations []ContextConsultation `json:"consultations"`
	Disagreements []ContextDisagreement `json:"disagreements"`
	Conclusion    *ContextConclusion    `json:"conclusion,omitempty"`
	Validations   []ContextValidation   `json:"validations"`
	Attempts      []ContextAttempt      `json:"attempts"`
}

// ContextReuse is a standing conclusion an assessment reuses instead of
// asking again. Decision is filled by whoever can read the other task.
type ContextReuse struct {
	Conclusion string `json:"conclusion"`
	Task       string `json:"task"`
	Actor      string `json:"actor,omitempty"`
	Decision   string `json:"decision,omitempty"`
}

// ContextPlan is the latest plan of an assessment: how much review the
// policy asked for and of whom.
type ContextPlan struct {
	ID          string   `json:"id"`
	Review      string   `json:"review"`
	Reason      string   `json:"reason"`
	Profile     string   `json:"profile"`
	Mode        string   `json:"mode"`
	Selected    []string `json:"selected"`
	LocalReview []string `json:"local_review"`
}

// ContextConsultation is one advisor's outcome, with the model that
// answered (reported by the responder or declared) and how the conclusion
// treated it.
type ContextConsultation struct {
	ID         string   `json:"id"`
	Advisor    string   `json:"advisor"`
	Status     string   `json:"status"`
	Stance     string   `json:"stance,omitempty"`
	Summary    string   `json:"summary,omitempty"`
	Confidence *float64 `json:"confidence,omitempty"`
	Model      *Model   `json:"model,omitempty"`
	Failure    *Failure `json:"failure,omitempty"`
	Treatment  string   `json:"treatment,omitempty"`
	Reason     string   `json:"treatment_reason,omitempty"`
}

// ContextDisagreement is a disagreement on an assessment and the
// resolutions that settled it (none while it is open).
type ContextDisagreement struct {
	ID          string              `json:"id"`
	Summary     string              `json:"summary"`
	OpenedBy    string              `json:"opened_by"`
	Actor       string              `json:"actor"`
	Cites       []string            `json:"cites"`
	Open        bool                `json:"open"`
	Resolutions []ContextResolution `json:"resolutions"`
}

// ContextResolution settles a disagreement with evidence.
type ContextResolution struct {
	ID       string     `json:"id"`
	Decision string     `json:"decision"`
	Evidence []Evidence `json:"evidence"`
	Actor    string     `json:"actor"`
	Created  string     `json:"created"`
}

// ContextConclusion is the decision on an assessment with its computed
// review count.
type ContextConclusion struct {
	ID          string        `json:"id"`
	Decision    string        `json:"decision"`
	Rationale   string        `json:"rationale,omitempty"`
	ReviewCount int           `json:"review_count"`
	Advisors    []string      `json:"advisors"`
	LocalReview []LocalAnswer `json:"local_review"`
	// AnsweredBy is who answered the local review: "person", "agent"
	// (self-answered), or absent when the writer did not know.
	AnsweredBy string `json:"answered_by,omitempty"`
	Standing   bool   `json:"standing"`
	Actor      string `json:"actor"`
	Created    string `json:"created"`
}

// ContextValidation is how a conclusion was checked and, for a command,
// the commit it ran at. A manual validation is a claim.
type ContextValidation struct {
	ID       string `json:"id"`
	Method   string `json:"method"`
	Command  string `json:"command,omitempty"`
	Result   string `json:"result"`
	Commit   string `json:"commit,omitempty"`
	Dirty    bool   `json:"dirty,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
	Actor    string `json:"actor"`
	Created  string `json:"created"`
	// Withdrawn is the withdrawal that names it, when one does:
	// derivation ignores it from then on.
	Withdrawn *ContextWithdrawal `json:"withdrawn,omitempty"`
}

// ContextAttempt is an implementation attempt of a conclusion.
type ContextAttempt struct {
	ID        string             `json:"id"`
	Outcome   string             `json:"outcome"`
	Commits   []string           `json:"commits"`
	Notes     string             `json:"notes,omitempty"`
	Created   string             `json:"created"`
	Withdrawn *ContextWithdrawal `json:"withdrawn,omitempty"` // as a validation's
}

// ContextWithdrawal is the record that withdrew a validation or an
// attempt, and why.
type ContextWithdrawal struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
	Actor  string `json:"actor"`
}

// contextWithdrawal is the withdrawal of the record id, or nil.
func (s *State) contextWithdrawal(id string) *ContextWithdrawal {
	w := s.Withdrawn(id)
	if w == nil {
		return nil
	}
	return &ContextWithdrawal{ID: w.ID, Reason: w.Body.(*Withdrawal).Reason, Actor: w.Actor}
}

// Context derives the task's context.
func (s *State) Context() TaskContext {
	st := s.Summarize()
	out := TaskContext{Task: s.Task, Subject: st.Subject, Phase: st.Phase, ReviewCount: st.ReviewCount,
		Updated: st.Updated, Assessments: []ContextAssessment{}, Graph: s.Graph(), DoesNotVerify: s.Unverified,
		Closed: s.ClosedAs()}
	for _, a := range s.all(KindAssessment, nil) {
		out.Assessments = append(out.Assessments, s.contextAssessment(a))
	}
	if a := s.LatestAssessment(); a != nil {
		if c := s.ConclusionOf(a.ID); c != nil {
			out.Decision = c.Body.(*Conclusion).Decision
		}
	}
	return out
}

func (s *State) contextAssessment(a *Entry) ContextAssessment {
	b, d := a.Body.(*Assessment), a.Derived.(*AssessmentDerived)
	out := ContextAssessment{ID: a.ID, Subject: b.Subject, Question: b.Question, Materiality: b.Materiality,
		Reversibility: b.Reversibility, Actor: a.Actor, Created: a.Created, Evidence: nonNil(b.Evidence),
		Consultations: []ContextConsultation{}, Disagreements: []ContextDisagreement{},
		Validations: []ContextValidation{}, Attempts: []ContextAttempt{}}
	if d.Reuses != "" {
		out.Reuses = &ContextReuse{Conclusion: d.Reuses, Task: d.ReusesTask, Actor: d.ReusesActor}
	}
	if p := s.LatestPlan(a.ID); p != nil {
		pd := p.Derived.(*PlanDerived)
		out.Plan = &ContextPlan{ID: p.ID, Review: pd.Review, Reason: pd.Reason, Profile: pd.Profile, Mode: pd.Mode,
			Selected: nonNil(pd.Selected), LocalReview: nonNil(pd.LocalReview)}
	}
	c := s.ConclusionOf(a.ID)
	weighed := map[string]Weighed{}
	if c != nil {
		for _, w := range c.Body.(*Conclusion).Weighed {
			weighed[w.Consultation] = w
		}
	}
	for _, e := range s.Consultations(a.ID) {
		cb := e.Body.(*Consultation)
		cc := ContextConsultation{ID: e.ID, Advisor: cb.Advisor, Status: cb.Status, Model: e.Derived.(*ConsultationDerived).Model, Failure: cb.Failure}
		if cb.Conclusion != nil {
			conf := cb.Conclusion.Confidence
			cc.Stance, cc.Summary, cc.Confidence = cb.Conclusion.Stance, cb.Conclusion.Summary, &conf
		}
		if w, ok := weighed[e.ID]; ok {
			cc.Treatment, cc.Reason = w.Treatment, w.Reason
		}
		out.Consultations = append(out.Consultations, cc)
	}
	for _, e := range s.all(KindDisagreement, func(e *Entry) bool { return e.Body.(*Disagreement).Assessment == a.ID }) {
		db := e.Body.(*Disagreement)
		cd := ContextDisagreement{ID: e.ID, Summary: db.Summary, OpenedBy: e.Derived.(*DisagreementDerived).OpenedBy,
			Actor: e.Actor, Cites: nonNil(db.Cites), Open: s.IsOpenDisagreement(e.ID), Resolutions: []ContextResolution{}}
		for _, r := range s.all(KindResolution, func(r *Entry) bool { return r.Body.(*Resolution).Disagreement == e.ID }) {
			rb := r.Body.(*Resolution)
			cd.Resolutions = append(cd.Resolutions, ContextResolution{ID: r.ID, Decision: rb.Decision,
				Evidence: nonNil(rb.Evidence), Actor: r.Actor, Created: r.Created})
		}
		out.Disagreements = append(out.Disagreements, cd)
	}
	if c == nil {
		return out
	}
	cb, cd := c.Body.(*Conclusion), c.Derived.(*ConclusionDerived)
	out.Conclusion = &ContextConclusion{ID: c.ID, Decision: cb.Decision, Rationale: cb.Rationale,
		ReviewCount: cd.ReviewCount, Advisors: nonNil(cd.Advisors), LocalReview: nonNil(cb.LocalReview),
		Standing: s.Holds(c.ID), Actor: c.Actor, Created: c.Created}
	if len(cb.LocalReview) > 0 {
		out.Conclusion.AnsweredBy = cd.AnsweredBy
	}
	for _, v := range s.all(KindValidation, func(e *Entry) bool { return e.Body.(*Validation).Conclusion == c.ID }) {
		vb, vd := v.Body.(*Validation), v.Derived.(*ValidationDerived)
		out.Validations = append(out.Validations, ContextValidation{ID: v.ID, Method: vb.Method, Command: vb.Command,
			Result: vd.Result, Commit: vd.Commit, Dirty: vd.Dirty != nil && *vd.Dirty, ExitCode: vd.ExitCode,
			Actor: v.Actor, Created: v.Created, Withdrawn: s.contextWithdrawal(v.ID)})
	}
	for _, t := range s.all(KindAttempt, func(e *Entry) bool { return e.Body.(*Attempt).Conclusion == c.ID }) {
		tb := t.Body.(*Attempt)
		out.Attempts = append(out.Attempts, ContextAttempt{ID: t.ID, Outcome: tb.Outcome, Commits: nonNil(tb.Commits),
			Notes: tb.Notes, Created: t.Created, Withdrawn: s.contextWithdrawal(t.ID)})
	}
	return out
}

// nonNil returns xs, or an empty list for nil: JSON shows [] either way,
// and a Go caller need not check.
func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// Mention is a commit or file one of the task's records names: a commit
// of an attempt, the commit a validation ran at, or a file that evidence
// (of an assessment, resolution or validation) cites, as written.
type Mention struct {
	By     string `json:"by"` // attempt, validation, evidence
	Commit string `json:"commit,omitempty"`
	File   string `json:"file,omitempty"`
	Record string `json:"record"`
}

// Mentions lists what the task's records name that can link the task to
// commits, in history order.
func (s *State) Mentions() []Mention {
	var out []Mention
	for _, e := range s.Entries {
		var evidence []Evidence
		switch b := e.Body.(type) {
		case *Attempt:
			for _, c := range b.Commits {
				out = append(out, Mention{By: "attempt", Commit: c, Record: e.ID})
			}
		case *Validation:
			if c := e.Derived.(*ValidationDerived).Commit; c != "" {
				out = append(out, Mention{By: "validation", Commit: c, Record: e.ID})
			}
			evidence = b.Evidence
		case *Assessment:
			evidence = b.Evidence
		case *Resolution:
			evidence = b.Evidence
		}
		for _, ev := range evidence {
			if ev.Kind == "file" && ev.Ref != "" {
				out = append(out, Mention{By: "evidence", File: ev.Ref, Record: e.ID})
			}
		}
	}
	return out
}
