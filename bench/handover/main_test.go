package main

import (
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"git-reason/reliability/harness"
)

// TestSmall runs the whole benchmark on a tiny repository, so that the
// program keeps working as the code it times changes: it fails when any
// git reason command fails, when the handover does not hold every task
// (open or settled) and every phase the cycle reaches, or when a row of
// the report is missing.
func TestSmall(t *testing.T) {
	harness.SkipShort(t, "builds the binary and runs git")
	o := &options{tasks: 20, records: 1000, runs: 1, dir: t.TempDir(), target: time.Minute, cold: true}
	report := harness.Report(t, func(w io.Writer) error { return run(o, w) })
	m := regexp.MustCompile(`# output: (\d+) open \(([^)]*)\), (\d+) settled`).FindStringSubmatch(report)
	// Of each ten tasks, two end validated and settled: one whose attempt
	// succeeded, and one validated after an earlier cycle's attempt failed
	// (a failed attempt keeps a task open only while it is at the latest
	// conclusion, 3e3b40d). The other eight are open, in every phase
	// before validated.
	if m == nil || m[1] != "16" || m[3] != "4" {
		t.Fatalf("the handover does not hold the 20 tasks as generated (16 open, 4 settled): %q", m)
	}
	for _, phase := range []string{"assessed", "planned", "consulting", "disputed", "concluded"} {
		if !strings.Contains(m[2], phase) {
			t.Errorf("no open task is %s: %s", phase, m[2])
		}
	}
	harness.HasRows(t, report, "# generated 1000 records in 20 tasks", "first run (no cache", "git reason handover ",
		"git reason handover --json", "git reason --version (floor)")
}
