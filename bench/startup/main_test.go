package main

import (
	"io"
	"strings"
	"testing"

	"git-reason/reliability/harness"
)

// TestSmall runs the benchmark with one group and one build variant, one
// timed run each, so that the program keeps working as the module
// changes: it fails when a program does not build or run, or when a row
// of the report is missing.
func TestSmall(t *testing.T) {
	harness.SkipShort(t, "builds three programs and git-reason")
	report := harness.Report(t, func(w io.Writer) error {
		return run([]string{"-runs", "1", "-only", "^encoding/gob$", "-variant", "tags=netgo"}, w)
	})
	harness.HasRows(t, report, "hello world [", "+ encoding/gob [", "git-reason --version (go build) [", "git-reason --version, -tags netgo [")
	if strings.Contains(report, "gojq") {
		t.Error("-only ^encoding/gob$ timed gojq too")
	}
	if err := run([]string{"-variant", "nonsense"}, io.Discard); err == nil {
		t.Error("-variant nonsense was accepted")
	}
}
