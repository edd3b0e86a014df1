package ops

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"git-reason/cmd/git-reason/internal/settings"
	"git-reason/gitstore"
	"git-reason/gitstore/signing"
	"git-reason/record"
)

// Signature is a record's signature status as read surfaces show it.
type Signature struct {
	Status signing.Status `json:"status"`
	// Signer is who signed: the allowed-signers principal (ssh), the
	// key's user id gpg holds valid (gpg) or the certificate's subject
	// (x509), as signing.Check.Signer.
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
	// volatile: a signature it counts was judged by what the digest
	// read surfaces keep signatures under does not cover (an OpenPGP
	// or X.509 keyring it does not name, the time), so no cache keeps
	// it (Kept).
	volatile bool
}

// Kept reports whether s may be kept under the digest it was judged by
// (Session.readDigest): every signature it counts is judged the same way
// while that digest holds (Session.keptByRead).
func (s *SignatureSummary) Kept() bool { return s != nil && !s.volatile }

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

// Summarize counts the signatures of a task's records. Whether a cache
// may keep the count is summarize's to say.
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

// summarize is Summarize for a read surface's cache: a summary is kept
// (SignatureSummary.Kept) when every signature it counts is one
// readDigest decides (keptByRead).
func (e *Session) summarize(ctx context.Context, sigs map[string]*Signature) *SignatureSummary {
	out := Summarize(sigs)
	for _, s := range sigs {
		if !e.keptByRead(ctx, signing.Check{Commit: s.Commit, Status: s.Status, Key: s.Key}) {
			out.volatile = true
			break
		}
	}
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
// When the history at head is known to replay clean and lies on one line
// after the head its task's signature log ends with, the summary is that
// entry's with the new commits' checks added, and an entry is appended:
// the end of the log read, never the whole (gitstore.Store.SignatureTail).
func (e *Session) TaskSignatures(ctx context.Context, task, head string) *SignatureSummary {
	if sum := e.signaturesAfterTail(ctx, task, head); sum != nil {
		e.noticeSummary(task, sum)
		return sum
	}
	sigs, err := e.RecordSignatures(ctx, task, head)
	if err != nil {
		return nil
	}
	return e.summarize(ctx, sigs)
}

// signaturesAfterTail is TaskSignatures from the last entry of the
// task's signature log, nil when it cannot go on from it. In a history
// that replays clean each commit on one line adds one record of its own
// (its Reason-Record trailer is checked by replay), so the new commits'
// checks add records the entry's summary does not count.
func (e *Session) signaturesAfterTail(ctx context.Context, task, head string) *SignatureSummary {
	allowed, err := e.readDigest(ctx)
	if err != nil || head == "" {
		return nil
	}
	tail, ok := e.Store.SignatureTail(task)
	if !ok || tail.Allowed != allowed {
		return nil
	}
	var sum SignatureSummary
	if json.Unmarshal(tail.Summary, &sum) != nil || sum.Counts == nil {
		return nil
	}
	if tail.Head == head {
		return &sum
	}
	if !e.Store.KnownClean(task, head) {
		return nil
	}
	fresh, ok, err := e.signaturesLinear(ctx, head, tail.Head)
	if err != nil || !ok {
		return nil
	}
	seen := map[string]bool{}
	for _, c := range fresh {
		if c.Record == "" || seen[c.Record] || !e.keptByRead(ctx, c) {
			return nil // a verdict no log keeps: RecordSignatures asks
		}
		seen[c.Record] = true
		sum.Counts[c.Status]++
		if c.Status == signing.Good && !slices.Contains(sum.Signers, c.Signer) {
			sum.Signers = append(sum.Signers, c.Signer)
			sort.Strings(sum.Signers)
		}
	}
	checks, err1 := json.Marshal(fresh)
	summary, err2 := json.Marshal(&sum)
	if err1 != nil || err2 != nil || !e.Store.AppendSignatures(task, tail, gitstore.SigEntry{Head: head, Allowed: allowed, Checks: checks, Summary: summary}) {
		return nil // the log is full or moved: RecordSignatures writes it anew
	}
	return &sum
}

// RecordSignatures returns the signature of each record of task whose
// history is at head, by record id. It is for display: it reads the
// checks kept by head in the task's signature log under
// .git/reason/signatures/ (gitstore/siglog.go) and checks only the
// commits since its last head (signaturesSince: git log only for signed
// ones), appending them; the log is written anew when what git judges
// signatures by changes (readDigest), and holds no verdict that digest
// does not decide (keptByRead: one judged by a keyring it does not
// name, or one that expires by itself, is asked again). verify and pull
// do not read this log: verify asks git about every head together
// (headSignatures, which keeps its own checks by head under a MAC), pull
// about each moved history; reuse reads the commits themselves, with no
// cache (signaturesSince).
func (e *Session) RecordSignatures(ctx context.Context, task, head string) (map[string]*Signature, error) {
	if head == "" {
		return map[string]*Signature{}, nil
	}
	log := e.Store.SignatureLog(task)
	if sigs, ok := e.unsignedSince(ctx, task, head, log); ok {
		return sigs, nil
	}
	allowed, err := e.readDigest(ctx)
	if err != nil {
		return nil, err
	}
	var checks []signing.Check
	var last *gitstore.SigEntry
	if len(log) > 0 && log[len(log)-1].Allowed == allowed {
		for i := len(log) - 1; i >= 0; i-- { // newest entries first
			var cs []signing.Check
			if json.Unmarshal(log[i].Checks, &cs) != nil {
				checks, log = nil, nil
				break
			}
			checks = merged(checks, cs)
		}
		if len(log) > 0 {
			last = &log[len(log)-1]
		}
	}
	if last != nil && last.Head == head {
		e.noticeSigners(checks) // judged before, maybe by another process
		return byRecord(checks), nil
	}
	var fresh []signing.Check
	if last != nil {
		if fresh, err = e.signaturesSince(ctx, head, last.Head); err != nil {
			// The logged head is gone (a rewritten history, gc): ask
			// about the whole history.
			last = nil
		}
	}
	if last == nil {
		// A short linear history (a task just started) is read in this
		// process when none of its commits is signed, as after a logged
		// head; a longer one, or a signed one, is asked of git.
		if fresh, err = e.signaturesSince(ctx, head, ""); err != nil {
			return nil, err
		}
		checks = nil
	}
	checks = merged(fresh, checks)
	e.logSignatures(ctx, task, head, allowed, last, fresh, checks)
	return byRecord(checks), nil
}

// unsignedSince is RecordSignatures when task's signature log holds no
// signed commit and the commits after its last head, if any, lie on one
// line of at most sinceCommits, none of them signed: every record is
// unsigned whatever the allowed signers are, so neither they nor the
// configuration naming them (a git process) are asked. The new commits'
// checks are appended under the last entry's allowed signers, as true of
// them as of the commits before. false: something is signed, or the log
// does not go on to head on one line; RecordSignatures asks as before.
func (e *Session) unsignedSince(ctx context.Context, task, head string, log []gitstore.SigEntry) (map[string]*Signature, bool) {
	if len(log) == 0 {
		return nil, false
	}
	var checks []signing.Check
	for i := len(log) - 1; i >= 0; i-- { // newest entries first
		var cs []signing.Check
		if json.Unmarshal(log[i].Checks, &cs) != nil {
			return nil, false
		}
		for _, c := range cs {
			if c.Status != signing.Unsigned {
				return nil, false
			}
		}
		checks = merged(checks, cs)
	}
	last := &log[len(log)-1]
	if last.Head == head {
		return byRecord(checks), true
	}
	line, ok := e.Store.LinearSince(head, last.Head, sinceCommits)
	if !ok {
		return nil, false
	}
	fresh := make([]signing.Check, len(line))
	for i, c := range line {
		if c.Signed {
			return nil, false
		}
		fresh[i] = signing.Check{Commit: c.Hash, Record: c.Record, Status: signing.Unsigned, Actor: c.Author}
	}
	checks = merged(fresh, checks)
	e.logSignatures(ctx, task, head, last.Allowed, last, fresh, checks)
	return byRecord(checks), true
}

// logSignatures keeps the checks of task at head in its signature log:
// fresh appended after last, or every check written anew when that
// cannot be. A log not written is asked again next time, so a failure
// is not the reader's.
func (e *Session) logSignatures(ctx context.Context, task, head, allowed string, last *gitstore.SigEntry, fresh, checks []signing.Check) {
	for _, c := range checks {
		if !e.keptByRead(ctx, c) {
			return // judged by what allowed does not cover: asked again next time
		}
	}
	summary, err := json.Marshal(Summarize(byRecord(checks)))
	if err != nil {
		return
	}
	if last != nil {
		if data, err := json.Marshal(fresh); err == nil &&
			e.Store.AppendSignatures(task, last, gitstore.SigEntry{Head: head, Allowed: allowed, Checks: data, Summary: summary}) {
			return
		}
	}
	if data, err := json.Marshal(checks); err == nil {
		e.Store.WriteSignatures(task, gitstore.SigEntry{Head: head, Allowed: allowed, Checks: data, Summary: summary})
	}
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

// allowedDigest identifies the allowed signers checks are judged against:
// the file's path and content.
func (e *Session) allowedDigest() (string, error) {
	path, err := e.allowedSigners()
	if err != nil {
		return "", err
	}
	return contentDigest(path+"\x00", path)
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
// judged by other rules. The verdicts and verify's journal are kept
// under it, the journal holding only verdicts it decides (keepable);
// what read surfaces keep is kept under readDigest, which covers it.
func (e *Session) SignaturesDigest() (string, error) {
	if e.sigSum != "" && !e.resident {
		return e.sigSum, nil
	}
	allowed, err := e.allowedDigest()
	if err != nil {
		return "", err
	}
	st, err := e.Settings()
	if err != nil {
		return "", err
	}
	sum, err := contentDigest(fmt.Sprintf("%s\x00%s\x00%s\x00", allowed, st.Signing.SSHProgram, st.Signing.RevocationFile), st.Signing.RevocationFile)
	if err != nil {
		return "", err
	}
	e.sigSum = sum
	return sum, nil
}

// contentDigest is the SHA-256, in hex, of head and then the content of
// the file at path: no content when path is "" or names no file.
func contentDigest(head, path string) (string, error) {
	h := sha256.New()
	io.WriteString(h, head)
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// readDigest identifies what the caches of read surfaces (the signature
// logs, the status memos, the summaries and rows of every task) are kept
// under: SignaturesDigest, and, for each of OpenPGP and X.509 whose
// verdicts the repository keeps (a verdicts-openpgp-* or verdicts-x509-*
// file beside the others, signing.Verdicts), the digest of the keyring
// they were judged by (signing.Keyrings: a key or certificate imported,
// deleted or revoked, an owner trust or the trust list changed, a key
// expired changes it; for X.509 the day as well). Only then is that
// keyring listed (one gpg or gpgsm process), and a keyring that cannot be
// listed keeps no verdict of its format (keptByRead). A resident session
// finds it again at each call but within a held request (Hold).
func (e *Session) readDigest(ctx context.Context) (string, error) {
	if e.readSum != "" && (!e.resident || e.held) {
		return e.readSum, nil
	}
	sum, err := e.SignaturesDigest()
	if err != nil {
		return "", err
	}
	e.readSum, e.readKeyring, e.readKept = sum, nil, nil
	var st *settings.Settings
	key := sum
	for _, format := range []string{signing.FormatOpenPGP, signing.FormatX509} {
		kept, _ := filepath.Glob(filepath.Join(e.Repo.CommonDir, "reason", "signatures", "verdicts-"+format+"-*"))
		if len(kept) == 0 {
			continue
		}
		if st == nil {
			if st, err = e.Settings(); err != nil {
				return "", err
			}
		}
		keyrings := signing.Keyrings{OpenPGPProgram: st.Signing.OpenPGPProgram, X509Program: st.Signing.X509Program}
		d, err := keyrings.Digest(ctx, format)
		if err != nil || d == "" {
			continue
		}
		if e.readKeyring == nil {
			e.readKeyring = map[string]string{}
		}
		e.readKeyring[format] = d
		key += "\x00" + format + " " + d
	}
	if key != sum {
		h := sha256.Sum256([]byte(key))
		e.readSum = hex.EncodeToString(h[:])
	}
	return e.readSum, nil
}

// ReadDigest is readDigest, for the caches a long-running surface keeps
// in memory (the web page): what they hold of signatures is shown again
// only while it is the same, and only when KeepsSignatures.
func (e *Session) ReadDigest(ctx context.Context) (string, error) { return e.readDigest(ctx) }

// KeepsSignatures reports whether sigs may be kept under ReadDigest:
// every one is judged the same way while it holds (keptByRead).
func (e *Session) KeepsSignatures(ctx context.Context, sigs map[string]*Signature) bool {
	return e.summarize(ctx, sigs).Kept()
}

// keptByRead reports whether a read surface may keep git's verdict c
// under readDigest: one SignaturesDigest decides (keepable), or an
// OpenPGP or X.509 one the verdicts keep under a keyring digest
// readDigest covers (signing.Verdicts keeps none that expires by
// itself, nor one judged by another keyring). Any other depends on the
// time or on what no cache covers, and is asked again.
func (e *Session) keptByRead(ctx context.Context, c signing.Check) bool {
	if keepable(c) {
		return true
	}
	if c.Status == signing.Expired || c.Commit == "" {
		return false
	}
	if e.readSum == "" { // else the keyrings the caller's digest covers
		if _, err := e.readDigest(ctx); err != nil {
			return false
		}
	}
	if len(e.readKeyring) == 0 {
		return false
	}
	if e.readKept == nil {
		sum, err := e.SignaturesDigest()
		if err != nil {
			return false
		}
		digests := e.readKeyring
		e.readKept = signing.OpenVerdicts(e.Repo.CommonDir, sum)
		e.readKept.Keyring = func(format string) (string, error) {
			if d, ok := digests[format]; ok {
				return d, nil
			}
			return "", fmt.Errorf("no keyring digest for format %q", format)
		}
	}
	// A commit is signed in one format: its verdict is in that format's
	// file or in none.
	return e.readKept.Kept(signing.FormatOpenPGP, c.Commit) || e.readKept.Kept(signing.FormatX509, c.Commit)
}
