package record

// Handover is one task as whoever picks the work up next needs it: where it
// stands, the next command, and what is left open. It is a pure function
// of the task's records.
type Handover struct {
	Task    string   `json:"task"`
	Subject string   `json:"subject,omitempty"`
	Phase   Phase    `json:"phase"`
	Updated string   `json:"updated,omitempty"`
	Actors  []string `json:"actors"`
	Next    string   `json:"next,omitempty"`
	// PersonStep replaces Next when a person must decide first (see
	// Status.PersonStep), and NextTools is Next as the MCP tools take it
	// (Status.NextTools).
	PersonStep    *PersonStep         `json:"person_step,omitempty"`
	NextTools     []ToolCall          `json:"next_tools,omitempty"`
	Finished      bool                `json:"finished"`
	Disagreements []HandoverDispute   `json:"open_disagreements"`
	LocalReview   []string            `json:"unanswered_local_review"`
	Consultations []HandoverConsult   `json:"failed_consultations"`
	Missing       []string            `json:"missing_advisors"`
	Reuse         *HandoverReuse      `json:"reuses,omitempty"`
	Standing      []Standing          `json:"standing"`
	Validation    *HandoverValidation `json:"last_validation,omitempty"`
	Attempt       *HandoverAttempt    `json:"last_attempt,omitempty"`
	Settled       string              `json:"settled,omitempty"` // when it was last concluded, validated or closed
	Closed        *Closed             `json:"closed,omitempty"`  // how the task is closed; nil while open
	// DoesNotVerify is replay's first finding when the task's history
	// does not replay clean; what else the handover says is recomputed.
	DoesNotVerify *Finding `json:"does_not_verify,omitempty"`
	// AnsweredBy is who answered the latest conclusion's local review:
	// "person", "agent" (self-answered), or absent when unknown.
	AnsweredBy string `json:"answered_by,omitempty"`
}

// HandoverDispute is an open disagreement: who opened it and what it cites.
type HandoverDispute struct {
	ID       string   `json:"id"`
	OpenedBy string   `json:"opened_by"`
	Actor    string   `json:"actor"`
	Cites    []string `json:"cites"`
	Summary  string   `json:"summary"`
}

// HandoverConsult is an advisor of the latest plan whose consultations all
// failed: the latest failure, and how many there were.
type HandoverConsult struct {
	ID       string `json:"id"`
	Advisor  string `json:"advisor"`
	Status   string `json:"status"`
	Failure  string `json:"failure,omitempty"`
	Detail   string `json:"detail,omitempty"`
	Failures int    `json:"failures"`
}

// HandoverReuse is the standing conclusion of another task that the latest
// assessment reuses.
type HandoverReuse struct {
	Conclusion string `json:"conclusion"`
	Task       string `json:"task"`
	Actor      string `json:"actor,omitempty"`
}

// HandoverValidation is the latest validation of the latest conclusion.
type HandoverValidation struct {
	ID      string `json:"id"`
	Result  string `json:"result"`
	Method  string `json:"method"`
	Command string `json:"command,omitempty"`
	Created string `json:"created"`
	Actor   string `json:"actor"`
}

// HandoverAttempt is the task's latest attempt.
type HandoverAttempt struct {
	ID      string   `json:"id"`
	Outcome string   `json:"outcome"`
	Commits []string `json:"commits"`
	Created string   `json:"created"`
}

