package cli

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"text/tabwriter"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

// statusTableRows is n rows of uneven widths, a closed task among them.
func statusTableRows(n int) []ops.StatusRow {
	rows := make([]ops.StatusRow, n)
	for i := range rows {
		rows[i] = ops.StatusRow{Task: fmt.Sprintf("T-%0*d", 1+i%7, i), Phase: record.Phase([]string{"assessed", "planned", "concluded"}[i%3]),
			Closed: i%11 == 0, Records: i * 37 % 100003, Reviews: i % 13, Updated: "2026-12-06T07:55:35.338Z", Subject: strings.Repeat("s", i%5)}
	}
	return rows
}

// The table is aligned as text/tabwriter aligned it, coloured or not.
func TestStatusTableAsTabwriter(t *testing.T) {
	t.Parallel()
	rows := statusTableRows(300)
	rows[5].Subject = "tab\tand ünïcode"
	for _, pal := range []palette{{}, {on: true}} {
		var want, got bytes.Buffer
		tw := tabwriter.NewWriter(&want, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "TASK\t%s\tRECORDS\tREVIEWS\tUPDATED\tSUBJECT\n", pal.paint(sgrPlain, "PHASE"))
		for _, s := range rows {
			phase := pal.phase(s.Phase)
			if s.Closed {
				phase = pal.phase("closed")
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", s.Task, phase, s.Records, s.Reviews, s.Updated, record.Printable(s.Subject))
		}
		tw.Flush()
		if err := printStatusTable(&got, pal, rows); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("colour %v: the table\n%s\nwant\n%s", pal.on, got.String(), want.String())
		}
	}
}

// The table of every task holds no cell beyond its line: what it
// allocates does not grow with the rows (text/tabwriter held every cell
// of a year's 20,000 tasks, most of what status allocated).
func TestStatusTableAllocations(t *testing.T) {
	rows := statusTableRows(5000)
	allocs := testing.AllocsPerRun(5, func() {
		if err := printStatusTable(io.Discard, palette{}, rows); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 20 {
		t.Errorf("the table of %d rows made %.0f allocations, want at most 20", len(rows), allocs)
	}
}

// Text that passes the printable filter unchanged is written as it came,
// not copied.
func TestPrintableWriterCopiesNothingClean(t *testing.T) {
	line := []byte(strings.Repeat("T-000001  assessed  3  0  2026-12-06T07:57:13.427Z  moved ünïcode\n", 1000))
	p := &printableWriter{w: io.Discard}
	if allocs := testing.AllocsPerRun(5, func() { p.Write(line) }); allocs > 0 {
		t.Errorf("writing %d clean bytes made %.0f allocations, want none", len(line), allocs)
	}
	var out bytes.Buffer
	p = &printableWriter{w: &out}
	p.Write([]byte("clean\nthen \x1b[2J"))
	if got, want := out.String(), "clean\nthen \\x1b[2J"; got != want {
		t.Errorf("filtered %q, want %q", got, want)
	}
}
