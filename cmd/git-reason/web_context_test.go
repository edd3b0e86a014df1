package main

// The context page of the Reasoning page, served by the real binary: the
// reasoning behind a range of commits as 'git reason context' derives it,
// its record graphs drawn inline, its escaping, a range git does not read,
// and that a reload shows new commits.

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// webCommits adds to s's repository a base commit and, after it, commits
// whose trailers link tasks T-1 and T-4, and one naming a task this
// repository does not have; it returns the base commit.
func webCommits(t *testing.T, s *sandbox) string {
	t.Helper()
	s.git("commit", "-q", "--allow-empty", "-m", "base")
	base := strings.TrimSpace(s.git("rev-parse", "HEAD"))
	s.git("commit", "-q", "--allow-empty", "-m", "Cache the index\n\nReason-Task: T-1")
	s.git("commit", "-q", "--allow-empty", "-m", "Queue <b>wiring</b>\n\nReason-Task: T-4")
	s.git("commit", "-q", "--allow-empty", "-m", "Unrelated\n\nReason-Task: T-none")
	return base
}

func TestWebContext(t *testing.T) {
	t.Parallel()
	s := webRepo(t)
	base := webCommits(t, s)
	root, c := openWeb(t, s)

	page := getPage(t, c, root+"/context?range="+url.QueryEscape(base+"..HEAD"))
	for _, want := range []string{"3 commits", "2 tasks", `href="/task/T-1"`, "cache it for a minute", `href="/task/T-4"`,
		"the database queue", "<code>Reason-Task</code> trailer of", `<svg class="graph"`, `id="arrow-0"`, `id="arrow-1"`,
		`marker-end="url(#arrow-1)"`, `href="/task/T-1?record=`, "Queue &lt;b&gt;wiring&lt;/b&gt;", "Trailers naming no task here (1)", "T-none",
		"&lt;script&gt;alert(1)&lt;/script&gt;", "<strong>open</strong>", "state-open"} {
		if !strings.Contains(page, want) {
			t.Errorf("context page lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "<img", "<b>wiring", `href="http://x.invalid`, `src="http`} {
		if strings.Contains(page, bad) {
			t.Errorf("a record's or commit's text became markup: %q", bad)
		}
	}
	oneIDForm(t, "the context page", page)
	// One revision reads as REV..HEAD.
	if p := getPage(t, c, root+"/context?range="+base); !strings.Contains(p, "3 commits") {
		t.Errorf("one revision as a range:\n%s", p)
	}
	// One of each is counted as the command line counts it: "1 task",
	// not "1 tasks".
	if p := getPage(t, c, root+"/context?range="+url.QueryEscape(base+"..HEAD~2")); !strings.Contains(p, ": <code>"+base[:12]+"</code>..") ||
		!strings.Contains(p, ", 1 commit, 0 files changed, 1 task.</p>") {
		t.Errorf("a range of one commit and one task:\n%s", p)
	}
	// The default range: from the merge base with main, here HEAD itself.
	if p := getPage(t, c, root+"/context"); !strings.Contains(p, "0 commits") {
		t.Errorf("default range:\n%s", p)
	}
	// A range that is an option, that git does not know, or whose ends
	// share no history (a search finding a record's commit, on
	// refs/reasoning/: no merge base, which answered 500) is refused on
	// the page; nothing is run with it.
	for _, bad := range []string{"--output=" + s.dir + "/pwned", "nope..HEAD", strings.Repeat("a", 600), ":/^assessment: "} {
		res, err := c.Get(root + "/context?range=" + url.QueryEscape(bad))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), `<p class="error">`) {
			t.Errorf("range %.40q: status %d, want 400 with the error on the page", bad, res.StatusCode)
		}
	}
	// A control character is no revision: a NUL reached git's argument
	// vector and the page showed exec's own error, with git's path.
	if res, err := c.Get(root + "/context?range=" + url.QueryEscape(base+"..HEAD\x00")); err != nil {
		t.Fatal(err)
	} else {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if p := string(b); res.StatusCode != http.StatusBadRequest || !strings.Contains(p, "give A..B, A...B or one revision") || strings.Contains(p, "exec") {
			t.Errorf("a range holding a NUL: status %d\n%s", res.StatusCode, p)
		}
	}
	if out := s.git("status", "--porcelain", "--ignored"); strings.Contains(out, "pwned") {
		t.Errorf("a range wrote a file: %s", out)
	}
	// A commit made after the server started shows on reload.
	s.git("commit", "-q", "--allow-empty", "-m", "Rename it\n\nReason-Task: T-2")
	if p := getPage(t, c, root+"/context?range="+base); !strings.Contains(p, "4 commits") || !strings.Contains(p, `href="/task/T-2"`) {
		t.Errorf("a commit made after start is not on the reloaded context page")
	}
}

