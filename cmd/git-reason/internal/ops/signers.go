package ops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"git-reason/advisor"
	"git-reason/gitstore/git"
	"git-reason/gitstore/integration"
	"git-reason/gitstore/signing"
	"git-reason/record"
)

// repositorySigners is the repository's published allowed signers, in
// git's allowed-signers format: it counts only once trusted.
func (e *Session) repositorySigners() string {
	if e.Repo.WorkTree == "" {
		return ""
	}
	return filepath.Join(e.Repo.WorkTree, ".reason", "allowed_signers")
}

// coveredSum is the content hash trust records and checks for the
// repository's declarations: the advisors overlay's SHA-256 alone when
// there is no .reason/allowed_signers (what trust always recorded), else
// one hash over both, so that a change to either untrusts both.
func (e *Session) coveredSum(advisorsSum string) string {
	return coverSigners(advisorsSum, e.readSigners())
}

// readSigners reads .reason/allowed_signers: nil when there is none, or
// it is no regular file or over advisor.MaxDeclarationBytes (never read,
// never trusted).
func (e *Session) readSigners() []byte {
	data, _ := e.signersFile()
	return data
}

// signersFile is readSigners with the reason it read nothing:
// fs.ErrNotExist, advisor.ErrNotRegular or advisor.ErrTooLarge.
func (e *Session) signersFile() ([]byte, error) {
	return advisor.ReadRegular(e.repositorySigners(), advisor.MaxDeclarationBytes, false)
}

// coverSigners is coveredSum over signers already read (nil: none).
func coverSigners(advisorsSum string, signers []byte) string {
	if signers == nil {
		return advisorsSum
	}
	return advisor.Sum([]byte(advisorsSum + "\nallowed_signers " + advisor.Sum(signers) + "\n"))
}

