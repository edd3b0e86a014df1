package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"git-reason/reliability/harness"
)

// TestReadmeWorkedExample runs README's worked example, the sh block
// after "## A worked example", as it is written: in a repository whose
// db/schema.sql defines the orders table, with no advisor declared. Every
// line must succeed (sh -e), the local-review answers must be admitted
// and the validation command must pass.
func TestReadmeWorkedExample(t *testing.T) {
	t.Parallel()
	data := harness.ReadFile(t, filepath.Join("..", "..", "README.md"))
	_, rest, ok := strings.Cut(string(data), "## A worked example")
	if !ok {
		t.Fatal("README has no worked example")
	}
	_, rest, ok = strings.Cut(rest, "```sh\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("README's worked example has no sh block")
	}
	s := newSandbox(t, "advisors: []\n", nil)
	if err := os.MkdirAll(filepath.Join(s.dir, "db"), 0o755); err != nil {
		t.Fatal(err)
	}
	schema := "CREATE TABLE orders (id bigint PRIMARY KEY, placed timestamptz NOT NULL);\n"
	harness.WriteFile(t, filepath.Join(s.dir, "db", "schema.sql"), schema)
	s.git("add", "db/schema.sql")
	s.git("commit", "-q", "-m", "orders schema")
	cmd := exec.Command("sh", "-e", "-c", block)
	cmd.Dir, cmd.Env = s.dir, append(s.env, "GIT_REASON_DISABLE=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("README's worked example failed: %v\n%s", err, out)
	}
	var st struct {
		Phase string `json:"phase"`
	}
	s.reasonJSON(&st, "status", "db-migration")
	if st.Phase != "validated" {
		t.Fatalf("after README's worked example the task is %q, want validated\n%s", st.Phase, out)
	}
}
