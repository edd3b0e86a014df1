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

// Keyring is one listing of a format's keyring (Keyrings.Load).
type Keyring struct {
	// Digest is the hex digest of the keyring's state (Keyrings.Digest).
	Digest string
	// keys maps the fingerprint of each OpenPGP key and subkey listed to
	// its key's user ids of full or ultimate validity (nil for X.509).
	keys map[string][]string
}

// ValidUserIDs returns the user ids gpg holds valid (of full or ultimate
// validity, so neither revoked nor expired) of the OpenPGP key one of
// whose fingerprints (the primary key's or a subkey's) is fingerprint;
// listed is false when the listing has no such key.
func (k *Keyring) ValidUserIDs(fingerprint string) (ids []string, listed bool) {
	if k == nil {
		return nil, false
	}
	ids, listed = k.keys[strings.ToUpper(fingerprint)]
	return ids, listed
}

// Digest is the hex digest of format's keyring state, or an error when
// its program cannot list it (then nothing of the format is kept).
func (k Keyrings) Digest(ctx context.Context, format string) (string, error) {
	kr, err := k.Load(ctx, format)
	if err != nil {
		return "", err
	}
	return kr.Digest, nil
}

// judgedBy names how this release judges an OpenPGP verdict: by the
// validity of the user id that names the actor (Checker), not the key's.
// It is part of the OpenPGP digest, so that verdicts and read caches a
// release that judged by the key's validity kept are not taken as this
// one's.
const judgedBy = "user-id-validity"

// Load lists format's keyring once: its digest, and for OpenPGP each
// key's valid user ids.
func (k Keyrings) Load(ctx context.Context, format string) (*Keyring, error) {
	prog, def := k.OpenPGPProgram, "gpg"
	args := []string{"--batch", "--with-colons", "--with-subkey-fingerprint", "--list-keys"}
	if format == FormatX509 {
		prog, def = k.X509Program, "gpgsm"
		args = []string{"--batch", "--with-colons", "--list-keys"}
	} else if format != FormatOpenPGP {
		return nil, fmt.Errorf("no keyring for format %q", format)
	}
	if prog == "" {
		prog = def
	}
	now := time.Now
	if k.Now != nil {
		now = k.Now
	}
	cmd := exec.CommandContext(ctx, prog, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s --list-keys: %w", prog, err)
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
	kr := &Keyring{}
	switch format {
	case FormatX509:
		h.Write([]byte(t.Format("2006-01-02")))
	case FormatOpenPGP:
		h.Write([]byte(judgedBy))
		kr.keys = validUserIDs(out.String())
	}
	kr.Digest = hex.EncodeToString(h.Sum(nil))
	return kr, nil
}

// Loader is Load remembered per format for the life of the function it
// returns: one listing per format, whoever asks (the verdicts' digest,
// the checker's user ids).
func (k Keyrings) Loader(ctx context.Context) func(format string) (*Keyring, error) {
	type loaded struct {
		kr  *Keyring
		err error
	}
	memo := map[string]loaded{}
	return func(format string) (*Keyring, error) {
		l, ok := memo[format]
		if !ok {
			l.kr, l.err = k.Load(ctx, format)
			memo[format] = l
		}
		return l.kr, l.err
	}
}

// validUserIDs reads gpg's colon listing: each key's fingerprints (pub
// or sub, then fpr) and its user ids of validity f (full) or u
// (ultimate), as gpg computes it for each user id. A key's own validity
// is the highest of its user ids', which is why it vouches for none of
// them in particular.
func validUserIDs(listing string) map[string][]string {
	keys := map[string][]string{}
	var fprs []string
	var ids []string
	flush := func() {
		for _, f := range fprs {
			keys[f] = ids
		}
		fprs, ids = nil, nil
	}
	for _, line := range strings.Split(listing, "\n") {
		f := strings.Split(line, ":")
		switch {
		case len(f) < 10:
		case f[0] == "pub":
			flush()
		case f[0] == "fpr":
			fprs = append(fprs, strings.ToUpper(f[9]))
		case f[0] == "uid" && (f[1] == "f" || f[1] == "u"):
			ids = append(ids, unescapeColons(f[9]))
		}
	}
	flush()
	return keys
}

// unescapeColons undoes the escaping of a colon listing's field (gpg's
// es_write_sanitized: \xNN, and a backslash before n, r, f, v, b, 0 or
// itself); a sequence it does not know is kept as it is.
func unescapeColons(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		if c, ok := map[byte]byte{'n': '\n', 'r': '\r', 'f': '\f', 'v': '\v', 'b': '\b', '0': 0, '\\': '\\'}[s[i+1]]; ok {
			b.WriteByte(c)
			i++
			continue
		}
		if s[i+1] == 'x' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+2:i+4], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
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
