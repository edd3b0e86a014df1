package ops

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"git-reason/reliability/harness"
)

// A resident session that holds a request checks the files of its
// settings and declarations once in it, at their first use: a change made
// before Hold is seen, one made while it holds is not, until Release.
func TestHeldRequestChecksFilesOnce(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, v := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_REASON_PROFILE", "CI"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	dir := t.TempDir()
	run(t, dir, "git", "init", "-q")
	run(t, dir, "git", "config", "user.email", "ada@example.invalid")
	run(t, dir, "git", "config", "user.name", "A")
	sess, err := Open(context.Background(), Options{Dir: dir, Resident: true})
	if err != nil {
		t.Fatal(err)
	}
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
