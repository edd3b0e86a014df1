package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"git-reason/advisor"
	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/policy/neutrality"
	"git-reason/record"
	"git-reason/reliability/harness"
	"git-reason/schemas"
)

// NewRepo is newRepo for the package's external tests (bench_test.go).
var NewRepo = newRepo

// newRepo makes an empty repository with an identity and no user overlay.
func newRepo(t testing.TB) string {
	t.Helper()
	harness.NeedGit(t)
	dir := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("CI", "") // CI=true would choose the ci profile, which asks no advisor
	for _, args := range [][]string{{"init", "-q"}, {"config", "user.name", "Ada Tester"}, {"config", "user.email", "ada@example.invalid"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// connect starts a server on dir and returns a client session to it, over
// the SDK's in-memory transport.
func connect(t *testing.T, dir string, caps *mcp.ClientCapabilities) *mcp.ClientSession {
	t.Helper()
	return sessionTo(t, serverOn(t, dir), &mcp.Implementation{Name: "test-client", Version: "1"}, caps)
}

// served starts a server on a new repository and returns the
// repository, the server and a client session to it (connect's).
func served(t *testing.T) (string, *Server, *mcp.ClientSession) {
	t.Helper()
	dir := newRepo(t)
	srv := serverOn(t, dir)
	return dir, srv, sessionTo(t, srv, &mcp.Implementation{Name: "test-client", Version: "1"}, nil)
}

// serverOn starts a server on dir.
func serverOn(t testing.TB, dir string) *Server {
	t.Helper()
	srv, err := New(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// sessionTo serves srv (Run, as 'git reason mcp' does) over the SDK's
// in-memory transport to a client that names itself impl and declares
// caps, and returns the client's session, closed when the test ends.
func sessionTo(t *testing.T, srv *Server, impl *mcp.Implementation, caps *mcp.ClientCapabilities) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan struct{})
	go func() { _ = srv.Run(ctx, st); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	cs, err := mcp.NewClient(impl, &mcp.ClientOptions{Capabilities: caps}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callTool calls a tool that must succeed and returns its result and
// its structured content.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %+v", name, err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return res, out
}

// callError calls a tool that may fail and returns its result and the
// tool error its structured content holds (zero when it did not fail).
func callError(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, ToolError) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var te ToolError
	_ = json.Unmarshal(raw, &te)
	return res, te
}

func listTools(t *testing.T, cs *mcp.ClientSession) []*mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

// Each tool's annotations and _meta come from its row of share/tools.yaml,
// and every row is a tool.
func TestToolsFollowTheTable(t *testing.T) {
	rows, err := ops.Tools()
	if err != nil {
		t.Fatal(err)
	}
	tools := listTools(t, connect(t, newRepo(t), nil))
	byName := map[string]*mcp.Tool{}
	for _, tl := range tools {
		byName[tl.Name] = tl
	}
	if len(tools) != len(rows) {
		t.Errorf("%d tools listed, %d rows in share/tools.yaml", len(tools), len(rows))
	}
	for _, r := range rows {
		tl := byName[r.Name]
		if tl == nil {
			t.Errorf("row %s is no tool", r.Name)
			continue
		}
		a := tl.Annotations
		if tl.Description != r.Description || a.ReadOnlyHint != (r.ExecutionClass != ops.ClassMutate) ||
			a.IdempotentHint != r.Idempotent || a.DestructiveHint == nil || *a.DestructiveHint ||
			a.OpenWorldHint == nil || *a.OpenWorldHint != r.ContactsAdvisors {
			t.Errorf("tool %s: description %q, annotations %+v do not follow its row %+v", r.Name, tl.Description, a, r)
		}
		// The row's fields but name and description, as the table spells them.
		raw, _ := json.Marshal(r)
		var want map[string]any
		_ = json.Unmarshal(raw, &want)
		delete(want, "name")
		delete(want, "description")
		got, _ := json.Marshal(tl.Meta[MetaKey])
		if !reflect.DeepEqual(tl.Meta[MetaKey], want) {
			t.Errorf("tool %s: _meta[%s] = %s, want the row's policy %s", r.Name, MetaKey, got, raw)
		}
	}
}

// The tools/list response names no provider, vendor, model or advisor
// declared in share/, in any spelling the neutrality check knows.
func TestToolsListNamesNoProvider(t *testing.T) {
	cat, _, err := advisor.Load(advisor.Sources{})
	if err != nil {
		t.Fatal(err)
	}
	var terms []neutrality.Term
	for _, n := range cat.Names() {
		terms = append(terms, neutrality.Term{Name: n.Name, DeclaredAs: n.DeclaredAs})
	}
	if len(terms) < 10 {
		t.Fatalf("only %d names declared in share/", len(terms))
	}
	m, err := neutrality.NewMatcher(terms)
	if err != nil {
		t.Fatal(err)
	}
	res, err := connect(t, newRepo(t), nil).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	listed, _ := json.Marshal(res)
	for _, hit := range m.Find(listed) {
		t.Errorf("tools/list names %q (declared as %s) at byte %d", hit.Text, hit.Term.DeclaredAs, hit.Offset)
	}
	// The check can fail: a name that is listed is found.
	probe, _ := neutrality.NewMatcher([]neutrality.Term{{Name: "prepare session", DeclaredAs: "probe"}})
	if len(probe.Find(listed)) == 0 {
		t.Fatal("the matcher finds nothing in tools/list; the check above proves nothing")
	}
}

// What a session's initialize declared is negotiated once, at its first
// call that asks, not at every call (it was: a JSON round trip of the
// capabilities each time); what prepare_session negotiates later still
// replaces it.
func TestDeclaredCapabilitiesNegotiatedOnce(t *testing.T) {
	t.Setenv("GIT_REASON_PROFILE", "ci")
	srv := serverOn(t, newRepo(t))
	cs := sessionTo(t, srv, &mcp.Implementation{Name: "test-client", Version: "1"}, &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}})
	_, out := callTool(t, cs, "assess", map[string]any{"task": "T-1", "subject": "s", "question": "q?",
		"materiality": "trivial", "reversibility": "reversible"})
	if out["suggested_next_tools"] == nil {
		t.Fatalf("a host that declared no tool search got no suggested_next_tools: %v", out)
	}
	srv.sessions.mu.Lock()
	kept := maps.Clone(srv.sessions.caps)
	srv.sessions.mu.Unlock()
	want := HostCapabilities{ApprovalOrElicitation: true}
	if len(kept) != 1 || slices.Collect(maps.Values(kept))[0] != want {
		t.Errorf("after a call the server keeps %v, want the declared capabilities %+v of one session", kept, want)
	}
	callTool(t, cs, "prepare_session", map[string]any{"native_tool_search": true})
	if _, out := callTool(t, cs, "plan", map[string]any{"task": "T-1"}); out["suggested_next_tools"] != nil {
		t.Errorf("after prepare_session stated native tool search, a write still suggests tools: %v", out["suggested_next_tools"])
	}
}

func TestNegotiate(t *testing.T) {
	elicit := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}, RootsV2: &mcp.RootCapabilities{}}
	cases := []struct {
		name   string
		stated map[string]bool
		client *mcp.ClientCapabilities
		want   HostCapabilities
		source map[string]string
	}{
		{"nothing said", nil, nil, HostCapabilities{}, map[string]string{"native_tool_search": fromDefault, "approval_or_elicitation": fromDefault}},
		{"declared in initialize", nil, elicit, HostCapabilities{ApprovalOrElicitation: true, WorkspaceBinding: true},
			map[string]string{"approval_or_elicitation": fromInitialize, "workspace_binding": fromInitialize, "mcp_tasks": fromDefault}},
		{"stated wins", map[string]bool{"approval_or_elicitation": false, "native_tool_search": true, "nested_subagents": true}, elicit,
			HostCapabilities{NativeToolSearch: true, NestedSubagents: true, WorkspaceBinding: true},
			map[string]string{"approval_or_elicitation": fromStated, "native_tool_search": fromStated}},
		{"tasks extension", nil, &mcp.ClientCapabilities{Extensions: map[string]any{"tasks": map[string]any{}}}, HostCapabilities{MCPTasks: true},
			map[string]string{"mcp_tasks": fromInitialize}},
		{"tasks extension by its identifier", nil, &mcp.ClientCapabilities{Extensions: map[string]any{TasksExtension: map[string]any{}}},
			HostCapabilities{MCPTasks: true}, map[string]string{"mcp_tasks": fromInitialize}},
		{"another extension", nil, &mcp.ClientCapabilities{Extensions: map[string]any{"io.modelcontextprotocol/ui": map[string]any{}}},
			HostCapabilities{}, map[string]string{"mcp_tasks": fromDefault}},
	}
	for _, c := range cases {
		got := negotiate(c.stated, c.client)
		if got.Capabilities != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got.Capabilities, c.want)
		}
		for k, v := range c.source {
			if got.Sources[k] != v {
				t.Errorf("%s: source of %s = %s, want %s", c.name, k, got.Sources[k], v)
			}
		}
		if len(got.Sources) != len(capabilityNames) {
			t.Errorf("%s: %d sources, want one per capability", c.name, len(got.Sources))
		}
	}
	// Every capability name is a field of HostCapabilities, in order.
	typ := reflect.TypeFor[HostCapabilities]()
	for i, name := range capabilityNames {
		if tag := typ.Field(i).Tag.Get("json"); tag != name {
			t.Errorf("capability %d: field tag %q, name %q", i, tag, name)
		}
	}
}

