package gitstore

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"git-reason/reliability/harness"
)

// gitIn runs git in dir and returns its trimmed stdout; it fails the test
// when git fails.
func gitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return harness.Git(t, dir, args...)
}

func gitTryIn(dir string, args ...string) (string, error) { return harness.GitTry(dir, args...) }

// gitInStdin runs git in dir with stdin and returns its trimmed stdout.
func gitInStdin(t testing.TB, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimRight(string(out), "\n")
}

// newTestRepo makes a non-bare repository with one commit.
func newTestRepo(t *testing.T) string {
	t.Helper()
	dir := evalPath(t, t.TempDir())
	gitIn(t, dir, "init", "-q")
	writeTestFile(t, filepath.Join(dir, "README"), "hello\n")
	gitIn(t, dir, "add", "README")
	gitIn(t, dir, "commit", "-q", "-m", "initial")
	return dir
}

// copyTestRepo copies the repository at src (one newTestRepo made) into a
// directory of the test's own: cheaper than running git three times again.
func copyTestRepo(t *testing.T, src string) string {
	t.Helper()
	dir := filepath.Join(evalPath(t, t.TempDir()), "repo")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
	return dir
}

func writeTestFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func evalPath(t testing.TB, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
