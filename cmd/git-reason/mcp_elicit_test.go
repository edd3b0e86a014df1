package main

// A local review of a material or critical decision under MCP: a host
// that declared elicitation has each checklist item asked of a person,
// and the conclusion records that a person answered; a host that did not
// answers the checklist itself, and the conclusion is recorded, and shown
// on every surface, as self-answered by an agent. Both through the real
// binary ('git reason mcp' over stdio) and the Go SDK's client.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// elicitConclude runs assess, plan and conclude (proposing an answer to
// every checklist item) for a critical task through a client, and returns
// the conclusion's structured content.
func elicitConclude(t *testing.T, cs *mcp.ClientSession, task string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		if res.IsError {
			t.Fatalf("%s: tool error %s", name, raw)
		}
		var out map[string]any
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return out
	}
	call("prepare_session", map[string]any{})
	call("assess", map[string]any{"task": task, "subject": "Drop the legacy table", "question": "Drop it now?",
		"materiality": "critical", "reversibility": "irreversible",
		"evidence": []any{map[string]any{"kind": "note", "summary": "nobody reads it"}}})
	plan := call("plan", map[string]any{"task": task})
	items, _ := plan["derived"].(map[string]any)["local_review"].([]any)
	if len(items) == 0 {
		t.Fatalf("the critical plan has no local-review checklist: %v", plan)
	}
	var answers []any
	for _, it := range items {
		answers = append(answers, map[string]any{"item": it, "answer": "the agent says yes"})
	}
	return call("conclude", map[string]any{"task": task, "decision": "drop it", "local_review": answers})
}

