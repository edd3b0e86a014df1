package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestForgedHistoryWebAndMCP reads the forgery of forged_surfaces.txtar
// (a conclusion claiming three reviews, a consultation no plan selected,
// fetched by hand into refs/reasoning/tasks/*) through the surfaces a
// script cannot reach: the MCP server's status and report tools, its show
// tool and its task resource, and the Reasoning page of each task. Each
// shows the figures replay recomputes and says the history does not
// verify.
func TestForgedHistoryWebAndMCP(t *testing.T) {
	t.Parallel()
	ar, err := txtar.ParseFile(filepath.Join("testdata", "script", "forged_surfaces.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	var forge string
	for _, f := range ar.Files {
		if f.Name == "forge.sh" {
			forge = string(f.Data)
		}
	}
	if forge == "" {
		t.Fatal("forged_surfaces.txtar has no forge.sh")
	}
	s := newSandbox(t, "advisors: []\n", nil)
	s.git("commit", "-q", "--allow-empty", "-m", "initial commit")
	s.reason("assess", "T", "--subject", "Session store", "--question", "Sticky sessions or a shared store?",
		"--materiality", "material", "--reversibility", "costly", "--evidence", "file:web/session.go:sessions are in memory")
	s.reason("plan", "T")
	s.reason("conclude", "T", "--decision", "A shared store", "--local-review", "1=sticky sessions",
		"--local-review", "2=load test", "--local-review", "3=store outage", "--local-review", "4=switch back")
	s.reason("assess", "U", "--subject", "Queue choice", "--question", "Which queue?",
		"--materiality", "material", "--reversibility", "costly", "--evidence", "note::two candidates")
	s.reason("plan", "U")

	attacker := &sandbox{t: t, dir: filepath.Join(filepath.Dir(s.dir), "attacker"), env: s.env}
	s.git("clone", "-q", "--no-local", s.dir, attacker.dir)
	attacker.git("fetch", "-q", "origin", "refs/reasoning/*:refs/reasoning/*")
	script := filepath.Join(filepath.Dir(s.dir), "forge.sh")
	if err := os.WriteFile(script, []byte(forge), 0o755); err != nil {
		t.Fatal(err)
	}
	out, errs, code := attacker.run("-c", "alias.forge=!sh "+script, "forge")
	if code != 0 {
		t.Fatalf("forge: exit %d\n%s%s", code, out, errs)
	}
	s.git("fetch", "-q", attacker.dir, "+refs/reasoning/tasks/*:refs/reasoning/tasks/*")

	// MCP: the status tool (with its report) and the task resource.
	r := startRawMCP(t, s)
	r.initialize(t, "forged-test", "1", declaredCaps)
	for _, c := range []struct{ task, code, phase string }{{"T", "derived", "concluded"}, {"U", "inadmissible", "planned"}} {
		res := decodeJSON(t, r.call(t, "tools/call", map[string]any{"name": "status",
			"arguments": map[string]any{"task": c.task, "report": true}}))
		wantOK(t, "status "+c.task, res)
		wantEq(t, "status "+c.task, "review_count", compact(jget(res, "structuredContent.review_count")), "0")
		wantEq(t, "status "+c.task, "phase", jstr(res, "structuredContent.phase"), c.phase)
		wantEq(t, "status "+c.task, "does_not_verify.code", jstr(res, "structuredContent.does_not_verify.code"), c.code)
		// next is the command line's command; next_tools the call that takes it.
		wantEq(t, "status "+c.task, "next", jstr(res, "structuredContent.next"), "git reason verify "+c.task)
		wantEq(t, "status "+c.task, "next_tools", compact(jget(res, "structuredContent.next_tools")), `[{"arguments":{"tasks":["`+c.task+`"]},"tool":"verify"}]`)
		if text := compact(jget(res, "content")); !strings.Contains(text, "does not verify: "+c.code) || !strings.Contains(text, "review count 0") {
			t.Errorf("status %s: text %s", c.task, text)
		}
		report := jstr(res, "structuredContent.report")
		if !strings.Contains(report, "does not verify: "+c.code) || !strings.Contains(report, "review count: 0") {
			t.Errorf("status %s: report %s", c.task, report)
		}
		// The task's latest record, shown: the show tool's answer says the
		// task does not verify, as 'git reason show --json' does.
		res = decodeJSON(t, r.call(t, "tools/call", map[string]any{"name": "log", "arguments": map[string]any{"task": c.task}}))
		entries, _ := jget(res, "structuredContent.entries").([]any)
		if len(entries) == 0 {
			t.Fatalf("log %s: %s", c.task, compact(res))
		}
		id := jstr(entries[len(entries)-1], "id")
		var cli map[string]any
		s.reasonJSON(&cli, "show", id)
		res = decodeJSON(t, r.call(t, "tools/call", map[string]any{"name": "show", "arguments": map[string]any{"id": id}}))
		wantOK(t, "show "+id, res)
		wantEq(t, "show "+id, "does_not_verify.code", jstr(res, "structuredContent.does_not_verify.code"), jstr(cli, "does_not_verify.code"))
		wantEq(t, "git reason show "+id, "does_not_verify.code", jstr(cli, "does_not_verify.code"), c.code)
		res = decodeJSON(t, r.call(t, "resources/read", map[string]any{"uri": "reason://task/" + c.task}))
		if text := compact(res); !strings.Contains(text, "does not verify: "+c.code) || strings.Contains(text, "review count: 3") {
			t.Errorf("resource of %s: %s", c.task, text)
		}
		// The report, as the resource and as the status tool gives it,
		// names the verify tool, not the command line's command.
		verifyTool := `see the verify tool (tasks: ["` + c.task + `"])`
		for what, rep := range map[string]string{"resource": jstr(res, "contents.0.text"), "status' report": report} {
			if !strings.Contains(rep, verifyTool) || strings.Contains(rep, "git reason verify") {
				t.Errorf("%s of %s does not name the verify tool: %s", what, c.task, rep)
			}
		}
	}
	// Every read tool, with the arguments that take other paths (the
	// newest first, the search index, a kind): none repeats the claim.
	for _, call := range []map[string]any{
		{"name": "status", "arguments": map[string]any{}},
		{"name": "log", "arguments": map[string]any{}},
		{"name": "log", "arguments": map[string]any{"max": 5}},
		{"name": "log", "arguments": map[string]any{"kind": "conclusion"}},
		{"name": "tasks", "arguments": map[string]any{}},
		{"name": "handover", "arguments": map[string]any{}},
		{"name": "search", "arguments": map[string]any{"text": "store"}},
	} {
		res := decodeJSON(t, r.call(t, "tools/call", call))
		wantOK(t, call["name"].(string), res)
		if text := compact(res); strings.Contains(text, "reviews: 3") || strings.Contains(text, `"review_count":3`) || strings.Contains(text, "review count: 3") {
			t.Errorf("%s %v repeats the claim: %s", call["name"], call["arguments"], text)
		}
		// Where to read why is the verify tool, not the command line's
		// command, which a client cannot type.
		if text := jstr(res, "content.0.text"); !strings.Contains(text, "; see the verify tool ") ||
			strings.Contains(text, "git reason verify") {
			t.Errorf("%s %v does not name the verify tool: %s", call["name"], call["arguments"], text)
		}
	}
	// A write on top of the history is refused, naming the verify tool too.
	res := decodeJSON(t, r.call(t, "tools/call", map[string]any{"name": "withdraw",
		"arguments": map[string]any{"task": "U", "record": jstr(decodeJSON(t, r.call(t, "tools/call", map[string]any{"name": "log", "arguments": map[string]any{"task": "U"}})), "structuredContent.entries.0.id"), "reason": "r"}}))
	if msg := jstr(res, "structuredContent.message"); !strings.Contains(msg, `see the verify tool (tasks: ["U"]): nothing is written`) {
		t.Errorf("a write on top of U is refused with %q", msg)
	}
	// search, and log with a pattern, read the search index: recomputed
	// and said not to verify too.
	for _, call := range []map[string]any{
		{"name": "search", "arguments": map[string]any{"text": "shared store"}},
		{"name": "log", "arguments": map[string]any{"grep": "shared store"}},
	} {
		res := decodeJSON(t, r.call(t, "tools/call", call))
		wantOK(t, call["name"].(string), res)
		if text := compact(res); !strings.Contains(text, "T: does not verify: derived") || !strings.Contains(text, `"does_not_verify"`) ||
			!strings.Contains(text, "A shared store (reviews: 0)") || strings.Contains(text, "reviews: 3") {
			t.Errorf("%s: %s", call["name"], text)
		}
	}
	res = decodeJSON(t, r.call(t, "tools/call", map[string]any{"name": "status", "arguments": map[string]any{}}))
	if text := compact(res); strings.Count(text, "does not verify") < 2 || strings.Count(text, `"does_not_verify"`) < 2 || strings.Contains(text, `"review_count":3`) {
		t.Errorf("status of every task: %s", text)
	}
	// doctor's finding of each names the verify tool, in its message and
	// as the call that takes its fix (fix_tools).
	res = decodeJSON(t, r.call(t, "tools/call", map[string]any{"name": "doctor", "arguments": map[string]any{}}))
	found := 0
	for _, f := range jget(res, "structuredContent.findings").([]any) {
		if jstr(f, "code") != "does_not_verify" {
			continue
		}
		found++
		task := jstr(f, "subject")
		wantEq(t, "doctor's finding of "+task, "fix_tools", compact(jget(f, "fix_tools")), `[{"arguments":{"tasks":["`+task+`"]},"tool":"verify"}]`)
		if msg := jstr(f, "message"); !strings.Contains(msg, `see the verify tool (tasks: ["`+task+`"])`) || strings.Contains(msg, "git reason verify") {
			t.Errorf("doctor's finding of %s: %q", task, msg)
		}
	}
	if found != 2 {
		t.Errorf("doctor found %d tasks that do not verify, want 2: %s", found, compact(res))
	}

	// The Reasoning page of each task.
	start, base := startWeb(t, s)
	c := webClient()
	list := getPage(t, c, start)
	for task, code := range map[string]string{"T": "derived", "U": "inadmissible"} {
		// The list marks it, the reason on hover.
		if !strings.Contains(list, `href="/task/`+task+`"`) || !strings.Contains(list, `<span class="phase phase-unverified" title="does not verify: `+code) {
			t.Errorf("the task list does not mark %s as not verifying (%s)", task, code)
		}
		page := getPage(t, c, base+"/task/"+task)
		for _, want := range []string{"does not verify: " + code, "<dt>Review count</dt><dd>0</dd>"} {
			if !strings.Contains(page, want) {
				t.Errorf("page of %s lacks %q", task, want)
			}
		}
		if strings.Contains(page, "<dt>Review count</dt><dd>3</dd>") || strings.Contains(page, "phase-consulting") {
			t.Errorf("page of %s repeats a forged claim", task)
		}
	}
}

// decodeJSON decodes a result as runSequence does.
func decodeJSON(t *testing.T, raw []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("result is not JSON: %v\n%s", err, raw)
	}
	return v
}
