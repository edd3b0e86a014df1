package main

// End-to-end tests of 'git reason mcp' through the real binary: a fixed
// sequence of calls (a full reasoning cycle with a disagreement and its
// resolution, a refused call, resource reads) sent as raw JSON-RPC over the
// server's stdin, and the same sequence driven by real MCP clients
// (mcp_clients_test.go). The advisors are fake executables that answer at
// once; every advisor, vendor and model name here is made up.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"git-reason/reliability/harness"
	"git-reason/schemas"
)

// mcpOverlay declares two fake advisors that always take opposite
// stances; adv-b answers a moment later, so that the records keep one order.
var mcpOverlay = twoAdvisors("fake-advisor", `, endorse, "0"`, `, oppose, "0.3"`)

// fakeAdvisor answers with the stance $1 after sleeping $2 seconds.
const fakeAdvisor = `cat > /dev/null
sleep "$2"
printf '{"stance":"%s","summary":"a view: %s","confidence":0.6}\n' "$1" "$1"
`

// newMCPSandbox is a repository with one commit and the two fake advisors.
func newMCPSandbox(t *testing.T) *sandbox {
	t.Helper()
	s := newSandbox(t, mcpOverlay, map[string]string{"fake-advisor": fakeAdvisor})
	s.git("commit", "-q", "--allow-empty", "-m", "start")
	s.git("commit", "-q", "--allow-empty", "-m", "sessions: signed cookies", "-m", "Reason-Task: T-7")
	return s
}

// mcpDriver sends one MCP request and returns its result (or error) as JSON.
type mcpDriver interface {
	call(t *testing.T, method string, params map[string]any) json.RawMessage
}

// mcpStep is one call of the sequence: its params may use values that
// earlier results captured; check asserts on the result and captures more.
type mcpStep struct {
	name   string
	method string
	params func(v map[string]string) map[string]any
	check  func(t *testing.T, v map[string]string, res any)
}

func toolCall(name string, args func(v map[string]string) map[string]any) func(v map[string]string) map[string]any {
	return func(v map[string]string) map[string]any {
		a := map[string]any{}
		if args != nil {
			a = args(v)
		}
		return map[string]any{"name": name, "arguments": a}
	}
}

func fixed(params map[string]any) func(map[string]string) map[string]any {
	return func(map[string]string) map[string]any { return params }
}

// jget walks a decoded JSON value along a dot-separated path of keys and
// array indexes; nil when the path does not exist.
func jget(v any, path string) any {
	v, _ = jpath(v, path)
	return v
}

// jpath is jget, saying in its error which step of the path does not
// exist.
func jpath(v any, path string) (any, error) {
	for _, key := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[key]
			if !ok {
				return nil, fmt.Errorf("no field %q in %s", key, path)
			}
			v = next
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(x) {
				return nil, fmt.Errorf("no index %q in %s (length %d)", key, path, len(x))
			}
			v = x[i]
		default:
			return nil, fmt.Errorf("%s: %q is not inside an object or array", path, key)
		}
	}
	return v, nil
}

func jstr(v any, path string) string {
	s, _ := jget(v, path).(string)
	return s
}

func wantOK(t *testing.T, step string, res any) {
	t.Helper()
	if jget(res, "isError") == true || jget(res, "error") != nil {
		t.Fatalf("%s: want success, got %s", step, compact(res))
	}
}

func wantEq(t *testing.T, step, what string, got, want any) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s: %s = %v, want %v", step, what, got, want)
	}
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 2000 {
		b = append(b[:2000], "..."...)
	}
	return string(b)
}

// mcpToolNames are the tools the server must list, in share/tools.yaml.
var mcpToolNames = []string{"advisors", "assess", "attempt", "check_neutrality", "close", "conclude", "consult", "context",
	"disagree", "doctor", "handover", "log", "plan", "prepare_session", "reopen", "resolve", "schema", "search", "show", "status", "tasks",
	"validate", "verify", "withdraw"}