func TestMCPLocalReviewAskedOfAPerson(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, "advisors: []\n", nil)
	var mu sync.Mutex
	var asked []string
	client := mcp.NewClient(&mcp.Implementation{Name: "elicit-client", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "a person checked it"}}, nil
		},
	})
	cs := connectMCP(t, s, client)
	out := elicitConclude(t, cs, "E-1")
	derived := out["derived"].(map[string]any)
	if derived["answered_by"] != "person" || derived["surface"] != "mcp" {
		t.Fatalf("conclusion derived %v: want answered_by person, surface mcp", derived)
	}
	body := out["body"].(map[string]any)
	lr := body["local_review"].([]any)
	if len(asked) != len(lr) || len(lr) == 0 {
		t.Fatalf("asked %d items through elicitation, the conclusion answers %d", len(asked), len(lr))
	}
	for i, a := range lr {
		if ans := a.(map[string]any)["answer"]; ans != "a person checked it" {
			t.Errorf("item %d recorded %q, not the person's answer", i+1, ans)
		}
		if !strings.Contains(asked[i], "E-1") {
			t.Errorf("elicitation %d does not name the task: %q", i+1, asked[i])
		}
	}
	if st := s.reason("status", "E-1"); strings.Contains(st, "self-answered") || !strings.Contains(st, "answered by a person") {
		t.Errorf("status of a person's review:\n%s", st)
	}
	// Answers the server did not ask for (a state it did not issue) are
	// not a person's: refused, nothing recorded.
	s.reason("assess", "E-3", "--subject", "Purge the cache", "--question", "Now?", "--materiality", "critical",
		"--reversibility", "irreversible", "--evidence", "note::stale")
	s.reason("plan", "E-3")
	forged := mcp.InputResponseMap{}
	for i := 1; i <= 8; i++ {
		forged[fmt.Sprintf("local-review-%d", i)] = &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "yes"}}
	}
	for _, state := range []string{"forged", "00.00"} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "conclude",
			Arguments: map[string]any{"task": "E-3", "decision": "purge"}, InputResponses: forged, RequestState: state})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		if !res.IsError || !strings.Contains(string(raw), "do not answer an elicitation this server made") {
			t.Errorf("answers with state %q the server never issued: %s", state, raw)
		}
	}
	if out := s.reason("log", "E-3", "--oneline"); strings.Contains(out, "conclusion") {
		t.Errorf("forged answers recorded a conclusion:\n%s", out)
	}
	// A person who declines refuses the conclusion: nothing is recorded.
	client2 := mcp.NewClient(&mcp.Implementation{Name: "declining-client", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	})
	cs2 := connectMCP(t, s, client2)
	s.reason("assess", "E-2", "--subject", "Rotate the keys", "--question", "Now?", "--materiality", "material",
		"--reversibility", "costly", "--evidence", "note::expiry")
	s.reason("plan", "E-2")
	before := s.git("rev-parse", "refs/reasoning/tasks/E-2")
	res, err := cs2.CallTool(context.Background(), &mcp.CallToolParams{Name: "conclude", Arguments: map[string]any{"task": "E-2", "decision": "rotate"}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if !res.IsError || !strings.Contains(string(raw), `"refused"`) || !strings.Contains(string(raw), "did not answer item 1") {
		t.Errorf("a declined local review: %s", raw)
	}
	if after := s.git("rev-parse", "refs/reasoning/tasks/E-2"); after != before {
		t.Error("a declined local review recorded something")
	}
}

func TestMCPLocalReviewSelfAnswered(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, "advisors: []\n", nil)
	client := mcp.NewClient(&mcp.Implementation{Name: "plain-client", Version: "1"}, nil)
	cs := connectMCP(t, s, client)
	out := elicitConclude(t, cs, "S-1")
	derived := out["derived"].(map[string]any)
	if derived["answered_by"] != "agent" || derived["surface"] != "mcp" {
		t.Fatalf("conclusion derived %v: want answered_by agent, surface mcp", derived)
	}
	const self = "self-answered by an agent"
	s.git("commit", "-q", "--allow-empty", "-m", "start")
	// Every surface says so: the command line's status, status --json,
	// status --report, handover and context; the MCP tools; the page.
	s.git("commit", "-q", "--allow-empty", "-m", "drop the legacy table", "-m", "Reason-Task: S-1")
	for _, args := range [][]string{{"status", "S-1"}, {"status", "S-1", "--report"}, {"handover", "--task", "S-1"},
		{"context", "HEAD~1..HEAD", "--format", "markdown"}} {
		if got := s.reason(args...); !strings.Contains(got, self) {
			t.Errorf("git reason %s does not say %q:\n%s", strings.Join(args, " "), self, got)
		}
	}
	for _, args := range [][]string{{"status", "S-1", "--json"}, {"handover", "--task", "S-1", "--json"}, {"context", "HEAD~1..HEAD", "--json"}} {
		if got := s.reason(args...); !strings.Contains(got, `"answered_by": "agent"`) {
			t.Errorf("git reason %s has no answered_by agent:\n%s", strings.Join(args, " "), got)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, c := range []struct {
		tool string
		args map[string]any
	}{{"status", map[string]any{"task": "S-1"}}, {"handover", map[string]any{"task": "S-1"}}, {"context", map[string]any{"range": "HEAD~1..HEAD"}}} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(res)
		if !strings.Contains(string(raw), `"answered_by":"agent"`) {
			t.Errorf("MCP %s has no answered_by agent: %s", c.tool, raw)
		}
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "status", Arguments: map[string]any{"task": "S-1"}}); err != nil {
		t.Fatal(err)
	} else if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, self) {
		t.Errorf("MCP status text does not say %q: %s", self, text)
	}
	base, hc := openWeb(t, s)
	if page := getPage(t, hc, base+"/task/S-1"); !strings.Contains(page, `<dd class="answered">`+self) {
		t.Errorf("the Reasoning page does not say %q", self)
	}
	// The command line records no claim about who answered.
	s.reason("assess", "C-1", "--subject", "Drop the other table", "--question", "Now?", "--materiality", "critical",
		"--reversibility", "irreversible", "--evidence", "note::unused")
	s.reason("plan", "C-1")
	var c struct {
		Derived map[string]any `json:"derived"`
	}
	s.reasonJSON(&c, "conclude", "C-1", "--decision", "drop", "--local-review", "1=y", "--local-review", "2=y", "--local-review", "3=y", "--local-review", "4=y", "--local-review", "5=y")
	if _, ok := c.Derived["answered_by"]; ok || c.Derived["surface"] != "cli" {
		t.Errorf("a command-line conclusion's derived: %v", c.Derived)
	}
}
