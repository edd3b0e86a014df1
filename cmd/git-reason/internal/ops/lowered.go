package ops

import (
	"context"
	"fmt"
	"strings"
	"time"

	"git-reason/advisor"
	"git-reason/policy"
	"git-reason/record"
)

// Lowered says that a repository's declarations lowered the review a plan
// asks for: it selected fewer advisors than the shipped and user
// declarations alone would have at the same moment.
type Lowered struct {
	File     string   `json:"file"`     // the repository overlay
	Selected []string `json:"selected"` // what the plan selected
	// Without is what the shipped and user declarations alone select.
	Without []string `json:"without_repository"`
	Notice  string   `json:"notice"` // the one line that says so, to the command line (Said)
	said    string   // Notice before its advice
}

// baseline is the profile and availability snapshot a plan would have had
// without the repository overlay, taken at the same moment as its own.
type baseline struct {
	file    string
	profile policy.Profile
	snap    []policy.Advisor
}

// rememberBaseline takes, when a repository overlay applies, the snapshot
// under the shipped and user declarations alone, for PlanLowered to
// compare the plan with. The profile is the one of the same name there, or
// the repository's own when only the repository declares it.
func (e *Session) rememberBaseline(prof advisor.Profile, now time.Time) error {
	e.baseline = nil
	cat, _, err := e.Catalog()
	if err != nil || cat.Repository == "" {
		return err
	}
	base := e.baseCatalog
	if base == nil {
		src, err := e.sources()
		if err != nil {
			return err
		}
		src.Repository = ""
		if base, _, err = advisor.Load(src); err != nil {
			return fmt.Errorf("load the declarations without the repository's: %w", err)
		}
		e.baseCatalog = base
	}
	if p, ok := base.Profile(prof.ID); ok {
		prof = p
	}
	snap, err := e.snapshotOf(base, prof.Mode, now)
	if err != nil {
		return err
	}
	e.baseline = &baseline{file: advisor.RepositoryOverlayPath(e.Repo.WorkTree), profile: prof.Policy(), snap: snap}
	return nil
}

// PlanLowered compares a plan just written with the plan the same
// assessment gets from the same moment's availability without the
// repository overlay (the pure policy, both ways), and says when the
// overlay made it select fewer advisors; nil when it did not, or when no
// overlay applied. The plan is written by then: a task that does not read
// back is a warning, not a failure. The task is the writer's own state
// after the write (StateAfter), not derived again.
func (e *Session) PlanLowered(ctx context.Context, res *record.Result) *Lowered {
	pd, ok := res.Derived.(*record.PlanDerived)
	if !ok || e.baseline == nil || pd.Review == string(policy.ReviewNone) {
		return nil
	}
	st, err := e.StateAfter(ctx, res)
	if err != nil {
		e.say(record.Advice{CLI: record.Printable(fmt.Sprintf("could not compare the plan with the declarations without %s: %v", e.baseline.file, err))})
		return nil
	}
	a := st.Get(res.Body.(*record.Plan).Assessment)
	if a == nil {
		return nil
	}
	body := a.Body.(*record.Assessment)
	without := policy.Decide(policy.Assessment{Materiality: body.Materiality, Reversibility: body.Reversibility,
		Needs: body.Needs, Reuses: a.Derived.(*record.AssessmentDerived).Reuses}, e.baseline.profile, e.baseline.snap)
	if len(pd.Selected) >= len(without.Selected) {
		return nil
	}
	l := &Lowered{File: e.baseline.file, Selected: append([]string{}, pd.Selected...), Without: append([]string{}, without.Selected...)}
	mode := ""
	if pd.Mode != string(e.baseline.profile.Mode) {
		mode = fmt.Sprintf(" (profile %s is mode %s there, %s without it)", pd.Profile, pd.Mode, e.baseline.profile.Mode)
	}
	l.said = fmt.Sprintf("review lowered by %s: this plan asks %s where the shipped and user declarations alone ask %s%s; ",
		l.File, advisorList(l.Selected), advisorList(l.Without), mode)
	l.Notice = l.Said().String()
	return l
}

// Said is the notice said two ways: what the declarations are is seen
// with a command only the person runs, as they alone trust them.
func (l *Lowered) Said() record.Advice {
	return record.Advice{CLI: l.said + "see 'git reason trust --show'",
		Tools: l.said + "the person sees why with 'git reason trust --show' (no tool reviews trust)"}
}

// advisorList is "no advisor", or the count and the ids.
func advisorList(ids []string) string {
	switch len(ids) {
	case 0:
		return "no advisor"
	case 1:
		return "1 advisor (" + ids[0] + ")"
	}
	return fmt.Sprintf("%d advisors (%s)", len(ids), strings.Join(ids, ", "))
}