// mcpSequence is the fixed sequence (after initialize): prepare_session
// stating nativeToolSearch, tools/list, a cycle with a disagreement opened
// by consult, a conclusion refused over it, its resolution, the
// conclusion, a validation and an attempt, the task report as a resource,
// an unknown task, and reads.
func mcpSequence(nativeToolSearch bool) []mcpStep {
	evidence := []any{map[string]any{"kind": "note", "summary": "sessions are 3 KB on average"}}
	return []mcpStep{
		{"prepare_session", "tools/call", toolCall("prepare_session", fixed(map[string]any{"native_tool_search": nativeToolSearch, "native_edit": true})),
			func(t *testing.T, v map[string]string, res any) {
				wantOK(t, "prepare_session", res)
				wantEq(t, "prepare_session", "native_tool_search", jget(res, "structuredContent.capabilities.native_tool_search"), nativeToolSearch)
				wantEq(t, "prepare_session", "source", jstr(res, "structuredContent.sources.native_tool_search"), "stated")
			}},
		{"tools/list", "tools/list", fixed(map[string]any{}), func(t *testing.T, v map[string]string, res any) {
			var names []string
			tools, _ := jget(res, "tools").([]any)
			for _, tl := range tools {
				names = append(names, jstr(tl, "name"))
				if jget(tl, "annotations.destructiveHint") != false {
					t.Errorf("tool %s: destructiveHint is not false", jstr(tl, "name"))
				}
				if jget(tl, "_meta") == nil || jget(tl, "outputSchema") == nil {
					t.Errorf("tool %s has no _meta or outputSchema", jstr(tl, "name"))
				}
			}
			sort.Strings(names)
			wantEq(t, "tools/list", "tools", strings.Join(names, " "), strings.Join(mcpToolNames, " "))
		}},
		{"status (none)", "tools/call", toolCall("status", nil), func(t *testing.T, v map[string]string, res any) {
			wantOK(t, "status", res)
			wantEq(t, "status", "tasks", compact(jget(res, "structuredContent.tasks")), "[]")
		}},
		{"assess", "tools/call", toolCall("assess", fixed(map[string]any{"task": "T-7", "subject": "Session storage",
			"question": "Move sessions to signed cookies?", "materiality": "critical", "reversibility": "costly",
			"needs": []any{"reasoning"}, "evidence": evidence})),
			func(t *testing.T, v map[string]string, res any) {
				wantOK(t, "assess", res)
				v["A"] = jstr(res, "structuredContent.id")
			}},
		{"plan", "tools/call", toolCall("plan", fixed(map[string]any{"task": "T-7"})), func(t *testing.T, v map[string]string, res any) {
			wantOK(t, "plan", res)
			wantEq(t, "plan", "assessment", jstr(res, "structuredContent.body.assessment"), v["A"])
			wantEq(t, "plan", "selected", compact(jget(res, "structuredContent.derived.selected")), `["adv-a","adv-b"]`)
		}},
		{"consult", "tools/call", toolCall("consult", fixed(map[string]any{"task": "T-7"})), func(t *testing.T, v map[string]string, res any) {
			wantOK(t, "consult", res)
			wantEq(t, "consult", "stances", jstr(res, "structuredContent.results.0.stance")+"/"+jstr(res, "structuredContent.results.1.stance"), "endorse/oppose")
			v["C1"], v["C2"] = jstr(res, "structuredContent.results.0.record"), jstr(res, "structuredContent.results.1.record")
			v["D"] = jstr(res, "structuredContent.disagreement")
			if v["D"] == "" {
				t.Fatalf("consult opened no disagreement: %s", compact(res))
			}
		}},
		{"status (disputed)", "tools/call", toolCall("status", fixed(map[string]any{"task": "T-7"})), func(t *testing.T, v map[string]string, res any) {
			wantOK(t, "status", res)
			wantEq(t, "status", "phase", jstr(res, "structuredContent.phase"), "disputed")
		}},
		{"handover (disputed)", "tools/call", toolCall("handover", fixed(map[string]any{"since": "1d"})), func(t *testing.T, v map[string]string, res any) {
			wantOK(t, "handover", res)
			wantEq(t, "handover", "open", jstr(res, "structuredContent.open.0.task")+"/"+jstr(res, "structuredContent.open.0.phase"), "T-7/disputed")
			wantEq(t, "handover", "disagreement", jstr(res, "structuredContent.open.0.open_disagreements.0.id"), v["D"])
			wantEq(t, "handover", "settled", compact(jget(res, "structuredContent.settled")), "[]")
			if text := jstr(res, "content.0.text"); !strings.Contains(text, "# Handover") || !strings.Contains(text, "open disagreement `"+v["D"]+"`") {
				t.Errorf("handover: the text is not the handover's markdown:\n%s", text)
			}
		}},
		{"conclude (refused)", "tools/call", toolCall("conclude", func(v map[string]string) map[string]any {
			return map[string]any{"task": "T-7", "decision": "signed cookies", "weighed": []any{
				map[string]any{"consultation": v["C1"], "treatment": "adopted", "reason": "small"},
				map[string]any{"consultation": v["C2"], "treatment": "rejected", "reason": "size is fine"}}}
		}), func(t *testing.T, v map[string]string, res any) {
			wantEq(t, "refused conclusion", "isError", jget(res, "isError"), true)
			wantEq(t, "refused conclusion", "code", jstr(res, "structuredContent.code"), "refused")
			wantEq(t, "refused conclusion", "recovery", compact(jget(res, "structuredContent.recovery_actions")),
				`[{"arguments":{"disagreement":"`+v["D"]+`","task":"T-7"},"tool":"resolve"}]`)
		}},
		{"resolve", "tools/call", toolCall("resolve", func(v map[string]string) map[string]any {
			return map[string]any{"task": "T-7", "disagreement": v["D"], "decision": "signed cookies, capped at 4 KB",
				"evidence": []any{map[string]any{"kind": "note", "summary": "cookie size measured in staging"}}}
		}), func(t *testing.T, v map[string]string, res any) { wantOK(t, "resolve", res) }},
		{"conclude", "tools/call", toolCall("conclude", func(v map[string]string) map[string]any {
			return map[string]any{"task": "T-7", "decision": "signed cookies", "weighed": []any{
				map[string]any{"consultation": v["C1"], "treatment": "adopted", "reason": "small"},
				map[string]any{"consultation": v["C2"], "treatment": "rejected", "reason": "size is fine"}}}
		}), func(t *testing.T, v map[string]string, res any) {
			wantOK(t, "conclude", res)
			wantEq(t, "conclude", "review_count", jget(res, "structuredContent.derived.review_count"), 2)
			v["K"] = jstr(res, "structuredContent.id")
		}},
		{"validate", "tools/call", toolCall("validate", fixed(map[string]any{"task": "T-7", "result": "pass",
			"evidence": []any{map[string]any{"kind": "note", "summary": "dashboards are green"}}})),
			func(t *testing.T, v map[string]string, res any) {
				wantOK(t, "validate", res)
				wantEq(t, "validate", "conclusion", jstr(res, "structuredContent.body.conclusion"), v["K"])
				wantEq(t, "validate", "method", jstr(res, "structuredContent.body.method"), "manual")
			}},
		{"attempt", "tools/call", toolCall("attempt", fixed(map[string]any{"task": "T-7", "outcome": "succeeded", "notes": "shipped"})),
			func(t *testing.T, v map[string]string, res any) { wantOK(t, "attempt", res) }},
		{"context", "tools/call", toolCall("context", fixed(map[string]any{"range": "HEAD~1..HEAD"})), func(t *testing.T, v map[string]string, res any) {
			wantOK(t, "context", res)
			wantEq(t, "context", "task", jstr(res, "structuredContent.tasks.0.task")+"/"+jstr(res, "structuredContent.tasks.0.links.0.by"), "T-7/trailer")
			if text := jstr(res, "content.0.text"); !strings.Contains(text, "T-7") || !strings.Contains(text, "mermaid") {
				t.Errorf("context: the text is not the context's markdown:\n%s", text)
			}
		}},
		{"resources/list", "resources/list", fixed(map[string]any{}), func(t *testing.T, v map[string]string, res any) {
			wantEq(t, "resources/list", "uri", jstr(res, "resources.0.uri"), "reason://task/T-7")
			wantEq(t, "resources/list", "mimeType", jstr(res, "resources.0.mimeType"), "text/markdown")
		}},
		{"resources/read", "resources/read", fixed(map[string]any{"uri": "reason://task/T-7"}), func(t *testing.T, v map[string]string, res any) {
			text := jstr(res, "contents.0.text")
			// The advisors are named in the order the conclusion weighed
			// them, C1 then C2: the order the consult's answers came in.
			if !strings.Contains(text, "Review count: 2 (adv-a, adv-b)") && !strings.Contains(text, "Review count: 2 (adv-b, adv-a)") {
				t.Fatalf("resources/read: report lacks the review count of adv-a and adv-b:\n%s", text)
			}
			for _, want := range []string{"# Reasoning: T-7", "Resolved by `", "`: signed cookies, capped at 4 KB\n- evidence (note): cookie size measured in staging", "Manual validation claimed: pass."} {
				if !strings.Contains(text, want) {
					t.Fatalf("resources/read: report lacks %q:\n%s", want, text)
				}
			}
		}},
		{"status (unknown task)", "tools/call", toolCall("status", fixed(map[string]any{"task": "T-9"})), func(t *testing.T, v map[string]string, res any) {
			wantEq(t, "unknown task", "code", jstr(res, "structuredContent.code"), "unknown_task")
			wantEq(t, "unknown task", "recovery", compact(jget(res, "structuredContent.recovery_actions")), `[{"arguments":{"task":"T-9"},"tool":"assess"}]`)
		}},
		{"log", "tools/call", toolCall("log", fixed(map[string]any{"task": "T-7"})), func(t *testing.T, v map[string]string, res any) {
			wantOK(t, "log", res)
			entries, _ := jget(res, "structuredContent.entries").([]any)
			wantEq(t, "log", "entries", len(entries), 9)
		}},
		{"show", "tools/call", toolCall("show", func(v map[string]string) map[string]any { return map[string]any{"id": v["K"][:16]} }),
			func(t *testing.T, v map[string]string, res any) {
				wantOK(t, "show", res)
				wantEq(t, "show", "id", jstr(res, "structuredContent.id"), v["K"])
			}},
		{"status (validated)", "tools/call", toolCall("status", fixed(map[string]any{"task": "T-7"})), func(t *testing.T, v map[string]string, res any) {
			wantOK(t, "status", res)
			wantEq(t, "status", "phase/count", jstr(res, "structuredContent.phase")+"/"+fmt.Sprint(jget(res, "structuredContent.review_count")), "validated/2")
		}},
		{"verify", "tools/call", toolCall("verify", nil), func(t *testing.T, v map[string]string, res any) {
			wantOK(t, "verify", res)
			wantEq(t, "verify", "findings", compact(jget(res, "structuredContent.findings")), "[]")
		}},
		{"schema", "tools/call", toolCall("schema", fixed(map[string]any{"kind": "conclusion"})), func(t *testing.T, v map[string]string, res any) {
			wantOK(t, "schema", res)
			wantEq(t, "schema", "body $id", jstr(res, "structuredContent.body.$id"), "urn:git-reason:schema:conclusion:body")
		}},
		{"schema (handover)", "tools/call", toolCall("schema", fixed(map[string]any{"kind": "handover"})), func(t *testing.T, v map[string]string, res any) {
			wantOK(t, "schema", res)
			wantEq(t, "schema", "output $id", jstr(res, "structuredContent.output.$id"), "urn:git-reason:schema:output:handover")
		}},
		// A task named like a branch: written, read, and its report a
		// resource whose URI escapes the slash.
		{"assess (feature/db-migration)", "tools/call", toolCall("assess", fixed(map[string]any{"task": "feature/db-migration",
			"subject": "Online migration", "question": "Migrate without downtime?", "materiality": "minor", "reversibility": "reversible"})),
			func(t *testing.T, v map[string]string, res any) {
				wantOK(t, "assess", res)
				wantEq(t, "assess", "task", jstr(res, "structuredContent.task"), "feature/db-migration")
			}},
		{"status (feature/db-migration)", "tools/call", toolCall("status", fixed(map[string]any{"task": "feature/db-migration"})),
			func(t *testing.T, v map[string]string, res any) {
				wantOK(t, "status", res)
				wantEq(t, "status", "phase", jstr(res, "structuredContent.phase"), "assessed")
			}},
		{"resources/read (feature/db-migration)", "resources/read", fixed(map[string]any{"uri": "reason://task/feature%2Fdb-migration"}),
			func(t *testing.T, v map[string]string, res any) {
				if text := jstr(res, "contents.0.text"); !strings.Contains(text, "# Reasoning: feature/db-migration") {
					t.Fatalf("resources/read: report of feature/db-migration:\n%s", text)
				}
			}},
	}
}

