package ops

import (
	"fmt"
	"strings"
	"testing"

	"git-reason/record"
)

// A comment over its limit first shortens tasks from the last back, then
// leaves them out from the last back, and says which in its note; one
// that fits is whole and has no note.
func TestContextCommentLimit(t *testing.T) {
	r := &ContextReport{Range: "main..HEAD", Base: strings.Repeat("a", 40), Head: strings.Repeat("b", 40)}
	for i := range 40 {
		q := strings.Repeat(fmt.Sprintf("question %d <b>x</b> ", i), 20)
		r.Tasks = append(r.Tasks, ContextTask{
			TaskContext: record.TaskContext{Task: fmt.Sprintf("T-%02d", i), Subject: "subject <script>", Phase: record.PhaseConcluded,
				Decision: fmt.Sprintf("decision %d", i), Assessments: []record.ContextAssessment{{ID: "01X", Subject: "s", Question: q}}},
			Mermaid: "flowchart TD\n  n1[\"x\"]\n"})
	}
	whole, err := ContextComment(r, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(whole, "Cut to fit") || strings.Count(whole, "<details>") != 40 || strings.Contains(whole, "<script>") {
		t.Fatalf("a comment under its limit is not whole and inert:\n%.2000s", whole)
	}
	for _, c := range []struct {
		limit         int
		short, gone   bool
		first, lastIn string
	}{
		{len(whole) - 1, true, false, "question 0 ", "T-39"},
		{5000, true, true, "", ""},
		{MinCommentLimit, true, true, "", ""},
	} {
		got, err := ContextComment(r, c.limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) > c.limit {
			t.Errorf("limit %d: the comment is %d bytes", c.limit, len(got))
		}
		note := got[strings.Index(got, "> **Cut to fit"):]
		if strings.Contains(note, "Shown without their reasoning") != c.short || strings.Contains(note, "Left out") != c.gone {
			t.Errorf("limit %d: the note says %q", c.limit, note)
		}
		if c.first != "" && !strings.Contains(got, c.first) {
			t.Errorf("limit %d: the first task lost its reasoning first", c.limit)
		}
		if c.lastIn != "" && !strings.Contains(got, "<strong>"+c.lastIn+"</strong>") {
			t.Errorf("limit %d: the last task is left out before every task was shortened", c.limit)
		}
		if strings.Count(got, "<details>") != strings.Count(got, "</details>") {
			t.Errorf("limit %d: a <details> block is cut in two", c.limit)
		}
	}
	if _, err := ContextComment(r, MinCommentLimit-1); err == nil {
		t.Error("a limit under MinCommentLimit is accepted")
	}
}

// A stranger's advisor name holding '|' stays in its cell of the
// consultations table: a table ends a cell at a bare '|' even inside a
// code span, so it is written "\|" there.
func TestContextTableAdvisorCell(t *testing.T) {
	r := &ContextReport{Range: "main..HEAD", Tasks: []ContextTask{{TaskContext: record.TaskContext{Task: "T", Subject: "s",
		Assessments: []record.ContextAssessment{{ID: "01X", Subject: "s", Question: "q",
			Consultations: []record.ContextConsultation{{ID: "01C", Advisor: "a|b|c", Status: "completed"}}}}}}}}
	for line := range strings.Lines(RenderContext(r, FormatMarkdown)) {
		if strings.HasPrefix(line, "| `a") {
			if n := strings.Count(line, "|") - strings.Count(line, `\|`); n != 6 {
				t.Fatalf("the row has %d cells, want 5: %q", n-1, line)
			}
			return
		}
	}
	t.Fatal("no row of advisor a|b|c")
}
