package harness

import (
	"os"
	"os/exec"
	"testing"
)

// InCI reports whether the tests run in CI (CI=true, as .ci/run is run).
func InCI() bool { return os.Getenv("CI") == "true" }

// MissingTool ends a test that cannot run because a tool it needs
// (Chromium, Mermaid, a shell, gpg, man) is missing: it skips, saying why,
// on a developer's machine, and fails under CI=true, where .ci/run
// installs every such tool and a skipped check would prove nothing.
func MissingTool(t testing.TB, why string) {
	t.Helper()
	if InCI() {
		t.Fatalf("%s (CI=true: .ci/run installs this tool, so a missing one fails the test instead of skipping it)", why)
	}
	t.Skip(why)
}

// NeedGit ends a test that runs git when there is no git on PATH, as
// MissingTool does: it skips on a developer's machine and fails under
// CI=true.
func NeedGit(tb testing.TB) { NeedTools(tb, "git") }

// NeedTools ends a test that runs each of progs when one is not on PATH,
// as MissingTool does.
func NeedTools(tb testing.TB, progs ...string) {
	tb.Helper()
	for _, prog := range progs {
		if _, err := exec.LookPath(prog); err != nil {
			MissingTool(tb, prog+" is not on PATH")
		}
	}
}

// SkipShort ends a test under -short, saying what it does that the quick
// loop leaves out (why: "starts hundreds of processes"), so that every
// such skip reads alike.
func SkipShort(tb testing.TB, why string) {
	tb.Helper()
	if testing.Short() {
		tb.Skip(why + "; skipped with -short")
	}
}