// runSequence drives the sequence through d and returns every result.
func runSequence(t *testing.T, d mcpDriver, steps []mcpStep) []any {
	t.Helper()
	v := map[string]string{}
	var out []any
	for _, st := range steps {
		raw := d.call(t, st.method, st.params(v))
		var res any
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatalf("%s: result is not JSON: %v\n%s", st.name, err, raw)
		}
		st.check(t, v, res)
		out = append(out, res)
	}
	return out
}

// rawMCP is a client that speaks JSON-RPC lines to 'git reason mcp' over
// its stdin and stdout, one request at a time, and keeps every line the
// server sent.
type rawMCP struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	next   int
	lines  []string // every response, in order
	notes  []string // every notification
	stderr *bytes.Buffer
}

func startRawMCP(t *testing.T, s *sandbox, args ...string) *rawMCP {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	cmd := exec.CommandContext(ctx, "git", append([]string{"reason", "mcp"}, args...)...)
	cmd.Dir, cmd.Env = s.dir, s.env
	stderr := &bytes.Buffer{}
	cmd.Stderr = stderr
	in, out := harness.StartPiped(t, cmd)
	r := &rawMCP{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), stderr: stderr}
	t.Cleanup(func() {
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Errorf("git reason mcp did not end within 30 s of its input closing")
		}
		cancel()
	})
	return r
}

