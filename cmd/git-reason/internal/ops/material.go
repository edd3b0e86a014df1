package ops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"git-reason/advisor"
	"git-reason/advisor/material"
	"git-reason/gitstore"
	"git-reason/gitstore/git"
	"git-reason/record"
)

// MaxMaterialFile is the largest file read for a question, in bytes; a
// larger one is named in the question and not sent. It bounds a commit's
// or range's diff too: git shows a file past it as binary, without
// reading it, and a diff (a commit's message included) past it is named
// and not sent, git stopped as soon as its output passes it.
const MaxMaterialFile = 16 << 20

// Pins fix where each evidence item's material is read when a recorded
// question is assembled again: At maps an evidence position to the
// revision the record says it was read at (a commit, a range of commits,
// or material.Worktree); NotRead maps the position of an item the record
// says was not read, past reason.maxBytesPerConsult, to the note it
// carried, so that it is left unread again whatever the cap is now.
type Pins struct {
	At      map[int]string
	NotRead map[int]string
}

// Material gathers the material of assessment a of st for a consultation
// whose markers carry nonce: each file's content at the commit the
// assessment names (HEAD when it names none) or, while that commit is
// still checked out, from the work tree where it differs and git does not
// ignore it, marked so; each commit's or range's diff, each
// command's recorded run, redacted. Files and paths matching
// reason.neverSend are never read. Nothing is run but git; nothing is
// fetched. pins, when not nil, say where a recorded question read each
// item.
func (e *Session) Material(ctx context.Context, st *record.State, a *record.Entry, needs []string, nonce string, pins *Pins) (*material.Set, error) {
	s, err := e.Settings()
	if err != nil {
		return nil, err
	}
	cat, _, err := e.Catalog()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, d := range cat.Advisors {
		names = append(names, d.Credential)
	}
	g := &gatherer{e: e, st: st, never: s.NeverSend, redact: material.NewRedactor(names, os.Getenv), pins: pins, left: s.MaxBytesPerConsult}
	g.head = e.HeadCommit(ctx)
	g.base, g.assessment = g.head, a.ID
	if d, ok := a.Derived.(*record.AssessmentDerived); ok && d.Commit != "" {
		g.base, g.assessedAt = d.Commit, d.Commit
	}
	body := a.Body.(*record.Assessment)
	var pieces []material.Piece
	var files []int // positions in pieces of file pieces still to read
	var diffs []int // of commit and range pieces, read after the files
	for i, ev := range body.Evidence {
		p := material.Piece{Evidence: i + 1, Kind: ev.Kind, Ref: ev.Ref}
		switch ev.Kind {
		case material.KindFile:
			p.Ref, p.Lines = splitLines(ev.Ref)
			if why := g.refuseFile(p.Ref); why != "" {
				p.Omitted = why
			} else {
				files = append(files, len(pieces))
			}
		case material.KindCommit:
			diffs = append(diffs, len(pieces))
		case material.KindCommand:
			g.command(&p)
		default: // url, note: the summary is all there is
			continue
		}
		pieces = append(pieces, p)
	}
	if err := g.files(ctx, pieces, files); err != nil {
		return nil, err
	}
	for _, i := range diffs {
		g.diff(ctx, &pieces[i])
	}
	for i := range pieces {
		if pieces[i].Omitted == "" && pieces[i].Kind != material.KindFile { // files are redacted before numbering
			pieces[i].Text, pieces[i].Redactions = g.redact.Redact(pieces[i].Text)
		}
	}
	return material.NewSet(advisor.Request(a, needs), pieces, nonce, g.redact), nil
}

