package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"git-reason/advisor"
	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/reliability/harness"
)

// A plan made through MCP says, as the command line does, when the
// repository's (trusted) declarations lowered its review: here profile
// default made mode ci, so a critical plan asks none of the user's two
// advisors.
func TestPlanSaysRepositoryLowered(t *testing.T) {
	dir := newRepo(t)
	t.Setenv("GIT_REASON_DISABLE", strings.Join(userAdvisors(t), ","))
	write := func(path, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		harness.WriteFile(t, path, body)
	}
	write(advisor.RepositoryOverlayPath(dir), "profiles:\n  - id: default\n    mode: ci\n")
	ctx := context.Background()
	sess, err := ops.Open(ctx, ops.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.Trust(ops.TrustRequest{}); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, dir, nil)
	call := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		return res
	}
	call("assess", map[string]any{"task": "T", "subject": "Drop the legacy table", "question": "Now?",
		"materiality": "critical", "reversibility": "irreversible",
		"evidence": []any{map[string]any{"kind": "note", "summary": "it is unused"}}})
	res := call("plan", map[string]any{"task": "T"})
	var out struct {
		Lowered *ops.Lowered `json:"lowered"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	if out.Lowered == nil || len(out.Lowered.Selected) != 0 || strings.Join(out.Lowered.Without, ",") != "adv-a,adv-b" {
		t.Fatalf("plan's lowered = %+v, want none selected where adv-a and adv-b would be (%s)", out.Lowered, raw)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	// Said as the person's step: the command line's notice, whose
	// advice is a command no tool runs.
	said, ok := strings.CutSuffix(out.Lowered.Notice, "see 'git reason trust --show'")
	if !ok || !strings.HasPrefix(said, "review lowered by ") ||
		!strings.Contains(text, "\n"+said+"the person sees why with 'git reason trust --show' (no tool reviews trust)") {
		t.Errorf("the text does not carry the notice line, said as the person's step: %q", text)
	}

	// The server keeps the declarations without the repository's from
	// one plan to the next, until a file they came from changes: the
	// user declares adv-c in place of adv-a, and the next plan is
	// compared with the declarations as they are now.
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "git-reason", "advisors.yaml")
	data := harness.ReadFile(t, user)
	write(user, strings.ReplaceAll(string(data), "adv-a", "adv-c"))
	call("assess", map[string]any{"task": "T2", "subject": "Drop the audit table", "question": "Now?",
		"materiality": "critical", "reversibility": "irreversible",
		"evidence": []any{map[string]any{"kind": "note", "summary": "it is unused"}}})
	raw, _ = json.Marshal(call("plan", map[string]any{"task": "T2"}).StructuredContent)
	out.Lowered = nil
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	if out.Lowered == nil || strings.Join(out.Lowered.Without, ",") != "adv-c,adv-b" {
		t.Fatalf("after adv-c was declared in place of adv-a, the plan's lowered = %+v, want adv-c and adv-b without the repository's declarations (%s)", out.Lowered, raw)
	}
}

// userAdvisors declares adv-a and adv-b in the user's overlay, two exec
// advisors of capability reasoning whose executable (fake-advisor, put on
// PATH) answers nothing, and returns the ids of the shipped advisors, for
// the test to disable.
func userAdvisors(t *testing.T) []string {
	t.Helper()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "fake-advisor"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "git-reason", "advisors.yaml")
	if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user, []byte(`advisors:
  - {id: adv-a, transport: cli, adapter: exec, executable: fake-advisor, command: [fake-advisor], capabilities: [reasoning]}
  - {id: adv-b, transport: cli, adapter: exec, executable: fake-advisor, command: [fake-advisor], capabilities: [reasoning]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	shipped, _, err := advisor.Load(advisor.Sources{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range shipped.Advisors {
		ids = append(ids, d.ID)
	}
	return ids
}