func TestActionsFor(t *testing.T) {
	byVerb := map[string]string{"plan": "plan", "consult": "consult", "conclude": "conclude", "resolve": "resolve", "validate": "validate", "assess": "assess", "verify": "verify"}
	cases := []struct {
		status record.Status
		want   string
	}{
		{record.Status{Task: "T", Next: "git reason assess T"}, `[{"tool":"assess","arguments":{"task":"T"}}]`},
		{record.Status{Task: "T", Next: "git reason consult T (again), or git reason plan T to plan anew"},
			`[{"tool":"consult","arguments":{"task":"T"}},{"tool":"plan","arguments":{"task":"T"}}]`},
		{record.Status{Task: "T", Next: "git reason resolve T 01ABCDEFGH --decision ...", OpenDisagreements: []string{"01ABCDEFGHJKMNPQRSTVWXYZ01"}},
			`[{"tool":"resolve","arguments":{"disagreement":"01ABCDEFGHJKMNPQRSTVWXYZ01","task":"T"}}]`},
		{record.Status{Task: "T", Next: "git reason verify T"}, `[{"tool":"verify","arguments":{"tasks":["T"]}}]`},
		{record.Status{Task: "T", Next: ""}, `[]`},
		{record.Status{Task: "T", Next: "git reason frobnicate T"}, `[]`},
	}
	for _, c := range cases {
		got, _ := json.Marshal(actionsFor(c.status, byVerb))
		if string(got) != c.want {
			t.Errorf("next %q: %s, want %s", c.status.Next, got, c.want)
		}
	}
	// A need's command (ops.Need.Command) names the disagreement by its
	// short id, which the resolve tool takes, and the records conclude
	// supersedes and concludes, each in full when ids holds it (the
	// placeholders are the caller's to fill); a closure's, reopen; a
	// record of no assessment, assess with new evidence; a doctor
	// finding's fix, check_neutrality, which takes no task.
	byVerb["reopen"], byVerb["check neutrality"] = "reopen", "check_neutrality"
	ids := []string{"01BCDEFGHJKMNPQRSTVWXYZ012", "01CDEFGHJKMNPQRSTVWXYZ0123"}
	for step, want := range map[string]string{
		"git reason resolve T 01ABCDEFGH --decision ... --evidence KIND:REF:SUMMARY, then git reason conclude T --supersedes 01BCDEFGHJ --decision ...":    `[{"tool":"resolve","arguments":{"disagreement":"01ABCDEFGH","task":"T"}},{"tool":"conclude","arguments":{"supersedes":["01BCDEFGHJKMNPQRSTVWXYZ012"],"task":"T"}}]`,
		"git reason conclude T --assessment 01CDEFGHJK --supersedes 01BCDEFGHJ --supersedes 01DEFGHJKM --decision ... --weigh 01EFGHJKMN=TREATMENT:REASON": `[{"tool":"conclude","arguments":{"assessment":"01CDEFGHJKMNPQRSTVWXYZ0123","supersedes":["01BCDEFGHJKMNPQRSTVWXYZ012","01DEFGHJKM"],"task":"T"}}]`,
		"git reason assess T --subject ... --question ... --new-evidence":                                                                                  `[{"tool":"assess","arguments":{"new_evidence":true,"task":"T"}}]`,
		"git reason reopen T":         `[{"tool":"reopen","arguments":{"task":"T"}}]`,
		"git reason check neutrality": `[{"tool":"check_neutrality","arguments":{}}]`,
	} {
		if got, _ := json.Marshal(stepCalls(step, "T", ids, byVerb)); string(got) != want {
			t.Errorf("step %q: %s, want %s", step, got, want)
		}
	}
}

// A tool error carries {code, message, recovery_actions}; an unknown task
// recovers with assess, and its message says the task does not exist
// whichever write found it so: a closure's, whose writer refuses an empty
// history first, said to remove the task with 'git reason task delete';
// and whichever tool read it, verify's tasks as much as status's task.
func TestUnknownTaskRecoversWithAssess(t *testing.T) {
	cs := connect(t, newRepo(t), nil)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"plan", map[string]any{"task": "nope"}},
		{"status", map[string]any{"task": "nope"}},
		// verify's tasks name it as much as a task argument.
		{"verify", map[string]any{"tasks": []any{"nope"}}},
		{"close", map[string]any{"task": "nope", "outcome": "abandoned", "reason": "moot"}},
		{"withdraw", map[string]any{"task": "nope", "record": "01ABCDEF", "reason": "moot"}},
		{"resolve", map[string]any{"task": "nope", "disagreement": "01ABCDEF", "decision": "d",
			"evidence": []any{map[string]any{"kind": "note", "summary": "s"}}}},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(res.StructuredContent)
		want := `{"code":"unknown_task","message":"no task \"nope\" (the tasks tool lists them): start it with the assess tool","recovery_actions":[{"arguments":{"task":"nope"},"tool":"assess"}]}`
		if !res.IsError || string(got) != want {
			t.Errorf("%s: isError %v, %s\nwant %s", c.tool, res.IsError, got, want)
		}
	}
}

// TestMain runs the package's tests outside any repository a GIT_DIR
// names (harness.MainInMemory).
func TestMain(m *testing.M) {
	os.Unsetenv("GIT_DIR")
	harness.MainInMemory(m)
}

// Every output schema in tools/list compiles on its own as any 2020-12
// validator compiles it (nothing loaded from outside it), accepts a tool error, and refuses an object that is
// neither the tool's result nor an error; no schema repeats the dialect
// (2020-12 is MCP's default) or describes below its result's top level.
func TestOutputSchemasInTheList(t *testing.T) {
	tools := listTools(t, connect(t, newRepo(t), nil))
	toolErr, _ := json.Marshal(ToolError{Code: CodeRefused, Message: "m",
		RecoveryActions: []Action{{Tool: "resolve", Arguments: map[string]any{"task": "T"}}}})
	for _, tl := range tools {
		raw, _ := json.Marshal(tl.OutputSchema)
		in, _ := json.Marshal(tl.InputSchema)
		for what, doc := range map[string][]byte{"output": raw, "input": in} {
			if strings.Contains(string(doc), `"$schema"`) {
				t.Errorf("%s schema of %s names its dialect", what, tl.Name)
			}
		}
		var doc map[string]any
		_ = json.Unmarshal(raw, &doc)
		if branches, _ := doc["anyOf"].([]any); len(branches) != 2 || strings.Count(string(raw), `"description"`) > 1 {
			t.Errorf("output schema of %s: want the result (described at its top level only) or an error: %s", tl.Name, raw)
		}
		sch, err := schemas.CompileDocument(tl.Name, raw)
		if err != nil {
			t.Errorf("output schema of %s: %v", tl.Name, err)
			continue
		}
		var v any
		_ = json.Unmarshal(toolErr, &v)
		if err := sch.Validate(v); err != nil {
			t.Errorf("output schema of %s refuses a tool error: %v", tl.Name, err)
		}
		if err := sch.Validate(map[string]any{"code": "refused", "message": "m"}); err == nil {
			t.Errorf("output schema of %s accepts an error without recovery_actions", tl.Name)
		}
	}
}

// Every result is held to its tool's output schema before it is sent: a
// result the schema refuses (here, the status tool's schema made to
// require a field its result lacks) fails the call naming the schema and
// the place, and nothing of the result reaches the client; the same call
// with the tool's own schema succeeds.
func TestResultHeldToItsOutputSchema(t *testing.T) {
	_, srv, cs := served(t)
	callTool(t, cs, "status", nil)

	st := srv.tools["status"]
	var doc map[string]any
	if err := json.Unmarshal(st.result.Doc, &doc); err != nil {
		t.Fatal(err)
	}
	doc["required"] = []any{"no_such_field"}
	stricter, _ := json.Marshal(doc)
	own := st.result
	var err error
	if st.result, err = schemas.OutputDocument("mcp.status.stricter.json", stricter); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "status"})
	if err == nil && !res.IsError {
		t.Fatalf("a result its output schema refuses was sent: %+v", res)
	}
	if err == nil || !strings.Contains(err.Error(), "mcp.status.stricter.json") || !strings.Contains(err.Error(), "no_such_field") {
		t.Errorf("the refused result's error: %v, want one naming the schema and the missing field", err)
	}
	st.result = own
	callTool(t, cs, "status", nil)
}

// A write tool's input schema is its record kind's body schema (one
// source): the same properties, each unchanged but for the description of
// an id the server fills in when absent, and the same definitions, plus
// task; required is the body's less what the server fills in. Its input
// rules are added (a text that is not blank), and an id may be a prefix.
// validate alone narrows it: no command, method manual only.
func TestWriteInputsAreTheBodySchemas(t *testing.T) {
	s := &Server{}
	tools, err := s.writeTools()
	if err != nil {
		t.Fatal(err)
	}
	if len(writeSpecs) < 7 {
		t.Fatalf("only %d write tools", len(writeSpecs))
	}
	for name, ws := range writeSpecs {
		body, err := readDoc(string(ws.kind) + ".body.json")
		if err != nil {
			t.Fatal(err)
		}
		var in obj
		if err := json.Unmarshal(tools[name].input, &in); err != nil {
			t.Fatal(err)
		}
		// The texts the kind's input document names refer to its
		// definition of a text that is not blank: as many here as there
		// (validate less its command, no argument); the rest is the body's.
		texts := 0
		if rules, err := fs.ReadFile(schemas.FS, string(ws.kind)+".input.json"); err == nil {
			texts = strings.Count(string(rules), `"`+schemas.TextDef+`"`)
			if name == "validate" {
				texts--
			}
		}
		if got := strings.Count(string(tools[name].input), `"`+schemas.TextDef+`"`); got != texts {
			t.Errorf("%s: %d arguments refer to the definition of a text, want %d", name, got, texts)
		}
		// Evidence that points at something names it: the writer's rule
		// (the input document's if/then), published as the writer holds it.
		if ws.kind == record.KindAssessment || ws.kind == record.KindResolution || ws.kind == record.KindValidation {
			if got := strings.Count(string(tools[name].input), `"`+pointsDef+`"`); got != 1 {
				t.Errorf("%s: %d rules refer to the definition of evidence that points, want 1: %s", name, got, tools[name].input)
			}
		}
		in = withoutTexts(in).(obj)
		want := map[string]bool{"task": true}
		for _, r := range body["required"].([]any) {
			if _, filled := ws.defaults[r.(string)]; !filled && !(name == "validate" && r == "method") {
				want[r.(string)] = true
			}
		}
		got := map[string]bool{}
		for _, r := range in["required"].([]any) {
			got[r.(string)] = true
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: required %v, want %v", name, got, want)
		}
		// An id argument names a record in full or by a unique prefix:
		// the writer resolves it and stores the full id.
		defs, _ := body["$defs"].(obj)
		if defs["id"] != nil {
			defs = maps.Clone(defs)
			defs["id"] = idArgument()
		}
		if !reflect.DeepEqual(in["$defs"], jsonValue(t, defs)) || in["additionalProperties"] != body["additionalProperties"] {
			t.Errorf("%s: $defs or additionalProperties differ from the %s body schema", name, ws.kind)
		}
		props, bodyProps := in["properties"].(obj), body["properties"].(obj)
		for field, p := range bodyProps {
			q, ok := props[field].(obj)
			switch {
			case name == "validate" && field == "command":
				if ok {
					t.Errorf("validate takes a command to run")
				}
				continue
			case name == "validate" && field == "method":
				if !ok || q["const"] != "manual" {
					t.Errorf("validate: method %v, want manual only", q)
				}
				continue
			case !ok:
				t.Errorf("%s: body field %s is no argument", name, field)
				continue
			}
			if _, filled := ws.defaults[field]; filled {
				q, p = maps.Clone(q), maps.Clone(p.(obj))
				delete(q, "description")
				delete(p.(obj), "description")
			}
			if !reflect.DeepEqual(q, p) {
				t.Errorf("%s: argument %s is %v, the body says %v", name, field, q, p)
			}
		}
		for field := range props {
			if _, ok := bodyProps[field]; !ok && field != "task" {
				t.Errorf("%s: argument %s is no body field", name, field)
			}
		}
	}
}

