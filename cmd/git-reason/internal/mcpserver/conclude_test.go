package mcpserver

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"git-reason/reliability/harness"
)

// A conclusion of a plan that asked advisors answers no local review: the
// plan has no checklist, and the command line's --local-review refuses an
// item of none. The conclude tool passed such an answer to the writer,
// which reads local_review only for a plan without advisors, so the
// conclusion was stored, and reported, with an answer to no checklist.
func TestConcludeRefusesALocalReviewWhereAdvisorsWereAsked(t *testing.T) {
	dir := newRepo(t)
	t.Setenv("GIT_REASON_DISABLE", strings.Join(userAdvisors(t), ","))
	fake, err := exec.LookPath("fake-advisor")
	if err != nil {
		t.Fatal(err)
	}
	harness.WriteFile(t, fake, "#!/bin/sh\ncat >/dev/null\necho '{\"stance\":\"endorse\",\"summary\":\"fine\",\"confidence\":0.5}'\n")
	cs := connect(t, dir, nil)
	callTool(t, cs, "assess", map[string]any{"task": "T", "subject": "s", "question": "q?", "materiality": "critical",
		"reversibility": "costly", "evidence": []any{map[string]any{"kind": "note", "summary": "n"}}})
	callTool(t, cs, "plan", map[string]any{"task": "T"})
	_, out := callTool(t, cs, "consult", map[string]any{"task": "T"})
	weighed := []any{}
	for _, r := range out["results"].([]any) {
		weighed = append(weighed, map[string]any{"consultation": r.(map[string]any)["record"], "treatment": "adopted", "reason": "r"})
	}
	if len(weighed) != 2 {
		t.Fatalf("consult: %v", out)
	}
	args := map[string]any{"task": "T", "decision": "d", "weighed": weighed,
		"local_review": []any{map[string]any{"item": "x", "answer": "y"}}}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "conclude", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if !res.IsError || !strings.Contains(string(raw), `"code":"bad_input"`) || !strings.Contains(string(raw), `local_review: \"x\" is not an item of the plan's checklist`) {
		t.Fatalf("conclude with a local review of a plan that asked advisors: %s", raw)
	}
	delete(args, "local_review")
	callTool(t, cs, "conclude", args)
}
