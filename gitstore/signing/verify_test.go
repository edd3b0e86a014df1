package signing

import "testing"

// TestJudge holds the mapping from git's %G? and %GT to a Status, and the
// signer-is-actor comparison, to what verify and pull report.
func TestJudge(t *testing.T) {
	const ada = "Ada Tester <ada@example.invalid>"
	for _, tc := range []struct {
		g, trust, signer string
		want             Status
	}{
		{"N", "undefined", "", Unsigned},
		{"G", "fully", "ada@example.invalid", Good},     // ssh principal
		{"G", "ultimate", ada, Good},                    // gpg user id
		{"G", "fully", "Ada@Example.Invalid", Good},     // addresses compare without case
		{"G", "fully", "bob@example.invalid", NotActor}, // allowed, but not the actor
		{"G", "undefined", "", UnknownKey},              // ssh: valid, key not allowed
		{"G", "marginal", ada, UnknownKey},              // gpg: key not trusted enough
		{"U", "undefined", "", UnknownKey},
		{"E", "undefined", "", UnknownKey},
		{"B", "never", "", Bad},
		{"R", "fully", ada, Expired},
	} {
		c := judge([]string{"c0", tc.g, tc.trust, "K", tc.signer, "F", ada, "R1\n"})
		if c.Status != tc.want || c.Record != "R1" || c.Key != "K" {
			t.Errorf("%s/%s/%q: got %+v, want status %s", tc.g, tc.trust, tc.signer, c, tc.want)
		}
	}
}

// TestRefused holds reason.requireSigned: a bad signature always; every
// check not good under fetched and all.
func TestRefused(t *testing.T) {
	checks := []Check{{Status: Good}, {Status: Unsigned}, {Status: Bad}, {Status: UnknownKey}, {Status: Removed}}
	for require, want := range map[string]int{RequireNone: 1, RequireFetched: 4, RequireAll: 4} {
		if got := len(Refused(require, checks)); got != want {
			t.Errorf("requireSigned=%s: %d refused, want %d", require, got, want)
		}
	}
}

func TestSignerIsActor(t *testing.T) {
	for _, c := range []struct {
		signer, actor string
		want          bool
	}{
		{"ada@example.invalid", "Ada <ada@example.invalid>", true},
		{"Ada Tester <ADA@example.invalid>", "Ada <ada@example.invalid>", true},
		{"/CN=Ada Tester/O=Example/EMail=ada@example.invalid", "Ada <ada@example.invalid>", true},
		{"/CN=Ada Tester/O=Example/EMail=bob@example.invalid", "Ada <ada@example.invalid>", false},
		{"/CN=Ada Tester/O=Example", "Ada <ada@example.invalid>", false}, // no address: not the actor
		{"/CN=ada@example.invalid", "Ada <ada@example.invalid>", false},  // a name is not an address
		{"bob@example.invalid", "Ada <ada@example.invalid>", false},
		{"", "Ada <>", false},
	} {
		if got := SignerIsActor(c.signer, c.actor); got != c.want {
			t.Errorf("SignerIsActor(%q, %q) = %v, want %v", c.signer, c.actor, got, c.want)
		}
	}
}
