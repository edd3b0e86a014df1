package ops

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"git-reason/reliability/harness"
)

// residentSession opens a resident session on a new repository whose
// user is A, with HOME a directory of its own; it returns the session,
// HOME and the repository.
func residentSession(t *testing.T) (sess *Session, home, dir string) {
	t.Helper()
	home = t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, v := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_REASON_PROFILE", "CI"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	dir = t.TempDir()
	run(t, dir, "git", "init", "-q")
	run(t, dir, "git", "config", "user.email", "ada@example.invalid")
	run(t, dir, "git", "config", "user.name", "A")
	sess, err := Open(context.Background(), Options{Dir: dir, Resident: true})
	if err != nil {
		t.Fatal(err)
	}
	return sess, home, dir
}

// A resident session that holds a request checks the files of its
// settings and declarations once in it, at their first use: a change made
// before Hold is seen, one made while it holds is not, until Release.
func TestHeldRequestChecksFilesOnce(t *testing.T) {
	sess, home, dir := residentSession(t)
	name := func() string {
		t.Helper()
		st, err := sess.Settings()
		if err != nil {
			t.Fatal(err)
		}
		return st.Actor.Name
	}
	overlay := filepath.Join(home, "git-reason", "advisors.yaml")
	if err := os.MkdirAll(filepath.Dir(overlay), 0o755); err != nil {
		t.Fatal(err)
	}
	declare := func(id string) {
		t.Helper()
		decl := "advisors:\n  - id: " + id + "\n    transport: cli\n    adapter: exec\n    executable: " + id + "-cli\n    command: [" + id + "-cli]\n    capabilities: [reasoning]\n"
		harness.WriteFile(t, overlay, decl)
	}
	declared := func(id string) bool {
		t.Helper()
		cat, _, err := sess.Catalog()
		if err != nil {
			t.Fatal(err)
		}
		_, ok := cat.Advisor(id)
		return ok
	}
	declare("first-advisor")
	if name() != "A" || !declared("first-advisor") {
		t.Fatal("the settings or the declarations as first read are not the files'")
	}
	run(t, dir, "git", "config", "user.name", "B")
	declare("second-advisor")
	sess.Hold()
	if got := name(); got != "B" {
		t.Errorf("first use in a held request: user.name %q, want B (changed before Hold)", got)
	}
	if !declared("second-advisor") {
		t.Error("first use in a held request: second-advisor, declared before Hold, is not")
	}
	run(t, dir, "git", "config", "user.name", "C")
	declare("third-advisor")
	if got := name(); got != "B" {
		t.Errorf("second use in the held request: user.name %q, want B (read once in the request)", got)
	}
	if declared("third-advisor") {
		t.Error("second use in the held request: third-advisor, declared while it holds, is already read")
	}
	sess.Release()
	if got := name(); got != "C" {
		t.Errorf("after Release: user.name %q, want C", got)
	}
	if !declared("third-advisor") {
		t.Error("after Release: third-advisor is not declared")
	}
}

// TestDoctorLeavesOtherReadsTheirWarnings: doctor reads the status index
// without the store's skip warnings (it reports a task that does not read
// as its own broken_ref), and it did so by setting the shared store's
// OnSkip to nil for the read and back after: on a resident session (the
// MCP server, the Reasoning page), a read running beside it lost its
// warning about that task, and the race detector saw the write. Doctor
// asks a quiet index instead; the store's OnSkip is never written.
func TestDoctorLeavesOtherReadsTheirWarnings(t *testing.T) {
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := t.TempDir()
	run(t, dir, "git", "init", "-q")
	run(t, dir, "git", "config", "user.email", "ada@example.invalid")
	run(t, dir, "git", "config", "user.name", "A")
	// A task whose tree is not a task's: it never reads.
	bad := filepath.Join(dir, "bad.sh")
	harness.WriteFile(t, bad, `set -e
blob=$(echo notjson | git hash-object -w --stdin)
records=$(printf '100644 blob %s\tgarbage.json\n' "$blob" | git mktree)
root=$(printf '040000 tree %s\trecords\n' "$records" | git mktree)
git update-ref refs/reasoning/tasks/Bad "$(git commit-tree "$root" -m forged)"
`)
	run(t, dir, "sh", bad)
	for round := range 20 {
		var mu sync.Mutex
		warned := 0
		sess, err := Open(context.Background(), Options{Dir: dir, Resident: true, Warn: func(string) {
			mu.Lock()
			warned++
			mu.Unlock()
		}})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := sess.RunDoctor(context.Background()); err != nil {
				t.Error(err)
			}
		}()
		if _, _, err := sess.Index.Tasks(context.Background()); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		if warned != 1 {
			t.Fatalf("round %d: the read beside doctor warned %d times about the task that does not read, want once", round, warned)
		}
		os.RemoveAll(filepath.Join(dir, ".git", "reason")) // the next round reads afresh
	}
}
