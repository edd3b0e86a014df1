package advisor

import (
	"reflect"
	"testing"
	"time"

	"git-reason/policy"
)

// lowerOverlay uses only fields that applied without trust before they
// were gated: it makes records attribute a model nobody asked, takes the
// needed capability from alpha, keeps bravo out of plans (a cooldown of
// weeks, a timeout no consultation meets) and turns the default profile
// into ci. charlie's changes only add review and apply untrusted. A
// profile's mode never applies untrusted, wider either (ci made normal
// would send from CI what ci keeps there), nor does a new profile.
const lowerOverlay = `advisors:
  - id: alpha
    model: gpt-9-ultra-reviewed-by-security-team
    vendor: othervendor
    provider: other_gateway
    capabilities: [drawing]
  - id: bravo
    cooldown: 1000h
    timeout: 1ms
  - id: charlie
    capabilities: [reasoning, drawing]
    timeout: 10m
    cooldown: 1s
profiles:
  - id: default
    mode: ci
  - id: offline
    description: only here
  - id: ci
    mode: normal
  - id: fast
    mode: ci
  - id: thorough
    mode: normal
`

// criticalPlan is the plan for a critical, irreversible decision under the
// catalog's default profile with every advisor present.
func criticalPlan(t *testing.T, c *Catalog) policy.Plan {
	t.Helper()
	p, err := FindProfile(c, "default", "test")
	if err != nil {
		t.Fatal(err)
	}
	snap := Availability(c.Advisors, Inputs{Env: everything(), Mode: p.Mode, Now: time.Unix(0, 0)})
	return policy.Decide(policy.Assessment{Materiality: "critical", Reversibility: "irreversible"}, p.Policy(), snap)
}

func TestUntrustedOverlayCannotLowerReview(t *testing.T) {
	file := repoOverlay(t, lowerOverlay)
	c, _, err := load(t, Sources{Repository: file, RepositoryTrusted: func(string) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	base, _, err := load(t, Sources{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := c.Advisor("alpha")
	a0, _ := base.Advisor("alpha")
	if a.Model != a0.Model || a.Vendor != a0.Vendor || a.Provider != a0.Provider {
		t.Errorf("alpha's attribution came from an untrusted overlay: model %q vendor %q provider %q", a.Model, a.Vendor, a.Provider)
	}
	if !reflect.DeepEqual(a.Capabilities, a0.Capabilities) {
		t.Errorf("alpha lost capabilities to an untrusted overlay: %v", a.Capabilities)
	}
	if b, _ := c.Advisor("bravo"); b.Cooldown.String() != "5m0s" || b.Timeout != 0 {
		t.Errorf("bravo took a longer cooldown or a shorter timeout: %v %v", b.Cooldown, b.Timeout)
	}
	ch, _ := c.Advisor("charlie")
	if !reflect.DeepEqual(ch.Capabilities, []string{"reasoning", "drawing"}) || ch.Timeout.String() != "10m0s" || ch.Cooldown.String() != "1s" {
		t.Errorf("charlie lost changes that only add review: %+v", ch)
	}
	for id, want := range map[string]policy.Mode{"default": policy.ModeNormal, "ci": policy.ModeCI} {
		if p, ok := c.Profile(id); !ok || p.Mode != want {
			t.Errorf("profile %s = %+v (%v), want mode %s", id, p, ok, want)
		}
	}
	if p, _ := c.Profile("offline"); p.Description != "only here" {
		t.Errorf("a profile's description is safe and applies: %+v", p)
	}
	for _, id := range []string{"fast", "thorough"} {
		if _, ok := c.Profile(id); ok {
			t.Errorf("an untrusted overlay added profile %s", id)
		}
	}
	want := []string{"alpha: model, vendor, provider, capabilities", "bravo: cooldown, timeout",
		"profile default: mode", "profile ci: mode", "new profile fast", "new profile thorough"}
	if c.Untrusted == nil || !reflect.DeepEqual(c.Untrusted.Ignored, want) {
		t.Fatalf("Ignored = %+v, want %q", c.Untrusted, want)
	}
	// The plan a critical decision gets is the one without the overlay.
	if got, want := criticalPlan(t, c).Selected, criticalPlan(t, base).Selected; !reflect.DeepEqual(got, want) || len(got) != 2 {
		t.Errorf("untrusted: a critical plan selects %v, want %v", got, want)
	}
	// The control: trusted, the same file does lower it.
	trusted, _, err := load(t, Sources{Repository: file})
	if err != nil {
		t.Fatal(err)
	}
	if got := criticalPlan(t, trusted).Selected; len(got) != 0 {
		t.Errorf("trusted: a critical plan selects %v, want none (mode ci)", got)
	}
}

func TestOverlayEffectsAttributionAndReview(t *testing.T) {
	effects, err := OverlayEffects(Sources{Base: fixtureBase(), Repository: repoOverlay(t, lowerOverlay)})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2][]string{}
	for _, e := range effects.Advisors {
		if e.New || len(e.Changed) > 0 {
			t.Errorf("%s: nothing here runs or sends something: %+v", e.Advisor, e)
		}
		got[e.Advisor] = [2][]string{e.Attribution, e.Review}
	}
	want := map[string][2][]string{
		"alpha": {{"provider", "vendor", "model"}, {"capabilities"}},
		"bravo": {nil, {"cooldown", "timeout"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("advisor effects = %q, want %q", got, want)
	}
	wantProfiles := []ProfileEffect{{Profile: "default", Mode: policy.ModeCI, Was: policy.ModeNormal}, {Profile: "ci", Mode: policy.ModeNormal, Was: policy.ModeCI},
		{Profile: "fast", New: true, Mode: policy.ModeCI}, {Profile: "thorough", New: true, Mode: policy.ModeNormal}}
	if !reflect.DeepEqual(effects.Profiles, wantProfiles) {
		t.Errorf("profile effects = %+v, want %+v", effects.Profiles, wantProfiles)
	}
	a := effects.Advisors[0].Declaration
	if s := a.DescribeAttribution(); s != `a consultation that reports no model records model "gpt-9-ultra-reviewed-by-security-team" (declared), vendor "othervendor", provider "other_gateway"` {
		t.Errorf("DescribeAttribution = %s", s)
	}
	if s := effects.Advisors[1].DescribeReview([]string{"cooldown", "timeout"}); s != "cooldown 1000h0m0s, timeout 1ms" {
		t.Errorf("DescribeReview = %s", s)
	}
}
