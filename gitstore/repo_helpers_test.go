package gitstore

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sandboxGit gives the test its own HOME with a git identity and removes
// every variable through which the machine's git setup could leak in.
func sandboxGit(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{
		"GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES",
		"GIT_OBJECT_DIRECTORY", "GIT_INDEX_FILE", "GIT_CONFIG_GLOBAL",
		"GIT_CONFIG_SYSTEM", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS",
		"XDG_CONFIG_HOME", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
		"GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
	} {
		t.Setenv(k, "") // restores the old value after the test
		os.Unsetenv(k)
	}
	writeTestFile(t, filepath.Join(home, ".gitconfig"),
		"[user]\n\tname = Test User\n\temail = test@example.com\n"+
			"[init]\n\tdefaultBranch = main\n[maintenance]\n\tauto = false\n[gc]\n\tauto = 0\n")
	return home
}

// gitIn runs git in dir and returns its trimmed stdout; it fails the test
// when git fails.
func gitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := gitTryIn(dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func gitTryIn(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out) + string(ee.Stderr), err
	}
	return strings.TrimRight(string(out), "\n"), err
}

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
