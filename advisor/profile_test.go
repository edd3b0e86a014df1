package advisor

import (
	"strings"
	"testing"
)

func TestFindProfile(t *testing.T) {
	c, _, err := load(t, Sources{})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"default", "offline", "ci"} {
		p, err := FindProfile(c, id, "--profile")
		if err != nil {
			t.Fatal(err)
		}
		if p.ID != id {
			t.Errorf("FindProfile(%s) = %s", id, p.ID)
		}
		if pp := p.Policy(); pp.Name != p.ID || pp.Mode != p.Mode {
			t.Errorf("Policy() = %+v", pp)
		}
	}
}

func TestFindProfileUnknown(t *testing.T) {
	c, _, err := load(t, Sources{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = FindProfile(c, "turbo", "GIT_REASON_PROFILE")
	if err == nil || !strings.Contains(err.Error(), `unknown profile "turbo" named by GIT_REASON_PROFILE; declared profiles: default, offline, ci`) {
		t.Fatalf("got %v", err)
	}
}
