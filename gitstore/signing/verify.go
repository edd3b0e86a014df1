package signing

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"git-reason/gitstore/git"
)

// Status is what a record's signature says about who wrote it.
type Status string

// The statuses, from git's %G? and the allowed signers.
const (
	// Good: a valid signature by an allowed signer (an allowed-signers
	// principal for ssh; a user id of full or ultimate validity for gpg;
	// a certificate of full or ultimate validity for gpgsm) who is the
	// record's actor.
	Good Status = "good"
	// Unsigned: the commit carries no signature.
	Unsigned Status = "unsigned"
	// Bad: the signature does not match the commit (it was changed after
	// signing) or cannot be parsed.
	Bad Status = "bad"
	// UnknownKey: a valid signature by a key that is not an allowed
	// signer, or one that cannot be checked (the key is missing).
	UnknownKey Status = "unknown_key"
	// Removed: an unknown key that this clone once saw as an allowed
	// signer's: it was removed from the allowed signers since.
	Removed Status = "key_removed"
	// NotActor: a good signature by an allowed signer who is not the
	// record's actor.
	NotActor Status = "signer_not_actor"
	// Expired: an expired signature or key, or a revoked key.
	Expired Status = "expired_or_revoked"
)

// Check is git's verdict on one commit of a history.
type Check struct {
	Commit string `json:"commit"`
	// Record is the commit's Reason-Record trailer ("" for a merge).
	Record string `json:"record,omitempty"`
	Status Status `json:"status"`
	// Signer is who signed: the allowed-signers principal (ssh), the
	// key's user id naming the actor that gpg holds valid (else git's,
	// the primary one, or those gpg holds valid), or the certificate's
	// subject (gpgsm); "" when unknown.
	Signer string `json:"signer,omitempty"`
	// Key is the signing key's fingerprint (or id).
	Key string `json:"key,omitempty"`
	// Actor is the commit's author, "Name <email>": the record's actor.
	Actor string `json:"actor"`
}

// Allowed reports whether the commit is signed by an allowed signer who
// is its actor.
func (c Check) Allowed() bool { return c.Status == Good }

// Describe is the check in a few words, for a person.
func (c Check) Describe() string {
	switch c.Status {
	case Good:
		return "signed by " + c.Signer
	case Unsigned:
		return "unsigned"
	case Bad:
		return "bad signature (changed after signing)"
	case UnknownKey:
		return "signed by a key that is not an allowed signer's (" + c.Key + ")"
	case Removed:
		return "signed by " + c.Signer + "'s key " + c.Key + ", since removed from the allowed signers"
	case NotActor:
		return "signed by " + c.Signer + ", who is not the record's actor " + c.Actor
	}
	return string(c.Status)
}

// Runner runs git with args on the repository and returns its stdout
// (gitstore.Repo.Git).
type Runner func(ctx context.Context, args ...string) ([]byte, error)

// format is one commit per NUL-terminated field group: hash, %G?, trust,
// key, signer, fingerprint, author, Reason-Record trailer.
const format = "--format=%H%x00%G?%x00%GT%x00%GK%x00%GS%x00%GF%x00%an <%ae>%x00%(trailers:key=Reason-Record,valueonly,separator=%x2C)%x00"

// untrustedFormat is format with the trust level given as "undefined"
// (what git prints for a key gpg lacks since 2.41): git 2.39 and 2.40
// cannot print %GT of such a signature, and end the whole git log with
// "BUG: gpg-interface.c: invalid trust level requested -1".
const untrustedFormat = "--format=%H%x00%G?%x00undefined%x00%GK%x00%GS%x00%GF%x00%an <%ae>%x00%(trailers:key=Reason-Record,valueonly,separator=%x2C)%x00"

// plainFormat is format's hash, author and trailer alone: no %G, so git
// starts no program (for commits judged here: unsigned, or good by the
// ssh fast path).
const plainFormat = "--format=%H%x00%an <%ae>%x00%(trailers:key=Reason-Record,valueonly,separator=%x2C)%x00"