// Handover derives the task's handover. A task is finished when its phase
// is validated and its latest attempt, if any, did not fail.
func (s *State) Handover() Handover {
	st := s.Summarize()
	h := Handover{Task: s.Task, Subject: st.Subject, Phase: st.Phase, Updated: st.Updated, Next: st.Next,
		Closed: st.Closed, Actors: []string{}, Disagreements: []HandoverDispute{}, LocalReview: []string{},
		Consultations: []HandoverConsult{}, Missing: []string{}, Standing: st.Standing, DoesNotVerify: s.Unverified}
	seen := map[string]bool{}
	attemptOf := "" // the conclusion the latest attempt carried out
	for _, e := range s.Entries {
		if !seen[e.Actor] {
			seen[e.Actor] = true
			h.Actors = append(h.Actors, e.Actor)
		}
		if e.Kind == KindAttempt && s.notWithdrawn(e) {
			b := e.Body.(*Attempt)
			h.Attempt = &HandoverAttempt{ID: e.ID, Outcome: b.Outcome, Commits: append([]string{}, b.Commits...), Created: e.Created}
			attemptOf = b.Conclusion
		}
	}
	a := s.LatestAssessment()
	if a == nil {
		return h
	}
	for _, d := range s.OpenDisagreements(a.ID) {
		b := d.Body.(*Disagreement)
		h.Disagreements = append(h.Disagreements, HandoverDispute{ID: d.ID, OpenedBy: d.Derived.(*DisagreementDerived).OpenedBy,
			Actor: d.Actor, Cites: append([]string{}, b.Cites...), Summary: b.Summary})
	}
	if ad := a.Derived.(*AssessmentDerived); ad.Reuses != "" {
		h.Reuse = &HandoverReuse{Conclusion: ad.Reuses, Task: ad.ReusesTask, Actor: ad.ReusesActor}
	}
	c := s.ConclusionOf(a.ID)
	if p := s.LatestPlan(a.ID); p != nil {
		pd := p.Derived.(*PlanDerived)
		answered := map[string]bool{}
		if c != nil {
			for _, la := range c.Body.(*Conclusion).LocalReview {
				answered[la.Item] = true
			}
		}
		for _, item := range pd.LocalReview {
			if c == nil || !(answered[item]) {
				h.LocalReview = append(h.LocalReview, item)
			}
		}
		// One line per advisor of the plan that has not answered: its
		// latest failure and their count, or that it was never asked.
		failed := map[string]int{}
		for _, e := range s.Consultations(a.ID) {
			b := e.Body.(*Consultation)
			if b.Status == "completed" || b.Plan != p.ID || s.AnsweredBy(p.ID, b.Advisor) != nil {
				continue
			}
			hc := HandoverConsult{ID: e.ID, Advisor: b.Advisor, Status: b.Status}
			if b.Failure != nil {
				hc.Failure, hc.Detail = b.Failure.Kind, b.Failure.Detail
			}
			i, ok := failed[b.Advisor]
			if !ok {
				i = len(h.Consultations)
				failed[b.Advisor] = i
				h.Consultations = append(h.Consultations, hc)
			}
			hc.Failures = h.Consultations[i].Failures + 1
			h.Consultations[i] = hc
		}
		if c == nil {
			for _, adv := range pd.Selected {
				if _, ok := failed[adv]; !ok && s.AnsweredBy(p.ID, adv) == nil {
					h.Missing = append(h.Missing, adv)
				}
			}
		}
	}
	if c != nil {
		h.Settled = c.Created
		if len(c.Body.(*Conclusion).LocalReview) > 0 {
			h.AnsweredBy = c.Derived.(*ConclusionDerived).AnsweredBy
		}
		if v := s.LatestValidation(c.ID); v != nil {
			b := v.Body.(*Validation)
			h.Validation = &HandoverValidation{ID: v.ID, Result: v.Derived.(*ValidationDerived).Result,
				Method: b.Method, Command: b.Command, Created: v.Created, Actor: v.Actor}
			h.Settled = v.Created
		}
	}
	// Only a failed attempt at the latest conclusion keeps a validated task
	// open: one at a conclusion since replaced by a new assessment's is
	// what that assessment answered (assessing anew would loop). Two
	// conclusions standing (a merge) keep it open too: status's next step,
	// one superseding both, settles them.
	failed := h.Attempt != nil && h.Attempt.Outcome == "failed" && c != nil && attemptOf == c.ID
	merged := len(s.Conclusions(a.ID)) > 1
	h.Finished = h.Phase == PhaseValidated && !failed && !merged
	if h.Phase == PhaseValidated && failed && !merged {
		h.Next = "git reason assess " + s.Task + " (the last attempt failed: assess anew)"
	}
	if h.Closed != nil {
		// A closed task is finished whatever its phase, settled when closed.
		h.Finished, h.Settled, h.Next = true, h.Closed.Created, ""
	}
	return h
}