// gatherer holds what gathering one question's material needs.
type gatherer struct {
	e      *Session
	st     *record.State
	head   string // HEAD's commit, "" on an unborn branch
	base   string // where files are read: the assessment's commit, or head
	never  []string
	redact *material.Redactor
	pins   *Pins
	// left is how many more bytes of content and diffs may be read:
	// reason.maxBytesPerConsult at first, since no question of a run may
	// pass it, so nothing read past it could be sent. A stranger's
	// assessment may name 100 files of 16 MiB (a few MiB to fetch). It is
	// spent on the files, then the diffs, each in evidence order, by
	// what each piece uses (the work tree's content where that is what is
	// sent), the same when a question is assembled again; the piece that
	// reaches it is read whole, those after it not at all.
	left int64
	// assessment is the assessment's id, assessedAt the commit it names
	// ("" when none).
	assessment, assessedAt string
	// writtenHere: whether this clone's writer made the assessment's
	// commit, asked once and only of a commit piece that is not shared
	// (sharedCommits); nil until asked.
	writtenHere *bool
}

// splitLines splits a file reference PATH[:START[-END]].
func splitLines(ref string) (string, string) {
	i := strings.LastIndexByte(ref, ':')
	if i < 0 {
		return ref, ""
	}
	lines := ref[i+1:]
	from, to, _ := strings.Cut(lines, "-")
	if _, err := strconv.Atoi(from); err != nil {
		return ref, ""
	}
	if _, err := strconv.Atoi(to); to != "" && err != nil {
		return ref, ""
	}
	return ref[:i], lines
}

// refuseFile says why a path is not read for a question: outside the
// repository, or matching reason.neverSend. "" means it may be read.
func (g *gatherer) refuseFile(p string) string {
	if p == "" || path.IsAbs(p) || strings.Contains(p, "\\") || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") {
		return "not a clean path inside the repository"
	}
	if NeverSend(g.never, p) {
		return "matches reason.neverSend"
	}
	return ""
}

// NeverSend reports whether path p matches one of the reason.neverSend
// globs: a glob without '/' matches any part of the path (a file's or a
// directory's name), one with '/' the whole path from the repository's
// top, as path.Match reads them.
func NeverSend(globs []string, p string) bool {
	parts := strings.Split(p, "/")
	for _, g := range globs {
		if strings.Contains(g, "/") {
			if ok, _ := path.Match(strings.TrimPrefix(g, "/"), p); ok {
				return true
			}
			continue
		}
		for _, part := range parts {
			if ok, _ := path.Match(g, part); ok {
				return true
			}
		}
	}
	return false
}

// excludes are git pathspecs that leave reason.neverSend's files out of a
// diff, as NeverSend reads the globs.
func (g *gatherer) excludes() []string {
	out := []string{"."}
	for _, glob := range g.never {
		if strings.Contains(glob, "/") {
			out = append(out, ":(exclude,glob)"+strings.TrimPrefix(glob, "/"))
			continue
		}
		out = append(out, ":(exclude,glob)**/"+glob, ":(exclude,glob)**/"+glob+"/**")
	}
	return out
}

