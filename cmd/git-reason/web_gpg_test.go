package main

// The Reasoning page's signatures when an OpenPGP key's trust falls, or
// an X.509 certificate is distrusted, while it is served: the real
// binary, a real gpg or gpgsm keyring.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"git-reason/reliability/harness"
)

// TestWebOpenPGPTrustLowered: a record signed with an OpenPGP key is
// shown signed by the task list and the task's page, then the key's
// owner trust is lowered with no ref moving: what the page polls moves,
// and neither the list nor the page shows the signature as good any
// more (the key since removed, as verify says). The page kept what it
// showed under the allowed signers alone, so the task's page went on
// saying signed.
func TestWebOpenPGPTrustLowered(t *testing.T) {
	t.Parallel()
	gnupg := gnupgHome(t, "gpg")
	s := newSandbox(t, "advisors: []\n", nil, "GNUPGHOME="+gnupg)
	gpg := keyringTool(t, s)
	gpg("", "gpg", "--batch", "--passphrase", "", "--quick-gen-key", "Ada Tester <ada@example.invalid>", "ed25519", "sign", "never")
	fpr := fingerprint(t, gpg("", "gpg", "--with-colons", "--list-keys", "ada@example.invalid"))
	s.git("-c", "commit.gpgSign=true", "reason", "assess", "P", "--subject", "Pgp", "--question", "Q?", "--materiality", "trivial", "--reversibility", "reversible")
	signedThenDistrusted(t, s, "Ada Tester", "the key's trust fell", func() {
		gpg(fpr+":4:\n", "gpg", "--batch", "--import-ownertrust")
	})
}

// TestWebX509Untrusted: a record signed with an X.509 certificate is
// shown signed by the task list and the task's page, kept under the
// gpgsm keyring's digest, then the certificate is taken off the trust
// list with no ref moving: what the page polls moves, and neither the
// list nor the page shows the signature as good any more (the key since
// removed, as verify says).
func TestWebX509Untrusted(t *testing.T) {
	t.Parallel()
	gnupg := gnupgHome(t, "gpgsm")
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(gnupg, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("gpgsm.conf", "disable-crl-checks\n")
	write("gpg-agent.conf", "allow-loopback-pinentry\n")
	write("cert.params", "Key-Type: RSA\nKey-Length: 2048\nKey-Usage: sign\nSerial: random\n"+
		"Name-DN: CN=Ada Tester,O=Example,EMail=ada@example.invalid\nName-Email: ada@example.invalid\n")
	s := newSandbox(t, "advisors: []\n", nil, "GNUPGHOME="+gnupg)
	run := keyringTool(t, s)
	write("cert.der", run("", "gpgsm", "--batch", "--pinentry-mode", "loopback", "--passphrase", "", "--gen-key", filepath.Join(gnupg, "cert.params")))
	run("", "gpgsm", "--batch", "--import", filepath.Join(gnupg, "cert.der"))
	fpr := fingerprint(t, run("", "gpgsm", "--with-colons", "--list-keys"))
	write("trustlist.txt", fpr+" S relax\n")
	s.git("-c", "commit.gpgSign=true", "-c", "gpg.format=x509", "-c", "user.signingKey="+fpr,
		"reason", "assess", "P", "--subject", "Cert", "--question", "Q?", "--materiality", "trivial", "--reversibility", "reversible")
	signedThenDistrusted(t, s, "/CN=Ada Tester", "the certificate was distrusted", func() {
		write("trustlist.txt", "")
		run("", "gpgconf", "--reload", "gpg-agent")
	})
}

// keyringTool returns a runner of gpg, gpgsm and gpgconf in the sandbox's
// environment (its GNUPGHOME), which fails the test when one fails and
// returns its output; its agent is killed when the test ends.
func keyringTool(t *testing.T, s *sandbox) func(stdin, prog string, args ...string) string {
	t.Cleanup(func() {
		cmd := exec.Command("gpgconf", "--kill", "all")
		cmd.Env = s.env
		_ = cmd.Run()
	})
	return func(stdin, prog string, args ...string) string {
		t.Helper()
		cmd := exec.Command(prog, args...)
		cmd.Env, cmd.Stdin = s.env, strings.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %s: %v", prog, strings.Join(args, " "), err)
		}
		return string(out)
	}
}

// fingerprint is the first fingerprint of a --with-colons key listing.
func fingerprint(t *testing.T, listing string) string {
	t.Helper()
	for _, line := range strings.Split(listing, "\n") {
		if f := strings.Split(line, ":"); f[0] == "fpr" && len(f) > 9 {
			return f[9]
		}
	}
	t.Fatalf("the key listing has no fingerprint:\n%s", listing)
	return ""
}

// signedThenDistrusted holds the sandbox's task P, one record signed by
// signer, to be shown signed by status (twice: the second keeps what it
// shows, under the keyring's digest), the task list and the task's page;
// then distrust takes the signer's trust away, moving no ref, and verify
// must say the key removed, what both pages poll must move, and neither
// may show the signature as good any more.
func signedThenDistrusted(t *testing.T, s *sandbox, signer, fell string, distrust func()) {
	t.Helper()
	for range 2 {
		if out := s.reason("status"); !strings.Contains(out, "P: signatures: 1 signed by "+signer) {
			t.Fatalf("status of a record signed by a trusted %s:\n%s", signer, out)
		}
	}
	base, c := openWeb(t, s)
	const good = `<span class="sig sig-good"`
	if list := getPage(t, c, base+"/"); !strings.Contains(list, good) {
		t.Fatalf("the task list does not show P signed:\n%s", list)
	}
	if page := getPage(t, c, base+"/task/P"); !strings.Contains(page, good) {
		t.Fatalf("the task's page does not show its record signed:\n%s", page)
	}
	headP, headAll := getPage(t, c, base+"/head?task=P"), getPage(t, c, base+"/head")

	distrust()
	if _, errs, code := s.run("reason", "verify", "P"); !strings.Contains(errs, "P: signatures: 1 key removed") {
		t.Fatalf("verify after %s: exit %d:\n%s", fell, code, errs)
	}
	if getPage(t, c, base+"/head?task=P") == headP {
		t.Errorf("what the task's page polls did not move when %s", fell)
	}
	if getPage(t, c, base+"/head") == headAll {
		t.Errorf("what the task list polls did not move when %s", fell)
	}
	if list := getPage(t, c, base+"/"); strings.Contains(list, good) || !strings.Contains(list, "key removed") {
		t.Errorf("the task list after %s does not say key removed:\n%s", fell, list)
	}
	if page := getPage(t, c, base+"/task/P"); strings.Contains(page, good) || !strings.Contains(page, "since removed") {
		t.Errorf("the task's page after %s still shows the record signed:\n%s", fell, page)
	}
}

// gnupgHome is a GNUPGHOME of its own for a test that runs prog (gpg or
// gpgsm) and gpgconf, removed after it: short, so that gpg-agent's
// socket path fits. A missing program ends the test as
// harness.MissingTool does (a failure under CI=true).
func gnupgHome(t *testing.T, prog string) string {
	t.Helper()
	harness.NeedTools(t, prog, "gpgconf")
	gnupg, err := os.MkdirTemp("", prog)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(gnupg) })
	if err := os.Chmod(gnupg, 0o700); err != nil {
		t.Fatal(err)
	}
	return gnupg
}
