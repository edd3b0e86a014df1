package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestSmall runs the whole benchmark on a tiny repository, so that the
// program keeps working as the code it times changes: it fails when any
// git reason command fails, when the handover does not hold every task
// (open or settled) and every phase the cycle reaches, or when a row of
// the report is missing.
func TestSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs git; skipped with -short")
	}
	var out bytes.Buffer
	o := &options{tasks: 20, records: 1000, runs: 1, dir: t.TempDir(), target: time.Minute, cold: true}
	if err := run(o, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	report := out.String()
	t.Logf("\n%s", report)
	m := regexp.MustCompile(`# output: (\d+) open \(([^)]*)\), (\d+) settled`).FindStringSubmatch(report)
	// Of each ten tasks, one ends validated with an attempt that
	// succeeded (settled) and one with an attempt that failed (open).
	if m == nil || m[1] != "18" || m[3] != "2" {
		t.Fatalf("the handover does not hold the 20 tasks as generated (18 open, 2 settled): %q", m)
	}
	for _, phase := range []string{"assessed", "planned", "consulting", "disputed", "concluded", "validated"} {
		if !strings.Contains(m[2], phase) {
			t.Errorf("no open task is %s: %s", phase, m[2])
		}
	}
	for _, row := range []string{"# generated 1000 records in 20 tasks", "first run (no cache", "git reason handover ",
		"git reason handover --json", "git reason --version (floor)"} {
		if !strings.Contains(report, row) {
			t.Errorf("the report has no %q", row)
		}
	}
}