// files reads the file pieces at the assessment's commit (or at their
// pins), taking the work tree's content instead where it exists and
// differs while that commit is checked out, for an assessment written in
// this clone: once the work has moved on, the assessed content is what
// was assessed, and another clone's assessment is read at its commit
// alone (this clone's uncommitted changes and files are its own).
func (g *gatherer) files(ctx context.Context, pieces []material.Piece, at []int) error {
	revs := make(map[int]string, len(at)) // piece position to where it is read
	for _, i := range at {
		revs[i] = g.base
		if pin, ok := g.pin(pieces[i].Evidence); ok {
			revs[i] = pin
		}
	}
	// Committed content is read with one git per revision for the pieces
	// still to read, to what is left; a piece left unread there that the
	// count still reaches (the work tree held less) is read with those
	// after it.
	got := map[int]gitstore.FileAt{}
	for k, i := range at {
		p, rev := &pieces[i], revs[i]
		if why := g.unread(p.Evidence); why != "" {
			p.Omitted = why
			continue
		}
		var data []byte
		committed := rev != "" && rev != material.Worktree
		if f, ok := got[i]; committed && (!ok || f.PastTotal) {
			var paths []string
			var idx []int
			for _, j := range at[k:] {
				if f, ok := got[j]; revs[j] == rev && (!ok || f.PastTotal) {
					paths, idx = append(paths, pieces[j].Ref), append(idx, j)
				}
			}
			fs, err := g.e.Repo.FilesAt(ctx, rev, paths, MaxMaterialFile, g.left)
			if err != nil {
				return fmt.Errorf("read the evidence's files at %s: %w", rev, err)
			}
			for n, j := range idx {
				got[j] = fs[n]
			}
		}
		if f := got[i]; committed {
			data, p.Revision = f.Data, rev
			if f.Kind != "" && f.Kind != "file" || f.Size > MaxMaterialFile {
				data = nil
			}
		}
		switch {
		case !(g.pins == nil && rev == g.head || rev == material.Worktree):
		case !g.assessedHere(ctx):
			// Another clone's assessment names what it committed:
			// this work tree's changes and files are this clone's own.
			if data == nil {
				p.Omitted, p.Revision = "not at the assessment's commit (the work tree is read only for an assessment written in this clone)", ""
				continue
			}
		default:
			wt, ok, ignored := g.worktreeFile(ctx, p.Ref)
			if ok && (data == nil || !bytes.Equal(wt, data)) {
				data, p.Revision = wt, material.Worktree
			}
			if ignored && data == nil {
				p.Omitted, p.Revision = "ignored by git (no part of the repository)", ""
				continue
			}
		}
		g.left -= int64(len(data))
		g.fileText(p, data)
	}
	return nil
}

// pin is where a recorded question read evidence item ev.
func (g *gatherer) pin(ev int) (string, bool) {
	if g.pins == nil {
		return "", false
	}
	rev, ok := g.pins.At[ev]
	return rev, ok
}

// unread says why evidence item ev is not read: the record being
// assembled again says so (its note, whatever the cap is now), or the
// material before it reached reason.maxBytesPerConsult. "" means read it.
func (g *gatherer) unread(ev int) string {
	switch {
	case g.pins != nil && g.pins.NotRead[ev] != "":
		return g.pins.NotRead[ev]
	case g.left <= 0:
		return NotRead
	}
	return ""
}

// worktreeFile reads a regular file of the work tree that resolves inside
// it (a symbolic link out of the repository is not followed out) and that
// git does not ignore; ignored says that git ignores it. An ignored file
// is no part of the repository, and it is where a clone keeps what it
// does not share (its credentials): an assessment fetched from elsewhere
// may name one at the commit this clone has checked out.
func (g *gatherer) worktreeFile(ctx context.Context, rel string) (data []byte, ok, ignored bool) {
	root := g.e.Repo.WorkTree
	if root == "" {
		return nil, false, false
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, false, false
	}
	real, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, false, false
	}
	inside, err := filepath.Rel(realRoot, real)
	if err != nil || inside == ".." || strings.HasPrefix(inside, ".."+string(filepath.Separator)) || inside == ".git" ||
		strings.HasPrefix(inside, ".git"+string(filepath.Separator)) || NeverSend(g.never, filepath.ToSlash(inside)) {
		return nil, false, false
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxMaterialFile {
		return nil, false, false
	}
	// The path as it resolves, from the top ("./" keeps a name starting
	// with ':' from reading as pathspec magic). Exit status 0: ignored;
	// 1: not; anything else (git cannot say) reads nothing either.
	_, err = g.e.Repo.Git(ctx, "check-ignore", "-q", "--", "./"+filepath.ToSlash(inside))
	var ge *git.Error
	switch {
	case err == nil:
		return nil, false, true
	case !errors.As(err, &ge) || ge.Code != 1:
		return nil, false, false
	}
	data, err = os.ReadFile(real)
	return data, err == nil, false
}