// startHostMCP is startRawMCP, initialized by a client named host that
// declares no capabilities.
func startHostMCP(t *testing.T, s *sandbox) *rawMCP {
	t.Helper()
	r := startRawMCP(t, s)
	r.initialize(t, "host", "1", map[string]any{})
	return r
}

func (r *rawMCP) send(t *testing.T, msg map[string]any) {
	t.Helper()
	b, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.in.Write(append(b, '\n')); err != nil {
		t.Fatalf("write to server: %v (stderr: %s)", err, r.stderr)
	}
}

// request sends a request and returns the whole response line.
func (r *rawMCP) request(t *testing.T, method string, params map[string]any) string {
	t.Helper()
	r.next++
	id := r.next
	r.send(t, map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	for {
		line, err := r.out.ReadString('\n')
		if err != nil {
			t.Fatalf("%s: read from server: %v (stderr: %s)", method, err, r.stderr)
		}
		var head struct {
			ID *int `json:"id"`
		}
		if err := json.Unmarshal([]byte(line), &head); err != nil {
			t.Fatalf("%s: server sent a line that is not JSON: %q", method, line)
		}
		if head.ID == nil {
			r.notes = append(r.notes, line)
			continue
		}
		if *head.ID != id {
			continue // the answer to a request this client gave up (cancelled)
		}
		line = strings.TrimRight(line, "\n")
		r.lines = append(r.lines, line)
		return line
	}
}

func (r *rawMCP) initialize(t *testing.T, clientName, clientVersion string, caps map[string]any) string {
	t.Helper()
	line := r.request(t, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": caps,
		"clientInfo": map[string]any{"name": clientName, "version": clientVersion}})
	r.send(t, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return line
}

// call implements mcpDriver: the response's result, or its error object.
func (r *rawMCP) call(t *testing.T, method string, params map[string]any) json.RawMessage {
	t.Helper()
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	line := r.request(t, method, params)
	if err := json.Unmarshal([]byte(line), &resp); err != nil {
		t.Fatal(err)
	}
	if resp.Error != nil {
		return json.RawMessage(`{"error":` + string(resp.Error) + `}`)
	}
	return resp.Result
}

var (
	ulidPattern   = regexp.MustCompile(`\b[0-9A-HJKMNP-TV-Z]{26}\b`)
	originPattern = regexp.MustCompile(`\b[0-9a-hjkmnp-tv-z]{26}\b`)
	timePattern   = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)
	shaPattern    = regexp.MustCompile(`\b[0-9a-f]{40}\b`)
	shortSHA      = regexp.MustCompile(`\(commit [0-9a-f]{12}\)`)
	durPattern    = regexp.MustCompile(`"duration_ms":\d+`)
	noncePattern  = regexp.MustCompile(`"nonce":"[0-9a-f]+"`)
)

