package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
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
	cs := connect(t, answeringAdvisors(t), nil)
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

// answeringAdvisors makes a repository where the user's two advisors
// (userAdvisors) are the only ones, each answering endorse.
func answeringAdvisors(t *testing.T) string {
	t.Helper()
	dir := newRepo(t)
	t.Setenv("GIT_REASON_DISABLE", strings.Join(userAdvisors(t), ","))
	fake, err := exec.LookPath("fake-advisor")
	if err != nil {
		t.Fatal(err)
	}
	harness.WriteFile(t, fake, "#!/bin/sh\ncat >/dev/null\necho '{\"stance\":\"endorse\",\"summary\":\"fine\",\"confidence\":0.5}'\n")
	return dir
}

// consult answers what 'git reason consult --json' prints: that it
// planned first, and what was sent to each advisor asked (the question's
// size and digest), which its answer left out, and says in its text that
// it planned first.
func TestConsultAnswersAsTheCommandLinePrints(t *testing.T) {
	cs := connect(t, answeringAdvisors(t), nil)
	callTool(t, cs, "assess", map[string]any{"task": "T", "subject": "s", "question": "q?", "materiality": "critical",
		"reversibility": "costly", "evidence": []any{map[string]any{"kind": "note", "summary": "n"}}})
	res, out := callTool(t, cs, "consult", map[string]any{"task": "T"})
	if out["planned"] != true {
		t.Errorf("consult planned first, but its answer does not say so: %v", out)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.HasPrefix(text, "the assessment had no plan: planned first (plan ") {
		t.Errorf("consult's text does not say it planned first: %q", text)
	}
	questions, _ := out["questions"].([]any)
	var asked []string
	for _, q := range questions {
		if sum, _ := q.(map[string]any)["sha256"].(string); len(sum) == 64 {
			asked = append(asked, q.(map[string]any)["advisor"].(string))
		}
	}
	if strings.Join(asked, ",") != "adv-a,adv-b" {
		t.Errorf("consult asked adv-a and adv-b, its questions say %v", questions)
	}
}

// consult of a plan that selected no advisor says the local review is the
// review, as 'git reason consult' does: it said "0 advisors asked, 0
// skipped".
func TestConsultSaysTheLocalReviewIsTheReview(t *testing.T) {
	cs := connect(t, newRepo(t), nil)
	callTool(t, cs, "assess", map[string]any{"task": "T", "subject": "s", "question": "q?", "materiality": "material",
		"reversibility": "costly", "evidence": []any{map[string]any{"kind": "note", "summary": "n"}}})
	_, plan := callTool(t, cs, "plan", map[string]any{"task": "T"})
	items, _ := plan["derived"].(map[string]any)["local_review"].([]any)
	res, _ := callTool(t, cs, "consult", map[string]any{"task": "T"})
	want := fmt.Sprintf("plan %s selected no advisor: the local review is the review; answer its %d items in conclude's local_review", plan["id"].(string)[:10], len(items))
	if text := res.Content[0].(*mcp.TextContent).Text; text != want || len(items) == 0 {
		t.Errorf("consult says %q, want %q", text, want)
	}
}
