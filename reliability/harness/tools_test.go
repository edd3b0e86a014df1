package harness

import "testing"

// endings records how a test helper ended a test: skipped, failed, or
// neither.
type endings struct {
	testing.TB
	skipped, failed bool
}

func (e *endings) Helper()               {}
func (e *endings) Skip(...any)           { e.skipped = true }
func (e *endings) Fatalf(string, ...any) { e.failed = true }

// TestNeedGit: with git on PATH a test goes on; without, it is skipped on
// a developer's machine and fails under CI=true, where .ci/run installs
// git and a skipped test would prove nothing.
func TestNeedGit(t *testing.T) {
	t.Setenv("CI", "")
	var there endings
	NeedGit(&there)
	if there.skipped || there.failed {
		t.Fatalf("with git on PATH: skipped %v, failed %v; want neither", there.skipped, there.failed)
	}
	t.Setenv("PATH", t.TempDir())
	var here endings
	NeedGit(&here)
	if !here.skipped || here.failed {
		t.Errorf("without git on a developer's machine: skipped %v, failed %v; want skipped", here.skipped, here.failed)
	}
	t.Setenv("CI", "true")
	var ci endings
	NeedGit(&ci)
	if !ci.failed {
		t.Error("without git under CI=true the test did not fail")
	}
}
