package main

// The Reasoning page served by the real binary ('git reason web') over a
// repository its own commands wrote: the pages, their escaping, the token
// and Host checks, and that a reload shows what was written since.

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"git-reason/reliability/harness"
)

// hostile is a subject a record could carry to attack a page that shows it.
const hostile = `Cache <script>alert(1)</script> @octocat [link](http://x.invalid/) <img src=http://x.invalid/p.png>`

// webRepo is a sandbox with a validated task (whose subject is hostile),
// a task only assessed, and a concluded task with an open disagreement
// whose summary is hostile too: a copy of one written once for every web
// test (each changes only its own).
func webRepo(t *testing.T) *sandbox {
	t.Helper()
	return webTemplate.copy(t, writeWebRepo)
}

var webTemplate sandboxTemplate

func writeWebRepo(t *testing.T, root string, extra ...string) *sandbox {
	t.Helper()
	s := newSandboxAt(t, root, "advisors: []\n", nil, extra...)
	s.assessTrivial("T-1", hostile, "Cache the index?")
	s.reason("plan", "T-1")
	s.reason("conclude", "T-1", "--decision", "cache it for a minute")
	s.reason("validate", "T-1", "--run", "true")
	s.assessTrivial("T-2", "Rename the flag", "Which name?")
	var c, at struct{ ID string }
	s.reason("assess", "T-4", "--subject", "Queue choice", "--question", "Which queue?", "--materiality", "minor", "--reversibility", "reversible")
	s.reason("plan", "T-4")
	s.reasonJSON(&c, "conclude", "T-4", "--decision", "the database queue")
	head := strings.TrimSpace(s.git("rev-parse", "refs/reasoning/tasks/T-4"))
	s.reasonJSON(&at, "attempt", "T-4", "--commit", head, "--outcome", "abandoned")
	s.reason("disagree", "T-4", "--cites", c.ID, "--cites", at.ID, "--summary", "the attempt contradicts it: "+hostile)
	return s
}

// startWeb runs 'git reason web' in s until the test ends and returns the
// address it printed (start, with its token) and that address without the
// token and its slash (base, to which a page's path is added). The server is stopped with Ctrl-C,
// which git passes on to git-reason and waits for; a kill would end git
// alone and leave the server running with no one to stop it.
func startWeb(t *testing.T, s *sandbox, args ...string) (start, base string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	cmd := exec.CommandContext(ctx, "git", append([]string{"reason", "web"}, args...)...)
	cmd.Dir, cmd.Env = s.dir, s.env
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	errs, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(errs)
		re := regexp.MustCompile(`the Reasoning page is at (http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{64})$`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		_, _ = io.Copy(io.Discard, errs)
	}()
	select {
	case start = <-found:
	case <-time.After(time.Minute):
		t.Fatal("git reason web printed no address within a minute")
	}
	return start, strings.TrimSuffix(start[:strings.Index(start, "?")], "/")
}

// openWeb starts 'git reason web' in s and returns its address without
// the token and a client holding the page's cookie.
func openWeb(t *testing.T, s *sandbox) (base string, c *http.Client) {
	t.Helper()
	start, base := startWeb(t, s)
	c = webClient()
	getPage(t, c, start)
	return base, c
}

// webClient is a browser's client of the page: it keeps the token's
// cookie.
func webClient() *http.Client { return harness.PageClient(30 * time.Second) }

// getPage fetches u with c and returns the body; any status other than
// 200 fails the test.
func getPage(t *testing.T, c *http.Client, u string) string {
	t.Helper()
	return harness.GetPage(t, c, u)
}