// normalise replaces what differs between two runs of the same sequence in
// two repositories: record ids (each full id and its prefixes by its order
// of first appearance), clone origins, times, commit hashes, durations and
// the nonce of each question consult sent.
func normalise(lines []string) string {
	all := strings.Join(lines, "\n")
	ids := map[string]string{}
	for _, id := range ulidPattern.FindAllString(all, -1) {
		if _, ok := ids[id]; !ok {
			ids[id] = fmt.Sprintf("ID%02d", len(ids)+1)
		}
	}
	type pair struct{ from, to string }
	var repl []pair
	for id, name := range ids {
		repl = append(repl, pair{id, "<" + name + ">"})
		for _, n := range []int{16, 10} {
			repl = append(repl, pair{id[:n], "<" + name + ":" + strconv.Itoa(n) + ">"})
		}
	}
	sort.Slice(repl, func(i, j int) bool { return len(repl[i].from) > len(repl[j].from) })
	for _, p := range repl {
		all = strings.ReplaceAll(all, p.from, p.to)
	}
	all = originPattern.ReplaceAllString(all, "<origin>")
	all = timePattern.ReplaceAllString(all, "<time>")
	all = shaPattern.ReplaceAllString(all, "<sha>")
	all = shortSHA.ReplaceAllString(all, "(commit <sha>)")
	all = noncePattern.ReplaceAllString(all, `"nonce":"<nonce>"`)
	return durPattern.ReplaceAllString(all, `"duration_ms":0`)
}

