package mcpserver

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"git-reason/reliability/harness"
)

// The write tools whose arguments the writer validates (late tools) answer
// arguments that do not fit their input schema as every tool does: a
// bad_input naming the violations, with the kind's schema to recover
// with, and nothing written; also where the call would fail for another
// reason first (a task with no records, a task that is not a string).
func TestLateArgumentsAnsweredAsTheSchema(t *testing.T) {
	dir, srv, cs := served(t)
	callTool(t, cs, "assess", map[string]any{"task": "T-1", "subject": "s", "question": "q?",
		"materiality": "trivial", "reversibility": "reversible"})
	callTool(t, cs, "plan", map[string]any{"task": "T-1"})
	head := func(task string) string {
		out, err := harness.GitTry(dir, "rev-parse", "-q", "--verify", "refs/reasoning/tasks/"+task)
		if err != nil {
			return "" // no such ref
		}
		return out
	}
	before := head("T-1")
	var late []string
	for name, tl := range srv.tools {
		if tl.late {
			late = append(late, name)
		}
	}
	slices.Sort(late)
	if !slices.Contains(late, "assess") || !slices.Contains(late, "attempt") || slices.Contains(late, "validate") || slices.Contains(late, "conclude") {
		t.Fatalf("late tools %v: want assess and attempt, not validate or conclude", late)
	}
	for _, name := range late {
		for _, args := range []map[string]any{
			{"task": 7},
			{"task": "T-1", "bogus": true},
			{"task": "T-9", "bogus": 1},
		} {
			res, te := callError(t, cs, name, args)
			actions, _ := json.Marshal(te.RecoveryActions)
			want := `[{"tool":"schema","arguments":{"kind":"` + string(srv.tools[name].kind) + `"}}]`
			if !res.IsError || te.Code != CodeBadInput || !strings.HasPrefix(te.Message, "arguments of "+name+": ") || string(actions) != want {
				t.Errorf("%s %v: %+v", name, args, te)
			}
		}
	}
	if head("T-1") != before || head("T-9") != "" {
		t.Errorf("arguments that do not fit wrote a record: T-1 at %s (was %s), T-9 at %q", head("T-1"), before, head("T-9"))
	}
}
