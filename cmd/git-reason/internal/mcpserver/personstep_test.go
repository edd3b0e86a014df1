package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"git-reason/advisor"
	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
	"git-reason/reliability/harness"
	"git-reason/schemas"
)

// The status tool carries the person's step that 'git reason status
// --json' carries (issue 26 §2): once no advisor the plan selected can be
// asked (both disabled after planning), it gives no next command, which
// consult would refuse, but person_step, valid under the tool's output
// schema; its text says a person decides, and the suggested next tools
// are the commands the choices are followed by. Enabled again, next is
// consult once more.
func TestStatusMarksPersonStep(t *testing.T) {
	dir := newRepo(t)
	t.Setenv("GIT_REASON_DISABLE", "") // unset below: reason.disable is read from git config
	os.Unsetenv("GIT_REASON_DISABLE")
	ids := userAdvisors(t)
	disable := func(more ...string) {
		t.Helper()
		harness.Git(t, dir, "config", "reason.disable", strings.Join(append(append([]string{}, ids...), more...), ","))
	}
	disable() // only the two advisors declared here
	cs := connect(t, dir, nil)
	call := func(name string, args map[string]any) (*mcp.CallToolResult, map[string]any) {
		t.Helper()
		return callTool(t, cs, name, args)
	}
	planBoth(t, cs)
	if _, st := call("status", map[string]any{"task": "T"}); st["next"] != "git reason consult T" || st["person_step"] != nil {
		t.Fatalf("before disabling, status: next %v, person_step %v", st["next"], st["person_step"])
	}
	res, ho := call("handover", nil)
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "- next: the consult tool\n") {
		t.Errorf("the handover's text does not name the next step's tool:\n%s", text)
	}
	// Each structured next step, a command the client cannot type, comes
	// with the tool calls that take it (next_tools), on every tool that
	// gives one: status, of a task or of all, tasks and handover.
	consultT := `[{"arguments":{"task":"T"},"tool":"consult"}]`
	_, all := call("status", nil)
	_, rows := call("tasks", nil)
	_, one := call("status", map[string]any{"task": "T"})
	for what, v := range map[string]any{"status T": one["next_tools"], "status": all["tasks"].([]any)[0].(map[string]any)["next_tools"],
		"tasks": rows["tasks"].([]any)[0].(map[string]any)["next_tools"], "handover": ho["open"].([]any)[0].(map[string]any)["next_tools"]} {
		if got := mustJSON(t, v); got != consultT {
			t.Errorf("%s: next_tools %s, want %s", what, got, consultT)
		}
	}

	disable("adv-a", "adv-b")
	res, st := call("status", map[string]any{"task": "T"})
	if st["next"] != nil && st["next"] != "" {
		t.Errorf("status still suggests %v, which consult would refuse", st["next"])
	}
	ps, _ := st["person_step"].(map[string]any)
	if ps == nil || !strings.HasPrefix(ps["decide"].(string), "none of the 2 advisors the plan selected can be asked now") {
		t.Fatalf("status carries no person's step: %s", mustJSON(t, st))
	}
	_, ho = call("handover", nil)
	for what, ps := range map[string]any{"status": ps, "handover": ho["open"].([]any)[0].(map[string]any)["person_step"]} {
		thens, tools := []string{}, []string{}
		for _, o := range ps.(map[string]any)["options"].([]any) {
			thens = append(thens, o.(map[string]any)["then"].(string))
			tools = append(tools, mustJSON(t, o.(map[string]any)["then_tools"]))
		}
		if strings.Join(thens, "; ") != "git reason consult T; git reason plan T" {
			t.Errorf("%s: the choices are followed by %q", what, thens)
		}
		if got := strings.Join(tools, "; "); got != consultT+`; [{"arguments":{"task":"T"},"tool":"plan"}]` {
			t.Errorf("%s: the choices' then_tools are %s", what, got)
		}
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "; a person decides: none of the 2 advisors") {
		t.Errorf("the status text does not say a person decides: %s", text)
	}
	if got := mustJSON(t, st["suggested_next_tools"]); got != `[{"arguments":{"task":"T"},"tool":"consult"},{"arguments":{"task":"T"},"tool":"plan"}]` {
		t.Errorf("suggested next tools %s, want consult then plan", got)
	}
	var statusTool *mcp.Tool
	for _, tl := range listTools(t, cs) {
		if tl.Name == "status" {
			statusTool = tl
		}
	}
	raw, _ := json.Marshal(statusTool.OutputSchema)
	sch, err := schemas.CompileDocument("status", raw)
	if err != nil {
		t.Fatal(err)
	}
	delete(st, "suggested_next_tools") // added to every result for a host without tool search
	if err := sch.Validate(any(st)); err != nil {
		t.Errorf("the status tool's output schema refuses its person's step: %v", err)
	}
	if !strings.Contains(string(raw), `"person_step"`) {
		t.Errorf("the status tool's output schema does not name person_step")
	}
	// The handover's text says what follows each choice as the tool that
	// takes it, not the command line's command, which a client cannot type.
	res, _ = call("handover", nil)
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "- next, a person decides: none of the 2 advisors") ||
		!strings.Contains(text, ", then the consult tool\n") || !strings.Contains(text, ", then the plan tool\n") || strings.Contains(text, "`git reason") {
		t.Errorf("the handover's text does not name the tools its person's choices are followed by:\n%s", text)
	}

	disable("adv-b")
	if _, st := call("status", map[string]any{"task": "T"}); st["next"] != "git reason consult T" || st["person_step"] != nil {
		t.Errorf("adv-a enabled again, status: next %v, person_step %v", st["next"], st["person_step"])
	}
}

