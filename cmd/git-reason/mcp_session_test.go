package main

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// Through the binary, served from another directory with --repo: the
// capabilities prepare_session negotiates come from what the client
// declared in initialize (elicitation, roots, the tasks extension) and the
// facts it states,
// false otherwise; a stated fact wins over a declared one; and a status
// carries suggested_next_tools only while native_tool_search is false.
func TestMCPDeclaredCapabilities(t *testing.T) {
	t.Parallel()
	s := newMCPSandbox(t)
	s.assessTrivial("T-1", "s", "q?")
	elsewhere := &sandbox{t: t, dir: filepath.Dir(s.dir), env: s.env} // not a repository
	for _, c := range []struct {
		name     string
		declared map[string]any
		stated   map[string]any
		want     string // capabilities and the sources that differ from default
		suggests bool
	}{
		{"declared", map[string]any{"elicitation": map[string]any{}, "roots": map[string]any{"listChanged": true},
			"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}, map[string]any{},
			"mcp_tasks=true(initialize) workspace_binding=true(initialize) approval_or_elicitation=true(initialize)", true},
		{"stated over declared", map[string]any{"elicitation": map[string]any{}}, map[string]any{"approval_or_elicitation": false, "native_tool_search": true, "native_worktrees": true},
			"native_tool_search=true(stated) native_worktrees=true(stated) approval_or_elicitation=false(stated)", false},
		{"nothing said", map[string]any{}, map[string]any{}, "", true},
	} {
		r := startRawMCP(t, elsewhere, "--repo", s.dir)
		r.initialize(t, "host", "1", c.declared)
		var res any
		decode(t, r.call(t, "tools/call", map[string]any{"name": "prepare_session", "arguments": c.stated}), &res)
		got := ""
		for _, name := range []string{"native_tool_search", "native_subagents", "nested_subagents", "native_worktrees", "native_edit",
			"mcp_tasks", "dynamic_tool_list", "workspace_binding", "approval_or_elicitation"} {
			v, src := jget(res, "structuredContent.capabilities."+name), jstr(res, "structuredContent.sources."+name)
			if v == true || src != "default" {
				if got != "" {
					got += " "
				}
				got += name + "=" + compact(v) + "(" + src + ")"
			}
		}
		if got != c.want {
			t.Errorf("%s: negotiated %q, want %q", c.name, got, c.want)
		}
		decode(t, r.call(t, "tools/call", map[string]any{"name": "status", "arguments": map[string]any{"task": "T-1"}}), &res)
		wantEq(t, c.name, "phase", jstr(res, "structuredContent.phase"), "assessed")
		suggested := compact(jget(res, "structuredContent.suggested_next_tools"))
		if want := `[{"arguments":{"task":"T-1"},"tool":"plan"}]`; c.suggests && suggested != want {
			t.Errorf("%s: suggested_next_tools %s, want %s", c.name, suggested, want)
		} else if !c.suggests && suggested != "null" {
			t.Errorf("%s: suggested_next_tools %s for a host with native tool search", c.name, suggested)
		}
	}
}

func decode(t *testing.T, raw []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, raw)
	}
}
