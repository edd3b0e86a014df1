package gitstore_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"git-reason/gitstore"
	"git-reason/reliability/harness"
)

// TestMain gives every test of the package (internal and external) one
// sandboxed git setup: a HOME of its own with a git identity, no system
// configuration, and none of the variables through which the machine's
// git setup could leak in. It is set once for the process, not per test
// with t.Setenv, so that the tests can run in parallel; a test that needs
// a variable of its own (GIT_DIR, GIT_CEILING_DIRECTORIES) sets it with
// t.Setenv and runs alone. After the run it removes that HOME and the
// honest history the forgery tests share (see honest in forgery_test.go),
// the empty repository the others copy (see newRepo) and the repository
// with one commit the internal tests copy (see newTestRepo). Every
// temporary directory is on a memory file system where there is one
// (harness.MemoryTemp).
func TestMain(m *testing.M) {
	harness.MemoryTemp()
	home, err := os.MkdirTemp("", "gitstore-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "gitstore tests:", err)
		os.Exit(1)
	}
	if err := sandboxGit(home); err != nil {
		fmt.Fprintln(os.Stderr, "gitstore tests:", err)
		os.RemoveAll(home)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(home)
	gitstore.RemoveTestRepo()
	for _, dir := range []string{honest.dir, emptyRepo.dir} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

// sandboxGit makes home the process's HOME, with a git identity, main as
// the first branch and no background gc or maintenance, and removes every
// variable through which the machine's git setup could leak in.
func sandboxGit(home string) error {
	for _, k := range []string{
		"GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES",
		"GIT_OBJECT_DIRECTORY", "GIT_INDEX_FILE", "GIT_CONFIG_GLOBAL",
		"GIT_CONFIG_SYSTEM", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS",
		"XDG_CONFIG_HOME", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
		"GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
	} {
		os.Unsetenv(k)
	}
	os.Setenv("HOME", home)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	return os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(
		"[user]\n\tname = Test User\n\temail = test@example.com\n"+
			"[init]\n\tdefaultBranch = main\n[maintenance]\n\tauto = false\n[gc]\n\tauto = 0\n[receive]\n\tautogc = false\n"), 0o644)
}