// planBoth assesses task T, critical, and plans it: the plan selects
// adv-a and adv-b, userAdvisors' two, the others being disabled.
func planBoth(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	callTool(t, cs, "assess", map[string]any{"task": "T", "subject": "Queue choice", "question": "Move jobs to the new queue?",
		"materiality": "critical", "reversibility": "costly",
		"evidence": []any{map[string]any{"kind": "note", "summary": "the old queue drops jobs"}}})
	if _, plan := callTool(t, cs, "plan", map[string]any{"task": "T"}); !strings.Contains(mustJSON(t, plan), `"selected":["adv-a","adv-b"]`) {
		t.Fatalf("the plan does not select adv-a and adv-b: %s", mustJSON(t, plan))
	}
}

// An advisor the plan selected whose declaration the user left
// incomplete before consult is skipped, its reason naming the doctor
// tool, in the consult tool's skipped list and text, where it said "run
// git reason doctor". Once no advisor it selected can be asked, the
// refusal names the advisors tool and makes git config the person's
// step, where it said "enable one (git config reason.disable, git reason
// advisors)" to a client that can type neither.
func TestConsultSaysSkipsAndRefusalToTools(t *testing.T) {
	dir := newRepo(t)
	t.Setenv("GIT_REASON_DISABLE", "")
	os.Unsetenv("GIT_REASON_DISABLE") // reason.disable is read from git config
	ids := userAdvisors(t)
	harness.Git(t, dir, "config", "reason.disable", strings.Join(ids, ","))
	cs := connect(t, dir, nil)
	planBoth(t, cs)
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "git-reason", "advisors.yaml")
	data := string(harness.ReadFile(t, user))
	incomplete := "  - {id: adv-a, transport: api, base_url: https://advisor.example.invalid/v1, capabilities: [reasoning]}\n"
	harness.WriteFile(t, user, strings.Replace(data, data[strings.Index(data, "  - {id: adv-a"):strings.Index(data, "  - {id: adv-b")], incomplete, 1))
	const reason = "not_configured now: declaration incomplete: transport api declares no adapter (one of chat_completions, messages); the doctor tool's findings say what to complete"

	res, out := callTool(t, cs, "consult", map[string]any{"task": "T"})
	if got := mustJSON(t, out["skipped"]); got != mustJSON(t, []advisor.Skipped{{Advisor: "adv-a", Reason: reason}}) {
		t.Errorf("skipped %s, want adv-a's reason %q", got, reason)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "\nadv-a: skipped: "+reason+"\n") || strings.Contains(text, "git reason") {
		t.Errorf("the consult text does not say adv-a's skip in the tools' terms:\n%s", text)
	}

	harness.Git(t, dir, "config", "reason.disable", strings.Join(append(ids, "adv-b"), ","))
	_, te := callError(t, cs, "consult", map[string]any{"task": "T"})
	want := "none of the 2 advisors the plan selected can be asked now (adv-a: " + reason + "): have the person enable one with git config reason.disable " +
		"(no tool enables an advisor; the advisors tool lists them), or plan anew for a local review with the plan tool"
	if !strings.HasSuffix(te.Message, want) {
		t.Errorf("consult's refusal: %s %q, want it to end %q", te.Code, te.Message, want)
	}
	// The person's step status and handover give in consult's place says
	// the same in the tools' terms: its decision names the doctor tool,
	// where it said "; run git reason doctor" mid-sentence, and its choice
	// to enable one is the person's, where it said "(git config
	// reason.disable, git reason advisors)".
	res, st := callTool(t, cs, "status", map[string]any{"task": "T"})
	hres, ho := callTool(t, cs, "handover", nil)
	const choice = "have the person enable one with git config reason.disable (no tool enables an advisor; the advisors tool lists them)"
	for what, ps := range map[string]any{"status": st["person_step"], "handover": ho["open"].([]any)[0].(map[string]any)["person_step"]} {
		if got := mustJSON(t, ps); !strings.Contains(got, `"decide":"none of the 2 advisors the plan selected can be asked now (adv-a: `+reason+`): choose how the review goes on"`) ||
			!strings.Contains(got, `"choice":"`+choice+`"`) || strings.Contains(got, "git reason doctor") || strings.Contains(got, "git reason advisors") {
			t.Errorf("%s: the person's step is not said in the tools' terms: %s", what, got)
		}
	}
	// The handover's text, markdown, escapes parentheses and underscores;
	// it said "run git reason doctor" in its list of advisors not
	// available now too, and the circuits its result lists.
	md := strings.NewReplacer("(", `\(`, ")", `\)`, "_", `\_`)
	for what, text := range map[string]string{"status": res.Content[0].(*mcp.TextContent).Text, "handover": hres.Content[0].(*mcp.TextContent).Text} {
		if !strings.Contains(text, md.Replace("(adv-a: "+reason+")")) && !strings.Contains(text, "(adv-a: "+reason+")") ||
			strings.Contains(text, "git reason doctor") || strings.Contains(text, "git reason advisors") {
			t.Errorf("%s: the text does not say the person's step in the tools' terms:\n%s", what, text)
		}
	}
	if text := hres.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "  - "+md.Replace(choice)+", then the consult tool\n") {
		t.Errorf("the handover's text does not say the choice to enable one as the person's:\n%s", text)
	}
	if got := mustJSON(t, ho["circuits"]); strings.Contains(got, "git reason doctor") {
		t.Errorf("the handover's circuits name a command: %s", got)
	}
}

