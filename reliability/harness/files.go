package harness

import (
	"os"
	"path/filepath"
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