// Checker judges the signatures of commits as git does, asking git (one
// git log per 10,000 commits) for what it cannot answer itself.
type Checker struct {
	// Git runs git on the repository (gitstore.Repo.Git).
	Git Runner
	// GitDir is the repository's git directory, where one git cat-file
	// reads the commits to judge; "" reads none, and git is asked about
	// every commit whose ssh verdict Verdicts does not keep.
	GitDir string
	// AllowedSigners, when not "", is the allowed-signers file git is
	// given (in place of gpg.ssh.allowedSignersFile).
	AllowedSigners string
	// Verdicts keeps git's verdicts across runs (nil: none kept).
	Verdicts *Verdicts
	// SSH is the ssh fast path: the allowed signers' plain keys, whose
	// good signatures are called good here without ssh-keygen (nil:
	// every ssh signature goes to git).
	SSH *AllowedSSH
	// Keyring lists a format's keyring (Keyrings.Loader), for the user
	// ids gpg holds valid: an OpenPGP signature is good only by one of
	// them that names the record's actor (nil: no OpenPGP signature is
	// good).
	Keyring func(format string) (*Keyring, error)
}

// Verify asks for the signature of every commit of rev not reachable from
// any of not, newest first: one git rev-list lists them, and the commits
// whose verdict is neither kept nor decided here go to git. What git
// concluded is kept and the verdicts are saved.
func (c *Checker) Verify(ctx context.Context, rev string, not ...string) ([]Check, error) {
	args := []string{"--no-replace-objects", "rev-list", rev}
	if len(not) > 0 {
		args = append(append(args, "--not"), not...)
	}
	out, err := c.Git(ctx, append(args, "--")...)
	if err != nil {
		return nil, fmt.Errorf("check signatures of %s: %w", rev, err)
	}
	checks, err := c.CheckCommits(ctx, strings.Fields(string(out)))
	if err != nil {
		return nil, fmt.Errorf("check signatures of %s: %w", rev, err)
	}
	return checks, nil
}

// CheckCommits is Verify for commits already listed (newest first).
func (c *Checker) CheckCommits(ctx context.Context, commits []string) ([]Check, error) {
	fields, formats, err := c.ask(ctx, commits)
	if err != nil {
		return nil, err
	}
	checks := make([]Check, len(commits))
	for i, cm := range commits {
		checks[i] = c.judge(fields[cm], formats[cm])
	}
	return checks, nil
}

// noRefLookups is the setting given to a git process handed many commit
// ids: git then does not look each full id up as a ref name as well (a
// stat of each place a ref of that name could be, and of packed-refs),
// which it does only to warn when a ref is so named. At 10,000 ids it
// halves the CPU of rev-list and of log (TestVerifyHeadsNoRefLookups).
const noRefLookups = "core.warnAmbiguousRefs=false"

// perProcess bounds the commit ids one git process is given on its
// command line (41 bytes each), well inside the system's limit.
const perProcess = 10000

