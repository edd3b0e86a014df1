package main

// A task of many records on the Reasoning page: its first view is its
// summary and latest records, the rest a page or a click away.

import (
	"regexp"
	"strings"
	"testing"

	"git-reason/reliability/harness"
)

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
