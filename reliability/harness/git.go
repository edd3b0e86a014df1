package harness

import (
	"os/exec"
	"strings"
	"testing"
)

// Git runs the real git with args in dir, in the caller's environment, and
// returns its stdout without the trailing newlines; it fails the test when
// git fails, with git's stderr.
func Git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	out, err := GitTry(dir, args...)
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// GitTry is Git for a command that may fail: on failure it returns git's
// stdout and stderr together, and the error.
func GitTry(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out) + string(ee.Stderr), err
	}
	return strings.TrimRight(string(out), "\n"), err
}