// fileText sets a file piece's text: the lines asked for, numbered.
func (g *gatherer) fileText(p *material.Piece, data []byte) {
	switch {
	case data == nil:
		p.Omitted, p.Revision = "no such file (or not a regular file of at most 16 MiB)", ""
		return
	case bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0:
		p.Omitted = "binary file"
		return
	}
	text := string(data)
	first, last := 1, strings.Count(strings.TrimSuffix(text, "\n"), "\n")+1
	if p.Lines != "" {
		from, to, ranged := strings.Cut(p.Lines, "-")
		first, _ = strconv.Atoi(from)
		want := first
		if ranged {
			want, _ = strconv.Atoi(to)
		}
		if first < 1 || want < first || first > last {
			p.Omitted = fmt.Sprintf("lines %s are not in the file (it has %d)", p.Lines, last)
			return
		}
		last = min(last, want)
		start := 0
		for range first - 1 {
			start += strings.IndexByte(text[start:], '\n') + 1
		}
		end := start
		for range last - first + 1 {
			n := strings.IndexByte(text[end:], '\n')
			if n < 0 {
				end = len(text)
				break
			}
			end += n + 1
		}
		text = text[start:end]
	}
	// Redacted before numbering, so that an assignment is seen at its
	// line's start; a marker keeps the lines it replaced.
	p.Text, p.Redactions = g.redact.RedactLines(text, first)
}