// ask returns git's fields for each of commits: those the verdicts keep;
// for an unsigned commit, a good signature of the ssh fast path and one
// git cannot read (bad), the fields git would print, with the author and
// trailer from a git log that checks no signature; for the others,
// git's own, from `git log --no-walk` (one process per perProcess
// commits), kept in the verdicts, which are then saved. formats is each commit's signature format, where
// it was read.
func (c *Checker) ask(ctx context.Context, commits []string) (fields map[string][]string, formats map[string]string, err error) {
	out := make(map[string][]string, len(commits))
	var missing []string
	for _, cm := range commits {
		if f, ok := c.Verdicts.lookup(cm); ok {
			out[cm] = f
		} else if _, dup := out[cm]; !dup {
			out[cm] = nil
			missing = append(missing, cm)
		}
	}
	toGit, here, formats, expires := c.sort(ctx, missing, out)
	judged := func(f []string) {
		out[f[0]] = f
		c.Verdicts.keep(f, formats[f[0]], expires[f[0]])
	}
	err = c.log(ctx, toGit, format, verdictFields, judged)
	if err != nil && strings.Contains(err.Error(), "invalid trust level") {
		err = c.logUntrusted(ctx, toGit, judged)
	}
	if err != nil {
		return nil, nil, err
	}
	err = c.log(ctx, slices.Collect(maps.Keys(here)), plainFormat, 3, func(p []string) {
		f := here[p[0]]
		f[6], f[7] = p[1], p[2]
		out[f[0]] = f
		if f[1] == "G" {
			c.Verdicts.keep(f, FormatSSH, false)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	for _, cm := range commits {
		if out[cm] == nil {
			return nil, nil, fmt.Errorf("git log printed nothing for commit %s", cm)
		}
	}
	c.Verdicts.Save()
	return out, formats, nil
}

// sort reads the missing commits (one git cat-file) and sorts them: the
// fields of those judged here (unsigned; good by the ssh fast path; bad
// for a signature git cannot read, gitRefuses),
// waiting for their author and trailer; OpenPGP and X.509 verdicts the
// verdicts keep, put in out; the rest, for git, with each one's
// signature format and whether an OpenPGP signature expires. Without a
// reader, or when it fails, every missing commit goes to git.
func (c *Checker) sort(ctx context.Context, missing []string, out map[string][]string) (toGit []string, here map[string][]string, formats map[string]string, expires map[string]bool) {
	here, formats, expires = map[string][]string{}, map[string]string{}, map[string]bool{}
	if c.GitDir == "" || len(missing) == 0 {
		return missing, here, formats, expires
	}
	cf, err := git.StartCatFile(ctx, c.GitDir, "--git-dir="+c.GitDir)
	if err != nil {
		return missing, map[string][]string{}, formats, expires
	}
	defer cf.Close()
	var kept []string
	err = cf.Contents(missing, func(i int, typ string, raw []byte) error {
		cm := missing[i]
		if typ != "commit" {
			toGit = append(toGit, cm)
			return nil
		}
		if gitRefuses(raw, len(cm) == 64) {
			here[cm] = []string{cm, "B", "undefined", "", "", "", "", ""}
			return nil
		}
		sig, payload, ok := splitSigned(raw)
		if !ok {
			if !hasSignatureHeader(raw) {
				here[cm] = []string{cm, "N", "undefined", "", "", "", "", ""}
			} else {
				toGit = append(toGit, cm)
			}
			return nil
		}
		fm := formatOf(sig)
		formats[cm] = fm
		switch fm {
		case FormatSSH:
			// Only in a SHA-1 repository: in a SHA-256 one git reads
			// "gpgsig-sha256" and ignores a "gpgsig" header.
			if principal, fp, ok := c.SSH.Good(sig, payload); ok && len(cm) == 40 {
				here[cm] = []string{cm, "G", "fully", fp, principal, fp, "", ""}
				return nil
			}
		case FormatOpenPGP, FormatX509:
			if f, ok := c.Verdicts.lookupOther(fm, cm); ok {
				out[cm] = f
				kept = append(kept, cm)
				return nil
			}
			if fm == FormatOpenPGP {
				expires[cm] = sigExpires(sig)
			}
		}
		toGit = append(toGit, cm)
		return nil
	})
	if err != nil {
		for _, cm := range kept {
			out[cm] = nil
		}
		return missing, map[string][]string{}, formats, expires
	}
	return toGit, here, formats, expires
}

// logUntrusted is log of commits in format for a git that cannot print
// the trust level of a signature whose key gpg lacks (untrustedFormat):
// every commit's fields without it, then, of the good signatures alone
// (whose key gpg has, so that git prints their trust level), format's.
// A signature of a key gpg lacks is then judged as any other git says
// it cannot check (UnknownKey), instead of failing the check of every
// commit asked about with it: one stranger's record would otherwise stop
// a pull of every task.
func (c *Checker) logUntrusted(ctx context.Context, commits []string, fn func([]string)) error {
	var good []string
	fields := map[string][]string{}
	err := c.log(ctx, commits, untrustedFormat, verdictFields, func(f []string) {
		fields[f[0]] = f
		if f[1] == "G" {
			good = append(good, f[0])
		}
	})
	if err != nil {
		return err
	}
	if err := c.log(ctx, good, format, verdictFields, func(f []string) { fields[f[0]] = f }); err != nil {
		return err
	}
	for _, cm := range commits {
		if f := fields[cm]; f != nil {
			fn(f)
		}
	}
	return nil
}

// hasSignatureHeader reports whether a raw commit's headers hold any
// line git might read as a signature.
func hasSignatureHeader(raw []byte) bool {
	headers, _, _ := bytes.Cut(raw, []byte("\n\n"))
	return bytes.HasPrefix(headers, []byte("gpgsig")) || bytes.Contains(headers, []byte("\ngpgsig"))
}

// log runs git log --no-walk with the given format on commits (one
// process per perProcess commits) and hands each commit's n fields to fn.
func (c *Checker) log(ctx context.Context, commits []string, format string, n int, fn func([]string)) error {
	for start := 0; start < len(commits); start += perProcess {
		args := []string{"-c", noRefLookups, "--no-replace-objects"}
		if c.AllowedSigners != "" {
			args = append(args, "-c", "gpg.ssh.allowedSignersFile="+c.AllowedSigners)
		}
		args = append(append(args, "log", "--no-walk=unsorted", format), commits[start:min(len(commits), start+perProcess)]...)
		data, err := c.Git(ctx, append(args, "--")...)
		if err != nil {
			return err
		}
		fields := bytes.Split(data, []byte{0})
		for len(fields) >= n {
			f := make([]string, n)
			for i := range f {
				f[i] = string(fields[i])
			}
			fields = fields[n:]
			f[0] = strings.TrimSpace(f[0])
			fn(f)
		}
	}
	return nil
}

// judge is judge(f) for a commit signed in format ("" when it was not
// read), with the identity an OpenPGP signature is by. git names the
// key's primary user id (%GS) and trusts it as gpg trusts the key, with
// the highest validity of any of its user ids: a key certified for its
// owner's own user id would vouch for any other its owner adds and makes
// primary, "Victim <victim@…>" included. So an OpenPGP signature is good
// only by a user id gpg holds valid (full or ultimate) that names the
// actor, the signer then being that user id; a good key with none is
// the signature of someone who is not the actor, by its valid user ids.
func (c *Checker) judge(f []string, format string) Check {
	ch := judge(f)
	if ch.Status != Good && ch.Status != NotActor {
		return ch
	}
	if format == "" && (strings.HasPrefix(f[3], "SHA256:") || strings.HasPrefix(f[5], "SHA256:")) {
		format = FormatSSH
	}
	switch format {
	case FormatSSH:
		return ch
	case FormatX509:
		return x509Signer(ch)
	}
	var kr *Keyring
	var err error
	if c.Keyring != nil {
		kr, err = c.Keyring(FormatOpenPGP)
	}
	ids, listed := kr.ValidUserIDs(f[5])
	switch {
	case format == "" && !listed && err == nil && c.Keyring != nil:
		return x509Signer(ch) // not read, and no key of gpg's: X.509
	case !listed:
		ch.Status = UnknownKey // the key is not (or no longer) gpg's
		return ch
	}
	for _, id := range ids {
		if SignerIsActor(id, ch.Actor) {
			ch.Status, ch.Signer = Good, id
			return ch
		}
	}
	ch.Status = NotActor
	if len(ids) > 0 {
		ch.Signer = strings.Join(ids, ", ")
	}
	return ch
}

// x509Signer is ch with the rule of an X.509 signer: the certificate's
// subject as gpgsm prints it, "/CN=…/EMail=…". What gpgsm prints in place
// of a subject it cannot read ("[Error - invalid DN]", for one whose
// common name holds "=") names no one, so it is no actor's address,
// whatever address an actor gives.
func x509Signer(ch Check) Check {
	if ch.Status == Good && !strings.HasPrefix(ch.Signer, "/") {
		ch.Status = NotActor
	}
	return ch
}

// judge turns git's fields for one commit into a Check.
func judge(f []string) Check {
	c := Check{Commit: f[0], Key: f[3], Signer: f[4], Actor: f[6], Record: strings.TrimSpace(f[7])}
	if c.Key == "" {
		c.Key = f[5]
	}
	switch f[1] {
	case "N":
		c.Status = Unsigned
	case "B":
		c.Status = Bad
	case "X", "Y", "R":
		c.Status = Expired
	case "G":
		// ssh reports an allowed signer as "fully"; gpg a key's validity.
		if f[2] == "fully" || f[2] == "ultimate" {
			c.Status = Good
			if !SignerIsActor(c.Signer, c.Actor) {
				c.Status = NotActor
			}
		} else {
			c.Status = UnknownKey
		}
	default: // U (good signature, unknown validity), E (cannot be checked)
		c.Status = UnknownKey
	}
	return c
}

// SignerIsActor reports whether signer (an ssh principal, usually an
// address, a key's user id "Name <address>", or a certificate's subject)
// names the address of
// actor ("Name <address>"); addresses compare without case.
//
// An X.509 signer is the certificate's subject as gpgsm prints it
// ("/CN=Name/O=Org/EMail=address"): its EMail attribute is the address.
func SignerIsActor(signer, actor string) bool {
	addr := func(s string) string {
		if strings.HasPrefix(s, "/") {
			for _, rdn := range strings.Split(s, "/") {
				if k, v, ok := strings.Cut(rdn, "="); ok && (strings.EqualFold(k, "EMail") || strings.EqualFold(k, "emailAddress")) {
					return strings.ToLower(strings.TrimSpace(v))
				}
			}
			return ""
		}
		if i := strings.LastIndex(s, "<"); i >= 0 && strings.HasSuffix(s, ">") {
			s = s[i+1 : len(s)-1]
		}
		return strings.ToLower(strings.TrimSpace(s))
	}
	a := addr(actor)
	return a != "" && addr(signer) == a
}