// A step that sets git configuration is said as the person's to the MCP
// tools, none of which sets configuration, where the command line's
// message says it as a command: consult's refusal of questions over
// reason.maxBytesPerConsult, a write refused by reason.requireSigned
// all, and a write whose signing fails.
func TestConfigStepsSaidAsThePersons(t *testing.T) {
	dir := newRepo(t)
	harness.Git(t, dir, "config", "reason.disable", strings.Join(userAdvisors(t), ","))
	cs := connect(t, dir, nil)
	planBoth(t, cs)
	harness.Git(t, dir, "config", "reason.maxBytesPerConsult", "100")
	_, te := callError(t, cs, "consult", map[string]any{"task": "T"})
	if want := "; nothing was sent: lower the advisors' context_bytes or raise the cap (the person sets it: git config reason.maxBytesPerConsult; no tool sets configuration)"; te.Code != CodeRefused || !strings.HasSuffix(te.Message, want) {
		t.Errorf("consult over the cap: %s %q, want it to end %q", te.Code, te.Message, want)
	}
	write := map[string]any{"task": "T2", "subject": "s", "question": "q?", "materiality": "minor", "reversibility": "reversible"}
	harness.Git(t, dir, "config", "reason.requireSigned", "all")
	_, te = callError(t, cs, "assess", write)
	if want := "reason.requireSigned is all and this write would not be signed: turn signing on (the person sets it: git config reason.sign true, with gpg.format and user.signingKey) " +
		"or relax the rule (the person sets it: git config reason.requireSigned fetched; no tool sets configuration)"; te.Code != CodeRefused || te.Message != want {
		t.Errorf("a write refused unsigned: %s %q, want %q", te.Code, te.Message, want)
	}
	harness.Git(t, dir, "config", "reason.sign", "true")
	harness.Git(t, dir, "config", "gpg.format", "ssh")
	harness.Git(t, dir, "config", "user.signingKey", filepath.Join(dir, "no-such-key"))
	_, te = callError(t, cs, "assess", write)
	if want := "or turn signing off (the person sets it: git config reason.sign false; no tool sets configuration)"; !strings.Contains(te.Message, want) || strings.Contains(te.Message, "(git config") {
		t.Errorf("a write whose signing fails: %s %q, want it to say %q", te.Code, te.Message, want)
	}
}

