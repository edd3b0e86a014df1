package settings

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Signing is how record commits are signed and how their signatures are
// judged, read from the keys git itself reads for `git commit -S` and
// `git verify-commit` (gpg-interface), so that records are signed exactly
// as the user's commits are.
type Signing struct {
	// Sign is reason.sign when set, else commit.gpgSign: every record
	// commit (and a sync merge) is signed.
	Sign bool
	// Format is gpg.format: "openpgp" (the default), "x509" or "ssh".
	Format string
	// Key is user.signingKey as written ("" when unset): a key id for
	// gpg and gpgsm; for ssh a path or a literal key ("key::ssh-…").
	Key string
	// Program is the signing program of Format: gpg.program (or
	// gpg.openpgp.program), gpg.x509.program or gpg.ssh.program; "gpg",
	// "gpgsm" or "ssh-keygen" when unset.
	Program string
	// DefaultKeyCommand is gpg.ssh.defaultKeyCommand: with ssh and no Key,
	// the command whose first output line is the key to sign with.
	DefaultKeyCommand string
	// Home is $HOME, which expands a "~/" ssh key path (Key) when a
	// record is signed, as git's interpolate_path does.
	Home string
	// AllowedSignersFile is gpg.ssh.allowedSignersFile with a leading "~/"
	// expanded as git expands a path ("" when unset).
	AllowedSignersFile string
	// SSHProgram and RevocationFile are gpg.ssh.program and
	// gpg.ssh.revocationFile ("~/" expanded) as written: with the
	// allowed signers, what git's verdict on an ssh signature depends on.
	SSHProgram, RevocationFile string
	// OpenPGPProgram and X509Program are the programs git verifies an
	// OpenPGP or X.509 signature with, whatever Format is: gpg.program
	// (or gpg.openpgp.program) and gpg.x509.program ("" when unset: gpg,
	// gpgsm).
	OpenPGPProgram, X509Program string
	// RequireSigned is reason.requireSigned: "false" (the default),
	// "fetched" (pull quarantines a task whose records are not all signed
	// by an allowed signer) or "all" (an unsigned local write is refused
	// too).
	RequireSigned string
}

// The values of reason.requireSigned.
const (
	RequireNone    = "false"
	RequireFetched = "fetched"
	RequireAll     = "all"
)

// The signing keys resolve reads, as git lists them.
const (
	keyReasonSign      = "reason.sign"
	keyCommitSign      = "commit.gpgsign"
	keyGPGFormat       = "gpg.format"
	keySigningKey      = "user.signingkey"
	keyGPGProgram      = "gpg.program"
	keyOpenPGPProgram  = "gpg.openpgp.program"
	keyX509Program     = "gpg.x509.program"
	keySSHProgram      = "gpg.ssh.program"
	keySSHKeyCommand   = "gpg.ssh.defaultkeycommand"
	keyAllowedSigners  = "gpg.ssh.allowedsignersfile"
	keyRevocationFile  = "gpg.ssh.revocationfile"
	keyRequireSigned   = "reason.requiresigned"
	defaultSignProgram = "gpg"
)

// resolveSigning reads the signing keys; home expands "~/" in the allowed
// signers path as git_config_pathname does, and is kept for the key's
// path (Home).
func resolveSigning(src source, str func(string) string, home string) (Signing, error) {
	s := Signing{Home: home}
	boolKey := func(key string) (bool, bool, error) {
		es := src.entries(key)
		if len(es) == 0 {
			return false, false, nil
		}
		b, ok := maybeBool(es[len(es)-1])
		if !ok {
			return false, true, fmt.Errorf("git config %s: bad boolean %q: use true or false", key, es[len(es)-1].value)
		}
		return b, true, nil
	}
	commitSign, _, err1 := boolKey(keyCommitSign)
	reasonSign, set, err2 := boolKey(keyReasonSign)
	if err := firstErr(err1, err2); err != nil {
		return s, err
	}
	s.Sign = commitSign
	if set {
		s.Sign = reasonSign
	}
	s.Format = str(keyGPGFormat)
	gpgProgram, openpgp := str(keyGPGProgram), str(keyOpenPGPProgram)
	x509, ssh := str(keyX509Program), str(keySSHProgram)
	switch s.Format {
	case "", "openpgp":
		s.Format, s.Program = "openpgp", firstSet(lastOf(src, keyGPGProgram, keyOpenPGPProgram, gpgProgram, openpgp), defaultSignProgram)
	case "x509":
		s.Program = firstSet(x509, "gpgsm")
	case "ssh":
		s.Program = firstSet(ssh, "ssh-keygen")
	default:
		return s, fmt.Errorf("git config gpg.format: invalid value %q: use openpgp, x509 or ssh", s.Format)
	}
	s.Key = str(keySigningKey)
	s.DefaultKeyCommand = str(keySSHKeyCommand)
	s.AllowedSignersFile = str(keyAllowedSigners)
	s.SSHProgram, s.RevocationFile = ssh, str(keyRevocationFile)
	s.OpenPGPProgram, s.X509Program = lastOf(src, keyGPGProgram, keyOpenPGPProgram, gpgProgram, openpgp), x509
	for _, p := range []*string{&s.AllowedSignersFile, &s.RevocationFile} {
		if rest, ok := strings.CutPrefix(*p, "~/"); ok && home != "" {
			*p = filepath.Join(home, rest)
		}
	}
	switch req := strings.ToLower(str(keyRequireSigned)); req {
	case "", "false", "no", "off", "0":
		s.RequireSigned = RequireNone
	case RequireFetched, RequireAll:
		s.RequireSigned = req
	default:
		return s, fmt.Errorf("git config reason.requireSigned: invalid value %q: use false, fetched or all", req)
	}
	return s, nil
}

// lastOf is, of two keys that set the same thing (gpg.program and
// gpg.openpgp.program), the value of the one git read last: each entry
// keeps its scope, and a later scope wins; within one scope the
// format-specific key is taken, as a file usually sets only one.
func lastOf(src source, a, b, va, vb string) string {
	ea, eb := src.entries(a), src.entries(b)
	switch {
	case len(ea) == 0:
		return vb
	case len(eb) == 0:
		return va
	case scopeRank(ea[len(ea)-1].scope) > scopeRank(eb[len(eb)-1].scope):
		return va
	}
	return vb
}

func scopeRank(scope string) int {
	return map[string]int{"system": 0, "global": 1, "local": 2, "worktree": 3, "command": 4}[scope]
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
