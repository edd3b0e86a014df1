package gitstore

import "testing"

// TestParseSharedRepository holds git's reading of core.sharedRepository
// (git_config_perm).
func TestParseSharedRepository(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		value    string
		hasValue bool
		want     SharedPerm
	}{
		{"", false, SharedGroup},
		{"umask", true, SharedUmask},
		{"false", true, SharedUmask},
		{"0", true, SharedUmask},
		{"group", true, SharedGroup},
		{"true", true, SharedGroup},
		{"1", true, SharedGroup},
		{"all", true, SharedEverybody},
		{"world", true, SharedEverybody},
		{"everybody", true, SharedEverybody},
		{"2", true, SharedEverybody},
		{"0640", true, SharedPerm(-0o640)},
		{"0777", true, SharedPerm(-0o666)},
		{"0400", true, SharedUmask}, // git refuses it
	} {
		if got := ParseSharedRepository(c.value, c.hasValue); got != c.want {
			t.Errorf("ParseSharedRepository(%q, %v) = %#o, want %#o", c.value, c.hasValue, got, c.want)
		}
	}
}
