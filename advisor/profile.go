package advisor

import (
	"fmt"
	"strconv"
	"strings"
)

// ProfileChoice is what may name the execution profile, as the caller read
// it: the --profile flag, GIT_REASON_PROFILE, git config reason.profile, and
// the CI variable.
type ProfileChoice struct {
	Flag   string
	Env    string
	Config string
	CI     string
}

// ChooseProfile picks the profile: the first of Flag, Env and Config that is
// non-empty names it; when none does, a true CI value ("true", "1", as
// strconv.ParseBool reads it) selects "ci", and otherwise "default" applies.
// It returns the profile and what chose it ("--profile",
// "GIT_REASON_PROFILE", "reason.profile", "CI", "default"). A named profile
// that is not declared is an error listing the declared ones (bad input).
func ChooseProfile(c *Catalog, ch ProfileChoice) (Profile, string, error) {
	id, by := "default", "default"
	switch {
	case ch.Flag != "":
		id, by = ch.Flag, "--profile"
	case ch.Env != "":
		id, by = ch.Env, "GIT_REASON_PROFILE"
	case ch.Config != "":
		id, by = ch.Config, "reason.profile"
	case isTrue(ch.CI):
		id, by = "ci", "CI"
	}
	p, ok := c.Profile(id)
	if !ok {
		var ids []string
		for _, p := range c.Profiles {
			ids = append(ids, p.ID)
		}
		return Profile{}, by, fmt.Errorf("unknown profile %q named by %s; declared profiles: %s", id, by, strings.Join(ids, ", "))
	}
	return p, by, nil
}

func isTrue(s string) bool {
	b, err := strconv.ParseBool(strings.TrimSpace(s))
	return err == nil && b
}
