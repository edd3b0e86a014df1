package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"git-reason/reliability/harness"
)

// TestProgressMeter: nothing before the delay; then a line rewritten in
// place only when its percentage changes, ended by ", done."; a step
// stopped part-way is ended by end, and a new step starts its own line.
func TestProgressMeter(t *testing.T) {
	var out bytes.Buffer
	clock := time.Unix(0, 0)
	m := &progressMeter{w: &out, delay: 2 * time.Second, now: func() time.Time { return clock }}
	for i := 0; i <= 400; i++ {
		m.report("Reading tasks", i, 400)
		clock = clock.Add(10 * time.Millisecond) // 2 s after 200 tasks
	}
	want := ""
	for p := 50; p < 100; p++ {
		want += fmt.Sprintf("\rReading tasks: %3d%% (%d/400)", p, p*4)
	}
	want += "\rReading tasks: 100% (400/400), done.\n"
	if out.String() != want {
		t.Errorf("a step of 400 tasks, 10 ms each, delay 2 s, showed\n%q\nwant\n%q", out.String(), want)
	}

	out.Reset()
	m.delay = 0
	m.report("Verifying tasks", 0, 2)
	m.report("Verifying tasks", 1, 2)
	m.end()
	m.end() // nothing more: the line is ended once
	m.report("Reading tasks", 0, 1)
	m.report("Reading tasks", 1, 1)
	if want := "\rVerifying tasks:   0% (0/2)\rVerifying tasks:  50% (1/2)\n\rReading tasks:   0% (0/1)\rReading tasks: 100% (1/1), done.\n"; out.String() != want {
		t.Errorf("a step stopped part-way, then another:\n%q\nwant\n%q", out.String(), want)
	}
	// Workers counting at once may tell a lower count after a higher
	// one: the line never goes back.
	out.Reset()
	m.report("Verifying tasks", 0, 4)
	m.report("Verifying tasks", 2, 4)
	m.report("Verifying tasks", 1, 4)
	m.report("Verifying tasks", 4, 4)
	if want := "\rVerifying tasks:   0% (0/4)\rVerifying tasks:  50% (2/4)\rVerifying tasks: 100% (4/4), done.\n"; out.String() != want {
		t.Errorf("counts told out of order:\n%q\nwant\n%q", out.String(), want)
	}
	var none *progressMeter
	none.end() // no terminal, no meter: end does nothing
}

// TestStderrFilteredTerminalSeen: the app's standard error passes the
// printable filter, and what asks whether it is a terminal (the prompts,
// consult's live lines, the progress meter, the editor) still finds the
// terminal beneath it.
func TestStderrFilteredTerminalSeen(t *testing.T) {
	tty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil || terminal(tty) == nil {
		harness.MissingTool(t, fmt.Sprintf("no pseudo-terminal here (%v)", err))
	}
	defer tty.Close()
	app := newApp(nil, []string{"git-reason"}, tty, tty, tty)
	if terminal(app.ErrWriter) != tty || newProgressMeter(app.ErrWriter) == nil {
		t.Errorf("standard error on a terminal is not seen as one through the filter")
	}
	var out bytes.Buffer
	app = newApp(nil, []string{"git-reason"}, nil, &out, &out)
	fmt.Fprintf(app.ErrWriter, "warning: src/\x1b[2Jwipe\u202egol.go\tend\n")
	if want := "warning: src/\\x1b[2Jwipe\\u202egol.go\tend\n"; out.String() != want {
		t.Errorf("standard error got %q, want %q", out.String(), want)
	}
}

// BenchmarkProgressReportHidden is what a read across every task pays on
// a terminal for each task before the delay has passed (the usual case:
// a read of what the caches hold): a clock read and a lock.
func BenchmarkProgressReportHidden(b *testing.B) {
	m := &progressMeter{w: io.Discard, delay: time.Hour, now: time.Now}
	for i := 0; b.Loop(); i++ {
		m.report("Reading tasks", i%20000, 20000)
	}
}
