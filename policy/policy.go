package policy

import "fmt"

// Mode is how much reasoning a run allows.
type Mode string

// The modes an execution profile may declare.
const (
	ModeNormal  Mode = "normal"  // every available advisor may be asked
	ModeOffline Mode = "offline" // only advisors on this machine
	ModeCI      Mode = "ci"      // no advisor at all
)

// ValidMode reports whether m is one of the modes a profile may declare.
func ValidMode(m Mode) bool { return m == ModeNormal || m == ModeOffline || m == ModeCI }

// ModeAdmits says whether a mode lets an advisor be asked, with the reason
// when it does not: normal admits every advisor, offline only those that run
// on this machine, ci none. An unknown mode admits nothing, so a typo can
// never widen what a run may contact.
func ModeAdmits(m Mode, local bool) (bool, string) {
	switch m {
	case ModeNormal:
		return true, ""
	case ModeOffline:
		if local {
			return true, ""
		}
		return false, "mode offline admits only advisors on this machine"
	case ModeCI:
		return false, "mode ci asks no advisor"
	}
	return false, fmt.Sprintf("unknown mode %q asks no advisor", string(m))
}

// Review says how strongly an assessment calls for independent review.
type Review string

// The review levels a plan may carry.
const (
	ReviewNone        Review = "none"
	ReviewRecommended Review = "recommended"
	ReviewRequired    Review = "required"
)

// Status is the availability of one advisor at one moment.
type Status string

// The statuses an availability snapshot may give an advisor.
const (
	StatusAvailable      Status = "available"
	StatusRecovering     Status = "recovering"
	StatusOpen           Status = "open"
	StatusDisabled       Status = "disabled"
	StatusExcludedByMode Status = "excluded_by_mode"
	StatusNotInstalled   Status = "not_installed"
	StatusNotConfigured  Status = "not_configured"
)

// Askable reports whether an advisor with this status may be selected.
func (s Status) Askable() bool { return s == StatusAvailable || s == StatusRecovering }

// Assessment is what policy needs to know of an assessment.
type Assessment struct {
	Materiality   string   // trivial, minor, material, critical
	Reversibility string   // reversible, costly, irreversible
	Needs         []string // capabilities the caller says review needs
	Reuses        string   // id of a standing conclusion being reused, if any
}

// Profile is the execution profile a plan is made under.
type Profile struct {
	Name string
	Mode Mode
}

// Advisor is one entry of an availability snapshot, in preference order.
type Advisor struct {
	ID           string
	Status       Status
	Reason       string
	Until        string // RFC 3339, set while a circuit is open
	Capabilities []string
	Local        bool // runs on this machine; Decide re-checks the mode with it
}

// Plan is the decision for one assessment under one snapshot.
type Plan struct {
	Review      Review
	Reason      string
	Wanted      int      // how many advisors review wants
	Needs       []string // capabilities every selected advisor must have
	Selected    []string // advisor ids, in preference order
	LocalReview []string // checklist the conclusion must answer when nothing is selected
}

// DefaultCapability is what review needs when the assessment names nothing.
const DefaultCapability = "reasoning"

// Decide makes the plan for an assessment under a profile and an
// availability snapshot. The snapshot is in preference order; available
// advisors are preferred to recovering ones, and advisors the profile's mode
// does not admit are never selected, whatever their status says. It never
// fails: with no advisor selected the plan is the structured local review.
func Decide(a Assessment, p Profile, snapshot []Advisor) Plan {
	review, wanted, why := Need(a)
	plan := Plan{Review: review, Wanted: wanted, Reason: why}
	if review == ReviewNone {
		return plan
	}
	plan.Needs = needs(a)
	var admitted []Advisor
	for _, adv := range snapshot {
		if ok, _ := ModeAdmits(p.Mode, adv.Local); ok {
			admitted = append(admitted, adv)
		}
	}
	if ok, why := ModeAdmits(p.Mode, true); !ok {
		plan.Reason += "; " + why
	} else if p.Mode == ModeOffline {
		plan.Reason += "; mode offline asks only advisors on this machine"
	}
	plan.Selected = Select(admitted, plan.Needs, wanted)
	switch {
	case len(plan.Selected) == 0:
		plan.LocalReview = LocalReview(a)
		if ok, _ := ModeAdmits(p.Mode, true); ok {
			plan.Reason += "; no advisor with " + join(plan.Needs) + " is available"
		}
	case len(plan.Selected) < wanted:
		plan.Reason += fmt.Sprintf("; %d of %d wanted advisors available", len(plan.Selected), wanted)
	}
	return plan
}

// Need decides how strongly an assessment calls for review and how many
// advisors it wants, with the reason in words:
//
//	materiality  reversible        costly            irreversible
//	trivial      none              none              none
//	minor        none              none              recommended, 1
//	material     recommended, 1    required, 1       required, 1
//	critical     required, 2       required, 2       required, 2
//
// A value outside these sets is never read as "no review": an unknown
// materiality requires one review, an unknown reversibility counts as
// irreversible.
func Need(a Assessment) (Review, int, string) {
	if a.Reuses != "" {
		return ReviewNone, 0, "reuses standing conclusion " + a.Reuses
	}
	rev := a.Reversibility
	switch rev {
	case "reversible", "costly", "irreversible":
	default:
		rev = "irreversible"
	}
	switch a.Materiality {
	case "trivial":
		return ReviewNone, 0, "trivial decision"
	case "minor":
		if rev == "irreversible" {
			return ReviewRecommended, 1, "minor but irreversible decision"
		}
		return ReviewNone, 0, "minor " + rev + " decision"
	case "material":
		if rev == "reversible" {
			return ReviewRecommended, 1, "material but reversible decision"
		}
		return ReviewRequired, 1, "material " + rev + " decision"
	case "critical":
		return ReviewRequired, 2, "critical " + rev + " decision"
	}
	return ReviewRequired, 1, fmt.Sprintf("unrecognised materiality %q requires review", a.Materiality)
}

// Select returns up to wanted advisors from the snapshot that have every
// needed capability: available ones first, then recovering ones, each group
// in preference order.
func Select(snapshot []Advisor, needed []string, wanted int) []string {
	var out []string
	for _, pass := range []Status{StatusAvailable, StatusRecovering} {
		for _, adv := range snapshot {
			if len(out) == wanted {
				return out
			}
			if adv.Status == pass && hasAll(adv.Capabilities, needed) {
				out = append(out, adv.ID)
			}
		}
	}
	return out
}

// LocalReview is the checklist a session answers when no advisor reviews.
func LocalReview(a Assessment) []string {
	items := []string{
		"What alternatives were considered, and why were they set aside?",
		"What evidence supports the decision, and what would refute it?",
		"What is the worst plausible failure, and how would it be noticed?",
	}
	if a.Reversibility != "reversible" {
		items = append(items, "How would the change be undone, and what would that cost?")
	}
	if a.Materiality == "critical" {
		items = append(items, "Who else must agree before this is carried out?")
	}
	return items
}

// needs is the assessment's capabilities without repeats, or the default.
func needs(a Assessment) []string {
	var out []string
	for _, n := range a.Needs {
		if n != "" && !hasAll(out, []string{n}) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return []string{DefaultCapability}
	}
	return out
}

func hasAll(have, need []string) bool {
	for _, n := range need {
		found := false
		for _, h := range have {
			if h == n {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func join(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}
