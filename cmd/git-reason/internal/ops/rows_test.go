package ops

import (
	"testing"

	"git-reason/record"
)

// TestRowsReadBack: a status row and a task row read back as written,
// texts with tabs, quotes and newlines included, a closed task's closure
// whole; an entry with a field missing, one more, or a closed flag that
// is neither 0 nor 1 does not read. Each row reads in one allocation (the
// entry's text; the fields are cut from it): a listing of every task
// reads a row per task, and splitting it into a slice first was a second
// allocation a row (two per status row and task row without the change).
func TestRowsReadBack(t *testing.T) {
	text := "tab\there, \"quoted\"\nand a newline"
	s := StatusRow{Task: "T-1", Phase: "concluded", Closed: true, Records: 12, Reviews: 3, Updated: "2026-12-03T06:29:56.957Z",
		Subject: text, NotVerified: "does not verify: " + text, Signatures: "2 signed", Needs: true}
	data := formatStatusRow(s)
	if got, ok := parseStatusRow("T-1", data); !ok || got != s {
		t.Errorf("status row read back as %+v (%v), want %+v", got, ok, s)
	}
	// (A text with escapes is one allocation more: most texts have none.)
	plain := formatStatusRow(StatusRow{Task: "T-1", Phase: "planned", Records: 2, Updated: "2026-12-03T06:29:56.957Z", Subject: "a subject"})
	if n := testing.AllocsPerRun(100, func() { parseStatusRow("T-1", plain) }); n > 1 {
		t.Errorf("a status row read in %.0f allocations, want 1", n)
	}
	open := TaskRow{Task: "T-2", State: "open", Phase: "planned", Subject: text, Records: 4, Updated: "2026-12-03T06:29:56.957Z", Next: "git reason consult T-2"}
	closed := open
	closed.State, closed.Closed = "closed", &record.Closed{Closure: "01C", Outcome: "abandoned", By: "T-3", Reason: text,
		Conclusion: "01D", Actor: "Ada <ada@example.invalid>", Created: "2026-12-03T07:00:00Z"}
	for _, r := range []TaskRow{open, closed} {
		got, ok := parseTaskRow(r.Task, formatTaskRow(r))
		if !ok || got.Task != r.Task || got.State != r.State || got.Phase != r.Phase || got.Subject != r.Subject || got.Records != r.Records ||
			got.Updated != r.Updated || got.Next != r.Next || (got.Closed == nil) != (r.Closed == nil) || r.Closed != nil && *got.Closed != *r.Closed {
			t.Errorf("task row read back as %+v (%v), want %+v", got, ok, r)
		}
		want := 1.0 // the text; and a closed task's closure
		plain := r
		plain.Subject = "a subject"
		if r.Closed != nil {
			want = 2
			c := *r.Closed
			c.Reason = "not needed"
			plain.Closed = &c
		}
		data := formatTaskRow(plain)
		if n := testing.AllocsPerRun(100, func() { parseTaskRow(r.Task, data) }); n > want {
			t.Errorf("a task row (closed %v) read in %.0f allocations, want %.0f", r.Closed != nil, n, want)
		}
	}
	for _, bad := range []string{
		"concluded\t1\t12\t3\t\"u\"\t\"s\"\t\"\"\t\"\"",           // a field missing
		"concluded\t1\t12\t3\t\"u\"\t\"s\"\t\"\"\t\"\"\t0\t\"x\"", // one more
		"concluded\t2\t12\t3\t\"u\"\t\"s\"\t\"\"\t\"\"\t0",        // closed neither 0 nor 1
		"concluded\t1\t12\t3\t\"u\"\t\"s\"\t\"\"\t\"\"\t2",        // needs neither 0 nor 1
		"concluded\t1\ttwelve\t3\t\"u\"\t\"s\"\t\"\"\t\"\"\t0",    // records not a number
		"concluded\t1\t12\t3\t\"u\"\ts\t\"\"\t\"\"\t0",            // subject not quoted
	} {
		if r, ok := parseStatusRow("T-1", []byte(bad)); ok {
			t.Errorf("status row %q read as %+v", bad, r)
		}
	}
	good := string(formatTaskRow(open))
	for _, bad := range []string{good[:len(good)-3], good + "\t\"x\"", "planned\t4\t\"u\"\t\"s\"\t\"n\"\t2" + good[len(good)-24:]} {
		if r, ok := parseTaskRow("T-2", []byte(bad)); ok {
			t.Errorf("task row %q read as %+v", bad, r)
		}
	}
}
