package faults

import (
	"os/exec"
	"path/filepath"
	"testing"

	"git-reason/reliability/harness"
)

func TestMain(m *testing.M) { harness.MainInMemory(m) }

// long reports whether the long form was asked for (GIT_REASON_LONG=1).
func long() bool { return harness.Long() }

// buildBinary returns the directory of the git-reason binary the shared
// harness builds once per run, to be put first on PATH so that 'git
// reason' finds it.
func buildBinary(t *testing.T) string { return harness.BinDir(t) }

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
	stdout, stderr, code := harness.Run(t, cmd)
	return result{args: append([]string{name}, args...), stdout: []byte(stdout), stderr: []byte(stderr), code: code}
}

// gitEnv is the harness's clean environment for git and git reason under
// root (home in root/home, discovery stopped at root), bins first on
// PATH, plus extra.
func gitEnv(root string, bins []string, extra ...string) []string {
	return harness.Env(filepath.Join(root, "home"), root, bins, extra...)
}

// newHome writes a home directory with a git identity under root; every
// ref update is logged, so that the reflogs are there to be searched.
func newHome(t *testing.T, root string) {
	t.Helper()
	if err := harness.WriteHome(filepath.Join(root, "home"), "[core]\n\tlogAllRefUpdates = always\n"); err != nil {
		t.Fatal(err)
	}
}