func TestWebPages(t *testing.T) {
	t.Parallel()
	s := webRepo(t)
	start, base := startWeb(t, s)

	// Without the token nothing is shown.
	res, err := http.Get(base + "/task/T-1")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("no token: status %d, want 403", res.StatusCode)
	}

	c := webClient()
	list := getPage(t, c, start)
	for _, want := range []string{`href="/task/T-1"`, `href="/task/T-2"`, "Rename the flag", "validated", "assessed", "3 of 3 tasks"} {
		if !strings.Contains(list, want) {
			t.Errorf("task list lacks %q", want)
		}
	}
	// Filters: by phase and by text.
	if p := getPage(t, c, base+"/?phase=validated"); !strings.Contains(p, "/task/T-1") || strings.Contains(p, "/task/T-2") {
		t.Errorf("phase filter: %s", p)
	}
	if p := getPage(t, c, base+"/?q="+url.QueryEscape("rename")); strings.Contains(p, "/task/T-1") || !strings.Contains(p, "/task/T-2") {
		t.Errorf("text filter: %s", p)
	}

	// The task page: summary, graph, timeline with JSON, report; the hostile
	// subject renders as inert text everywhere.
	page := getPage(t, c, base+"/task/T-1")
	for _, want := range []string{"<svg", "cache it for a minute", "<details>", "&#34;kind&#34;: &#34;conclusion&#34;",
		"&lt;script&gt;alert(1)&lt;/script&gt;", "@octocat [link](http://x.invalid/)", `class="edge"`} {
		if !strings.Contains(page, want) {
			t.Errorf("task page lacks %q", want)
		}
	}
	// The report is HTML (a heading, a list), the record text in it text.
	for _, want := range []string{`<section class="report">`, "<h1>Reasoning: T-1</h1>", "<li>assessment <code>",
		"&lt;script&gt;alert(1)&lt;/script&gt;"} {
		if !strings.Contains(page[strings.Index(page, `<section class="report">`):], want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	// The only script is the page's own, which polls for new records.
	if n := strings.Count(page, "<script"); n != 1 || !strings.Contains(page, `<script src="/static/live.js" defer></script>`) {
		t.Errorf("the task page holds %d scripts", n)
	}
	for _, bad := range []string{"<script>", "<img", `href="http://x.invalid`, `src="http`, "<a href=\"http"} {
		if strings.Contains(page, bad) || strings.Contains(list, bad) {
			t.Errorf("a record's text became markup: %q", bad)
		}
	}
	oneIDForm(t, "the task page", page)
	// One record-id form: the command line's 10-character prefix, the
	// whole id on hover.
	var logT1 []struct{ ID string }
	s.reasonJSON(&logT1, "log", "T-1")
	if id := logT1[0].ID; !strings.Contains(page, `<code class="rid" title="`+id+`">`+id[:10]+`</code>`) {
		t.Errorf("the timeline does not show record %s as its 10-character prefix", id)
	}

	// The advisors and doctor pages.
	adv := getPage(t, c, base+"/advisors")
	for _, want := range []string{"Profile <strong>", "Nothing on this page contacts an advisor", `<table class="tasks advisors">`} {
		if !strings.Contains(adv, want) {
			t.Errorf("advisors page lacks %q", want)
		}
	}
	doc := getPage(t, c, base+"/doctor")
	for _, want := range []string{"Findings (", "hook_not_installed", "<code>git reason hooks install</code>", "neutrality_not_configured", "Profiles", " Refs: 3 tasks, 10 records, "} {
		if !strings.Contains(doc, want) {
			t.Errorf("doctor page lacks %q", want)
		}
	}
	headT2 := getPage(t, c, base+"/head?task=T-2")
	headAll := getPage(t, c, base+"/head")

	// Another name for this machine is refused (DNS rebinding).
	req, _ := http.NewRequest("GET", base+"/", nil)
	req.Host = "rebind.example:80"
	if res, err := c.Do(req); err != nil {
		t.Fatal(err)
	} else if res.Body.Close(); res.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Host: status %d, want 403", res.StatusCode)
	}

	// A write made after the server started shows on reload.
	s.assessTrivial("T-3", "Written while serving", "Seen?")
	if p := getPage(t, c, base+"/"); !strings.Contains(p, "Written while serving") {
		t.Errorf("a task written after start is not on the reloaded list")
	}
	s.reason("plan", "T-2")
	if p := getPage(t, c, base+"/task/T-2"); !strings.Contains(p, "phase-planned") {
		t.Errorf("a record written after start is not on the reloaded task page")
	}
	// What a page polls moved with it: the task's head, and every task's.
	if h := getPage(t, c, base+"/head?task=T-2"); h == headT2 || len(strings.TrimSpace(h)) != 64 {
		t.Errorf("T-2's page digest was %q and is %q after a record", headT2, h)
	}
	if h := getPage(t, c, base+"/head"); h == headAll {
		t.Errorf("the digest of every task's head did not move: %q", h)
	}
	// A task named like a branch has its page at its own path.
	s.assessTrivial("feature/db-migration", "Migrate online", "Online?")
	if p := getPage(t, c, base+"/"); !strings.Contains(p, `href="/task/feature/db-migration"`) {
		t.Errorf("the list does not link the task feature/db-migration")
	}
	if p := getPage(t, c, base+"/task/feature/db-migration"); !strings.Contains(p, "Migrate online") {
		t.Errorf("the page of feature/db-migration lacks its subject")
	}
	if res, err := c.Get(base + "/task/NOPE"); err != nil {
		t.Fatal(err)
	} else if res.Body.Close(); res.StatusCode != http.StatusNotFound {
		t.Errorf("unknown task: status %d, want 404", res.StatusCode)
	}
}