// A merge of two clones that both concluded T makes the second
// conclusion inadmissible: the status tool lists the need, whose command
// names the conclusions to supersede, and its tools, with next_tools,
// the conclude call that takes it with every id the command names, in
// full (supersedes): they held {"task": "T"} alone, so the call they
// suggest, with a decision, would be refused as a third conclusion. The
// call as given, plus a decision, settles the need.
func TestMergeRefusalNeedNamesItsCall(t *testing.T) {
	a := newRepo(t)
	harness.Git(t, a, "commit", "-q", "--allow-empty", "-m", "initial commit")
	csA := connect(t, a, nil)
	callTool(t, csA, "assess", map[string]any{"task": "T", "subject": "Session store", "question": "Sticky sessions?", "materiality": "minor", "reversibility": "reversible"})
	callTool(t, csA, "plan", map[string]any{"task": "T"})
	b := filepath.Join(t.TempDir(), "b")
	harness.Git(t, a, "clone", "-q", a, b)
	harness.Git(t, b, "fetch", "-q", "origin", "refs/reasoning/*:refs/reasoning/*")
	harness.Git(t, b, "config", "user.name", "Bo Tester")
	harness.Git(t, b, "config", "user.email", "bo@example.invalid")
	_, cb := callTool(t, connect(t, b, nil), "conclude", map[string]any{"task": "T", "decision": "Sticky sessions"})
	_, ca := callTool(t, csA, "conclude", map[string]any{"task": "T", "decision": "A shared store"})
	harness.Git(t, a, "remote", "add", "b", b)
	sess, err := ops.Open(context.Background(), ops.Options{Dir: a})
	if err != nil {
		t.Fatal(err)
	}
	if pulled, err := sess.Pull(context.Background(), ops.SyncRequest{Remote: "b"}); err != nil || len(pulled.Needs) != 1 {
		t.Fatalf("pull from b: %v, needs %+v", err, pulled)
	}
	_, st := callTool(t, csA, "status", map[string]any{"task": "T"})
	needs, _ := st["needs"].([]any)
	if len(needs) != 1 {
		t.Fatalf("status after the merge: needs %s", mustJSON(t, st["needs"]))
	}
	need := needs[0].(map[string]any)
	full := map[string]string{}
	for _, id := range []string{ca["id"].(string), cb["id"].(string)} {
		full[record.ShortID(id)] = id
	}
	var supersedes []string
	for f := range strings.FieldsSeq(need["command"].(string)) {
		if id, ok := full[f]; ok {
			supersedes = append(supersedes, id)
		}
	}
	if len(supersedes) != 2 {
		t.Fatalf("the need's command does not name both conclusions: %s", need["command"])
	}
	want := mustJSON(t, []map[string]any{{"tool": "conclude", "arguments": map[string]any{"task": "T", "supersedes": supersedes}}})
	for what, got := range map[string]any{"the need's tools": need["tools"], "next_tools": st["next_tools"]} {
		if mustJSON(t, got) != want {
			t.Errorf("%s: %s, want %s", what, mustJSON(t, got), want)
		}
	}
	call := need["tools"].([]any)[0].(map[string]any)
	args := call["arguments"].(map[string]any)
	args["decision"] = "A shared store"
	callTool(t, csA, call["tool"].(string), args)
	if _, st := callTool(t, csA, "status", map[string]any{"task": "T"}); mustJSON(t, st["needs"]) != "[]" {
		t.Errorf("the need's call did not settle it: needs %s", mustJSON(t, st["needs"]))
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// A plan made through MCP says, as the command line does, when the
// repository's (trusted) declarations lowered its review: here profile
// default made mode ci, so a critical plan asks none of the user's two
// advisors.
func TestPlanSaysRepositoryLowered(t *testing.T) {
	dir := newRepo(t)
	t.Setenv("GIT_REASON_DISABLE", strings.Join(userAdvisors(t), ","))
	write := func(path, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		harness.WriteFile(t, path, body)
	}
	write(advisor.RepositoryOverlayPath(dir), "profiles:\n  - id: default\n    mode: ci\n")
	ctx := context.Background()
	sess, err := ops.Open(ctx, ops.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.Trust(ops.TrustRequest{}); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, dir, nil)
	call := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		return res
	}
	call("assess", map[string]any{"task": "T", "subject": "Drop the legacy table", "question": "Now?",
		"materiality": "critical", "reversibility": "irreversible",
		"evidence": []any{map[string]any{"kind": "note", "summary": "it is unused"}}})
	res := call("plan", map[string]any{"task": "T"})
	var out struct {
		Lowered *ops.Lowered `json:"lowered"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	if out.Lowered == nil || len(out.Lowered.Selected) != 0 || strings.Join(out.Lowered.Without, ",") != "adv-a,adv-b" {
		t.Fatalf("plan's lowered = %+v, want none selected where adv-a and adv-b would be (%s)", out.Lowered, raw)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	// Said as the person's step: the command line's notice, whose
	// advice is a command no tool runs.
	said, ok := strings.CutSuffix(out.Lowered.Notice, "see 'git reason trust --show'")
	if !ok || !strings.HasPrefix(said, "review lowered by ") ||
		!strings.Contains(text, "\n"+said+"the person sees why with 'git reason trust --show' (no tool reviews trust)") {
		t.Errorf("the text does not carry the notice line, said as the person's step: %q", text)
	}

	// The server keeps the declarations without the repository's from
	// one plan to the next, until a file they came from changes: the
	// user declares adv-c in place of adv-a, and the next plan is
	// compared with the declarations as they are now.
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "git-reason", "advisors.yaml")
	data := harness.ReadFile(t, user)
	write(user, strings.ReplaceAll(string(data), "adv-a", "adv-c"))
	call("assess", map[string]any{"task": "T2", "subject": "Drop the audit table", "question": "Now?",
		"materiality": "critical", "reversibility": "irreversible",
		"evidence": []any{map[string]any{"kind": "note", "summary": "it is unused"}}})
	raw, _ = json.Marshal(call("plan", map[string]any{"task": "T2"}).StructuredContent)
	out.Lowered = nil
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	if out.Lowered == nil || strings.Join(out.Lowered.Without, ",") != "adv-c,adv-b" {
		t.Fatalf("after adv-c was declared in place of adv-a, the plan's lowered = %+v, want adv-c and adv-b without the repository's declarations (%s)", out.Lowered, raw)
	}
}

// userAdvisors declares adv-a and adv-b in the user's overlay, two exec
// advisors of capability reasoning whose executable (fake-advisor, put on
// PATH) answers nothing, and returns the ids of the shipped advisors, for
// the test to disable.
func userAdvisors(t *testing.T) []string {
	t.Helper()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "fake-advisor"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "git-reason", "advisors.yaml")
	if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user, []byte(`advisors:
  - {id: adv-a, transport: cli, adapter: exec, executable: fake-advisor, command: [fake-advisor], capabilities: [reasoning]}
  - {id: adv-b, transport: cli, adapter: exec, executable: fake-advisor, command: [fake-advisor], capabilities: [reasoning]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	shipped, _, err := advisor.Load(advisor.Sources{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range shipped.Advisors {
		ids = append(ids, d.ID)
	}
	return ids
}

// A task above reason.maxTaskBytes (fetched by plain git) says the step
// that raises it as the person's to the MCP tools, as other steps that
// set git configuration are (TestConfigStepsSaidAsThePersons): the
// error of a call addressed to it, and the notice of a call that skips
// it. The step was said as the command line's ("raise it: git config
// reason.maxTaskBytes 2m"): the history's error that wraps it said only
// its own advice (the verify tool) in the tools' terms.
func TestTooLargeTaskSaysThePersonsStep(t *testing.T) {
	dir := newRepo(t)
	harness.Git(t, dir, "config", "reason.maxTaskBytes", "1m")
	// Two records of 900,000 bytes, which the limit refuses before any
	// is read (none is a record).
	var entries strings.Builder
	for _, n := range []string{"1", "2"} {
		blob := strings.TrimSpace(harness.GitInput(t, dir, `{"n":"`+n+`"`+strings.Repeat(" ", 900000)+"}", "hash-object", "-w", "--stdin"))
		entries.WriteString("100644 blob " + blob + "\t000000000" + n + "-assessment-01J0000000000000000000000" + n + ".json\n")
	}
	records := strings.TrimSpace(harness.GitInput(t, dir, entries.String(), "mktree"))
	root := strings.TrimSpace(harness.GitInput(t, dir, "040000 tree "+records+"\trecords\n", "mktree"))
	harness.Git(t, dir, "update-ref", "refs/reasoning/tasks/H", strings.TrimSpace(harness.GitInput(t, dir, "assessment: big\n\nReason-Task: H\n", "commit-tree", root)))
	cs := connect(t, dir, nil)
	const person = "raise it: the person sets it: git config reason.maxTaskBytes 2m; no tool sets configuration)"
	_, te := callError(t, cs, "status", map[string]any{"task": "H"})
	if !strings.HasPrefix(te.Message, "task H does not read (") || !strings.Contains(te.Message, person) || !strings.HasSuffix(te.Message, `: see the verify tool (tasks: ["H"])`) {
		t.Errorf("status of a task too large to read: %s %q, want it to say %q", te.Code, te.Message, person)
	}
	_, out := callTool(t, cs, "status", nil)
	if notices := mustJSON(t, out["notices"]); !strings.Contains(notices, "skipped task H,") || !strings.Contains(notices, person) {
		t.Errorf("status of every task, skipping H: notices %s, want one saying %q", notices, person)
	}
}
