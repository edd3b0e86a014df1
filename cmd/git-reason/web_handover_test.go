package main

// The handover page of the Reasoning page, served by the real binary: the
// same derivation as 'git reason handover', its filters, its escaping and
// that a reload shows what was written since.

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestWebHandover(t *testing.T) {
	t.Parallel()
	s := webRepo(t)
	base, c := openWeb(t, s) // the token becomes a cookie

	page := getPage(t, c, base+"/handover")
	oneIDForm(t, "the handover page", page)
	open, settled, ok := strings.Cut(page, `<section class="settled">`)
	if !ok {
		t.Fatalf("no settled section:\n%s", page)
	}
	for _, want := range []string{"Open (2)", `href="/task/T-2"`, "Rename the flag", "<code>git reason plan T-2</code>",
		`href="/task/T-4"`, "Queue choice", "phase-concluded", "<code>git reason validate T-4 --run CMD</code>",
		"opened by Ada Tester &lt;ada@example.invalid&gt; (caller): the attempt contradicts it", "the database queue", ": abandoned",
		`href="/task/T-4?record=`} {
		if !strings.Contains(open, want) {
			t.Errorf("open tasks lack %q", want)
		}
	}
	for _, want := range []string{"(1)</h2>", `href="/task/T-1"`, "cache it for a minute", "phase-validated"} {
		if !strings.Contains(settled, want) {
			t.Errorf("settled tasks lack %q", want)
		}
	}
	if strings.Contains(open, `href="/task/T-1"`) || strings.Contains(settled, `href="/task/T-2"`) {
		t.Errorf("a task is in the wrong section:\n%s", page)
	}
	// The hostile subject and summary are text: escaped where they show,
	// never markup.
	if !strings.Contains(page, html.EscapeString("<script>alert(1)</script>")) {
		t.Errorf("the hostile text is not shown escaped")
	}
	for _, bad := range []string{"<script", "<img", `href="http://x.invalid`, `src="http`} {
		if strings.Contains(page, bad) {
			t.Errorf("a record's text became markup: %q", bad)
		}
	}

	// Filters: task, actor (name or email), since.
	if p := getPage(t, c, base+"/handover?task=T-4"); !strings.Contains(p, "Open (1)") || strings.Contains(p, `href="/task/T-2"`) {
		t.Errorf("task filter:\n%s", p)
	}
	if p := getPage(t, c, base+"/handover?actor=nobody"); !strings.Contains(p, "No task is open.") || !strings.Contains(p, `value="nobody"`) {
		t.Errorf("actor filter:\n%s", p)
	}
	if p := getPage(t, c, base+"/handover?actor="+url.QueryEscape("ada@example.invalid")); !strings.Contains(p, "Open (2)") {
		t.Errorf("actor filter by email:\n%s", p)
	}
	if p := getPage(t, c, base+"/handover?since=0d"); !strings.Contains(p, "(0)</h2>") || strings.Contains(p, `href="/task/T-1"`) {
		t.Errorf("since filter:\n%s", p)
	}
	// since is read as 'git reason handover --since' and the MCP tool
	// read it: git's own date forms too.
	if p := getPage(t, c, base+"/handover?since="+url.QueryEscape("2 weeks ago")); !strings.Contains(p, `<section class="settled">`) || strings.Contains(p, `class="error"`) {
		t.Errorf("since in git's date form:\n%s", p)
	}
	for _, bad := range []string{"since=" + url.QueryEscape("no date at all"), "task=" + url.QueryEscape("../x"), "task=NOPE"} {
		res, err := c.Get(base + "/handover?" + bad)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), `<p class="error">`) {
			t.Errorf("%s: status %d, want 400 with the error on the page:\n%s", bad, res.StatusCode, b)
		}
		// Said of the page's field, not of a flag the page has not.
		if strings.Contains(string(b), "--since") {
			t.Errorf("%s: the error names the command line's flag:\n%s", bad, b)
		}
	}

	// A write after the server started shows on reload; a task settled
	// moves from open to settled.
	s.assessTrivial("T-5", "Written while serving", "Seen?")
	if p := getPage(t, c, base+"/handover"); !strings.Contains(p, "Written while serving") || !strings.Contains(p, "Open (3)") {
		t.Errorf("a task written after start is not on the reloaded handover page")
	}
	s.reason("plan", "T-2")
	s.reason("conclude", "T-2", "--decision", "call it --dry-run")
	s.reason("validate", "T-2", "--run", "true")
	p := getPage(t, c, base+"/handover")
	if _, settled, _ := strings.Cut(p, `<section class="settled">`); !strings.Contains(settled, `href="/task/T-2"`) || !strings.Contains(settled, "call it --dry-run") {
		t.Errorf("a task validated after start is not settled on reload:\n%s", p)
	}
}
