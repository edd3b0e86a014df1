package main

import (
	"strings"
	"testing"
)

// The long-running servers integrate what a plain git fetch brought, as
// the command line does before each command: the MCP server before each
// tool call, the Reasoning page before each request. Clone a pushes a
// task with plain git; clone b, whose MCP server and page were started
// before, runs a plain git fetch; the next tool call and the next page
// show the task, its ref integrated, and the server says so on stderr.
func TestLongRunningServersCatchUp(t *testing.T) {
	t.Parallel()
	a := newMCPSandbox(t)
	b := newMCPSandbox(t)
	shareOrigin(t, a, b)
	for _, s := range []*sandbox{a, b} {
		s.reason("remote", "setup", "origin") // git fetch brings reasoning
	}
	mcp := startHostMCP(t, b)
	start, base := startWeb(t, b)
	c := webClient()
	if list := getPage(t, c, start); strings.Contains(list, "/task/T-9") {
		t.Fatalf("the page lists T-9 before it was fetched:\n%s", list)
	}

	// pushed writes task on a and pushes it with plain git, then b
	// fetches it with plain git.
	pushed := func(task string) {
		a.assessTrivial(task, "Subject of "+task, "q?")
		a.git("push", "-q", "--no-verify", "origin", "refs/reasoning/tasks/"+task)
		b.git("fetch", "-q", "origin")
		if _, _, code := b.run("rev-parse", "-q", "--verify", "refs/reasoning/tasks/"+task); code == 0 {
			t.Fatalf("git fetch alone integrated %s", task)
		}
	}
	integrated := func(task string) {
		t.Helper()
		want := strings.TrimSpace(a.git("rev-parse", "refs/reasoning/tasks/"+task))
		if got := strings.TrimSpace(b.git("rev-parse", "refs/reasoning/tasks/"+task)); got != want {
			t.Errorf("%s is at %s in b, want %s", task, got, want)
		}
	}

	// The MCP server: the next tool call sees T-9.
	pushed("T-9")
	var res any
	decode(t, mcp.call(t, "tools/call", map[string]any{"name": "status", "arguments": map[string]any{"task": "T-9"}}), &res)
	wantEq(t, "MCP status after a git fetch", "phase", jstr(res, "structuredContent.phase"), "assessed")
	integrated("T-9")
	if !strings.Contains(mcp.stderr.String(), "integrated reasoning fetched from origin: T-9 created") {
		t.Errorf("the MCP server did not say what it integrated; stderr:\n%s", mcp.stderr)
	}

	// The page: the next request sees T-10 (the MCP server, asked
	// nothing since, has not integrated it).
	pushed("T-10")
	list := getPage(t, c, base+"/")
	if !strings.Contains(list, `href="/task/T-10"`) || !strings.Contains(list, "Subject of T-10") {
		t.Errorf("after a git fetch the task list lacks T-10:\n%s", list)
	}
	integrated("T-10")
	if p := getPage(t, c, base+"/task/T-10"); !strings.Contains(p, "Subject of T-10") {
		t.Errorf("the page of T-10 lacks its subject:\n%s", p)
	}
}
