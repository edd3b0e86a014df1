package settings

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"git-reason/reliability/harness"
)

// sandbox gives the test its own HOME with a git identity and removes
// every variable through which the machine's setup could leak in. It
// returns HOME.
func sandbox(t testing.TB) string {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{
		"GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES",
		"GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_COUNT",
		"GIT_CONFIG_PARAMETERS", "XDG_CONFIG_HOME", "GIT_AUTHOR_NAME",
		"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL",
		"GIT_REASON_PROFILE", "GIT_REASON_DISABLE", "CI", "GIT_PAGER", "PAGER",
		"NO_COLOR",
	} {
		t.Setenv(k, "") // restores the old value after the test
		os.Unsetenv(k)
	}
	write(t, filepath.Join(home, ".gitconfig"), "[init]\n\tdefaultBranch = main\n")
	return home
}

// newRepo makes an empty repository and returns its top directory.
func newRepo(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	harness.Git(t, dir, "init", "-q")
	return dir
}

// sandboxRepo is sandbox and, in it, newRepo: HOME and the repository's
// top directory.
func sandboxRepo(t testing.TB) (home, repo string) {
	t.Helper()
	home = sandbox(t)
	return home, newRepo(t)
}

func write(t testing.TB, path, content string) {
	t.Helper()
	harness.WriteFile(t, path, content)
}

func load(t testing.TB, gitDir string) *Settings {
	t.Helper()
	s, err := Load(context.Background(), gitDir, Flags{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// linkedWorktree turns on extensions.worktreeConfig in repo, sets
// reason.profile=shared in its config, makes a first commit and adds a
// linked worktree beside it, whose path it returns.
func linkedWorktree(t testing.TB, repo string) string {
	t.Helper()
	harness.Git(t, repo, "config", "extensions.worktreeConfig", "true")
	harness.Git(t, repo, "config", "reason.profile", "shared")
	harness.Git(t, repo, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "initial")
	wt := filepath.Join(filepath.Dir(repo), filepath.Base(repo)+"-wt")
	harness.Git(t, repo, "worktree", "add", "-q", wt)
	t.Cleanup(func() { os.RemoveAll(wt) })
	return wt
}