// declaredCaps are the capabilities every replay declares in initialize.
var declaredCaps = map[string]any{"elicitation": map[string]any{}, "roots": map[string]any{"listChanged": true}}

// replay runs initialize and the sequence in a fresh repository and returns
// every response line.
func replay(t *testing.T, clientName, clientVersion string, nativeToolSearch bool) []string {
	t.Helper()
	s := newMCPSandbox(t)
	r := startRawMCP(t, s)
	r.initialize(t, clientName, clientVersion, declaredCaps)
	steps := mcpSequence(nativeToolSearch)
	results := runSequence(t, r, steps)
	checkOutputSchemas(t, steps, results)
	return r.lines
}

// checkOutputSchemas validates every successful call's structured content
// against the output schema its tool declares in tools/list, compiled as
// any JSON Schema 2020-12 validator would (nothing loaded from outside).
func checkOutputSchemas(t *testing.T, steps []mcpStep, results []any) {
	t.Helper()
	compiled := map[string]*schemas.Schema{}
	var tools []any
	for i, st := range steps {
		if st.method == "tools/list" {
			tools, _ = jget(results[i], "tools").([]any)
		}
	}
	for _, tl := range tools {
		name := jstr(tl, "name")
		doc, _ := json.Marshal(jget(tl, "outputSchema"))
		sch, err := schemas.CompileDocument(name, doc)
		if err != nil {
			t.Fatalf("output schema of %s: %v", name, err)
		}
		compiled[name] = sch
	}
	checked := 0
	for i, st := range steps {
		if st.method != "tools/call" {
			continue
		}
		name, _ := st.params(map[string]string{"K": strings.Repeat("0", 26)})["name"].(string)
		sch := compiled[name]
		if sch == nil {
			t.Fatalf("%s: tool %s has no output schema", st.name, name)
		}
		if err := sch.Validate(jget(results[i], "structuredContent")); err != nil {
			t.Errorf("%s: structured content does not fit the output schema of %s: %v", st.name, name, err)
		}
		checked++
	}
	if checked < 12 {
		t.Fatalf("only %d results checked against output schemas", checked)
	}
}

