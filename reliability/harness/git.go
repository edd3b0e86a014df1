package harness

import (
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// Git runs the real git with args in dir, in the caller's environment, and
// returns its stdout without the trailing newlines; it fails the test when
// git fails, with git's stderr.
func Git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	return gitMust(tb, dir, nil, args)
}

// GitInput is Git with stdin as git's standard input.
func GitInput(tb testing.TB, dir, stdin string, args ...string) string {
	tb.Helper()
	return gitMust(tb, dir, strings.NewReader(stdin), args)
}

func gitMust(tb testing.TB, dir string, stdin io.Reader, args []string) string {
	tb.Helper()
	out, err := gitRun(dir, stdin, args)
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// GitTry is Git for a command that may fail: on failure it returns git's
// stdout and stderr together, and the error.
func GitTry(dir string, args ...string) (string, error) {
	return gitRun(dir, nil, args)
}

// gitRun runs git with args in dir, stdin (when not nil) its standard
// input, as GitTry says.
func gitRun(dir string, stdin io.Reader, args []string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Stdin = dir, stdin
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out) + string(ee.Stderr), err
	}
	return strings.TrimRight(string(out), "\n"), err
}

// ReadBlobs reads every blob of blobs (hash → content) back through s and
// compares its content: the error names the first blob that does not read
// or reads otherwise.
func ReadBlobs(s storer.EncodedObjectStorer, blobs map[plumbing.Hash]string) error {
	for h, want := range blobs {
		b, err := object.GetBlob(s, h)
		if err != nil {
			return fmt.Errorf("blob %s: %w", h, err)
		}
		rd, err := b.Reader()
		if err != nil {
			return err
		}
		got, err := io.ReadAll(rd)
		rd.Close()
		if err != nil {
			return fmt.Errorf("blob %s: %w", h, err)
		}
		if string(got) != want {
			return fmt.Errorf("blob %s: got %q, want %q", h, got, want)
		}
	}
	return nil
}
