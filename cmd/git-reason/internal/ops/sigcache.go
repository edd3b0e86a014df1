package ops

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"git-reason/gitstore/git"
	"git-reason/gitstore/signing"
	"git-reason/record"
)

// Signature is a record's signature status as read surfaces show it.
type Signature struct {
	Status signing.Status `json:"status"`
	// Signer is who signed: the allowed-signers principal (ssh), the
	// key's user id (gpg) or the certificate's subject (x509).
	Signer string `json:"signer,omitempty"`
	Key    string `json:"key,omitempty"`
	Commit string `json:"commit"`
	// Text says it in a few words, for a person.
	Text string `json:"text"`
}

func signatureOf(c signing.Check) *Signature {
	return &Signature{Status: c.Status, Signer: c.Signer, Key: c.Key, Commit: c.Commit, Text: c.Describe()}
}

// SignatureSummary is a task's signatures in brief: how many records have
// each status, and who signed the good ones.
type SignatureSummary struct {
	Counts  map[signing.Status]int `json:"counts"`
	Signers []string               `json:"signers"`
}

// Text is the summary on one line: "3 signed by ada@example.invalid, 1
// unsigned".
// It is "" when no record is signed: most repositories sign none, and
// --json still counts them.
func (s *SignatureSummary) Text() string {
	if s == nil || len(s.Counts) == 0 || s.Counts[signing.Unsigned] == s.total() {
		return ""
	}
	var parts []string
	if n := s.Counts[signing.Good]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d signed by %s", n, strings.Join(s.Signers, ", ")))
	}
	for _, st := range []signing.Status{signing.Unsigned, signing.Bad, signing.UnknownKey, signing.Removed, signing.NotActor, signing.Expired} {
		if n := s.Counts[st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, strings.ReplaceAll(string(st), "_", " ")))
		}
	}
	return strings.Join(parts, ", ")
}

func (s *SignatureSummary) total() int {
	n := 0
	for _, c := range s.Counts {
		n += c
	}
	return n
}

// Summarize counts the signatures of a task's records.
func Summarize(sigs map[string]*Signature) *SignatureSummary {
	out := &SignatureSummary{Counts: map[signing.Status]int{}, Signers: []string{}}
	seen := map[string]bool{}
	for _, s := range sigs {
		out.Counts[s.Status]++
		if s.Status == signing.Good && !seen[s.Signer] {
			seen[s.Signer] = true
			out.Signers = append(out.Signers, s.Signer)
		}
	}
	sort.Strings(out.Signers)
	return out
}

// FindSigned is Find with the record's signature (nil when git could
// not be asked).
func (e *Session) FindSigned(ctx context.Context, id string) (*record.Entry, *record.State, *Signature, error) {
	found, st, err := e.Find(ctx, id)
	if err != nil {
		return nil, nil, nil, err
	}
	head, _, err := e.Store.Load(ctx, found.Task)
	if err != nil {
		return found, st, nil, nil
	}
	sigs, err := e.RecordSignatures(ctx, found.Task, head)
	if err != nil {
		return found, st, nil, nil
	}
	return found, st, sigs[found.ID], nil
}

// TaskSignatures is the summary of RecordSignatures; nil when git could
// not be asked (a read surface then shows none rather than failing).
func (e *Session) TaskSignatures(ctx context.Context, task, head string) *SignatureSummary {
	sigs, err := e.RecordSignatures(ctx, task, head)
	if err != nil {
		return nil
	}
	return Summarize(sigs)
}

// sigCache is what .git/reason/signatures/<task digest>.json keeps of a
// task's signature checks: those of every commit up to head, judged
// against the allowed signers whose digest is Allowed.
type sigCache struct {
	Task    string          `json:"task"`
	Head    string          `json:"head"`
	Allowed string          `json:"allowed"`
	Checks  []signing.Check `json:"checks"`
}