// The client's name and version are never read: two sessions of one
// server that declare the same capabilities under different names get the
// same bytes for the same calls, refusals and bad input included.
func TestClientNameIsNeverRead(t *testing.T) {
	ctx := context.Background()
	srv := serverOn(t, newRepo(t))
	session := func(name, version string) *mcp.ClientSession {
		return sessionTo(t, srv, &mcp.Implementation{Name: name, Version: version}, &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}})
	}
	a, b := session("terminal-agent", "9.1.0"), session("ide-agent", "0.3.2-beta")
	call := func(cs *mcp.ClientSession, name string, args map[string]any) string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(res)
		return string(raw)
	}
	id := func(raw string) string {
		var res struct{ StructuredContent struct{ ID string } }
		_ = json.Unmarshal([]byte(raw), &res)
		return res.StructuredContent.ID
	}
	assessed := id(call(a, "assess", map[string]any{"task": "T-1", "subject": "s", "question": "q?",
		"materiality": "trivial", "reversibility": "reversible"}))
	planned := id(call(a, "plan", map[string]any{"task": "T-1"}))
	steps := []struct {
		tool string
		args map[string]any
	}{
		{"prepare_session", map[string]any{"native_edit": true}},
		{"status", map[string]any{"task": "T-1"}},
		{"log", map[string]any{"task": "T-1"}},
		{"status", map[string]any{"task": "T-2"}},                                                      // unknown task
		{"disagree", map[string]any{"task": "T-1", "cites": []any{assessed, planned}, "summary": "s"}}, // refused: they take no position
		{"assess", map[string]any{"task": "T-1", "subject": 3}},                                        // bad input
		{"advisors", nil},
	}
	seen := map[string]bool{}
	for _, st := range steps {
		ra, rb := call(a, st.tool, st.args), call(b, st.tool, st.args)
		if ra != rb {
			t.Errorf("%s %v: the clients got different answers:\n%s\n%s", st.tool, st.args, ra, rb)
		}
		for _, code := range []string{CodeUnknownTask, CodeRefused, CodeBadInput} {
			if strings.Contains(ra, `"code":"`+code+`"`) {
				seen[code] = true
			}
		}
	}
	if len(seen) != 3 {
		t.Errorf("errors met: %v, want an unknown task, a refusal and bad input", seen)
	}
	la, _ := a.ListTools(ctx, nil)
	lb, _ := b.ListTools(ctx, nil)
	ja, _ := json.Marshal(la)
	jb, _ := json.Marshal(lb)
	if string(ja) != string(jb) {
		t.Errorf("the clients got different tool lists")
	}
}

// Every failed call names tools to recover with, deterministically: the
// task's next step for a refusal and for a write whose defaulted id has no
// record yet, the kind's schema for a body the schema refuses, assess for
// an unknown task.
func TestRecoveryActions(t *testing.T) {
	cs := connect(t, newRepo(t), nil)
	call := func(name string, args map[string]any) (bool, string) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		return res.IsError, string(raw)
	}
	if bad, out := call("assess", map[string]any{"task": "T-1", "subject": "s", "question": "q?",
		"materiality": "trivial", "reversibility": "reversible"}); bad {
		t.Fatal(out)
	}
	cases := []struct {
		tool string
		args map[string]any
		want string // code and recovery_actions
	}{
		{"validate", map[string]any{"task": "T-1", "result": "pass", "evidence": []any{map[string]any{"kind": "note", "summary": "s"}}},
			`bad_input [{"tool":"plan","arguments":{"task":"T-1"}}]`},
		{"attempt", map[string]any{"task": "T-1", "outcome": "succeeded"}, `bad_input [{"tool":"plan","arguments":{"task":"T-1"}}]`},
		{"assess", map[string]any{"task": "T-1", "subject": 3}, `bad_input [{"tool":"schema","arguments":{"kind":"assessment"}}]`},
		{"plan", map[string]any{"task": "T-9"}, `unknown_task [{"tool":"assess","arguments":{"task":"T-9"}}]`},
		// assess is what starts a task: a body the writer refuses on a
		// task with no records is bad input, not an unknown task to
		// start with the assess that was just refused.
		{"assess", map[string]any{"task": "T-8", "subject": "s\u202e", "question": "q?", "materiality": "trivial", "reversibility": "reversible"},
			`bad_input [{"tool":"schema","arguments":{"kind":"assessment"}}]`},
		// assess starts a task: refused for its body, it is no unknown task.
		{"assess", map[string]any{"task": "T-9", "subject": "s", "question": "q?", "materiality": "material", "reversibility": "costly"},
			`refused [{"tool":"schema","arguments":{"kind":"assessment"}}]`},
		{"assess", map[string]any{"task": "T-9", "subject": "  ", "question": "q?", "materiality": "minor", "reversibility": "costly"},
			`bad_input [{"tool":"schema","arguments":{"kind":"assessment"}}]`},
	}
	for _, c := range cases {
		bad, out := call(c.tool, c.args)
		var te ToolError
		_ = json.Unmarshal([]byte(out), &te)
		actions, _ := json.Marshal(te.RecoveryActions)
		if got := te.Code + " " + string(actions); !bad || got != c.want {
			t.Errorf("%s %v: %s, want %s", c.tool, c.args, got, c.want)
		}
	}
}

// Each task's report is a resource, listed and readable; a task that has no
// records, or a URI that names no task, is not found.
func TestTaskReportResources(t *testing.T) {
	cs := connect(t, newRepo(t), nil)
	ctx := context.Background()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "assess", Arguments: map[string]any{"task": "a/b", "subject": "s",
		"question": "q?", "materiality": "trivial", "reversibility": "reversible"}}); err != nil {
		t.Fatal(err)
	}
	list, err := cs.ListResources(ctx, nil)
	if err != nil || len(list.Resources) != 1 || list.Resources[0].URI != "reason://task/a%2Fb" || list.Resources[0].MIMEType != "text/markdown" {
		t.Fatalf("resources/list: %v %+v", err, list)
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: list.Resources[0].URI})
	if err != nil || !strings.Contains(res.Contents[0].Text, "# Reasoning: a/b") {
		t.Fatalf("resources/read: %v %+v", err, res)
	}
	for _, uri := range []string{"reason://task/nope", "reason://task/..%2F..", "reason://task/"} {
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("%s: %v, want not found", uri, err)
		}
	}
}

// The schema tool takes every record kind and every command whose --json
// output publishes a schema, its description names each such command, and
// each of them answers with a schema.
func TestSchemaToolCoversEveryPublishedOutput(t *testing.T) {
	cs := connect(t, newRepo(t), nil)
	var kind map[string]any
	for _, tl := range listTools(t, cs) {
		if tl.Name == "schema" {
			raw, _ := json.Marshal(tl.InputSchema)
			var in struct {
				Properties map[string]map[string]any `json:"properties"`
			}
			if err := json.Unmarshal(raw, &in); err != nil {
				t.Fatal(err)
			}
			kind = in.Properties["kind"]
		}
	}
	if kind == nil {
		t.Fatal("tools/list has no schema tool with a kind")
	}
	enum, _ := kind["enum"].([]any)
	desc, _ := kind["description"].(string)
	want := map[string]bool{}
	for _, k := range record.Kinds {
		want[string(k)] = true
	}
	for name := range schemas.Outputs {
		want[name] = true
		if !strings.Contains(desc, name) {
			t.Errorf("the schema tool's description does not name %s: %q", name, desc)
		}
	}
	if len(enum) != len(want) {
		t.Errorf("kind enum %v, want the %d names %v", enum, len(want), slices.Sorted(maps.Keys(want)))
	}
	for _, e := range enum {
		name, _ := e.(string)
		if !want[name] {
			t.Errorf("kind enum has %q, neither a record kind nor a published output", e)
			continue
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "schema", Arguments: map[string]any{"kind": name}})
		if err != nil || res.IsError {
			t.Errorf("schema %s: %v %v", name, err, res)
		}
	}
}

// The server outlives any one configuration: a setting changed with git
// config between two calls is what the second call uses.
func TestSettingsReadAgainWhenChanged(t *testing.T) {
	dir := newRepo(t)
	cs := connect(t, dir, nil)
	profile := func() string {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "advisors"})
		if err != nil || res.IsError {
			t.Fatalf("advisors: %v %+v", err, res)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var out struct{ Profile string }
		if err := json.Unmarshal(raw, &out); err != nil || out.Profile == "" {
			t.Fatalf("advisors: no profile in %s", raw)
		}
		return out.Profile
	}
	if got := profile(); got != "default" {
		t.Fatalf("profile %q before any setting", got)
	}
	cmd := exec.Command("git", "config", "reason.profile", "offline")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git config: %v\n%s", err, out)
	}
	if got := profile(); got != "offline" {
		t.Errorf("profile %q after git config reason.profile offline, want offline", got)
	}
}

// A tool error's text says its code once: a message whose error wraps
// record.ErrRefused or record.ErrInput does not repeat "refused: " or
// "bad input: " after the code (it read "refused: refused: assessment …").
func TestToolErrorNamesItsCodeOnce(t *testing.T) {
	cs := connect(t, newRepo(t), nil)
	ctx := context.Background()
	call := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := call("assess", map[string]any{"task": "T-1", "subject": "s", "question": "q?",
		"materiality": "trivial", "reversibility": "reversible"}); res.IsError {
		t.Fatalf("assess: %v", res.Content)
	}
	if res := call("plan", map[string]any{"task": "T-1"}); res.IsError {
		t.Fatalf("plan: %v", res.Content[0].(*mcp.TextContent).Text)
	}
	if res := call("conclude", map[string]any{"task": "T-1", "decision": "d"}); res.IsError {
		t.Fatalf("conclude: %v", res.Content[0].(*mcp.TextContent).Text)
	}
	cases := []struct {
		tool string
		args map[string]any
		code string
	}{
		{"consult", map[string]any{"task": "T-1"}, "refused"}, // already concluded
		{"plan", map[string]any{"task": "../x"}, "bad_input"}, // an invalid task name
	}
	for _, c := range cases {
		res := call(c.tool, c.args)
		text := res.Content[0].(*mcp.TextContent).Text
		var te ToolError
		raw, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(raw, &te)
		if !res.IsError || te.Code != c.code {
			t.Fatalf("%s %v: error %v, code %q, want %q: %s", c.tool, c.args, res.IsError, te.Code, c.code, text)
		}
		for _, doubled := range []string{"refused: refused", "bad_input: bad input", "refused: ", "bad input: "} {
			if strings.Contains(te.Message, doubled) || strings.Count(text, doubled) > 1 || strings.HasPrefix(text, c.code+": "+doubled) {
				t.Errorf("%s: the error says its code twice: %q (message %q)", c.tool, text, te.Message)
			}
		}
	}
}

