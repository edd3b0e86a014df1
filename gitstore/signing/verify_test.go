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

// TestJudgeOpenPGPUserID holds an OpenPGP signature to the user id gpg
// holds valid: git's primary user id and the key's trust say nothing of
// the user id naming the actor (sign_gpg_user_id.txtar is the attack).
func TestJudgeOpenPGPUserID(t *testing.T) {
	const listing = "tru::1:1796443721:0:3:1:5\n" +
		"pub:f:255:22:B7FF07A161B2D48A:1796443720:::-:::scSC:::::ed25519:::0:\n" +
		"fpr:::::::::3AAF9B3C7070AEC09CE6F5D2B7FF07A161B2D48A:\n" +
		"uid:-::::1796443722::CF::Vera Victim <victim@example.invalid>::::::::::0:\n" +
		"uid:f::::1796443720::12::Mallory <mallory@example.invalid>::::::::::0:\n" +
		"uid:r::::1796443720::13::Old <old@example.invalid>::::::::::0:\n" +
		"sub:f:255:22:00000000000000AA:1796443720::::::s:::::ed25519::\n" +
		"fpr:::::::::11111111111111111111111111111111000000AA:\n" +
		"pub:u:255:22:F9BA0C0966A901E2:1796443720:::u:::scSC:::::ed25519:::0:\n" +
		"fpr:::::::::68E9821A8744587E1360E978F9BA0C0966A901E2:\n" +
		"uid:u::::1796443720::0C::Ada \\x3a Tester <ada@example.invalid>::::::::::0:\n"
	kr := &Keyring{keys: validUserIDs(listing)}
	c := &Checker{Keyring: func(string) (*Keyring, error) { return kr, nil }}
	const mallory, victim = "3AAF9B3C7070AEC09CE6F5D2B7FF07A161B2D48A", "Vera Victim <victim@example.invalid>"
	for _, tc := range []struct {
		name, format, signer, fpr, actor string
		want                             Status
		wantSigner                       string
	}{
		{"primary user id of unknown validity", FormatOpenPGP, victim, mallory, victim, NotActor, "Mallory <mallory@example.invalid>"},
		{"not read, the same", "", victim, mallory, victim, NotActor, "Mallory <mallory@example.invalid>"},
		{"a valid user id other than the primary", FormatOpenPGP, victim, mallory, "M <mallory@example.invalid>", Good, "Mallory <mallory@example.invalid>"},
		{"by its subkey", FormatOpenPGP, victim, "11111111111111111111111111111111000000aa", "M <mallory@example.invalid>", Good, "Mallory <mallory@example.invalid>"},
		{"a revoked user id", FormatOpenPGP, "Old <old@example.invalid>", mallory, "Old <old@example.invalid>", NotActor, "Mallory <mallory@example.invalid>"},
		{"escaped in the listing", FormatOpenPGP, "Ada : Tester <ada@example.invalid>", "68E9821A8744587E1360E978F9BA0C0966A901E2", "Ada <ada@example.invalid>", Good, "Ada : Tester <ada@example.invalid>"},
		{"a key gpg no longer lists", FormatOpenPGP, victim, "0000000000000000000000000000000000000000", victim, UnknownKey, victim},
		{"X.509 is judged by its subject", FormatX509, "/CN=V/EMail=victim@example.invalid", "AB", victim, Good, "/CN=V/EMail=victim@example.invalid"},
		{"ssh, not read", "", "victim@example.invalid", "SHA256:abc", victim, Good, "victim@example.invalid"},
	} {
		got := c.judge([]string{"c0", "G", "fully", "K", tc.signer, tc.fpr, tc.actor, "R1"}, tc.format)
		if got.Status != tc.want || got.Signer != tc.wantSigner {
			t.Errorf("%s: got %s by %q, want %s by %q", tc.name, got.Status, got.Signer, tc.want, tc.wantSigner)
		}
	}
	if got := (&Checker{}).judge([]string{"c0", "G", "ultimate", "K", victim, mallory, victim, "R1"}, FormatOpenPGP); got.Status != UnknownKey {
		t.Errorf("without a keyring listing: %s, want %s", got.Status, UnknownKey)
	}
}