// TestWebLongTask: a task of many records on the Reasoning page: its
// first view is its summary and latest records, the rest a page or a
// click away.
func TestWebLongTask(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, "advisors: []\n", nil)
	harness.BulkTaskT(t, s.dir, "T-long", 240)
	var log []struct{ ID string }
	s.reasonJSON(&log, "log", "T-long")
	base, c := openWeb(t, s)
	records := regexp.MustCompile(`<li id="rec-([0-9A-Z]{26})">`)
	shown := func(page string) []string {
		var ids []string
		for _, m := range records.FindAllStringSubmatch(page, -1) {
			ids = append(ids, m[1])
		}
		return ids
	}

	first := getPage(t, c, base+"/task/T-long")
	if ids := shown(first); len(ids) != 50 || ids[0] != log[190].ID || ids[49] != log[239].ID {
		t.Errorf("the first view shows %d records, not the latest 50", len(ids))
	}
	for _, want := range []string{"records 191–240 of 240, the latest", `href="?tl=2"`, `<a href="?graph=1">draw it</a>`, `<a href="?report=1">show it</a>`} {
		if !strings.Contains(first, want) {
			t.Errorf("the first view lacks %q", want)
		}
	}
	if strings.Contains(first, `<svg class="graph"`) || strings.Contains(first, "<h1>Reasoning: T-long</h1>") || len(first) > 100<<10 {
		t.Errorf("the first view holds the graph or the report (%d KB)", len(first)>>10)
	}
	// The earliest page, by number and by a record it holds.
	for _, q := range []string{"?tl=5", "?record=" + log[3].ID} {
		p := getPage(t, c, base+"/task/T-long"+q)
		if ids := shown(p); len(ids) != 40 || ids[0] != log[0].ID || !strings.Contains(p, "records 1–40 of 240") || !strings.Contains(p, `href="?tl=4"`) {
			t.Errorf("%s shows %d records", q, len(ids))
		}
	}
	graph := getPage(t, c, base+"/task/T-long?graph=1")
	if strings.Count(graph, `<g class="node`) != 240 {
		t.Errorf("the graph on demand draws %d records", strings.Count(graph, `<g class="node`))
	}
	// A record off the timeline shown is linked to the timeline's page
	// that holds it, one on it to its anchor: an anchor of a record this
	// page does not list led nowhere.
	for _, want := range []string{`<a href="?record=` + log[0].ID + `#rec-` + log[0].ID + `">`, `<a href="#rec-` + log[239].ID + `">`} {
		if !strings.Contains(graph, want) {
			t.Errorf("the graph lacks the link %s", want)
		}
	}
	if strings.Contains(graph, `<a href="#rec-`+log[0].ID+`">`) {
		t.Errorf("the graph links record %s to an anchor its page lacks", log[0].ID)
	}
	// So do the other pages' links to a record of the task: to the page
	// of its timeline that holds it.
	s.git("commit", "-q", "--allow-empty", "-m", "base")
	s.git("commit", "-q", "--allow-empty", "-m", "Bulk\n\nReason-Task: T-long")
	if p := getPage(t, c, base+"/context?range=HEAD~1..HEAD"); !strings.Contains(p, `href="/task/T-long?record=`+log[0].ID+`#rec-`+log[0].ID+`"`) {
		t.Errorf("the context page does not link the first record to its page of the timeline")
	}
	if p := getPage(t, c, base+"/task/T-long?report=1"); !strings.Contains(p, "<h1>Reasoning: T-long</h1>") {
		t.Errorf("the report on demand is not shown")
	}
}

