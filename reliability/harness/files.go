package harness

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// WriteFile writes content to path (mode 0644), making its directories
// first; it fails the test when it cannot.
func WriteFile(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// ReadFile is the content of the file at path; it fails the test when the
// file cannot be read.
func ReadFile(tb testing.TB, path string) []byte {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// Report runs a benchmark (run writes its report to w) and returns the
// report, logged; when run fails it fails tb with the error and what was
// written before it.
func Report(tb testing.TB, run func(w io.Writer) error) string {
	tb.Helper()
	var out bytes.Buffer
	if err := run(&out); err != nil {
		tb.Fatalf("%v\n%s", err, out.String())
	}
	tb.Logf("\n%s", out.String())
	return out.String()
}

// HasRows fails tb, without stopping it, for each of rows that report (a
// benchmark's printed report, say) does not hold.
func HasRows(tb testing.TB, report string, rows ...string) {
	tb.Helper()
	for _, row := range rows {
		if !strings.Contains(report, row) {
			tb.Errorf("the report has no %q", row)
		}
	}
}
