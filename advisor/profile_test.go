package advisor

import (
	"strings"
	"testing"
)

func TestChooseProfile(t *testing.T) {
	c, _, err := load(t, Sources{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		choice ProfileChoice
		want   string
		by     string
	}{
		{"nothing named", ProfileChoice{}, "default", "default"},
		{"CI=true", ProfileChoice{CI: "true"}, "ci", "CI"},
		{"CI=1", ProfileChoice{CI: "1"}, "ci", "CI"},
		{"CI=false", ProfileChoice{CI: "false"}, "default", "default"},
		{"CI=garbage", ProfileChoice{CI: "maybe"}, "default", "default"},
		{"config", ProfileChoice{Config: "offline", CI: "true"}, "offline", "reason.profile"},
		{"env over config", ProfileChoice{Env: "ci", Config: "offline"}, "ci", "GIT_REASON_PROFILE"},
		{"flag over all", ProfileChoice{Flag: "offline", Env: "ci", Config: "ci", CI: "true"}, "offline", "--profile"},
		{"flag names default under CI", ProfileChoice{Flag: "default", CI: "true"}, "default", "--profile"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, by, err := ChooseProfile(c, tc.choice)
			if err != nil {
				t.Fatal(err)
			}
			if p.ID != tc.want || by != tc.by {
				t.Errorf("got %s by %s, want %s by %s", p.ID, by, tc.want, tc.by)
			}
			if pp := p.Policy(); pp.Name != p.ID || pp.Mode != p.Mode {
				t.Errorf("Policy() = %+v", pp)
			}
		})
	}
}

func TestChooseProfileUnknown(t *testing.T) {
	c, _, err := load(t, Sources{})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = ChooseProfile(c, ProfileChoice{Env: "turbo"})
	if err == nil || !strings.Contains(err.Error(), `unknown profile "turbo" named by GIT_REASON_PROFILE; declared profiles: default, offline, ci`) {
		t.Fatalf("got %v", err)
	}
}