// TestWebRefusesBeyondLoopback: the page listens on loopback only, and
// says which address to give instead, with the port asked for.
func TestWebRefusesBeyondLoopback(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, "advisors: []\n", nil)
	for _, listen := range []string{"0.0.0.0:0", "[::]:0"} {
		_, errs, code := s.run("reason", "web", "--listen", listen)
		if want := "git reason: --listen " + listen + ": the Reasoning page listens on loopback only: use --listen 127.0.0.1:0\n"; code != 2 || errs != want {
			t.Errorf("--listen %s: exit %d: %q, want 2: %q", listen, code, errs, want)
		}
	}
}

// TestWebListenPortOnly: an address with no host (:PORT) asks for a port
// and gets it on loopback, as mcp --http does; it was refused as beyond
// loopback, since it listened on every interface.
func TestWebListenPortOnly(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, "advisors: []\n", nil)
	start, _ := startWeb(t, s, "--listen", ":0") // its address is on 127.0.0.1
	// A repository with no task yet is told how to start one.
	if p := getPage(t, webClient(), start); !strings.Contains(p, "No task yet. Start one with <code>git reason assess TASK</code>.") {
		t.Errorf("the empty list does not say how to start: %s", p)
	}
}

// TestWebListRefusesBadFilters: a phase, state or signature filter the
// list's form does not offer is a bad request shown on the page with the
// form, as handover's filters are. They were taken as given: an unknown
// phase listed no task and an unknown state or signature filter every
// task, both with status 200.
func TestWebListRefusesBadFilters(t *testing.T) {
	t.Parallel()
	s := webRepo(t)
	base, c := openWeb(t, s)
	for _, bad := range []struct{ query, says string }{
		{"phase=bogus", `phase &#34;bogus&#34;: give one of empty, assessed, reused, planned, consulting, disputed, concluded, validated, or none`},
		{"state=bogus", `state &#34;bogus&#34;: give one of open, closed, or none`},
		{"sig=bogus&q=rename", `sig &#34;bogus&#34;: give one of signed, unsigned, unverified, or none`},
	} {
		res, err := c.Get(base + "/?" + bad.query)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if p := string(b); res.StatusCode != http.StatusBadRequest || !strings.Contains(p, `<p class="error">`+bad.says+`</p>`) ||
			!strings.Contains(p, `<form method="get" action="/"`) || strings.Contains(p, `href="/task/`) {
			t.Errorf("/?%s: status %d, want 400 saying %q without a task: %s", bad.query, res.StatusCode, bad.says, p)
		}
	}
	// The rest of the query stays in the form.
	if res, err := c.Get(base + "/?sig=bogus&q=rename"); err == nil {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if !strings.Contains(string(b), `name="q" value="rename"`) {
			t.Errorf("the form lost the text filter: %s", b)
		}
	}
	// A list that filters every task out says so, and leads back to every
	// task; only an empty repository is told to start one.
	if p := getPage(t, c, base+"/?actor=nobody"); !strings.Contains(p, `No task matches these filters: <a href="/">show every task</a>.`) || strings.Contains(p, "Start one") {
		t.Errorf("the list filtered to nothing does not say so: %s", p)
	}
	// Every filter the form offers still lists, and any page (as the
	// timeline's: past the last, the last).
	for _, good := range []string{"phase=reused", "state=open", "state=closed", "sig=unsigned", "page=abc", "page=7", "phase=&state=&sig=&page="} {
		getPage(t, c, base+"/?"+good)
	}
}