// The declarations follow the same rule as the settings: an advisor
// declared in the user's overlay between two calls is in the second
// call's list, and one removed again is gone from the third.
func TestDeclarationsReadAgainWhenChanged(t *testing.T) {
	dir := newRepo(t)
	cs := connect(t, dir, nil)
	listed := func() bool {
		t.Helper()
		_, out := callTool(t, cs, "advisors", nil)
		raw, _ := json.Marshal(out)
		return strings.Contains(string(raw), `"late-advisor"`)
	}
	if listed() {
		t.Fatal("late-advisor listed before it is declared")
	}
	overlay := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "git-reason", "advisors.yaml")
	if err := os.MkdirAll(filepath.Dir(overlay), 0o755); err != nil {
		t.Fatal(err)
	}
	decl := "advisors:\n  - id: late-advisor\n    transport: cli\n    adapter: exec\n    executable: late-advisor-cli\n    command: [late-advisor-cli]\n    capabilities: [reasoning]\n"
	harness.WriteFile(t, overlay, decl)
	if !listed() {
		t.Error("late-advisor not listed after the user's overlay declared it")
	}
	if err := os.Remove(overlay); err != nil {
		t.Fatal(err)
	}
	if listed() {
		t.Error("late-advisor still listed after the user's overlay was removed")
	}
}

// A tool whose answer is what 'git reason VERB --json' prints (the whole
// answer, or its list for status of every task and log) holds it to the
// document that command publishes, not only to the outline tools/list
// gives: each such answer is valid there, and one that document refuses
// is not sent. consult's is held alike; cmd/git-reason's MCP test calls
// it with advisors that answer.
func TestResultHeldToPublishedDocument(t *testing.T) {
	dir, srv, cs := served(t)
	harness.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "first")
	harness.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "second")
	callTool(t, cs, "assess", map[string]any{"task": "T-1", "subject": "held to its document", "question": "q?",
		"materiality": "trivial", "reversibility": "reversible"})
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"status", map[string]any{"task": "T-1", "report": true}},
		{"status", nil},
		{"log", map[string]any{"task": "T-1"}},
		{"log", nil},
		{"advisors", nil},
		{"doctor", nil},
		{"verify", nil},
		{"check_neutrality", nil},
		{"handover", nil},
		{"context", map[string]any{"range": "HEAD~1..HEAD"}},
		{"tasks", nil},
		{"search", map[string]any{"text": "document"}},
	}
	want := map[string]bool{"consult": true}
	for _, c := range calls {
		want[c.tool] = true
	}
	for name, tl := range srv.tools {
		if (tl.published != nil) != want[name] {
			t.Errorf("tool %s: held to a published document: %v, want %v", name, tl.published != nil, want[name])
		}
	}
	refuseAll, err := schemas.OutputDocument("refuse-all.json", []byte(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "not": {}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		callTool(t, cs, c.tool, c.args)
		tl := srv.tools[c.tool]
		own := tl.published
		tl.published = refuseAll
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		tl.published = own
		if err == nil && !res.IsError {
			t.Errorf("%s %v: an answer its published document refuses was sent", c.tool, c.args)
		} else if err == nil || !strings.Contains(err.Error(), "refuse-all.json") {
			t.Errorf("%s %v: the refused answer's error: %v, want one naming the document", c.tool, c.args, err)
		}
	}
}

// A task with no standing conclusion has "standing": [] in the handover,
// derived or read from its kept row: the row held null for it, so every
// handover after the first (or after any command line's) failed the
// published document ("expected array, but got null") and sent nothing.
func TestHandoverListsOfAKeptRow(t *testing.T) {
	_, _, cs := served(t)
	callTool(t, cs, "assess", map[string]any{"task": "T-1", "subject": "no conclusion yet", "question": "q?",
		"materiality": "trivial", "reversibility": "reversible"})
	for _, call := range []string{"derived", "from its row"} {
		_, out := callTool(t, cs, "handover", nil)
		open, _ := out["open"].([]any)
		if len(open) != 1 {
			t.Fatalf("%s: open %v, want T-1", call, out["open"])
		}
		if standing, ok := open[0].(map[string]any)["standing"].([]any); !ok || len(standing) != 0 {
			t.Errorf("%s: standing %v, want []", call, open[0].(map[string]any)["standing"])
		}
	}
}

// A task name the input schema refuses is said as the command line says
// it (record.CheckTask), once, wherever an argument names a task: the
// schema's own words were its regular expression, or 'not failed' for a
// name ending in .lock.
func TestInvalidTaskNameSaidAsTheCommandLineSaysIt(t *testing.T) {
	cs := connect(t, newRepo(t), nil)
	cases := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"assess", map[string]any{"task": "x.lock", "subject": "s", "question": "q?", "materiality": "minor", "reversibility": "costly"},
			`arguments of assess: /task: invalid task name "x.lock": it must not end in '.lock'`},
		{"status", map[string]any{"task": ""},
			`arguments of status: /task: invalid task name "": use 1-100 letters, digits, '.', '_', '-' or '/', starting with a letter or digit`},
		{"close", map[string]any{"task": "T-1", "outcome": "superseded", "by": "a..b"},
			`arguments of close: /by: invalid task name "a..b": it must not contain '..'`},
		{"verify", map[string]any{"tasks": []any{"T-1", "a/.b"}},
			`arguments of verify: /tasks/1: invalid task name "a/.b": a part after '/' must not start with '.'`},
	}
	for _, c := range cases {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var te ToolError
		_ = json.Unmarshal(raw, &te)
		if !res.IsError || te.Code != CodeBadInput || te.Message != c.want {
			t.Errorf("%s %v: %s\nwant bad_input %s", c.tool, c.args, raw, c.want)
		}
	}
}

// A conclusion that leaves out what rule 6 asks is refused in the conclude
// tool's words: its arguments local_review and weighed, the full ids to
// weigh; the writer's advice named the command line's flags ('add
// --local-review 1=ANSWER'), whose numbered item local_review refuses.
func TestUnfilledConclusionSaysTheToolsArguments(t *testing.T) {
	cs := connect(t, newRepo(t), nil)
	ctx := context.Background()
	callTool(t, cs, "assess", map[string]any{"task": "T-1", "subject": "s", "question": "q?", "materiality": "material",
		"reversibility": "costly", "evidence": []any{map[string]any{"kind": "note", "summary": "n"}}})
	_, plan := callTool(t, cs, "plan", map[string]any{"task": "T-1"})
	items, _ := plan["derived"].(map[string]any)["local_review"].([]any)
	if len(items) < 2 {
		t.Fatalf("the plan has no local review to answer: %v", plan)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "conclude", Arguments: map[string]any{"task": "T-1", "decision": "d",
		"local_review": []any{map[string]any{"item": items[0], "answer": "a"}}}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var te ToolError
	_ = json.Unmarshal(raw, &te)
	want := fmt.Sprintf(`no advisor reviewed this plan, so its local review must be answered: item 2 %q is unanswered: `+
		`answer it and every other item of the plan's checklist (status lists them) in local_review, {"item": the item's text, "answer": ANSWER}`, items[1])
	if !res.IsError || te.Code != CodeRefused || te.Message != want {
		t.Errorf("conclude with item 2 unanswered: %s\nwant refused %s", raw, want)
	}
	ue := &record.UnfilledError{Rule: "the conclusion must weigh every completed consultation; missing 01ABCDEFGH",
		Field: "weigh", Keys: []string{"01ABCDEFGHJKMNPQRSTVWXYZ01"}}
	if got, want := unfilled(ue), `the conclusion must weigh every completed consultation; missing 01ABCDEFGH: weigh each in weighed, `+
		`{"consultation": ID, "treatment": "adopted", "partially_adopted" or "rejected", "reason": REASON}, ID one of 01ABCDEFGHJKMNPQRSTVWXYZ01`; got != want {
		t.Errorf("an unweighed consultation: %s\nwant %s", got, want)
	}
}

// status's text says a task is closed, as 'git reason status' does (its
// closed: line, its table's phase): it said the phase alone ("task T-1:
// assessed (2 records, ...)"), so a client reading the text took a closed
// task for one to go on with.
func TestStatusTextSaysClosed(t *testing.T) {
	cs := connect(t, newRepo(t), nil)
	callTool(t, cs, "assess", map[string]any{"task": "T-1", "subject": "s", "question": "q?", "materiality": "minor", "reversibility": "costly"})
	_, closure := callTool(t, cs, "close", map[string]any{"task": "T-1", "outcome": "abandoned", "reason": "moot"})
	res, _ := callTool(t, cs, "status", map[string]any{"task": "T-1"})
	text := res.Content[0].(*mcp.TextContent).Text
	want := fmt.Sprintf("; closed: abandoned by Ada Tester <ada@example.invalid>, %s (%s): moot", closure["created"], record.ShortID(closure["id"].(string)))
	if !strings.Contains(text, want) {
		t.Errorf("status T-1 says %q, want it to hold %q", text, want)
	}
	res, _ = callTool(t, cs, "status", nil)
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "\nT-1: closed (2 records)") {
		t.Errorf("status of every task says %q, want T-1: closed (2 records)", text)
	}
}

// status of a task says where it stands on the remote, as 'git reason
// status TASK --json' does (its remote field, the text's remote line):
// the tool's result had no remote, so an agent could not tell a task
// never pushed from one up to date.
func TestStatusSaysWhereTheTaskStandsOnTheRemote(t *testing.T) {
	dir := newRepo(t)
	bare := filepath.Join(t.TempDir(), "remote.git")
	git := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if out, err := exec.Command("git", "init", "-q", "--bare", bare).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v\n%s", err, out)
	}
	git("remote", "add", "origin", bare)
	git("config", "--add", "remote.origin.fetch", "+refs/reasoning/tasks/*:refs/reasoning/remotes/origin/*")
	cs := connect(t, dir, nil)
	callTool(t, cs, "assess", map[string]any{"task": "T-1", "subject": "s", "question": "q?", "materiality": "minor", "reversibility": "costly"})
	for _, want := range []string{"not on origin yet: 'git reason push origin T-1' shares it", "up to date with origin (as last fetched)"} {
		res, out := callTool(t, cs, "status", map[string]any{"task": "T-1"})
		if out["remote"] != want {
			t.Errorf("status T-1: remote %v, want %q", out["remote"], want)
		}
		if text := res.Content[0].(*mcp.TextContent).Text; !strings.HasSuffix(text, "; remote: "+want) {
			t.Errorf("status T-1 says %q, want it to end with the remote line %q", text, want)
		}
		git("push", "-q", "origin", "refs/reasoning/tasks/T-1:refs/reasoning/tasks/T-1")
		git("fetch", "-q", "origin")
	}
}

