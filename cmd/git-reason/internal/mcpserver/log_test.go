package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The log tool takes log's filters (kind, author, grep with ignore_case,
// since, until and max) and answers as 'git reason log' does: the entries
// every filter accepts, oldest first, the newest max of them. A pattern
// that does not compile is bad input naming the argument.
func TestLogFilters(t *testing.T) {
	cs := connect(t, newRepo(t), nil)
	assess := func(task, subject string) {
		callTool(t, cs, "assess", map[string]any{"task": task, "subject": subject, "question": "q?", "materiality": "trivial", "reversibility": "reversible"})
	}
	assess("T-1", "Cache eviction")
	callTool(t, cs, "plan", map[string]any{"task": "T-1"})
	assess("T-2", "Retry budget")
	all := []string{"T-1 assessment", "T-1 plan", "T-2 assessment"}
	for _, c := range []struct {
		args map[string]any
		want []string
	}{
		{nil, all},
		{map[string]any{"kind": "plan"}, []string{"T-1 plan"}},
		{map[string]any{"max": 1}, []string{"T-2 assessment"}},
		{map[string]any{"max": 2, "kind": "assessment"}, []string{"T-1 assessment", "T-2 assessment"}},
		{map[string]any{"task": "T-1", "max": 1}, []string{"T-1 plan"}},
		{map[string]any{"grep": "cache"}, nil},
		{map[string]any{"grep": "cache", "ignore_case": true}, []string{"T-1 assessment"}},
		{map[string]any{"grep": "Retry|Cache", "max": 1}, []string{"T-2 assessment"}},
		{map[string]any{"author": "^Ada Tester <ada@example\\.invalid>$"}, all},
		{map[string]any{"author": "ada tester"}, nil},
		{map[string]any{"author": "ada tester", "ignore_case": true, "kind": "plan"}, []string{"T-1 plan"}},
		{map[string]any{"since": "1 hour ago"}, all},
		{map[string]any{"since": "2d", "until": "1d"}, nil},
		{map[string]any{"until": "2000-01-01"}, nil},
	} {
		res, out := callTool(t, cs, "log", c.args)
		var got []string
		raw, _ := json.Marshal(out["entries"])
		var entries []struct{ Task, Kind string }
		if err := json.Unmarshal(raw, &entries); err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			got = append(got, e.Task+" "+e.Kind)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("log %v: %q, want %q", c.args, got, c.want)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if len(c.want) == 0 && text != "no record matches" {
			t.Errorf("log %v says %q, want %q", c.args, text, "no record matches")
		}
		if len(c.want) > 0 && strings.Count(text, "\n")+1 != len(c.want) {
			t.Errorf("log %v says %q: not one line an entry", c.args, text)
		}
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"author": "("}, `author "(": not a regular expression`},
		{map[string]any{"grep": "[", "ignore_case": true}, `grep "[": not a regular expression`},
		{map[string]any{"since": "not a date at all"}, `since "not a date at all": not a date`},
		{map[string]any{"max": 0}, "max"},
		{map[string]any{"kind": "novel"}, "kind"},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "log", Arguments: c.args})
		if err != nil || !res.IsError {
			t.Errorf("log %v: %v %+v, want a tool error", c.args, err, res)
			continue
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var te struct{ Code, Message string }
		if err := json.Unmarshal(raw, &te); err != nil {
			t.Fatal(err)
		}
		if te.Code != "bad_input" || !strings.Contains(te.Message, c.want) {
			t.Errorf("log %v: %s %q, want bad_input saying %q", c.args, te.Code, te.Message, c.want)
		}
	}
}
