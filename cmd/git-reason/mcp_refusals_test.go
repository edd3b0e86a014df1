package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The forgeries the command line refuses are refused through MCP too, and
// nothing is written: a conclusion asserting its review count, a plan
// choosing its advisors, a consultation written by the caller (of an
// advisor the plan never selected), and a command the server is asked to
// run.
func TestMCPForgeriesRefused(t *testing.T) {
	t.Parallel()
	s := newMCPSandbox(t)
	r := startHostMCP(t, s)
	v := map[string]string{}
	steps := mcpSequence(false)
	for _, st := range steps[:5] { // prepare_session … plan
		var res any
		if err := json.Unmarshal(r.call(t, st.method, st.params(v)), &res); err != nil {
			t.Fatal(err)
		}
		st.check(t, v, res)
	}
	refs := s.git("for-each-ref", "refs/reasoning")
	pwned := filepath.Join(s.dir, "pwned")
	cases := []struct {
		name, tool string
		args       map[string]any
		code       string
	}{
		{"conclusion asserting its review count", "conclude", map[string]any{"task": "T-7", "decision": "d",
			"review_count": 2, "advisors": []any{"adv-a", "adv-b"}}, "bad_input"},
		{"plan choosing its advisors", "plan", map[string]any{"task": "T-7", "selected": []any{"adv-c"},
			"snapshot": []any{}}, "bad_input"},
		{"consultation of an unselected advisor, through consult", "consult", map[string]any{"task": "T-7",
			"advisor": "adv-c", "status": "completed", "conclusion": map[string]any{"stance": "endorse", "summary": "fine", "confidence": 1}}, "bad_input"},
		{"consultation of an unselected advisor, through assess", "assess", map[string]any{"task": "T-7",
			"subject": "s", "question": "q", "materiality": "minor", "reversibility": "reversible", "plan": v["A"], "advisor": "adv-c"}, "bad_input"},
		{"a command to run, through validate", "validate", map[string]any{"task": "T-7", "method": "command",
			"command": "touch " + pwned}, "bad_input"},
		{"a command to run, as a manual validation", "validate", map[string]any{"task": "T-7", "result": "pass",
			"command": "touch " + pwned}, "bad_input"},
	}
	for _, c := range cases {
		var res any
		raw := r.call(t, "tools/call", map[string]any{"name": c.tool, "arguments": c.args})
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatal(err)
		}
		if jget(res, "isError") != true || jstr(res, "structuredContent.code") != c.code {
			t.Errorf("%s: want a %s tool error, got %s", c.name, c.code, raw)
		}
		if got := s.git("for-each-ref", "refs/reasoning"); got != refs {
			t.Fatalf("%s: the refs moved:\n%s\nwant\n%s", c.name, got, refs)
		}
	}
	// No tool writes a consultation or any record kind by name.
	for _, name := range []string{"consultation", "record", "append"} {
		raw := r.call(t, "tools/call", map[string]any{"name": name, "arguments": map[string]any{"task": "T-7"}})
		var res any
		_ = json.Unmarshal(raw, &res)
		if jget(res, "error") == nil && jget(res, "isError") != true {
			t.Errorf("tool %s: want an error, got %s", name, raw)
		}
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Fatalf("the server ran a command it was sent")
	}
	if got := s.git("for-each-ref", "refs/reasoning"); got != refs {
		t.Fatalf("the refs moved")
	}
}

// assessAndPlan assesses task as critical and costly, needing reasoning,
// and plans it: both advisors are to be asked.
func (r *rawMCP) assessAndPlan(t *testing.T, task string) {
	t.Helper()
	r.call(t, "tools/call", map[string]any{"name": "assess", "arguments": map[string]any{"task": task, "subject": "s",
		"question": "q?", "materiality": "critical", "reversibility": "costly", "needs": []any{"reasoning"},
		"evidence": []any{map[string]any{"kind": "note", "summary": "e"}}}})
	r.call(t, "tools/call", map[string]any{"name": "plan", "arguments": map[string]any{"task": task}})
}

// consult reports each advisor's outcome as a progress notification when
// the call carries a progress token.
func TestMCPConsultProgress(t *testing.T) {
	t.Parallel()
	s := newMCPSandbox(t)
	r := startHostMCP(t, s)
	r.assessAndPlan(t, "T-1")
	r.notes = nil
	raw := r.call(t, "tools/call", map[string]any{"name": "consult", "arguments": map[string]any{"task": "T-1"},
		"_meta": map[string]any{"progressToken": "tok-1"}})
	if !strings.Contains(string(raw), `"disagreement"`) {
		t.Fatalf("consult: %s", raw)
	}
	var msgs []string
	for _, n := range r.notes {
		var note any
		_ = json.Unmarshal([]byte(n), &note)
		if jstr(note, "method") != "notifications/progress" || jstr(note, "params.progressToken") != "tok-1" {
			continue
		}
		msgs = append(msgs, jstr(note, "params.message")+" "+compact(jget(note, "params.progress"))+"/"+compact(jget(note, "params.total")))
	}
	want := "adv-a: answered (endorse) 1/2|adv-b: answered (oppose) 2/2"
	if strings.Join(msgs, "|") != want {
		t.Fatalf("progress notifications:\n%s\nwant\n%s", strings.Join(msgs, "|"), want)
	}
}