// A close superseded by a task with no records carries a notice saying
// so in the tools' terms (a mistyped name closed the task silently), and
// one by a task that has records carries none.
func TestCloseByUnknownTaskNotice(t *testing.T) {
	cs := connect(t, newRepo(t), nil)
	for _, task := range []string{"T-1", "T-2"} {
		callTool(t, cs, "assess", map[string]any{"task": task, "subject": "s", "question": "q?", "materiality": "minor", "reversibility": "costly"})
	}
	_, out := callTool(t, cs, "close", map[string]any{"task": "T-1", "outcome": "superseded", "by": "T-nosuch"})
	want := `note: task T-nosuch, which replaces T-1, has no records yet: start it with the assess tool (task "T-nosuch"), or if the name is mistyped, reopen T-1 with the reopen tool and close it again`
	if notices, _ := out["notices"].([]any); len(notices) != 1 || notices[0] != want {
		t.Errorf("close T-1 by T-nosuch: notices %v, want one saying %q", notices, want)
	}
	if _, out = callTool(t, cs, "close", map[string]any{"task": "T-2", "outcome": "superseded", "by": "T-1"}); out["notices"] != nil {
		t.Errorf("close T-2 by T-1, which has records: notices %s, want none", mustJSON(t, out["notices"]))
	}
}

// A list with nothing in it says so, and what to do, as the command line
// does: the text of log, tasks and search was empty, and status said
// "0 tasks", where 'git reason status' says how to start a task (or to
// pull a remote's). The advice names the tool to call, not the command
// line's command, which a client cannot type.
func TestEmptyListsSayWhatToDo(t *testing.T) {
	cs := connect(t, newRepo(t), nil)
	start := "no tasks yet: start one with the assess tool"
	cases := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"status", nil, start},
		{"log", nil, start},
		{"tasks", nil, start},
		{"tasks", map[string]any{"state": "open"}, "no task matches"},
		{"search", map[string]any{"text": "zz"}, `no record mentions "zz"`},
	}
	for _, c := range cases {
		res, _ := callTool(t, cs, c.tool, c.args)
		if got := res.Content[0].(*mcp.TextContent).Text; got != c.want {
			t.Errorf("%s %v says %q, want %q", c.tool, c.args, got, c.want)
		}
	}
	// A remote's tasks come with a command no tool runs: said as the
	// person's step.
	dir := newRepo(t)
	if out, err := exec.Command("git", "-C", dir, "remote", "add", "origin", filepath.Join(dir, "nowhere.git")).CombinedOutput(); err != nil {
		t.Fatalf("git remote add: %v\n%s", err, out)
	}
	res, _ := callTool(t, connect(t, dir, nil), "status", nil)
	if got := res.Content[0].(*mcp.TextContent).Text; !strings.HasSuffix(got, "which the person runs (no tool fetches)") {
		t.Errorf("status with a remote says %q", got)
	}
}

// attempt names its commits by their full hashes and refuses a hash of no
// commit here, as 'git reason attempt --commit' does: the tool recorded
// what it was given, an abbreviation or a hash that names nothing.
func TestAttemptCommitsAreFullHashes(t *testing.T) {
	dir := newRepo(t)
	if out, err := exec.Command("git", "-C", dir, "commit", "-q", "--allow-empty", "-m", "c").CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	head, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	full := strings.TrimSpace(string(head))
	cs := connect(t, dir, nil)
	callTool(t, cs, "assess", map[string]any{"task": "T-1", "subject": "s", "question": "q?", "materiality": "trivial", "reversibility": "reversible"})
	callTool(t, cs, "plan", map[string]any{"task": "T-1"})
	callTool(t, cs, "conclude", map[string]any{"task": "T-1", "decision": "d"})
	_, out := callTool(t, cs, "attempt", map[string]any{"task": "T-1", "outcome": "succeeded", "commits": []any{full[:7]}})
	if got := out["body"].(map[string]any)["commits"]; !reflect.DeepEqual(got, []any{full}) {
		t.Errorf("attempt of %s recorded commits %v, want [%s]", full[:7], got, full)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "attempt", Arguments: map[string]any{"task": "T-1", "outcome": "failed", "commits": []any{"abcd"}}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if !res.IsError || !strings.Contains(string(raw), `"message":"commits: \"abcd\": no such commit in this repository"`) {
		t.Errorf("attempt of a commit that is not here: %s", raw)
	}
}

// check_neutrality refuses an empty range or path as bad input: the range
// was taken for none, so the whole tree was checked, and the path reached
// git, which refused it (failed).
func TestCheckNeutralityRefusesEmptyArguments(t *testing.T) {
	cs := connect(t, newRepo(t), nil)
	for _, args := range []map[string]any{{"range": ""}, {"paths": []any{""}}} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "check_neutrality", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		if !res.IsError || !strings.Contains(string(raw), `"code":"bad_input"`) {
			t.Errorf("check_neutrality %v: %s, want bad_input", args, raw)
		}
	}
}

// show says a withdrawn record is withdrawn, by which record, who and why,
// as 'git reason show' does: derivation ignores it from then on, and the
// text said nothing of it.
func TestShowSaysWithdrawn(t *testing.T) {
	cs := connect(t, newRepo(t), nil)
	callTool(t, cs, "assess", map[string]any{"task": "T-1", "subject": "s", "question": "q?", "materiality": "trivial", "reversibility": "reversible"})
	callTool(t, cs, "plan", map[string]any{"task": "T-1"})
	callTool(t, cs, "conclude", map[string]any{"task": "T-1", "decision": "d"})
	_, v := callTool(t, cs, "validate", map[string]any{"task": "T-1", "result": "pass"})
	_, w := callTool(t, cs, "withdraw", map[string]any{"task": "T-1", "record": v["id"], "reason": "the wrong build"})
	res, _ := callTool(t, cs, "show", map[string]any{"id": v["id"]})
	want := fmt.Sprintf("; withdrawn by %s (Ada Tester <ada@example.invalid>): the wrong build", w["id"])
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, want) {
		t.Errorf("show of a withdrawn validation says %q, want it to hold %q", text, want)
	}
}

// handover answers again from the rows the first call kept: a task with
// no standing conclusion was read back with standing null, which the
// handover's published document refuses, so every call after the first
// failed with a protocol error ("this is a bug of git reason").
func TestHandoverAnswersFromKeptRows(t *testing.T) {
	cs := connect(t, newRepo(t), nil)
	callTool(t, cs, "assess", map[string]any{"task": "T-1", "subject": "s", "question": "q?", "materiality": "minor", "reversibility": "costly"})
	for i := range 2 {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "handover", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("handover, call %d: %v %+v", i+1, err, res)
		}
	}
}

// Serving a repository writes nothing to it until a record is written: a
// clone's origin is recorded by its first record, as on the command line.
// The server recorded it in git config as it started, so a host that
// starts the server in every repository it opens wrote to each.
func TestServingWritesNoOrigin(t *testing.T) {
	dir := newRepo(t)
	cs := connect(t, dir, nil)
	// Nor does any read: advisors, doctor and handover, which read
	// availability, recorded it.
	for _, name := range []string{"status", "advisors", "doctor", "handover", "tasks", "verify"} {
		callTool(t, cs, name, nil)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "assess", Arguments: map[string]any{"task": "T-1",
		"subject": "s", "question": "q?", "materiality": "material", "reversibility": "costly"}})
	if err != nil || !res.IsError {
		t.Fatalf("assess without evidence: %v %+v", err, res)
	}
	if out, err := exec.Command("git", "-C", dir, "config", "--local", "--get", "reason.origin").Output(); err == nil {
		t.Errorf("after reads and a refused assess, git config holds reason.origin %s", out)
	}
	callTool(t, cs, "assess", map[string]any{"task": "T-1", "subject": "s", "question": "q?", "materiality": "minor", "reversibility": "costly"})
	if _, err := exec.Command("git", "-C", dir, "config", "--local", "--get", "reason.origin").Output(); err != nil {
		t.Errorf("after a record, git config holds no reason.origin: %v", err)
	}
}

// handover's since is read as 'git reason handover --since' reads it, git
// log's date forms too ("yesterday", "2 weeks ago"), and an empty since
// is refused as the command line refuses --since "": the tool read only
// ages, dates and RFC 3339 times ("since \"yesterday\": give a date ...")
// and took "" for the default.
func TestHandoverSinceAsGitLogReadsIt(t *testing.T) {
	cs := connect(t, newRepo(t), nil)
	_, out := callTool(t, cs, "handover", map[string]any{"since": "yesterday"})
	since, err := time.Parse(time.RFC3339, out["since"].(string))
	if age := time.Since(since); err != nil || age < 23*time.Hour || age > 49*time.Hour {
		t.Errorf("handover since yesterday lists what was settled since %v", out["since"])
	}
	for _, since := range []string{"", "bogus"} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "handover", Arguments: map[string]any{"since": since}})
		if err != nil || !res.IsError {
			t.Errorf("handover since %q: %v %+v, want bad_input", since, err, res)
		}
	}
}

// conclude's input schema says what local_review and weighed answer, and
// that a local-review item is the checklist's text: they said nothing, so
// a client answered items by number, as the command line's --local-review
// takes them, and was refused.
func TestConcludeSchemaSaysWhatToAnswer(t *testing.T) {
	var in struct {
		Properties map[string]struct {
			Description string
			Items       struct {
				Properties map[string]struct{ Description string }
			}
		}
	}
	for _, tl := range listTools(t, connect(t, newRepo(t), nil)) {
		if tl.Name == "conclude" {
			raw, _ := json.Marshal(tl.InputSchema)
			if err := json.Unmarshal(raw, &in); err != nil {
				t.Fatal(err)
			}
		}
	}
	lr, w := in.Properties["local_review"], in.Properties["weighed"]
	if !strings.Contains(lr.Description, "every item") || !strings.Contains(lr.Items.Properties["item"].Description, "text") ||
		!strings.Contains(w.Description, "every completed consultation") {
		t.Errorf("conclude's input schema: local_review %q (item %q), weighed %q", lr.Description, lr.Items.Properties["item"].Description, w.Description)
	}
}

