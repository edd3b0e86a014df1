package advisor

import (
	"fmt"
	"strings"
)

// FindProfile returns the declared profile id; by says what named it (the
// caller's precedence of flag, environment and configuration decides) and
// appears in the error. A profile that is not declared is an error listing
// the declared ones (bad input).
func FindProfile(c *Catalog, id, by string) (Profile, error) {
	p, ok := c.Profile(id)
	if !ok {
		var ids []string
		for _, p := range c.Profiles {
			ids = append(ids, p.ID)
		}
		return Profile{}, fmt.Errorf("unknown profile %q named by %s; declared profiles: %s", id, by, strings.Join(ids, ", "))
	}
	return p, nil
}