// RecordSignatures returns the signature of each record of task whose
// history is at head, by record id. It is for display: it reads the
// checks cached by head under .git/reason/signatures/ and checks only
// the commits since the cached head (signaturesSince: git log only for
// signed ones), so a read surface pays for what changed; the cache is dropped when the allowed
// signers change. verify and pull ask git afresh (Signatures); reuse
// reads the commits themselves, with no cache (signaturesSince).
func (e *Session) RecordSignatures(ctx context.Context, task, head string) (map[string]*Signature, error) {
	if head == "" {
		return map[string]*Signature{}, nil
	}
	allowed, err := e.allowedDigest()
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(task))
	path := filepath.Join(e.Repo.CommonDir, "reason", "signatures", hex.EncodeToString(sum[:16])+".json")
	var c sigCache
	if data, err := os.ReadFile(path); err == nil && json.Unmarshal(data, &c) == nil && c.Task == task && c.Allowed == allowed {
		if c.Head != head {
			fresh, err := e.signaturesSince(ctx, head, c.Head)
			if err != nil {
				// The cached head is gone (a rewritten history, gc):
				// ask about the whole history.
				fresh, err = e.Signatures(ctx, head)
				c.Checks = nil
			}
			if err != nil {
				return nil, err
			}
			c.Checks = merged(fresh, c.Checks)
			c.Head = head
			e.writeSigCache(path, &c)
		}
	} else {
		// A short linear history (a task just started) is read in this
		// process when none of its commits is signed, as after a cached
		// head; a longer one, or a signed one, is asked of git.
		checks, err := e.signaturesSince(ctx, head, "")
		if err != nil {
			return nil, err
		}
		c = sigCache{Task: task, Head: head, Allowed: allowed, Checks: checks}
		e.writeSigCache(path, &c)
	}
	return byRecord(c.Checks), nil
}

// byRecord is the signature of each record of checks (newest first): a
// record's newest commit's.
func byRecord(checks []signing.Check) map[string]*Signature {
	out := map[string]*Signature{}
	for _, ch := range checks {
		if ch.Record != "" {
			if _, newer := out[ch.Record]; !newer {
				out[ch.Record] = signatureOf(ch)
			}
		}
	}
	return out
}

// merged is fresh (newest first) followed by the older checks of records
// fresh does not hold.
func merged(fresh, old []signing.Check) []signing.Check {
	have := make(map[string]bool, len(fresh))
	for _, c := range fresh {
		have[c.Commit] = true
	}
	out := append([]signing.Check{}, fresh...)
	for _, c := range old {
		if !have[c.Commit] {
			out = append(out, c)
		}
	}
	return out
}

// writeSigCache keeps the checks; a cache that cannot be written is
// asked again next time, so a failure is not the reader's.
func (e *Session) writeSigCache(path string, c *sigCache) {
	data, err := json.Marshal(c)
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	_ = git.WriteFile(path, data, 0o644, git.Wait, false)
}

// allowedDigest identifies the allowed signers checks are judged against:
// the file's path and content.
func (e *Session) allowedDigest() (string, error) {
	if e.allowedSum != "" && !e.resident {
		return e.allowedSum, nil
	}
	path, err := e.allowedSigners()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write([]byte(path + "\x00"))
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		h.Write(data)
	}
	e.allowedSum = hex.EncodeToString(h.Sum(nil))
	return e.allowedSum, nil
}

// verdicts opens the signature verdicts kept for the configuration git
// judges ssh signatures by (SignaturesDigest).
func (e *Session) verdicts() (*signing.Verdicts, error) {
	key, err := e.SignaturesDigest()
	if err != nil {
		return nil, err
	}
	return signing.OpenVerdicts(e.Repo.CommonDir, key), nil
}

// SignaturesDigest identifies the configuration git judges signatures
// by now: the allowed signers (allowedDigest), the ssh program and the
// revocation file's path and content. A verdict kept under another was
// judged by other rules.
func (e *Session) SignaturesDigest() (string, error) {
	allowed, err := e.allowedDigest()
	if err != nil {
		return "", err
	}
	st, err := e.Settings()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", allowed, st.Signing.SSHProgram, st.Signing.RevocationFile)
	if st.Signing.RevocationFile != "" {
		data, err := os.ReadFile(st.Signing.RevocationFile)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