// A call the client cancelled says so in the tool's terms, and where to
// look: it said Go's "context canceled", with no recovery.
func TestCancelledCallSaysWhatStays(t *testing.T) {
	srv := serverOn(t, newRepo(t))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	te := srv.classify(ctx, "consult", "T-1", "", context.Canceled)
	actions, _ := json.Marshal(te.RecoveryActions)
	if te.Code != CodeCancelled || !strings.HasPrefix(te.Message, "the client cancelled the call: ") || string(actions) != `[{"tool":"status","arguments":{"task":"T-1"}}]` {
		t.Errorf("a cancelled consult: %s %q %s", te.Code, te.Message, actions)
	}
}

// The writer's refusals that advise the command line's flags are said in
// the tools' arguments: a material assessment without evidence is told to
// add evidence as the assess tool takes it, a second conclusion to name
// the full id in supersedes, and a close as done with nothing concluded
// to give outcome "abandoned" — never '--evidence KIND:REF:SUMMARY',
// '--supersedes' or '--outcome', which no tool has.
func TestRefusalsSayTheToolsArguments(t *testing.T) {
	cs := connect(t, newRepo(t), nil)
	refusal := func(tool string, args map[string]any) string {
		t.Helper()
		res, te := callError(t, cs, tool, args)
		if !res.IsError || te.Code == "" {
			t.Fatalf("%s %v: %+v, want a refusal", tool, args, te)
		}
		if strings.Contains(te.Message, "--") {
			t.Errorf("%s %v: %q names a flag", tool, args, te.Message)
		}
		return te.Message
	}
	if got := refusal("assess", map[string]any{"task": "T-1", "subject": "s", "question": "q?", "materiality": "material", "reversibility": "costly"}); !strings.Contains(got, `add evidence, a list of {"kind": "file"`) {
		t.Errorf("a material assessment without evidence: %q", got)
	}
	callTool(t, cs, "assess", map[string]any{"task": "T-1", "subject": "s", "question": "q?", "materiality": "minor", "reversibility": "reversible"})
	if got := refusal("close", map[string]any{"task": "T-1", "outcome": "done"}); !strings.HasSuffix(got, `conclude it first, or close it with outcome "abandoned"`) {
		t.Errorf("close as done with nothing concluded: %q", got)
	}
	callTool(t, cs, "plan", map[string]any{"task": "T-1"})
	_, first := callTool(t, cs, "conclude", map[string]any{"task": "T-1", "decision": "d"})
	id, _ := first["id"].(string)
	if got, want := refusal("conclude", map[string]any{"task": "T-1", "decision": "d2"}), fmt.Sprintf(`(supersedes: [%q])`, id); id == "" || !strings.Contains(got, want) {
		t.Errorf("a second conclusion: %q, want %s", got, want)
	}
}

// An error's advice names the tool to call, and its arguments, never a
// command of the command line ('git reason plan T') or its flags
// (--range), which a client of the tools cannot type; the command line
// says the same errors with its own (testscripts).
func TestErrorsNameToolsNotCommands(t *testing.T) {
	cs := connect(t, newRepo(t), nil)
	fails := func(tool string, args map[string]any, want string) {
		t.Helper()
		res, te := callError(t, cs, tool, args)
		if !res.IsError || !strings.Contains(te.Message, want) || strings.Contains(te.Message, "git reason") || strings.Contains(te.Message, "--") {
			t.Errorf("%s %v: %q, want an error saying %q and naming no command or flag", tool, args, te.Message, want)
		}
	}
	fails("status", map[string]any{"task": "nope"}, "start it with the assess tool")
	fails("show", map[string]any{"id": "01ZZZZZZ"}, "the log tool lists them")
	// A blank text names the argument, not the command line's TEXT.
	fails("search", map[string]any{"text": "   "}, "text is blank: give the text to look for")
	fails("verify", map[string]any{"tasks": []any{"nope"}}, "the tasks tool lists them")
	fails("check_neutrality", map[string]any{"staged": true, "range": "a..b"}, "staged and range cannot be combined")
	fails("check_neutrality", map[string]any{"range": "nope..HEAD"}, `range "nope..HEAD": "nope" is not a commit`)
	callTool(t, cs, "assess", map[string]any{"task": "T-1", "subject": "s", "question": "q?", "materiality": "minor", "reversibility": "reversible"})
	// Never closed, as reopened already: not closed (it said "has no closure yet (see status)").
	fails("reopen", map[string]any{"task": "T-1"}, "task T-1 is not closed: there is nothing to reopen")
	fails("conclude", map[string]any{"task": "T-1", "decision": "d"}, "has no plan: call the plan tool first")
	callTool(t, cs, "plan", map[string]any{"task": "T-1"})
	fails("conclude", map[string]any{"task": "T-1", "decision": "d", "local_review": []any{map[string]any{"item": "no such item", "answer": "a"}}},
		"(the status tool lists them)")
	fails("withdraw", map[string]any{"task": "T-1", "record": "01ZZZZZZ", "reason": "r"}, `(the log tool lists them, given task "T-1")`)
	_, c := callTool(t, cs, "conclude", map[string]any{"task": "T-1", "decision": "d"})
	_, at := callTool(t, cs, "attempt", map[string]any{"task": "T-1", "outcome": "abandoned"})
	_, d := callTool(t, cs, "disagree", map[string]any{"task": "T-1", "cites": []any{c["id"], at["id"]}, "summary": "the attempt contradicts it"})
	fails("conclude", map[string]any{"task": "T-1", "decision": "d2", "supersedes": []any{c["id"]}},
		fmt.Sprintf("settle it first with the resolve tool (disagreement: %q)", d["id"]))
	callTool(t, cs, "close", map[string]any{"task": "T-1", "outcome": "abandoned"})
	fails("close", map[string]any{"task": "T-1", "outcome": "done"}, "reopen it first with the reopen tool")
}

// The doctor tool's findings say each step as the tools take it: the
// fix a tool takes as the call (fix_tools: verify for a broken task,
// check_neutrality for a provider-neutrality violation), and the steps
// no tool takes (hooks install, trust) as the person's, in the messages
// and in operational, which said "run 'git reason hooks install'", "see
// them all with 'git reason check neutrality'", "review it with 'git
// reason trust --show', then trust it with 'git reason trust'" and
// "answered with 'git reason conclude TASK --local-review N=ANSWER'",
// commands a client cannot type. 'git reason doctor --json' says them
// as it did (doctor_findings, trust_overlay, trust_signers).
func TestDoctorNamesToolsAndPersonsSteps(t *testing.T) {
	dir := newRepo(t)
	t.Setenv("GIT_REASON_PROFILE", "ci") // no advisor can be asked: operational
	for path, body := range map[string]string{
		neutrality.ConfigPath:              "neutral: [\"src/**\"]\nterms: [\"Quux\"]\n",
		"src/names.go":                     strings.Repeat("// quux\n", 21),
		".reason/allowed_signers":          "ada@example.invalid ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDFIRSTKEYFIRSTKEYFIRSTKEYFIRSTKEYFIRSTKE\n",
		advisor.RepositoryOverlayPath("."): "profiles:\n  - id: sideways\n    mode: offline\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, path)), 0o755); err != nil {
			t.Fatal(err)
		}
		harness.WriteFile(t, filepath.Join(dir, path), body)
	}
	harness.Git(t, dir, "add", "src/names.go")
	harness.Git(t, dir, "commit", "-q", "-m", "names quux")
	harness.Git(t, dir, "update-ref", "refs/reasoning/tasks/B", "HEAD") // no history of records: broken
	_, d := callTool(t, connect(t, dir, nil), "doctor", nil)
	say := map[string]string{}
	fixes := map[string]string{}
	for _, f := range d["findings"].([]any) {
		f := f.(map[string]any)
		code, msg := f["code"].(string), f["message"].(string)
		if strings.Contains(msg, "run 'git reason") || strings.Contains(msg, "see them all with") {
			t.Errorf("%s: %q tells a client to run a command", code, msg)
		}
		if say[code] == "" || strings.HasPrefix(msg, "and ") {
			say[code] = msg
		}
		fixes[code] = mustJSON(t, f["fix_tools"])
	}
	for code, want := range map[string]string{
		"hook_not_installed":   "'git reason hooks install', which the person runs (no tool installs hooks), installs it",
		"untrusted_signers":    "the person reviews it with 'git reason trust --show', then trusts it with 'git reason trust' (no tool reviews or records trust)",
		"untrusted_overlay":    "the person reviews them with 'git reason trust' (no tool reviews or records trust)",
		"neutrality_violation": "and 1 more violation: the check_neutrality tool lists them all",
	} {
		if !strings.HasSuffix(say[code], want) {
			t.Errorf("%s: %q, want it to end %q", code, say[code], want)
		}
	}
	for code, want := range map[string]string{
		"broken_ref":           `[{"arguments":{"tasks":["B"]},"tool":"verify"}]`,
		"neutrality_violation": `[{"arguments":{},"tool":"check_neutrality"}]`,
		"hook_not_installed":   "null", "untrusted_signers": "null", "untrusted_overlay": "null",
	} {
		if fixes[code] != want {
			t.Errorf("%s: fix_tools %s, want %s", code, fixes[code], want)
		}
	}
	if op, _ := d["operational"].(string); !strings.HasSuffix(op, "a plan is a local-review checklist, answered in the conclude tool's local_review") {
		t.Errorf("operational: %q", op)
	}
}