// diff sets a commit piece's text: git show of one commit, git diff of a
// range (A..B, or A...B from their merge base), through the one git
// runner, without the never-send files.
func (g *gatherer) diff(ctx context.Context, p *material.Piece) {
	ref := p.Ref
	if pin, ok := g.pin(p.Evidence); ok {
		ref = pin
	}
	sep := ""
	for _, s := range []string{"...", ".."} {
		if strings.Contains(ref, s) {
			sep = s
			break
		}
	}
	ends := []string{ref}
	if sep != "" {
		p.Kind = material.KindRange
		from, to, _ := strings.Cut(ref, sep)
		ends = []string{from, to}
	}
	for i, end := range ends {
		out, err := g.e.Repo.Git(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", peeled(end))
		if end == "" || strings.HasPrefix(end, "-") || err != nil {
			p.Omitted = fmt.Sprintf("no commit %q in this repository", end)
			return
		}
		ends[i] = strings.TrimSpace(string(out))
	}
	p.Revision = strings.Join(ends, sep)
	if !g.sharedCommits(ctx, ends) && !g.assessedHere(ctx) {
		p.Omitted = "the assessment was written in another clone, and no remote-tracking branch, tag or the assessment's commit holds this commit here"
		return
	}
	if why := g.unread(p.Evidence); why != "" {
		p.Omitted = why
		return
	}
	args := []string{"show", "--format=commit %H%n%B", "--first-parent"}
	if sep != "" {
		args = []string{"diff", ends[0] + sep + ends[1]}
	} else {
		args = append(args, ends[0])
	}
	args = append(args, "--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/", "--")
	// A stranger's commit costs a few KiB to fetch for gigabytes of diff
	// (a file of one repeated line, a message as long): each file past
	// MaxMaterialFile is binary to git, and the whole is read to no more
	// than it.
	c := g.e.Repo.Command(append(args, g.excludes()...)...)
	c.Global = append(c.Global, "-c", "core.bigFileThreshold="+strconv.Itoa(MaxMaterialFile))
	c.MaxOutput = MaxMaterialFile
	out, err := c.Run(ctx)
	switch {
	case errors.Is(err, git.ErrOutputLimit):
		p.Omitted = fmt.Sprintf("a diff of more than %d bytes", MaxMaterialFile)
		return
	case err != nil:
		p.Omitted = "git could not show it"
		return
	}
	p.Text = string(out)
	g.left -= int64(len(out))
}

// NotRead is why a piece past what a question may hold is not read. It
// names no figure: the cap may be set differently when the question is
// assembled again.
const NotRead = "not read: the material before it reaches reason.maxBytesPerConsult"

// command sets a command piece's text from the task's record of it: the
// validation or attempt its reference names (an id), or the latest command
// validation that ran exactly that command. Nothing is run.
func (g *gatherer) command(p *material.Piece) {
	var found *record.Entry
	if len(p.Ref) >= record.MinPrefix {
		if e, err := g.st.Resolve(p.Ref); err == nil && (e.Kind == record.KindValidation || e.Kind == record.KindAttempt) {
			found = e
		}
	}
	for i := len(g.st.Entries) - 1; found == nil && i >= 0; i-- {
		if e := g.st.Entries[i]; e.Kind == record.KindValidation && e.Body.(*record.Validation).Command == p.Ref && p.Ref != "" {
			found = e
		}
	}
	if found == nil {
		p.Omitted = "no recorded run of it in this task"
		return
	}
	p.Revision = found.ID
	var b strings.Builder
	switch body := found.Body.(type) {
	case *record.Validation:
		d := found.Derived.(*record.ValidationDerived)
		fmt.Fprintf(&b, "validation %s (%s) of conclusion %s\n", found.ID, body.Method, body.Conclusion)
		if body.Command != "" {
			fmt.Fprintf(&b, "command: %s\n", body.Command)
		}
		fmt.Fprintf(&b, "result: %s\n", d.Result)
		if d.ExitCode != nil {
			fmt.Fprintf(&b, "exit status: %d\n", *d.ExitCode)
		}
		if d.DurationMS != nil {
			fmt.Fprintf(&b, "duration: %d ms\n", *d.DurationMS)
		}
		if d.OutputSHA256 != "" {
			fmt.Fprintf(&b, "output: not kept; its SHA-256 is %s\n", d.OutputSHA256)
		}
		if d.Commit != "" {
			fmt.Fprintf(&b, "ran at commit %s (work tree changed: %t) in %s\n", d.Commit, d.Dirty != nil && *d.Dirty, d.Dir)
		}
	case *record.Attempt:
		fmt.Fprintf(&b, "attempt %s of conclusion %s\noutcome: %s\n", found.ID, body.Conclusion, body.Outcome)
		if len(body.Commits) > 0 {
			fmt.Fprintf(&b, "commits: %s\n", strings.Join(body.Commits, ", "))
		}
		if body.Notes != "" {
			fmt.Fprintf(&b, "notes: %s\n", body.Notes)
		}
	}
	p.Text = b.String()
}

// sharedCommits reports whether every commit of ends is one that whoever
// wrote the assessment could have seen: reachable from the assessment's
// commit, a remote-tracking branch or a tag. A commit evidence item is a
// name resolved in this clone, so an assessment fetched from elsewhere
// could otherwise name what this clone alone holds (its stash, a reflog
// entry, a branch never pushed, ":/text" searching every ref) and have
// its diff sent to this clone's advisors. One git process: the commits of
// ends that none of those reach, the first of them.
func (g *gatherer) sharedCommits(ctx context.Context, ends []string) bool {
	args := append([]string{"rev-list", "--max-count=1"}, ends...)
	args = append(args, "--not", "--remotes", "--tags")
	out, err := []byte(nil), error(nil)
	if g.assessedAt != "" {
		out, err = g.e.Repo.Git(ctx, append(args, g.assessedAt, "--")...)
	}
	if g.assessedAt == "" || err != nil { // not here: a commit of elsewhere
		out, err = g.e.Repo.Git(ctx, append(args, "--")...)
	}
	return err == nil && len(bytes.TrimSpace(out)) == 0
}

// assessedHere reports whether this clone's writer made the commit that
// added the assessment (its list of its own commits, under the
// repository's key): a person's own assessment may name any commit of
// their clone, a stranger's only what sharedCommits allows.
func (g *gatherer) assessedHere(ctx context.Context) bool {
	if g.writtenHere != nil {
		return *g.writtenHere
	}
	here := false
	g.writtenHere = &here
	head, err := g.e.Store.Head(g.st.Task)
	if err != nil || head == "" {
		return false
	}
	checks, err := g.e.signaturesSince(ctx, head, "")
	if err != nil {
		return false
	}
	for _, ch := range checks {
		if ch.Record == g.assessment {
			here = g.e.Store.WrittenHere(g.st.Task, []string{ch.Commit})[ch.Commit]
			break
		}
	}
	return here
}
