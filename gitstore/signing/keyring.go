package signing

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
)

// Keyrings digests what git's OpenPGP and X.509 verdicts depend on, for
// Verdicts: the program git runs for the format (gpg.program,
// gpg.x509.program), GNUPGHOME, and that program's own listing of its
// public keyring with each key's validity (so an imported, deleted or
// revoked key, a changed owner trust, trust database or trustlist.txt
// changes the digest), and which of the listed keys have expired by now.
// For X.509 the day is part of it too: a certificate can be revoked by a
// CRL that no local file shows, so its verdicts are checked again each
// day. One listing per format and process, run only when a signature of
// that format is to be judged.
type Keyrings struct {
	OpenPGPProgram, X509Program string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Digest is the hex digest of format's keyring state, or an error when
// its program cannot list it (then nothing of the format is kept).
func (k Keyrings) Digest(ctx context.Context, format string) (string, error) {
	prog, def := k.OpenPGPProgram, "gpg"
	if format == FormatX509 {
		prog, def = k.X509Program, "gpgsm"
	} else if format != FormatOpenPGP {
		return "", fmt.Errorf("no keyring for format %q", format)
	}
	if prog == "" {
		prog = def
	}
	now := time.Now
	if k.Now != nil {
		now = k.Now
	}
	cmd := exec.CommandContext(ctx, prog, "--batch", "--with-colons", "--list-keys")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s --list-keys: %w", prog, err)
	}
	t := now().UTC()
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", format, prog, os.Getenv("GNUPGHOME"))
	h.Write(out.Bytes())
	h.Write([]byte{0})
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Split(line, ":")
		if len(f) > 6 && keyRecords[f[0]] && f[6] != "" && expired(f[6], t) {
			fmt.Fprintf(h, "expired %s\n", line)
		}
	}
	if format == FormatX509 {
		h.Write([]byte(t.Format("2006-01-02")))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// keyRecords are the listing's records of keys and certificates, whose
// seventh field is the expiry date.
var keyRecords = map[string]bool{"pub": true, "sub": true, "crt": true, "crs": true}

// expired reports whether a listing's expiry field (seconds since the
// epoch for gpg, an ISO 8601 basic time for gpgsm) is at or before now;
// a field it cannot read counts as expired, which only checks again.
func expired(field string, now time.Time) bool {
	if s, err := strconv.ParseInt(field, 10, 64); err == nil {
		return s <= now.Unix()
	}
	t, err := time.Parse("20060102T150405", field)
	return err != nil || !t.After(now)
}

// sigExpires reports whether an OpenPGP signature carries an expiry date
// of its own (git's verdict on it turns from good to expired when that
// passes, with nothing in the keyring changing), or cannot be read.
func sigExpires(sig []byte) bool {
	block, err := armor.Decode(bytes.NewReader(sig))
	if err != nil {
		return true
	}
	p, err := packet.Read(block.Body)
	if err != nil {
		return true
	}
	s, ok := p.(*packet.Signature)
	return !ok || (s.SigLifetimeSecs != nil && *s.SigLifetimeSecs != 0)
}
