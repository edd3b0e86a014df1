package ops

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"git-reason/advisor"
	"git-reason/policy"
	"git-reason/record"
)

// selectedNow splits the advisors a plan selected into those that can be
// asked now and those that cannot, with why: consult asks the first and
// skips the others.
func selectedNow(cat *advisor.Catalog, snap []policy.Advisor, selected []string) (ask []advisor.Declaration, skipped []advisor.Skipped) {
	now := map[string]policy.Advisor{}
	for _, s := range snap {
		now[s.ID] = s
	}
	for _, id := range selected {
		d, ok := cat.Advisor(id)
		switch {
		case !ok:
			skipped = append(skipped, advisor.Skipped{Advisor: id, Reason: "no longer declared"})
		case !now[id].Status.Askable():
			skipped = append(skipped, advisor.Skipped{Advisor: id, Reason: fmt.Sprintf("%s now: %s", now[id].Status, now[id].Reason)})
		default:
			ask = append(ask, d)
		}
	}
	return ask, skipped
}

// reopensAt is the earliest time a circuit of the selected advisors
// reopens, "" when none is open.
func reopensAt(snap []policy.Advisor, selected []string) string {
	until := ""
	for _, s := range snap {
		if slices.Contains(selected, s.ID) && s.Until != "" && (until == "" || s.Until < until) {
			until = s.Until
		}
	}
	return until
}

// unaskableStep is the person's step of a task whose plan selected
// advisors none of which can be asked now: consult would be refused
// (noneAskable), so what follows is the person's choice.
func unaskableStep(task string, skipped []advisor.Skipped, snap []policy.Advisor, selected []string) *record.PersonStep {
	decide := noneOfPlan(len(skipped)) + " (" + skipped[0].Advisor + ": %s): choose how the review goes on"
	step := &record.PersonStep{Decide: fmt.Sprintf(decide, skipped[0].Reason),
		DecideTools: fmt.Sprintf(decide, advisor.ToolReason(skipped[0].Reason))}
	if until := reopensAt(snap, selected); until != "" {
		step.Options = append(step.Options, record.PersonOption{Choice: "wait until " + until + " (a circuit reopens)", Then: "git reason consult " + task})
	}
	for _, s := range snap {
		if slices.Contains(selected, s.ID) && s.Status == policy.StatusDisabled {
			step.Options = append(step.Options, record.PersonOption{Choice: "enable one (git config reason.disable, git reason advisors)",
				ChoiceTools: "have the person enable one with git config reason.disable (no tool enables an advisor; the advisors tool lists them)",
				Then:        "git reason consult " + task})
			break
		}
	}
	step.Options = append(step.Options,
		record.PersonOption{Choice: "plan anew for a local review (the checklist replaces the advisors)", Then: "git reason plan " + task})
	return step
}

// personStep is the step a person must decide instead of next, a task's
// next command, when that command would be refused now: a consult whose
// selected advisors none can be asked. nil when next can be run as it is
// (or the declarations do not read: consult says why).
func (e *Session) personStep(ctx context.Context, task, next string, selected []string) *record.PersonStep {
	if len(selected) == 0 || !strings.HasPrefix(next, "git reason consult "+task) {
		return nil
	}
	cat, snap, err := e.catalogNow(ctx)
	if err != nil {
		return nil
	}
	if ask, skipped := selectedNow(cat, snap, selected); len(ask) == 0 {
		return unaskableStep(task, skipped, snap, selected)
	}
	return nil
}

// MarkPersonStep replaces a status's next command by the person's step
// when the command would be refused now (see personStep). Status is kept
// by head; this part depends on the moment, and is never kept.
func (e *Session) MarkPersonStep(ctx context.Context, st *record.Status) {
	if step := e.personStep(ctx, st.Task, st.Next, st.Selected); step != nil {
		st.Next, st.PersonStep = "", step
	}
}

// markHandoverSteps does MarkPersonStep for each open task of a
// handover, where selected[i] is what the latest plan of open[i]
// selected (consultSelected).
func (e *Session) markHandoverSteps(ctx context.Context, open []record.Handover, selected [][]string) {
	for i := range open {
		h := &open[i]
		if step := e.personStep(ctx, h.Task, h.Next, selected[i]); step != nil {
			h.Next, h.PersonStep = "", step
		}
	}
}

// noneOfPlan says that none of the n advisors a plan selected can be
// asked now.
func noneOfPlan(n int) string {
	if n == 1 {
		return "the one advisor the plan selected cannot be asked now"
	}
	return fmt.Sprintf("none of the %d advisors the plan selected can be asked now", n)
}