// signersTrusted returns the repository's allowed signers when the user
// trusted them (with the advisors overlay beside them), else nil.
func (e *Session) signersTrusted() []byte {
	path := e.repositorySigners()
	if path == "" {
		return nil
	}
	data, err := advisor.ReadRegular(path, advisor.MaxDeclarationBytes, false)
	if err != nil {
		return nil
	}
	overlay := ""
	if _, err := advisor.ReadRegular(advisor.RepositoryOverlayPath(e.Repo.WorkTree), advisor.MaxDeclarationBytes, false); err == nil {
		// What trust recorded covers the files its commands name too
		// (advisor.Catalog.Repository).
		cat, _, err := e.Catalog()
		if err != nil {
			return nil
		}
		overlay = cat.Repository
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	st, err := e.Settings()
	if err != nil {
		return nil
	}
	ok, err := e.trustStore(st.ConfigDir).Trusted(e.trustKey(), e.coveredSum(overlay))
	if err != nil || !ok {
		return nil
	}
	return data
}

// allowedSigners is the allowed-signers file git checks ssh signatures
// against: gpg.ssh.allowedSignersFile, with a trusted
// .reason/allowed_signers added (both in one file under .git/reason/);
// "" leaves git to its own configuration.
func (e *Session) allowedSigners() (string, error) {
	st, err := e.Settings()
	if err != nil {
		return "", err
	}
	user := st.Signing.AllowedSignersFile
	repo := e.signersTrusted()
	if repo == nil {
		return user, nil
	}
	var data []byte
	if user != "" {
		if data, err = os.ReadFile(user); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if len(data) > 0 && data[len(data)-1] != '\n' {
			data = append(data, '\n')
		}
	}
	data = append(data, repo...)
	path := filepath.Join(e.Repo.CommonDir, "reason", "allowed_signers")
	return path, git.WriteFile(path, data, 0o644, git.Wait, false)
}

// Signatures asks for the signature of every commit of rev not reachable
// from not (a git rev-list, then the checker: signing.Checker), judged
// against the allowed signers, keys removed from them marked so.
func (e *Session) Signatures(ctx context.Context, rev string, not ...string) ([]signing.Check, error) {
	c, err := e.checker(ctx)
	if err != nil {
		return nil, err
	}
	checks, err := c.Verify(ctx, rev, not...)
	if err != nil {
		return nil, err
	}
	e.judged(checks)
	return checks, nil
}

// signaturesNew is Signatures of each of revs, the commits none of not
// reaches, asked of git together (signing.Checker.VerifyNew).
func (e *Session) signaturesNew(ctx context.Context, revs, not []string) ([][]signing.Check, error) {
	c, err := e.checker(ctx)
	if err != nil {
		return nil, err
	}
	checks, err := c.VerifyNew(ctx, revs, not)
	if err != nil {
		return nil, err
	}
	e.judged(checks...)
	return checks, nil
}

// checker is how this session judges signatures: through git, against the
// allowed signers, with the verdicts kept for this configuration and
// keyrings, and the ssh fast path (signing.AllowedSSH) when git would run
// the default ssh-keygen with no revocation file: a gpg.ssh.program of
// the user's own, or a revocation file, leaves every ssh signature to
// git.
func (e *Session) checker(ctx context.Context) (*signing.Checker, error) {
	allowed, err := e.allowedSigners()
	if err != nil {
		return nil, err
	}
	if allowed == "" {
		// No allowed signers: none is allowed. Said explicitly, because
		// git 2.39 without the key dies on %GT of an ssh signature.
		allowed = os.DevNull
	}
	v, err := e.verdicts()
	if err != nil {
		return nil, err
	}
	st, err := e.Settings()
	if err != nil {
		return nil, err
	}
	load := signing.Keyrings{OpenPGPProgram: st.Signing.OpenPGPProgram, X509Program: st.Signing.X509Program}.Loader(ctx)
	v.Keyring = func(format string) (string, error) {
		kr, err := load(format)
		if err != nil {
			return "", err
		}
		return kr.Digest, nil
	}
	c := &signing.Checker{Git: e.Repo.Git, GitDir: e.Repo.GitDir, AllowedSigners: allowed, Verdicts: v, Keyring: load}
	if st.Signing.SSHProgram == "" && st.Signing.RevocationFile == "" {
		if data, err := os.ReadFile(allowed); err == nil {
			c.SSH = signing.ParseAllowedSSH(data)
		}
	}
	return c, nil
}

// sinceCommits is the most new commits signaturesSince reads in this
// process.
const sinceCommits = 32

// signaturesSince is Signatures(ctx, head, base) (base "": Signatures(ctx,
// head)) for what a read surface meets most: a few new records on one
// line after base, or a task just started. Their commits
// are read in this process (gitstore.Store.LinearSince) instead of
// listed by git rev-list; git log is asked about them only when one
// carries a signature, since an unsigned commit is judged by its header
// alone (git's %G? says "N" for it whatever the keys).
func (e *Session) signaturesSince(ctx context.Context, head, base string) ([]signing.Check, error) {
	checks, ok, err := e.signaturesLinear(ctx, head, base)
	switch {
	case err != nil || ok:
		return checks, err
	case base == "":
		return e.Signatures(ctx, head)
	default:
		return e.Signatures(ctx, head, base)
	}
}

// signaturesLinear is signaturesSince when the commits after base lie on
// one line of at most sinceCommits (false, asking nothing, otherwise).
func (e *Session) signaturesLinear(ctx context.Context, head, base string) ([]signing.Check, bool, error) {
	line, ok := e.Store.LinearSince(head, base, sinceCommits)
	if !ok {
		return nil, false, nil
	}
	checks := make([]signing.Check, len(line))
	hashes := make([]string, len(line))
	signed := false
	for i, c := range line {
		checks[i] = signing.Check{Commit: c.Hash, Record: c.Record, Status: signing.Unsigned, Actor: c.Author}
		hashes[i], signed = c.Hash, signed || c.Signed
	}
	if !signed {
		return checks, true, nil
	}
	c, err := e.checker(ctx)
	if err != nil {
		return nil, true, err
	}
	if checks, err = c.CheckCommits(ctx, hashes); err != nil {
		return nil, true, err
	}
	e.judged(checks)
	return checks, true, nil
}

// signaturesOf is Signatures of each of heads, whole, judged together
// (signing.Checker.VerifyHeads), by head.
func (e *Session) signaturesOf(ctx context.Context, heads []string) (map[string][]signing.Check, error) {
	if len(heads) == 1 {
		checks, err := e.Signatures(ctx, heads[0])
		return map[string][]signing.Check{heads[0]: checks}, err
	}
	byHead, err := e.verifyHeads(ctx, heads)
	if err != nil {
		return nil, err
	}
	e.applyMemory(byHead)
	return byHead, nil
}

// verifyHeads is signing.Checker.VerifyHeads of heads with this session's
// checker, before the memory of removed keys.
func (e *Session) verifyHeads(ctx context.Context, heads []string) (map[string][]signing.Check, error) {
	c, err := e.checker(ctx)
	if err != nil {
		return nil, err
	}
	return c.VerifyHeads(ctx, heads)
}

// applyMemory applies the memory of removed keys (signing.Memory) to
// every check of byHead at once (it reads its file once), in place: the
// checks are byHead's own (decoded, or asked of git, and kept before
// this), and a check two heads share gets the same verdict from either.
func (e *Session) applyMemory(byHead map[string][]signing.Check) {
	groups := make([][]signing.Check, 0, len(byHead))
	for _, cs := range byHead {
		groups = append(groups, cs)
	}
	e.judged(groups...)
}

// judged applies the memory of removed keys (signing.Memory) to checks
// just judged, reading its file once, and gives noticeSigners' line when
// one of them calls for it.
func (e *Session) judged(groups ...[]signing.Check) {
	signing.MemoryIn(e.Repo.CommonDir).Apply(groups...)
	e.noticeSigners(groups...)
}

// noticeSigners gives, once per session, the one line saying that
// .reason/allowed_signers is not trusted, when a check found a key the
// file lists unknown, or removed (it counted while an earlier content was
// trusted): the file counts only once trusted (the trust contract), and
// without the line a record its signer signed reads as signed by a
// stranger, with nothing to say why or what to run.
func (e *Session) noticeSigners(groups ...[]signing.Check) {
	if e.sigWarned || !e.listening() {
		return
	}
	var unknown []string
	for _, g := range groups {
		for _, c := range g {
			if (c.Status == signing.UnknownKey || c.Status == signing.Removed) && c.Key != "" {
				unknown = append(unknown, c.Key)
			}
		}
	}
	if len(unknown) == 0 {
		return
	}
	data := e.readSigners()
	if data == nil || !listsKey(data, unknown) || e.signersTrusted() != nil {
		return
	}
	e.sigWarned = true
	a := untrustedSigners(e.repositorySigners())
	e.say(record.Advice{CLI: record.Printable(a.CLI), Tools: record.Printable(a.Tools)})
}

// noticeSummary is noticeSigners for a summary a read surface took from a
// cache (a status memo, the summaries' journal, the end of a signature
// log), which holds counts, not keys: when it counts an unknown or
// removed key, the task's signature log gives the checks to judge by, of
// noticeLogs tasks at most in a session (a repository of many strangers'
// signatures must not read every log for each command). No
// allowed-signers file, or a trusted one, reads no log.
func (e *Session) noticeSummary(task string, sum *SignatureSummary) {
	if e.sigWarned || !e.listening() || sum == nil || sum.Counts[signing.UnknownKey]+sum.Counts[signing.Removed] == 0 || e.sigLogsRead >= noticeLogs {
		return
	}
	if e.sigLogsRead++; e.readSigners() == nil || e.signersTrusted() != nil {
		e.sigLogsRead = noticeLogs // no line to give
		return
	}
	var checks []signing.Check
	for _, en := range e.Store.SignatureLog(task) {
		var cs []signing.Check
		if json.Unmarshal(en.Checks, &cs) == nil {
			checks = append(checks, cs...)
		}
	}
	e.noticeSigners(checks)
}

// noticeLogs bounds the signature logs noticeSummary reads in a session.
const noticeLogs = 16

// noticeTexts is noticeSummary for the rows a read surface kept, which
// hold a summary's Text (StatusRow.Signatures), by task: a text that
// counts an unknown or removed key stands for such a summary.
func (e *Session) noticeTexts(n int, row func(i int) (task, text string)) {
	unknown, removed := strings.ReplaceAll(string(signing.UnknownKey), "_", " "), strings.ReplaceAll(string(signing.Removed), "_", " ")
	for i := 0; i < n && !e.sigWarned && e.listening() && e.sigLogsRead < noticeLogs; i++ {
		if task, text := row(i); strings.Contains(text, unknown) || strings.Contains(text, removed) {
			e.noticeSummary(task, &SignatureSummary{Counts: map[signing.Status]int{signing.UnknownKey: 1}})
		}
	}
}

// untrustedSigners is the line noticeSigners and doctor give about an
// untrusted .reason/allowed_signers at path; to the MCP tools (the doctor
// tool's finding) reviewing and trusting it are the person's steps.
func untrustedSigners(path string) record.Advice {
	return record.Advice{
		CLI:   path + " is not trusted, so the signers it lists do not count: review it with 'git reason trust --show', then trust it with 'git reason trust'",
		Tools: path + " is not trusted, so the signers it lists do not count: the person reviews it with 'git reason trust --show', then trusts it with 'git reason trust' (no tool reviews or records trust)"}
}

// listsKey reports whether the allowed-signers content lists one of keys,
// fingerprints as git gives them ("SHA256:...").
func listsKey(data []byte, keys []string) bool {
	for _, en := range signing.ListAllowed(data) {
		_, fp, ok := strings.Cut(en.Key, " ")
		if ok && slices.Contains(keys, fp) {
			return true
		}
	}
	return false
}

// requireSigned is reason.requireSigned.
func (e *Session) requireSigned() string {
	st, err := e.Settings()
	if err != nil {
		return signing.RequireNone
	}
	return st.Signing.RequireSigned
}

// signatureFindings are the refused checks of task as findings.
func signatureFindings(task, require string, checks []signing.Check) []record.Finding {
	var out []record.Finding
	for _, c := range signing.Refused(require, checks) {
		out = append(out, record.Finding{Task: task, Commit: c.Commit, Record: c.Record,
			Code: signing.CodeSignature, Message: record.Printable(signing.Message(c))})
	}
	return out
}

// AnySigned reports whether any commit of the task carries a signature:
// the text surfaces say nothing of a history no one signed (their JSON
// still lists each commit as unsigned).
func (t TaskSignatures) AnySigned() bool {
	for _, c := range t.Checks {
		if c.Status != signing.Unsigned {
			return true
		}
	}
	return false
}

// Summary is one line: how many of the task's commits have each status,
// and who signed the good ones.
func (t TaskSignatures) Summary() string {
	count := map[signing.Status]int{}
	var order []signing.Status
	var signers []string
	for _, c := range t.Checks {
		if count[c.Status] == 0 {
			order = append(order, c.Status)
		}
		count[c.Status]++
		if c.Status == signing.Good && !slices.Contains(signers, c.Signer) {
			signers = append(signers, c.Signer)
		}
	}
	parts := make([]string, 0, len(order))
	for _, s := range order {
		p := fmt.Sprintf("%d %s", count[s], strings.ReplaceAll(string(s), "_", " "))
		if s == signing.Good {
			p += " (" + strings.Join(signers, ", ") + ")"
		}
		parts = append(parts, p)
	}
	return fmt.Sprintf("%s: signatures: %s", t.Task, strings.Join(parts, ", "))
}

// checkFetched judges the signatures of what each fetched ref brings
// that the local task lacks, reports them in out, and holds back,
// quarantined, every task with a check signing.Refused refuses under
// reason.requireSigned: a bad signature always; with "fetched" or "all",
// any record not signed by an allowed signer who is its actor. The rest
// are returned to integrate. It costs the fetch, not one git process per
// task (fetchedSignatures). locals are the local heads by task, read with
// the fetched heads (movedHeads).
func (e *Session) checkFetched(ctx context.Context, fetched []integration.Fetched, locals map[string]string, out *PullResult) ([]integration.Fetched, []*integration.Integration, error) {
	require := e.requireSigned()
	var moved []integration.Fetched
	for _, ref := range fetched {
		if locals[ref.Task] != ref.Head {
			moved = append(moved, ref)
		}
	}
	checks, err := e.fetchedSignatures(ctx, moved, locals)
	if err != nil {
		return nil, nil, err
	}
	var keep []integration.Fetched
	var held []*integration.Integration
	for _, ref := range fetched {
		task := ref.Task
		cs, asked := checks[task]
		if !asked {
			keep = append(keep, ref)
			continue
		}
		out.Signatures = append(out.Signatures, TaskSignatures{Task: task, Checks: cs})
		found := signatureFindings(task, require, cs)
		if len(found) == 0 {
			keep = append(keep, ref)
			continue
		}
		held = append(held, integration.Quarantined(task, locals[task], ref.Head, found))
	}
	return keep, held, nil
}

// fetchedSignatures is Signatures(ctx, head, local) of each moved task,
// by task, asked together: what a fetch brings is mostly a few new
// records on one line after the local head (or a new task's few), whose
// commits are read in this process (gitstore.Store.LinearSince) and,
// unsigned, judged by their header alone; the signed ones of every task
// go to one checker (one git cat-file, one git log). Only a task whose
// new commits are not such a line (a merge on the way, a history that
// diverged, more than sinceCommits) is asked of git alone.
func (e *Session) fetchedSignatures(ctx context.Context, moved []integration.Fetched, locals map[string]string) (map[string][]signing.Check, error) {
	out := make(map[string][]signing.Check, len(moved))
	var c *signing.Checker
	checker := func() (*signing.Checker, error) {
		var err error
		if c == nil {
			c, err = e.checker(ctx)
		}
		return c, err
	}
	var signed []string
	var all []signing.Check
	at := map[string][2]int{}
	for _, ref := range moved {
		line, ok := e.Store.LinearSince(ref.Head, locals[ref.Task], sinceCommits)
		if !ok {
			// A history past the commit bound is not walked whole for
			// its signatures: its verification refuses it unread.
			if past, err := e.Store.PastCommitBound(ctx, ref.Head); err == nil && past {
				continue
			}
			var not []string
			if locals[ref.Task] != "" {
				not = []string{locals[ref.Task]}
			}
			c, err := checker()
			if err != nil {
				return nil, err
			}
			cs, err := c.Verify(ctx, ref.Head, not...)
			if err != nil {
				return nil, err
			}
			at[ref.Task] = [2]int{len(all), len(all) + len(cs)}
			all = append(all, cs...)
			continue
		}
		at[ref.Task] = [2]int{len(all), len(all) + len(line)}
		for _, c := range line {
			all = append(all, signing.Check{Commit: c.Hash, Record: c.Record, Status: signing.Unsigned, Actor: c.Author})
			if c.Signed {
				signed = append(signed, c.Hash)
			}
		}
	}
	if len(signed) > 0 {
		c, err := checker()
		if err != nil {
			return nil, err
		}
		judged, err := c.CheckCommits(ctx, signed)
		if err != nil {
			return nil, err
		}
		byCommit := make(map[string]signing.Check, len(judged))
		for _, j := range judged {
			byCommit[j.Commit] = j
		}
		for i := range all {
			if j, ok := byCommit[all[i].Commit]; ok {
				all[i] = j
			}
		}
	}
	// The memory reads its file once for every check.
	e.judged(all)
	for task, r := range at {
		out[task] = all[r[0]:r[1]:r[1]]
	}
	return out, nil
}
