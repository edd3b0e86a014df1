package policy

import (
	"reflect"
	"strings"
	"testing"
)

// snapshot: two remote advisors around one local one, all available.
var snapshot = []Advisor{
	{ID: "r1", Status: StatusAvailable, Capabilities: []string{"reasoning"}},
	{ID: "l1", Status: StatusAvailable, Capabilities: []string{"reasoning"}, Local: true},
	{ID: "r2", Status: StatusAvailable, Capabilities: []string{"reasoning"}},
}

// Every materiality × reversibility × mode.
func TestDecideEveryCombination(t *testing.T) {
	need := []struct {
		materiality, reversibility string
		review                     Review
		wanted                     int
	}{
		{"trivial", "reversible", ReviewNone, 0},
		{"trivial", "costly", ReviewNone, 0},
		{"trivial", "irreversible", ReviewNone, 0},
		{"minor", "reversible", ReviewNone, 0},
		{"minor", "costly", ReviewNone, 0},
		{"minor", "irreversible", ReviewRecommended, 1},
		{"material", "reversible", ReviewRecommended, 1},
		{"material", "costly", ReviewRequired, 1},
		{"material", "irreversible", ReviewRequired, 1},
		{"critical", "reversible", ReviewRequired, 2},
		{"critical", "costly", ReviewRequired, 2},
		{"critical", "irreversible", ReviewRequired, 2},
	}
	// What each mode selects from the snapshot for a wanted count.
	selected := map[Mode]map[int][]string{
		ModeNormal:  {0: nil, 1: {"r1"}, 2: {"r1", "l1"}},
		ModeOffline: {0: nil, 1: {"l1"}, 2: {"l1"}},
		ModeCI:      {0: nil, 1: nil, 2: nil},
	}
	modeNote := map[Mode]string{ModeNormal: "", ModeOffline: "mode offline asks only advisors on this machine", ModeCI: "mode ci asks no advisor"}
	for _, n := range need {
		for _, mode := range []Mode{ModeNormal, ModeOffline, ModeCI} {
			name := n.materiality + "/" + n.reversibility + "/" + string(mode)
			t.Run(name, func(t *testing.T) {
				a := Assessment{Materiality: n.materiality, Reversibility: n.reversibility}
				plan := Decide(a, Profile{Name: string(mode), Mode: mode}, snapshot)
				if plan.Review != n.review || plan.Wanted != n.wanted {
					t.Fatalf("review %s wanting %d, want %s wanting %d (%s)", plan.Review, plan.Wanted, n.review, n.wanted, plan.Reason)
				}
				if want := selected[mode][n.wanted]; !reflect.DeepEqual(plan.Selected, want) {
					t.Errorf("selected %v, want %v", plan.Selected, want)
				}
				if plan.Reason == "" {
					t.Error("no reason")
				}
				if n.review == ReviewNone {
					if plan.Needs != nil || plan.LocalReview != nil || plan.Selected != nil {
						t.Errorf("a plan without review carries %+v", plan)
					}
					return
				}
				if !reflect.DeepEqual(plan.Needs, []string{DefaultCapability}) {
					t.Errorf("needs %v", plan.Needs)
				}
				if !strings.Contains(plan.Reason, modeNote[mode]) {
					t.Errorf("reason %q does not mention %q", plan.Reason, modeNote[mode])
				}
				if (len(plan.Selected) == 0) != (plan.LocalReview != nil) {
					t.Errorf("selected %v with local review %v: exactly one must be set", plan.Selected, plan.LocalReview)
				}
				if len(plan.Selected) > 0 && len(plan.Selected) < n.wanted && !strings.Contains(plan.Reason, "1 of 2 wanted") {
					t.Errorf("reason %q does not say the selection is short", plan.Reason)
				}
			})
		}
	}
}

func TestLocalReviewChecklist(t *testing.T) {
	undo, agree := "How would the change be undone", "Who else must agree"
	cases := []struct {
		materiality, reversibility string
		undo, agree                bool
	}{
		{"material", "reversible", false, false},
		{"material", "costly", true, false},
		{"minor", "irreversible", true, false},
		{"critical", "reversible", false, true},
		{"critical", "irreversible", true, true},
	}
	for _, tc := range cases {
		items := strings.Join(LocalReview(Assessment{Materiality: tc.materiality, Reversibility: tc.reversibility}), "\n")
		if strings.Contains(items, undo) != tc.undo || strings.Contains(items, agree) != tc.agree {
			t.Errorf("%s/%s checklist:\n%s", tc.materiality, tc.reversibility, items)
		}
	}
}

func TestNeedOddInputs(t *testing.T) {
	cases := []struct {
		a      Assessment
		review Review
		wanted int
		reason string
	}{
		{Assessment{Materiality: "critical", Reversibility: "irreversible", Reuses: "01J0"}, ReviewNone, 0, "reuses standing conclusion 01J0"},
		{Assessment{Materiality: "", Reversibility: "reversible"}, ReviewRequired, 1, "unrecognised materiality"},
		{Assessment{Materiality: "huge", Reversibility: "reversible"}, ReviewRequired, 1, `"huge"`},
		{Assessment{Materiality: "minor", Reversibility: "who knows"}, ReviewRecommended, 1, "irreversible"},
	}
	for _, tc := range cases {
		review, wanted, reason := Need(tc.a)
		if review != tc.review || wanted != tc.wanted || !strings.Contains(reason, tc.reason) {
			t.Errorf("Need(%+v) = %s, %d, %q; want %s, %d, %q", tc.a, review, wanted, reason, tc.review, tc.wanted, tc.reason)
		}
	}
}