// An untrusted repository .reason/advisors.yaml, and an untrusted
// .reason/allowed_signers listing the key that signed the records, are
// said on the command line's standard error (once per command), which no
// MCP client reads: an agent planned without knowing that review was
// computed without the repository's advisors, and read Eve's signatures
// as a stranger's with nothing to say why. Each result whose answer
// depends on a file says it (notices, and the text), in the tools' terms
// (trust is the person's step), once per result, the second call as the
// first, a refusal too; a call that reads neither file says nothing, and
// doctor, whose findings say both, no notice.
func TestResultsSayUntrustedFiles(t *testing.T) {
	harness.NeedTools(t, "ssh-keygen")
	dir := newRepo(t)
	path := os.Getenv("PATH")
	t.Setenv("GIT_REASON_DISABLE", strings.Join(userAdvisors(t), ","))
	key := filepath.Join(t.TempDir(), "eve_key")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "eve", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v: %s", err, out)
	}
	harness.Git(t, dir, "config", "commit.gpgSign", "true")
	harness.Git(t, dir, "config", "gpg.format", "ssh")
	harness.Git(t, dir, "config", "user.signingKey", key)
	if err := os.MkdirAll(filepath.Join(dir, ".reason"), 0o755); err != nil {
		t.Fatal(err)
	}
	harness.WriteFile(t, filepath.Join(dir, ".reason", "allowed_signers"), "ada@example.invalid "+string(harness.ReadFile(t, key+".pub")))
	harness.WriteFile(t, advisor.RepositoryOverlayPath(dir),
		"advisors:\n  - {id: evil, transport: cli, adapter: exec, command: [sh, -c, 'true'], capabilities: [reasoning]}\n")
	cs := connect(t, dir, nil)
	overlay := "advisors.yaml is not trusted: its entries that run or send something, change what a record attributes or could lower review are ignored (new advisor evil); the person reviews them with 'git reason trust' (no tool reviews or records trust)"
	signers := "allowed_signers is not trusted, so the signers it lists do not count: the person reviews it with 'git reason trust --show', then trusts it with 'git reason trust' (no tool reviews or records trust)"
	says := func(name string, args map[string]any, want ...string) {
		t.Helper()
		res, out := callTool(t, cs, name, args)
		notices, _ := out["notices"].([]any)
		text := res.Content[0].(*mcp.TextContent).Text
		if len(notices) != len(want) {
			t.Errorf("%s: notices %s, want %d", name, mustJSON(t, out["notices"]), len(want))
		}
		for i, w := range want {
			if i < len(notices) && !strings.HasSuffix(notices[i].(string), w) {
				t.Errorf("%s: notice %q, want it to end %q", name, notices[i], w)
			}
			if !strings.Contains(text, "\nnotice: ") || !strings.Contains(text, w) {
				t.Errorf("%s: the text does not carry %q: %q", name, w, text)
			}
		}
	}
	says("assess", map[string]any{"task": "T", "subject": "Drop the legacy table", "question": "Now?",
		"materiality": "critical", "reversibility": "irreversible",
		"evidence": []any{map[string]any{"kind": "note", "summary": "it is unused"}}})
	says("advisors", nil, overlay)
	says("advisors", nil, overlay)
	says("plan", map[string]any{"task": "T"}, overlay)
	// consult opens its own session; the advisors the plan selected are
	// no longer installed: the refusal says what may be why.
	t.Setenv("PATH", path)
	if res, te := callError(t, cs, "consult", map[string]any{"task": "T"}); !res.IsError || len(te.Notices) != 1 || !strings.HasSuffix(te.Notices[0], overlay) ||
		!strings.Contains(res.Content[0].(*mcp.TextContent).Text, "\nnotice: ") {
		t.Errorf("consult: %s %q, notices %q", te.Code, te.Message, te.Notices)
	}
	says("verify", map[string]any{"tasks": []any{"T"}}, signers)
	says("verify", map[string]any{"tasks": []any{"T"}}, signers)
	says("status", map[string]any{"task": "T"}, signers, overlay) // its next step, consult, asks none now
	says("log", map[string]any{"task": "T"}, signers)
	says("doctor", nil)
}

// A declaration that lacks what its transport needs is not_configured
// with a reason ending "; run git reason doctor", which the advisors
// tool and the doctor tool's advisor list gave a client that cannot type
// it: said through MCP as the doctor tool's findings. A missing identity
// (no user.name, user.email) is set with git config, which is the
// person's step to a client: the doctor tool's no_identity finding, a
// write's refusal and the tasks tool's mine say so. 'git reason advisors' and doctor say them as
// they did (doctor_findings, readonly_origin, bad_input).
func TestIncompleteAndIdentitySaidToTools(t *testing.T) {
	dir := newRepo(t)
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "git-reason", "advisors.yaml")
	if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
		t.Fatal(err)
	}
	harness.WriteFile(t, user, "advisors:\n  - {id: adv-no-adapter, transport: api, base_url: https://advisor.example.invalid/v1, capabilities: [reasoning]}\n")
	harness.Git(t, dir, "config", "--unset", "user.name")
	harness.Git(t, dir, "config", "--unset", "user.email")
	t.Setenv("GIT_AUTHOR_NAME", "")
	t.Setenv("GIT_AUTHOR_EMAIL", "")
	t.Setenv("EMAIL", "")
	cs := connect(t, dir, nil)
	const reason = "declaration incomplete: transport api declares no adapter (one of chat_completions, messages); the doctor tool's findings say what to complete"
	reasonOf := func(out map[string]any) string {
		for _, a := range out["advisors"].([]any) {
			if a := a.(map[string]any); a["id"] == "adv-no-adapter" {
				return a["reason"].(string)
			}
		}
		return ""
	}
	_, list := callTool(t, cs, "advisors", nil)
	_, d := callTool(t, cs, "doctor", nil)
	for name, got := range map[string]string{"advisors": reasonOf(list), "doctor": reasonOf(d)} {
		if got != reason {
			t.Errorf("%s: adv-no-adapter's reason %q, want %q", name, got, reason)
		}
	}
	const person = "the person sets it with git config user.name \"Your Name\" and git config user.email you@example.com (no tool sets it)"
	said := ""
	for _, f := range d["findings"].([]any) {
		if f := f.(map[string]any); f["code"] == "no_identity" {
			said = f["message"].(string)
		}
	}
	if said != "no identity, so every write is refused: "+person {
		t.Errorf("no_identity: %q", said)
	}
	_, te := callError(t, cs, "assess", map[string]any{"task": "T", "subject": "s", "question": "q?", "materiality": "minor", "reversibility": "reversible"})
	if te.Message != "no identity: "+person {
		t.Errorf("a write without identity: %s %q", te.Code, te.Message)
	}
	// The tasks tool's mine needs the email alone.
	_, te = callError(t, cs, "tasks", map[string]any{"mine": true})
	if want := "mine: no identity: the person sets it with git config user.email you@example.com (no tool sets it)"; te.Code != CodeBadInput || te.Message != want {
		t.Errorf("tasks mine without identity: %s %q, want %s %q", te.Code, te.Message, CodeBadInput, want)
	}
}

// Tasks whose history does not read are said to each call that reads
// them, as the command line says them to each command: ten lines, then
// one for the rest. The server's session counted them over its whole
// life, and its store told each task once: the first status said
// eleven notices, every later call none, so a client that had not kept
// the first (a compaction, another HTTP session) read a list with tasks
// missing and nothing saying why.
func TestSkippedTasksSaidToEachCall(t *testing.T) {
	dir := newRepo(t)
	for i := range 12 {
		blob, err := harness.GitOutput(nil, dir, fmt.Sprintf("junk %d\n", i), "hash-object", "-w", "--stdin")
		if err != nil {
			t.Fatal(err)
		}
		harness.Git(t, dir, "update-ref", fmt.Sprintf("refs/reasoning/tasks/B%02d", i), blob)
	}
	cs := connect(t, dir, nil)
	for _, name := range []string{"status", "status", "tasks"} {
		_, out := callTool(t, cs, name, nil)
		notices, _ := out["notices"].([]any)
		if len(notices) != 11 {
			t.Errorf("%s: %d notices, want 11: %s", name, len(notices), mustJSON(t, notices))
			continue
		}
		if first := notices[0].(string); !strings.HasPrefix(first, "warning: skipped task B00,") || !strings.HasSuffix(first, `see the verify tool (tasks: ["B00"])`) {
			t.Errorf("%s: the first notice %q", name, first)
		}
		if last := notices[10].(string); !strings.Contains(last, "more tasks whose history does not read") || !strings.HasSuffix(last, "the verify tool (no tasks) names every one") {
			t.Errorf("%s: the last notice %q", name, last)
		}
	}
}

// A context range whose ends share no history (a search that finds a
// record's commit, on refs/reasoning/) has no merge base: bad input, as
// the command line says it, not a failure of the tool.
func TestContextRangeWithoutMergeBase(t *testing.T) {
	dir := newRepo(t)
	harness.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "first")
	cs := connect(t, dir, nil)
	callTool(t, cs, "assess", map[string]any{"task": "T-1", "subject": "s", "question": "q?", "materiality": "minor", "reversibility": "reversible"})
	res, te := callError(t, cs, "context", map[string]any{"range": ":/^assessment: "})
	if !res.IsError || te.Code != CodeBadInput || !strings.Contains(te.Message, "share no history") {
		t.Errorf("a range of no common history: %s %q, want %s saying the ends share no history", te.Code, te.Message, CodeBadInput)
	}
}

// jsonValue is v as encoding/json decodes it into an any.
func jsonValue(t *testing.T, v any) any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Every write tool that names an existing record takes a unique prefix of
// its id, as show does, and stores the full id: validate and conclude
// checked their arguments against the body's full-ULID pattern first and
// refused a prefix ("does not match pattern"), and a refused call of the
// other tools said that instead of the writer's own reason.
func TestWriteToolsTakeIDPrefixes(t *testing.T) {
	cs := connect(t, newRepo(t), nil)
	_, a := callTool(t, cs, "assess", map[string]any{"task": "T-1", "subject": "s", "question": "q?", "materiality": "trivial", "reversibility": "reversible"})
	short := func(v any) string { return v.(string)[:16] }
	_, p := callTool(t, cs, "plan", map[string]any{"task": "T-1", "assessment": short(a["id"])})
	_, c := callTool(t, cs, "conclude", map[string]any{"task": "T-1", "assessment": short(a["id"]), "decision": "d"})
	_, v := callTool(t, cs, "validate", map[string]any{"task": "T-1", "conclusion": short(c["id"]), "result": "pass"})
	_, at := callTool(t, cs, "attempt", map[string]any{"task": "T-1", "conclusion": short(c["id"]), "outcome": "failed"})
	_, w := callTool(t, cs, "withdraw", map[string]any{"task": "T-1", "record": short(at["id"]), "reason": "the wrong branch"})
	_, c2 := callTool(t, cs, "conclude", map[string]any{"task": "T-1", "decision": "d again", "supersedes": []any{short(c["id"])}})
	_, d := callTool(t, cs, "disagree", map[string]any{"task": "T-1", "cites": []any{short(c2["id"]), short(v["id"])}, "summary": "the validation predates it"})
	_, r := callTool(t, cs, "resolve", map[string]any{"task": "T-1", "disagreement": short(d["id"]), "decision": "it holds",
		"evidence": []any{map[string]any{"kind": "note", "summary": "read again"}}})
	_, cl := callTool(t, cs, "close", map[string]any{"task": "T-1", "outcome": "done"})
	_, re := callTool(t, cs, "reopen", map[string]any{"task": "T-1", "closure": short(cl["id"]), "reason": "more to do"})
	for _, tc := range []struct {
		rec   map[string]any
		field string
		want  any
	}{
		{p, "assessment", a["id"]}, {c, "assessment", a["id"]}, {v, "conclusion", c["id"]}, {at, "conclusion", c["id"]},
		{w, "record", at["id"]}, {c2, "supersedes", []any{c["id"]}}, {d, "cites", []any{c2["id"], v["id"]}},
		{r, "disagreement", d["id"]}, {re, "closure", cl["id"]},
	} {
		body := tc.rec["body"].(map[string]any)
		if !reflect.DeepEqual(body[tc.field], tc.want) {
			t.Errorf("%s %s: stored %v, want the full id %v", tc.rec["kind"], tc.field, body[tc.field], tc.want)
		}
	}
	// A prefix naming a record of another kind is refused for what it is.
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "attempt", Arguments: map[string]any{"task": "T-1", "conclusion": short(v["id"]), "outcome": "failed"}})
	if err != nil || !res.IsError {
		t.Fatalf("attempt citing a validation: %v %+v", err, res)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "is a validation, not a conclusion") {
		t.Errorf("attempt citing a validation by prefix says %q", text)
	}
	// A prefix too short is said as show says it.
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "validate", Arguments: map[string]any{"task": "T-1", "conclusion": "01", "result": "pass"}})
	if err != nil || !res.IsError {
		t.Fatalf("validate with a 2-character id: %v %+v", err, res)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "/conclusion") || !strings.Contains(text, "6") {
		t.Errorf("validate with a 2-character id says %q", text)
	}
}