// A client's cancellation ends the advisors' requests and their outcomes
// are recorded as cancelled, as Ctrl-C does on the command line.
func TestMCPConsultCancelledIsRecorded(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, strings.Replace(mcpOverlay, `[fake-advisor, oppose, "0.3"]`, `[fake-advisor, oppose, "60"]`, 1),
		map[string]string{"fake-advisor": fakeAdvisor})
	r := startHostMCP(t, s)
	r.assessAndPlan(t, "T-1")
	r.next++
	consultID := r.next
	r.send(t, map[string]any{"jsonrpc": "2.0", "id": consultID, "method": "tools/call", "params": map[string]any{
		"name": "consult", "arguments": map[string]any{"task": "T-1"}, "_meta": map[string]any{"progressToken": 7}}})
	// Wait until adv-a's answer is recorded, then cancel while adv-b thinks.
	for {
		line, err := r.out.ReadString('\n')
		if err != nil {
			t.Fatalf("read: %v (stderr: %s)", err, r.stderr)
		}
		if strings.Contains(line, "notifications/progress") && strings.Contains(line, "adv-a") {
			break
		}
	}
	start := time.Now()
	r.send(t, map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": consultID, "reason": "user stopped"}})
	deadline := time.Now().Add(20 * time.Second)
	for {
		var out struct {
			Entries []struct{ Kind, Summary string }
		}
		s.reasonJSON(&out.Entries, "log", "T-1")
		if len(out.Entries) == 4 {
			if !strings.Contains(out.Entries[3].Summary, "cancelled") {
				t.Fatalf("adv-b's outcome: %+v, want cancelled", out.Entries[3])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no outcome recorded for adv-b after the cancellation: %+v", out.Entries)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the cancellation took %v to end the request", d)
	}
	// The server still answers.
	raw := r.call(t, "tools/call", map[string]any{"name": "status", "arguments": map[string]any{"task": "T-1"}})
	if !strings.Contains(string(raw), `"phase":"consulting"`) {
		t.Fatalf("status after the cancellation: %s", raw)
	}
}

// One client of git reason mcp has at most reason.mcpConsults consult
// calls under way at once (here 2): each starts advisors, and a client
// could start any number. A third is refused at once, asking no advisor;
// once one has ended, consult runs again.
func TestMCPConsultsPerClientBounded(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, strings.Replace(mcpOverlay, `[fake-advisor, oppose, "0.3"]`, `[fake-advisor, oppose, "60"]`, 1),
		map[string]string{"fake-advisor": fakeAdvisor})
	s.git("config", "reason.mcpConsults", "2")
	r := startHostMCP(t, s)
	for _, task := range []string{"T-1", "T-2", "T-3"} {
		r.assessAndPlan(t, task)
	}
	// consult starts a consult of task, and returns once adv-a's answer
	// is reported (the call is under way, adv-b still thinking).
	ids := map[string]int{}
	consult := func(task string) {
		r.next++
		ids[task] = r.next
		r.send(t, map[string]any{"jsonrpc": "2.0", "id": r.next, "method": "tools/call", "params": map[string]any{
			"name": "consult", "arguments": map[string]any{"task": task}, "_meta": map[string]any{"progressToken": task}}})
		r.readUntil(t, `"progressToken":"`+task+`"`, "adv-a: answered")
	}
	cancel := func(task string) {
		r.send(t, map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": ids[task]}})
		r.readUntil(t, fmt.Sprintf(`"id":%d,`, ids[task]))
	}
	consult("T-1")
	consult("T-2")
	var res any
	raw := r.call(t, "tools/call", map[string]any{"name": "consult", "arguments": map[string]any{"task": "T-3", "timeout_s": 2}})
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if jget(res, "isError") != true || jstr(res, "structuredContent.code") != "refused" ||
		!strings.Contains(jstr(res, "structuredContent.message"), "reason.mcpConsults: this client has 2 consult calls under way") {
		t.Fatalf("a third consult at once: %.300s, want it refused", raw)
	}
	var entries []any
	if s.reasonJSON(&entries, "log", "T-3"); len(entries) != 2 {
		t.Errorf("the refused consult wrote: %d records, want the assessment and the plan", len(entries))
	}
	cancel("T-1")
	consult("T-3")
	cancel("T-2")
	cancel("T-3")
}

// readUntil reads the server's lines up to one holding every one of
// wants, keeping notifications and answers as request does.
func (r *rawMCP) readUntil(t *testing.T, wants ...string) string {
	t.Helper()
	for {
		line, err := r.out.ReadString('\n')
		if err != nil {
			t.Fatalf("read: %v, waiting for %q (stderr: %s)", err, wants, r.stderr)
		}
		if strings.Contains(line, `"method"`) {
			r.notes = append(r.notes, line)
		}
		all := true
		for _, w := range wants {
			all = all && strings.Contains(line, w)
		}
		if all {
			return line
		}
	}
}