func TestSelect(t *testing.T) {
	snap := []Advisor{
		{ID: "a", Status: StatusRecovering, Capabilities: []string{"reasoning", "security"}},
		{ID: "b", Status: StatusOpen, Capabilities: []string{"reasoning", "security"}},
		{ID: "c", Status: StatusAvailable, Capabilities: []string{"reasoning"}},
		{ID: "d", Status: StatusAvailable, Capabilities: []string{"security", "reasoning"}},
		{ID: "e", Status: StatusDisabled, Capabilities: []string{"reasoning", "security"}},
		{ID: "f", Status: StatusAvailable, Capabilities: []string{"reasoning", "security"}},
		{ID: "g", Status: StatusNotInstalled, Capabilities: []string{"reasoning"}},
		{ID: "h", Status: StatusNotConfigured, Capabilities: []string{"reasoning"}},
		{ID: "i", Status: StatusExcludedByMode, Capabilities: []string{"reasoning"}},
		{ID: "j", Status: StatusRecovering, Capabilities: []string{"reasoning"}},
	}
	cases := []struct {
		name   string
		needed []string
		wanted int
		want   []string
	}{
		{"preference order among available", []string{"reasoning"}, 2, []string{"c", "d"}},
		{"available before recovering", []string{"reasoning"}, 4, []string{"c", "d", "f", "a"}},
		{"recovering in preference order after all available", []string{"reasoning"}, 10, []string{"c", "d", "f", "a", "j"}},
		{"capability filter needs every capability", []string{"reasoning", "security"}, 3, []string{"d", "f", "a"}},
		{"no one has it", []string{"telepathy"}, 2, nil},
		{"wanted zero", []string{"reasoning"}, 0, nil},
		{"wanted one", []string{"security"}, 1, []string{"d"}},
	}
	for _, tc := range cases {
		if got := Select(snap, tc.needed, tc.wanted); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Select = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestDecideNeedsAndSnapshotFiltering(t *testing.T) {
	a := Assessment{Materiality: "critical", Reversibility: "costly", Needs: []string{"security", "", "security", "reasoning"}}
	snap := []Advisor{
		{ID: "remote", Status: StatusAvailable, Capabilities: []string{"reasoning", "security"}},
		{ID: "local", Status: StatusRecovering, Capabilities: []string{"reasoning", "security"}, Local: true},
	}
	plan := Decide(a, Profile{Mode: ModeNormal}, snap)
	if !reflect.DeepEqual(plan.Needs, []string{"security", "reasoning"}) {
		t.Errorf("needs = %v, want deduplicated in order", plan.Needs)
	}
	if !reflect.DeepEqual(plan.Selected, []string{"remote", "local"}) {
		t.Errorf("normal selected %v", plan.Selected)
	}
	// A snapshot that wrongly calls a remote advisor available in offline
	// mode still cannot get it selected.
	if plan := Decide(a, Profile{Mode: ModeOffline}, snap); !reflect.DeepEqual(plan.Selected, []string{"local"}) {
		t.Errorf("offline selected %v", plan.Selected)
	}
	for _, mode := range []Mode{ModeCI, "", "turbo"} {
		plan := Decide(a, Profile{Mode: mode}, snap)
		if plan.Selected != nil || plan.LocalReview == nil || strings.Contains(plan.Reason, "is available") {
			t.Errorf("mode %q: %+v", mode, plan)
		}
	}
	plan = Decide(Assessment{Materiality: "material", Reversibility: "costly", Needs: []string{"drawing"}}, Profile{Mode: ModeNormal}, snap)
	if plan.Selected != nil || !strings.Contains(plan.Reason, "no advisor with drawing is available") {
		t.Errorf("missing capability: %+v", plan)
	}
}

func TestModeAdmits(t *testing.T) {
	cases := []struct {
		mode  Mode
		local bool
		want  bool
	}{
		{ModeNormal, false, true}, {ModeNormal, true, true},
		{ModeOffline, false, false}, {ModeOffline, true, true},
		{ModeCI, false, false}, {ModeCI, true, false},
		{"", true, false}, {"Normal", true, false},
	}
	for _, tc := range cases {
		got, why := ModeAdmits(tc.mode, tc.local)
		if got != tc.want || (got == (why != "")) {
			t.Errorf("ModeAdmits(%q, %v) = %v, %q", tc.mode, tc.local, got, why)
		}
		if ValidMode(tc.mode) != (tc.mode == ModeNormal || tc.mode == ModeOffline || tc.mode == ModeCI) {
			t.Errorf("ValidMode(%q)", tc.mode)
		}
	}
}

func TestStatusAskable(t *testing.T) {
	for _, s := range []Status{StatusAvailable, StatusRecovering, StatusOpen, StatusDisabled, StatusExcludedByMode, StatusNotInstalled, StatusNotConfigured} {
		if s.Askable() != (s == StatusAvailable || s == StatusRecovering) {
			t.Errorf("%s.Askable() = %v", s, s.Askable())
		}
	}
}
