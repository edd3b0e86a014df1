package ops

import (
	"context"
	"fmt"
	"strings"

	"git-reason/advisor"
	"git-reason/advisor/material"
	"git-reason/advisor/transport"
	"git-reason/gitstore/git"
	"git-reason/record"
)

// AdvisorQuestion is what one advisor is (or would be) asked: the budget
// the question is fitted to, its size and SHA-256, and each evidence
// item's part (sent whole, cut, left out or never sent).
type AdvisorQuestion struct {
	Advisor string `json:"advisor"`
	record.Question
}

// questions gathers the material of plan's assessment once, under a fresh
// nonce, and renders each of decls' questions from it, in order.
func (e *Session) questions(ctx context.Context, st *record.State, plan *record.Entry, decls []advisor.Declaration) (*material.Set, []AdvisorQuestion, error) {
	a := st.Get(plan.Body.(*record.Plan).Assessment)
	if a == nil {
		return nil, nil, fmt.Errorf("plan %s: its assessment is not in task %s", plan.ID, st.Task)
	}
	set, err := e.Material(ctx, st, a, plan.Derived.(*record.PlanDerived).Needs, material.NewNonce(), nil)
	if err != nil {
		return nil, nil, err
	}
	out := []AdvisorQuestion{}
	for _, d := range decls {
		_, q := advisor.Question(set, a, nil, d)
		out = append(out, AdvisorQuestion{Advisor: d.ID, Question: *q})
	}
	return set, out, nil
}

// PlanQuestions says, for each advisor the plan just written (res)
// selected that is still declared, how much material its question would
// carry now and what would be cut, as consult would ask it. The task is
// the writer's own state after the write (StateAfter), not derived again.
func (e *Session) PlanQuestions(ctx context.Context, res *record.Result) ([]AdvisorQuestion, error) {
	st, err := e.StateAfter(ctx, res)
	if err != nil {
		return nil, err
	}
	plan := st.Get(res.ID)
	if plan == nil || plan.Kind != record.KindPlan {
		return nil, Usage("no plan %s in task %s", res.ID, res.Task)
	}
	cat, _, err := e.Catalog()
	if err != nil {
		return nil, err
	}
	var decls []advisor.Declaration
	for _, id := range plan.Derived.(*record.PlanDerived).Selected {
		if d, ok := cat.Advisor(id); ok {
			decls = append(decls, d)
		}
	}
	if len(decls) == 0 {
		return []AdvisorQuestion{}, nil
	}
	_, qs, err := e.questions(ctx, st, plan, decls)
	return qs, err
}

// checkConsultCap refuses a run whose questions together exceed
// reason.maxBytesPerConsult, before anything is sent.
func (e *Session) checkConsultCap(qs []AdvisorQuestion) error {
	s, err := e.Settings()
	if err != nil {
		return err
	}
	total := 0
	for _, q := range qs {
		total += q.Bytes
	}
	if int64(total) > s.MaxBytesPerConsult {
		msg := fmt.Sprintf("reason.maxBytesPerConsult: the questions of this run total %d bytes, over the cap of %d; nothing was sent: lower the advisors' context_bytes or raise the cap (git config reason.maxBytesPerConsult)", total, s.MaxBytesPerConsult)
		return &refusal{msg: msg, tools: git.PersonSets(msg)}
	}
	return nil
}

// Reassembled is a recorded consultation's question assembled again from
// the record and the repository as they are now.
type Reassembled struct {
	Record   string           `json:"record"`
	Recorded *record.Question `json:"recorded"`
	SHA256   string           `json:"sha256"`
	Bytes    int              `json:"bytes"`
	Matches  bool             `json:"matches"`
	Text     string           `json:"-"`
}

// oldNotRead is the note of an item not read past the cap as a record
// made before NotRead dropped the cap's figure has it.
// (a function, not a package-level regexp, so that nothing is built at
// start-up: TestStartupBuildsLittle).
func oldNotRead(note string) bool {
	n, ok := strings.CutPrefix(note, "not read: the material before it passes reason.maxBytesPerConsult (")
	n, ok2 := strings.CutSuffix(n, " bytes)")
	return ok && ok2 && n != "" && strings.Trim(n, "0123456789") == ""
}

// Reassemble assembles the question consultation id sent again: the
// assessment's material read where the record says each item was read,
// under the recorded nonce and budget, redacted as now. It matches when its
// SHA-256 is the recorded one; a work tree file changed since, or a
// credential variable set differently, makes it differ.
func (e *Session) Reassemble(ctx context.Context, id string) (*Reassembled, error) {
	c, st, err := e.Find(ctx, id)
	if err != nil {
		return nil, err
	}
	d, ok := c.Derived.(*record.ConsultationDerived)
	if !ok || d.Question == nil {
		return nil, Usage("record %s is not a consultation that recorded its question", c.ID)
	}
	plan := st.Get(c.Body.(*record.Consultation).Plan)
	if plan == nil {
		return nil, fmt.Errorf("consultation %s: its plan is not in task %s", c.ID, st.Task)
	}
	a := st.Get(plan.Body.(*record.Plan).Assessment)
	pins := &Pins{At: map[int]string{}, NotRead: map[int]string{}}
	for _, m := range d.Question.Material {
		// An item not read keeps its revision too: its ref is resolved
		// before it is found unread, and a branch deleted since must not
		// make it "no commit" where the record says "not read".
		if m.Omitted == NotRead || oldNotRead(m.Omitted) {
			pins.NotRead[m.Evidence] = m.Omitted
		}
		if m.Revision != "" {
			pins.At[m.Evidence] = m.Revision
		}
	}
	set, err := e.Material(ctx, st, a, plan.Derived.(*record.PlanDerived).Needs, d.Question.Nonce, pins)
	if err != nil {
		return nil, err
	}
	req, q := set.For(d.Question.Budget)
	return &Reassembled{Record: c.ID, Recorded: d.Question, SHA256: q.SHA256, Bytes: q.Bytes,
		Matches: q.SHA256 == d.Question.SHA256, Text: transport.Prompt(req)}, nil
}
