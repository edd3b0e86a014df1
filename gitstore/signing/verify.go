package signing

import (
	"bytes"
	"context"
	"fmt"
	"strings"
)

// Status is what a record's signature says about who wrote it.
type Status string

// The statuses, from git's %G? and the allowed signers.
const (
	// Good: a valid signature by an allowed signer (an allowed-signers
	// principal for ssh; a key of full or ultimate validity for gpg and
	// gpgsm) who is the record's actor.
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
	// Signer is who signed: the allowed-signers principal (ssh) or the
	// key's user id (gpg, gpgsm); "" when unknown.
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

// Verify asks git for the signature of every commit of rev not
// reachable from any of not, newest first: one git rev-list lists them,
// and one git log (per 10,000 commits) checks those whose verdict v does
// not keep (v may be nil), with allowedSigners, when not "", as the
// allowed-signers file (in place of gpg.ssh.allowedSignersFile). What git
// concluded is kept in v and v is saved.
func Verify(ctx context.Context, git Runner, allowedSigners string, v *Verdicts, rev string, not ...string) ([]Check, error) {
	args := []string{"rev-list", rev}
	if len(not) > 0 {
		args = append(append(args, "--not"), not...)
	}
	out, err := git(ctx, append(args, "--")...)
	if err != nil {
		return nil, fmt.Errorf("check signatures of %s: %w", rev, err)
	}
	checks, err := CheckCommits(ctx, git, allowedSigners, v, strings.Fields(string(out)))
	if err != nil {
		return nil, fmt.Errorf("check signatures of %s: %w", rev, err)
	}
	return checks, nil
}

// CheckCommits is Verify for commits already listed (newest first): one
// git log (per 10,000 commits) checks those whose verdict v does not keep.
func CheckCommits(ctx context.Context, git Runner, allowedSigners string, v *Verdicts, commits []string) ([]Check, error) {
	fields, err := ask(ctx, git, allowedSigners, v, commits)
	if err != nil {
		return nil, err
	}
	checks := make([]Check, len(commits))
	for i, c := range commits {
		checks[i] = judge(fields[c])
	}
	return checks, nil
}

// perProcess bounds the commit ids one git process is given on its
// command line (41 bytes each), well inside the system's limit.
const perProcess = 10000

// ask returns git's fields for each of commits: those v keeps from it,
// the others from `git log --no-walk` (one process per perProcess
// commits), kept in v, which is then saved.
func ask(ctx context.Context, git Runner, allowedSigners string, v *Verdicts, commits []string) (map[string][]string, error) {
	out := make(map[string][]string, len(commits))
	var missing []string
	for _, c := range commits {
		if f, ok := v.lookup(c); ok {
			out[c] = f
		} else if _, dup := out[c]; !dup {
			out[c] = nil
			missing = append(missing, c)
		}
	}
	for start := 0; start < len(missing); start += perProcess {
		var args []string
		if allowedSigners != "" {
			args = append(args, "-c", "gpg.ssh.allowedSignersFile="+allowedSigners)
		}
		args = append(append(args, "log", "--no-walk=unsorted", format), missing[start:min(len(missing), start+perProcess)]...)
		data, err := git(ctx, append(args, "--")...)
		if err != nil {
			return nil, err
		}
		fields := bytes.Split(data, []byte{0})
		for len(fields) >= verdictFields {
			f := make([]string, verdictFields)
			for i := range f {
				f[i] = string(fields[i])
			}
			fields = fields[verdictFields:]
			f[0] = strings.TrimSpace(f[0])
			out[f[0]] = f
			v.keep(f)
		}
	}
	for _, c := range commits {
		if out[c] == nil {
			return nil, fmt.Errorf("git log printed nothing for commit %s", c)
		}
	}
	v.Save()
	return out, nil
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