// A blank required text (only spaces, tabs or line breaks) is bad input
// over MCP as on the command line, nothing written: the writer holds a
// caller's body to its kind's input document, whichever tool sent it.
func TestBlankTextsAreBadInput(t *testing.T) {
	cs := connect(t, newRepo(t), nil)
	_, a := callTool(t, cs, "assess", map[string]any{"task": "T-1", "subject": "s", "question": "q?", "materiality": "trivial", "reversibility": "reversible"})
	_, p := callTool(t, cs, "plan", map[string]any{"task": "T-1"})
	for _, tc := range []struct {
		tool, field string
		args        map[string]any
	}{
		{"assess", "/question", map[string]any{"task": "T-2", "subject": "s", "question": " \n ", "materiality": "trivial", "reversibility": "reversible"}},
		{"conclude", "/decision", map[string]any{"task": "T-1", "decision": "   "}},
		{"disagree", "/summary", map[string]any{"task": "T-1", "cites": []any{a["id"], p["id"]}, "summary": "\t"}},
		{"close", "/reason", map[string]any{"task": "T-1", "outcome": "done", "reason": "  "}},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil || !res.IsError {
			t.Errorf("%s with a blank %s: %v %+v, want a tool error", tc.tool, tc.field, err, res)
			continue
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var te struct{ Code, Message string }
		if err := json.Unmarshal(raw, &te); err != nil {
			t.Fatal(err)
		}
		if te.Code != "bad_input" || !strings.Contains(te.Message, tc.field+": is blank") {
			t.Errorf("%s with a blank %s: %s %q, want bad_input saying it is blank", tc.tool, tc.field, te.Code, te.Message)
		}
	}
	_, log := callTool(t, cs, "log", map[string]any{"task": "T-1"})
	if raw, _ := json.Marshal(log); strings.Count(string(raw), `"kind":`) != 2 {
		t.Errorf("after blank texts, T-1 holds more than its assessment and plan: %s", raw)
	}
}

// pointsDef is the input documents' definition of evidence that points at
// something: a ref that is not blank.
const pointsDef = "#/$defs/points"

// withoutTexts is a tool's input schema less what input rules added: the
// references to the definition of a text, and that definition; the rule
// that evidence other than a note points at something (if, then), and
// its definition.
func withoutTexts(v any) any {
	switch x := v.(type) {
	case obj:
		out := obj{}
		then, _ := x["then"].(obj)
		points := then["$ref"] == pointsDef
		for k, e := range x {
			if k == "$ref" && e == schemas.TextDef || points && (k == "if" || k == "then") {
				continue
			}
			if k == "$defs" {
				defs := withoutTexts(e).(obj)
				delete(defs, "text")
				delete(defs, "points")
				if len(defs) == 0 {
					continue
				}
				out[k] = defs
				continue
			}
			out[k] = withoutTexts(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withoutTexts(e)
		}
		return out
	}
	return v
}

// The context's text names the tool that takes a step, and says a step
// no tool takes (installing hooks, fetching) as the person's, never as a
// bare command a client would take for its own to run.
func TestContextSaysThePersonsSteps(t *testing.T) {
	dir := newRepo(t)
	harness.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "initial commit")
	harness.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "work\n\nReason-Task: GONE")
	res, _ := callTool(t, connect(t, dir, nil), "context", map[string]any{"range": "HEAD~1..HEAD"})
	text := res.Content[0].(*mcp.TextContent).Text
	for _, want := range []string{
		"`git reason hooks install`, which the person runs (no tool installs hooks), adds it",
		"'git reason pull', which the person runs \\(no tool fetches\\), fetches them; the verify tool checks them",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the context's text does not say %q:\n%s", want, text)
		}
	}
}

// forgeRecord rewrites the one record of task's head commit with edit
// applied to its stored text, committed with plumbing alone as a
// history fetched from elsewhere is: the record no longer holds what the
// writer admitted.
func forgeRecord(t *testing.T, dir, task string, edit func(string) string) {
	t.Helper()
	ref := "refs/reasoning/tasks/" + task
	name := strings.TrimSpace(harness.Git(t, dir, "ls-tree", "--name-only", ref+":records"))
	blob := strings.TrimSpace(harness.GitInput(t, dir, edit(harness.Git(t, dir, "cat-file", "blob", ref+":records/"+name)), "hash-object", "-w", "--stdin"))
	records := strings.TrimSpace(harness.GitInput(t, dir, "100644 blob "+blob+"\t"+name+"\n", "mktree"))
	root := strings.TrimSpace(harness.GitInput(t, dir, "040000 tree "+records+"\trecords\n", "mktree"))
	commit := strings.TrimSpace(harness.GitInput(t, dir, "assessment: forged\n\nReason-Task: "+task+"\n", "commit-tree", root))
	harness.Git(t, dir, "update-ref", ref, commit)
}

// A stored record that fails its schema (written by plumbing, fetched by
// plain git) is the history's fault, not the call's: every tool
// addressed to its task says it as the command line does (the task does
// not read: see the verify tool), refused as the command line's exit 3,
// and recovers with verify. It said "arguments of status: /materiality: ...",
// sending the client to change arguments that were right. A body the
// call itself built keeps "arguments of".
func TestStoredSchemaFailureIsNotTheArguments(t *testing.T) {
	dir := newRepo(t)
	cs := connect(t, dir, nil)
	callTool(t, cs, "assess", map[string]any{"task": "T", "subject": "s", "question": "q?", "materiality": "minor", "reversibility": "reversible"})
	forgeRecord(t, dir, "T", func(s string) string { return strings.Replace(s, `"minor"`, `"huge"`, 1) })
	for _, c := range []struct {
		tool   string
		args   map[string]any
		prefix string // what the command line says before the history's error
	}{
		{"status", map[string]any{"task": "T"}, ""},
		{"log", map[string]any{"task": "T"}, ""},
		{"plan", map[string]any{"task": "T"}, ""},
		{"assess", map[string]any{"task": "T", "subject": "s", "question": "q2?", "materiality": "minor", "reversibility": "reversible"}, "load task T: "},
	} {
		res, te := callError(t, cs, c.tool, c.args)
		actions := mustJSON(t, te.RecoveryActions)
		if !res.IsError || te.Code != CodeRefused || !strings.HasPrefix(te.Message, c.prefix+"task T does not read (at ") ||
			!strings.Contains(te.Message, `: assessment body does not match its schema (see the schema tool (kind: "assessment")): /materiality: value must be one of `) ||
			!strings.HasSuffix(te.Message, `: see the verify tool (tasks: ["T"])`) || strings.Contains(te.Message, "git reason") ||
			actions != `[{"tool":"verify","arguments":{"tasks":["T"]}}]` {
			t.Errorf("%s on a task whose stored record fails its schema: %s %q %s", c.tool, te.Code, te.Message, actions)
		}
	}
	_, te := callError(t, cs, "assess", map[string]any{"task": "U", "subject": "s", "question": "q?", "materiality": "huge", "reversibility": "reversible"})
	if !strings.HasPrefix(te.Message, "arguments of assess: /materiality: ") {
		t.Errorf("a body the call built that fails its schema: %s %q", te.Code, te.Message)
	}
}

// Texts a fetched record carries reach an MCP host's person as they reach
// a terminal: through record.PrintableText. A host that runs in a terminal
// (an agent's command line) prints a result's text there, and the log,
// search and handover tools and the task reports put a forged record's
// subject in it as stored: an OSC 52 sequence there writes the person's
// clipboard, a right-to-left override reverses what they read. show and
// status filtered theirs; the other tools did not.
func TestRecordTextsReachNoTerminal(t *testing.T) {
	dir := newRepo(t)
	cs := connect(t, dir, nil)
	callTool(t, cs, "assess", map[string]any{"task": "T", "subject": "s", "question": "q?", "materiality": "minor", "reversibility": "reversible",
		"evidence": []any{map[string]any{"kind": "note", "ref": "n", "summary": "e"}}})
	const hostile = `\u001b]52;c;Y3VybCBldmlsfHNo\u0007\u001b[2J\u202e\u009b31m`
	forgeRecord(t, dir, "T", func(s string) string {
		for _, f := range []string{"subject", "question", "summary"} {
			s = regexp.MustCompile(`("`+f+`": "[^"]*)"`).ReplaceAllString(s, "${1}"+hostile+`"`)
		}
		return s
	})
	raw := func(s string) bool {
		return strings.ContainsFunc(s, func(r rune) bool { return r == 0x1b || r == 0x07 || r == 0x9b || r == 0x202e })
	}
	ctx := context.Background()
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"status", map[string]any{"task": "T"}}, {"status", map[string]any{}}, {"log", map[string]any{"task": "T"}},
		{"log", map[string]any{}}, {"search", map[string]any{"text": "s"}}, {"handover", map[string]any{}},
		{"tasks", map[string]any{}}, {"verify", map[string]any{"tasks": []any{"T"}}}, {"plan", map[string]any{"task": "T"}},
	}
	for _, c := range calls {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatal(err)
		}
		if text := res.Content[0].(*mcp.TextContent).Text; raw(text) {
			t.Errorf("%s %v: the result's text holds the record's control characters as stored: %q", c.tool, c.args, text)
		}
	}
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list.Resources {
		if raw(r.Description) || raw(r.Title) {
			t.Errorf("resources/list: %q", r.Description)
		}
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "reason://task/T"})
	if err != nil || raw(res.Contents[0].Text) {
		t.Errorf("resources/read: %v %q", err, res.Contents[0].Text)
	}
}
