package reliability

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"git-reason/reliability/harness"
)

// TestCatchUpRecentChange holds a clone whose tracking namespace keeps
// changing within the catch-up's clock tick (packed-refs written just
// before each command, as a script or a busy machine does) to what a
// settled one does: the clone hint is said by the first command alone,
// and a later `log -n 5 --json` starts discovery and the settings'
// listing, nothing more. A catch-up that could not trust its stamp wrote
// none, so every command was taken for the clone's first: the hint said
// again and again.
func TestCatchUpRecentChange(t *testing.T) {
	s := newSandbox(t)
	harness.BulkTaskT(t, s.dir, "T-stamp", 6)
	s.git("remote", "add", "origin", filepath.Join(t.TempDir(), "none.git"))
	packed := filepath.Join(s.gitDir(), "packed-refs")
	touch := func() {
		t.Helper()
		now := time.Now()
		if err := os.Chtimes(packed, now, now); err != nil {
			t.Fatal(err)
		}
	}
	const hint = "is not fetched here"
	touch()
	first := s.reason("log", "-n", "5")
	if first.code != 0 || !strings.Contains(first.stderr, hint) {
		t.Fatalf("a clone's first command: exit %d, want 0 and the clone hint:\n%s", first.code, first.stderr)
	}
	touch()
	if second := s.reason("log", "-n", "5"); second.code != 0 || strings.Contains(second.stderr, hint) {
		t.Errorf("the second command: exit %d, want 0 and no clone hint (said once):\n%s", second.code, second.stderr)
	}
	touch()
	if _, started := s.gitsStarted("log", "-n", "5", "--json"); len(started) != 2 {
		t.Errorf("log -n 5 --json after a recent change started %d git processes, want 2 (discovery, git config --list):\n%s", len(started), strings.Join(started, "\n"))
	}
}