// Two client identities (every part of name and version different, one
// a pre-release) with the same declared capabilities get byte-identical
// responses once ids and times are normalised: the client's name and
// version are never used. Then a third identity with native_tool_search
// true gets the same responses but for suggested_next_tools (and
// prepare_session's echo of the stated value). Three full cycles through
// the binary; a third identity without native tool search (a fourth
// cycle) proved nothing the two do not.
func TestMCPIdenticalResponsesAcrossClients(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("three full cycles through the binary")
	}
	var first string
	for i, id := range [][2]string{{"terminal-agent", "9.1.0"}, {"ide-agent", "0.3.2-beta"}} {
		lines := replay(t, id[0], id[1], false)
		if len(lines) < 15 {
			t.Fatalf("only %d responses", len(lines))
		}
		got := normalise(lines)
		if i == 0 {
			first = got
			continue
		}
		if got != first {
			t.Errorf("client %s/%s got different responses:\n%s", id[0], id[1], firstDiff(first, got))
		}
	}
	t.Run("native tool search only changes suggestions", func(t *testing.T) {
		nativeToolSearchOnlyChangesSuggestions(t, strings.Split(first, "\n"),
			strings.Split(normalise(replay(t, "generic-host", "1", true)), "\n"))
	})
}

// nativeToolSearchOnlyChangesSuggestions compares the normalised responses
// of one sequence without and with native_tool_search.
func nativeToolSearchOnlyChangesSuggestions(t *testing.T, without, with []string) {
	if len(with) != len(without) {
		t.Fatalf("%d responses with native tool search, %d without", len(with), len(without))
	}
	suggested := 0
	for i := range with {
		if hasSuggestions(t, with[i]) {
			t.Errorf("response %d carries suggested_next_tools although the host has native tool search: %s", i, with[i])
		}
		if hasSuggestions(t, without[i]) {
			suggested++
		}
		a, b := dropSuggestions(t, without[i]), dropSuggestions(t, with[i])
		if i == 1 { // prepare_session echoes what was stated
			b = strings.Replace(b, `"native_tool_search":true`, `"native_tool_search":false`, -1)
			b = strings.Replace(b, `native_tool_search=true`, `native_tool_search=false`, -1)
		}
		if a != b {
			t.Errorf("response %d differs beyond suggested_next_tools:\n%s", i, firstDiff(a, b))
		}
	}
	if suggested < 8 {
		t.Errorf("only %d responses suggest next tools to a host without native tool search", suggested)
	}
}

// dropSuggestions removes structuredContent.suggested_next_tools from a
// response line and re-encodes it with sorted keys.
func dropSuggestions(t *testing.T, line string) string {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		t.Fatal(err)
	}
	if sc, ok := jget(v, "result.structuredContent").(map[string]any); ok {
		delete(sc, "suggested_next_tools")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func hasSuggestions(t *testing.T, line string) bool {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		t.Fatal(err)
	}
	return jget(v, "result.structuredContent.suggested_next_tools") != nil
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i, al[i], bl[i])
		}
	}
	return fmt.Sprintf("%d lines against %d", len(al), len(bl))
}