// TestWebContextLocalOnly: a task on no remote of a repository that has
// remotes is marked local only on the context page, as 'git reason
// context' marks it (context_local.txtar); a task pushed is not. The page
// did not show the mark.
func TestWebContextLocalOnly(t *testing.T) {
	t.Parallel()
	s := webRepo(t)
	base := webCommits(t, s)
	s.git("init", "-q", "--bare", s.dir+"/origin.git")
	s.git("remote", "add", "origin", s.dir+"/origin.git")
	s.reason("push", "origin", "T-1")
	root, c := openWeb(t, s)
	page := getPage(t, c, root+"/context?range="+url.QueryEscape(base+"..HEAD"))
	mark := `<p class="local-only"><strong>Local only:</strong> on no remote; this clone never pushed it nor fetched it.</p>`
	for task, want := range map[string]bool{"T-1": false, "T-4": true} {
		_, article, _ := strings.Cut(page, `<article class="context" id="task-`+task+`">`)
		article, _, _ = strings.Cut(article, "</article>")
		if article == "" {
			t.Fatalf("context page has no article of task %s:\n%s", task, page)
		}
		if got := strings.Contains(article, mark); got != want {
			t.Errorf("task %s marked local only: %v, want %v", task, got, want)
		}
	}
}

// fullID is a record id (a ULID) shown whole as text, and shortID one
// shown as the command line prints it, its whole self on hover.
var (
	fullID  = regexp.MustCompile(`>[0-9A-HJKMNP-TV-Z]{26}<`)
	shortID = regexp.MustCompile(`title="([0-9A-HJKMNP-TV-Z]{26})">([0-9A-HJKMNP-TV-Z]{10})<`)
)

// oneIDForm fails when page shows a record id whole, or shows none in the
// command line's form (its 10-character prefix, the whole id on hover).
func oneIDForm(t *testing.T, what, page string) {
	t.Helper()
	if m := fullID.FindString(page); m != "" {
		t.Errorf("%s shows a record id whole: %s", what, m)
	}
	ms := shortID.FindAllStringSubmatch(page, -1)
	if len(ms) == 0 {
		t.Errorf("%s shows no record id as its 10-character prefix", what)
	}
	for _, m := range ms {
		if !strings.HasPrefix(m[1], m[2]) {
			t.Errorf("%s shows %s for record %s", what, m[2], m[1])
		}
	}
}

// TestContextWithNoCommitsYet holds that a repository with tasks but no
// commit yet, as one just made is, has an empty context with a line
// saying why, the same on every surface: the command line (text and
// --json, exit 0), the context page (200, not the 400 of a bad range)
// and the MCP tool (a result, not an error).
func TestContextWithNoCommitsYet(t *testing.T) {
	t.Parallel()
	s := webRepo(t) // tasks, and no commit on main
	const note = "branch main has no commits yet: the reasoning behind its commits shows here once it has some"
	out, errs, code := s.run("reason", "context", "--format", "text")
	if code != 0 || errs != "" || !strings.Contains(out, note+".\n") {
		t.Errorf("git reason context: exit %d\n%s%s", code, out, errs)
	}
	var rep struct{ Note, Head string }
	s.reasonJSON(&rep, "context")
	if rep.Note != note || rep.Head != "" {
		t.Errorf("git reason context --json: note %q, head %q", rep.Note, rep.Head)
	}
	root, c := openWeb(t, s)
	if p := getPage(t, c, root+"/context"); !strings.Contains(p, `<p class="empty">`+note+".</p>") || strings.Contains(p, `class="error"`) {
		t.Errorf("context page:\n%s", p)
	}
	r := startHostMCP(t, s)
	res := decodeJSON(t, r.call(t, "tools/call", map[string]any{"name": "context", "arguments": map[string]any{}}))
	wantOK(t, "context", res)
	wantEq(t, "context", "note", jstr(res, "structuredContent.note"), note)
}

// TestContextWithNoBase holds that a branch with commits and nothing to
// start from (no upstream, no origin/HEAD, main, master or branch named by
// init.defaultBranch: 'git init -b trunk', never pushed) has its whole
// history as its context, with a note saying so, the same on every
// surface: the command line (exit 0, not 2), the context page (200, not
// 400) and the MCP tool (a result, not an error).
func TestContextWithNoBase(t *testing.T) {
	t.Parallel()
	s := webRepo(t) // tasks, and no commit on main
	s.git("checkout", "-q", "-b", "trunk")
	webCommits(t, s)
	const note = "branch trunk has no upstream and no default branch (origin/HEAD, main, master, init.defaultBranch) to start from: this is its whole history; give a range to see part of it"
	out, errs, code := s.run("reason", "context", "--format", "text")
	if code != 0 || errs != "" || !strings.Contains(out, note+".\n\n`HEAD` up to ") || !strings.Contains(out, ": 4 commits, 0 files changed, 2 tasks.\n") {
		t.Errorf("git reason context: exit %d\n%s%s", code, out, errs)
	}
	var rep struct {
		Note, Base, Head string
		Commits          []struct{ Subject string }
	}
	s.reasonJSON(&rep, "context")
	if rep.Note != note || rep.Base != "" || rep.Head == "" || len(rep.Commits) != 4 || rep.Commits[0].Subject != "base" {
		t.Errorf("git reason context --json: %+v", rep)
	}
	root, c := openWeb(t, s)
	if p := getPage(t, c, root+"/context"); !strings.Contains(p, `<p class="empty">`+note+".</p>") || !strings.Contains(p, "up to <code>") || strings.Contains(p, `class="error"`) {
		t.Errorf("context page:\n%s", p)
	}
	r := startHostMCP(t, s)
	res := decodeJSON(t, r.call(t, "tools/call", map[string]any{"name": "context", "arguments": map[string]any{}}))
	wantOK(t, "context", res)
	wantEq(t, "context", "note", jstr(res, "structuredContent.note"), note)
	wantEq(t, "context", "head", jstr(res, "structuredContent.head"), rep.Head)
}
