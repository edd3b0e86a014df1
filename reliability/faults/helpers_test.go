package faults

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// long reports whether the long form was asked for (GIT_REASON_LONG=1).
func long() bool { return os.Getenv("GIT_REASON_LONG") == "1" }

// needGit skips a test when git is not installed.
func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
}

// buildBinary builds git-reason into a directory of the test and returns
// that directory, to be put first on PATH so that 'git reason' finds it.
func buildBinary(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "git-reason"), "git-reason/cmd/git-reason")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return dir
}

// result is one command's outcome.
type result struct {
	args           []string
	stdout, stderr []byte
	code           int
}

// runIn runs name with args in dir with exactly env and returns its
// outputs and exit status.
func runIn(t *testing.T, dir string, env []string, name string, args ...string) result {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{args: append([]string{name}, args...), stdout: stdout.Bytes(), stderr: stderr.Bytes()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v", strings.Join(r.args, " "), err)
	}
	return r
}

// gitEnv is a clean environment for git and git reason: none of the
// caller's variables but PATH (after bins), a home of its own and a fixed
// locale, plus extra.
func gitEnv(root string, bins []string, extra ...string) []string {
	home := filepath.Join(root, "home")
	return append([]string{
		"PATH=" + strings.Join(append(bins, os.Getenv("PATH")), string(os.PathListSeparator)),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CEILING_DIRECTORIES=" + root,
		"LC_ALL=C",
		"TZ=UTC",
	}, extra...)
}

// newHome writes a home directory with a git identity under root.
func newHome(t *testing.T, root string) {
	t.Helper()
	home := filepath.Join(root, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "[user]\n\tname = Rel Tester\n\temail = rel@example.invalid\n[init]\n\tdefaultBranch = main\n" +
		"[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n[core]\n\tlogAllRefUpdates = always\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
}
