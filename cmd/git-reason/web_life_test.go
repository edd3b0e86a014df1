package main

// What the task page's timeline says of the records a task's life
// withdrew or closed, served by the real binary (a history that does not
// verify: TestForgedHistoryWebAndMCP).

import (
	"strings"
	"testing"
)

func TestWebTaskLife(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, "advisors: []\n", nil)
	trivial := []string{"--materiality", "trivial", "--reversibility", "reversible"}
	s.reason(append([]string{"assess", "W", "--subject", "Withdrawn and closed", "--question", "Which?"}, trivial...)...)
	s.reason("plan", "W")
	s.reason("conclude", "W", "--decision", "the second way")
	var v, w, c struct{ ID string }
	s.reasonJSON(&v, "validate", "W", "--run", "true")
	s.reasonJSON(&w, "withdraw", "W", v.ID, "--reason", "ran against the wrong checkout")
	s.reasonJSON(&c, "close", "W", "--outcome", "abandoned", "--reason", "superseded by another design")

	base, cl := openWeb(t, s)
	p := getPage(t, cl, base+"/task/W")
	for _, want := range []string{
		`<li id="rec-` + v.ID + `">`, `withdrawn by <a href="#rec-` + w.ID + `"`,
		`<li id="rec-` + w.ID + `">`, `<span class="kind kind-withdrawal">withdrawal</span>`,
		`<li id="rec-` + c.ID + `">`, `<span class="kind kind-closure">closure</span>`,
		"Closed, <strong>abandoned</strong>", "superseded by another design",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("W's page lacks %q", want)
		}
	}
}
