package signing

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"git-reason/reliability/harness"
)

// TestVerdicts holds what the kept verdicts promise: an ssh verdict or a
// bad signature is kept for its configuration only; an unsigned commit,
// one git could not check and an OpenPGP verdict with no keyring digest
// are not; an edited entry is ignored (asked of git again), never
// believed.
func TestVerdicts(t *testing.T) {
	dir := t.TempDir()
	const ada = "Ada <ada@example.invalid>"
	ssh := []string{"c1", "G", "fully", "SHA256:abc", "ada@example.invalid", "SHA256:abc", ada, "R1"}
	bad := []string{"c2", "B", "never", "", "", "", ada, "R2"}
	for _, f := range [][]string{ssh, bad,
		{"c3", "N", "undefined", "", "", "", ada, "R3"},
		{"c4", "E", "undefined", "SHA256:abc", "", "SHA256:abc", ada, "R4"},
		{"c5", "G", "ultimate", "0123456789ABCDEF", ada, "0123456789ABCDEF0123", ada, "R5"},
	} {
		v := OpenVerdicts(dir, "config-one")
		format := FormatSSH
		if f[0] == "c5" {
			format = FormatOpenPGP
		}
		v.keep(f, format, false)
		v.Save()
	}
	v := OpenVerdicts(dir, "config-one")
	for c, want := range map[string]bool{"c1": true, "c2": true, "c3": false, "c4": false, "c5": false} {
		if _, ok := v.lookup(c); ok != want {
			t.Errorf("%s kept: %v, want %v", c, ok, want)
		}
	}
	if f, _ := v.lookup("c1"); judge(f).Status != Good {
		t.Errorf("kept ssh verdict judged %v, want good", judge(f).Status)
	}
	if _, ok := OpenVerdicts(dir, "config-two").lookup("c1"); ok {
		t.Error("a verdict kept under one allowed-signers configuration was found under another")
	}
	// An edit that turns the bad signature into a good one is ignored.
	path := filepath.Join(dir, "reason", "signatures", "verdicts-config-one")
	data := harness.ReadFile(t, path)
	forged := bytes.Replace(data, []byte("\x00c2\x00B\x00never"), []byte("\x00c2\x00G\x00fully"), 1)
	if bytes.Equal(forged, data) {
		t.Fatal("the bad signature's entry is not in the file")
	}
	if err := os.WriteFile(path, forged, 0o644); err != nil {
		t.Fatal(err)
	}
	v = OpenVerdicts(dir, "config-one")
	if _, ok := v.lookup("c2"); ok {
		t.Error("an edited verdict was believed")
	}
	if _, ok := v.lookup("c1"); !ok {
		t.Error("an untouched verdict beside an edited one was lost")
	}
}

// TestOtherVerdicts holds the OpenPGP and X.509 verdicts: kept under the
// keyring's digest only (a changed keyring asks git again), an OpenPGP
// good signature that expires by itself never, and none at all when the
// keyring cannot be listed. Kept says so to read surfaces.
func TestOtherVerdicts(t *testing.T) {
	dir := t.TempDir()
	const ada = "Ada <ada@example.invalid>"
	digest := "keyring-one"
	open := func() *Verdicts {
		v := OpenVerdicts(dir, "config-one")
		v.Keyring = func(format string) (string, error) { return format + digest, nil }
		return v
	}
	good := []string{"g1", "G", "ultimate", "0123456789ABCDEF", ada, "0123456789ABCDEF0123", ada, "R1"}
	expiring := []string{"g2", "G", "ultimate", "0123456789ABCDEF", ada, "0123456789ABCDEF0123", ada, "R2"}
	unknown := []string{"g3", "U", "undefined", "0123456789ABCDEF", ada, "0123456789ABCDEF0123", ada, "R3"}
	x509 := []string{"x1", "G", "ultimate", "0A1B", "/CN=Ada/EMail=ada@example.invalid", "0A1B2C", ada, "R4"}
	v := open()
	v.keep(good, FormatOpenPGP, false)
	v.keep(expiring, FormatOpenPGP, true)
	v.keep(unknown, FormatOpenPGP, false)
	v.keep(x509, FormatX509, false)
	v.Save()
	v = open()
	for _, c := range []struct {
		format, commit string
		want           bool
	}{{FormatOpenPGP, "g1", true}, {FormatOpenPGP, "g2", false}, {FormatOpenPGP, "g3", true}, {FormatX509, "x1", true}, {FormatX509, "g1", false}} {
		if ok := v.Kept(c.format, c.commit); ok != c.want { // what read surfaces keep by
			t.Errorf("%s verdict on %s kept: %v, want %v", c.format, c.commit, ok, c.want)
		}
	}
	if _, ok := v.lookup("g1"); ok {
		t.Error("an OpenPGP verdict was kept among the ssh ones")
	}
	digest = "keyring-two"
	if _, ok := open().lookupOther(FormatOpenPGP, "g1"); ok {
		t.Error("a verdict kept under one keyring was found under another")
	}
	v = OpenVerdicts(dir, "config-one")
	v.Keyring = func(string) (string, error) { return "", os.ErrNotExist }
	v.keep(good, FormatOpenPGP, false)
	if _, ok := v.lookupOther(FormatOpenPGP, "g1"); ok {
		t.Error("a verdict was kept with no keyring digest")
	}
}

// TestVerdictsAfterAnEmptyKey: a verdicts.key left empty (a process that
// died between creating it and writing the key, before the key was
// written through its lock) is made again by the next save, whose
// verdicts are then kept, instead of no verdict being kept from then on.
func TestVerdictsAfterAnEmptyKey(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "reason", "signatures", "verdicts.key")
	harness.WriteFile(t, key, "")
	v := OpenVerdicts(dir, "config-one")
	v.keep([]string{"c1", "G", "fully", "SHA256:abc", "ada@example.invalid", "SHA256:abc", "Ada <ada@example.invalid>", "R1"}, FormatSSH, false)
	v.Save()
	if fi, err := os.Stat(key); err != nil || fi.Size() != 32 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file after the save: %v, %v", fi, err)
	}
	if _, ok := OpenVerdicts(dir, "config-one").lookup("c1"); !ok {
		t.Fatal("the verdict saved is not kept")
	}
}
