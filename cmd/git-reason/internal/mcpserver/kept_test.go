package mcpserver

import (
	"context"
	"testing"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
	"git-reason/schemas"
)

// A write through the resident server decodes what is new, not the task:
// the defaulted ids, the writer's admission and the next steps go on from
// the state the server's last write left at that head (record.Writer.Keep,
// ops.Session.StateBefore), so that the records decoded per write do not
// grow with the task (they did: 65 per write at 60 records, one decode of
// the whole task for the defaulted id and one for the next steps). Nor does
// a write compile a schema again.
func TestWritesDecodeWhatIsNew(t *testing.T) {
	t.Setenv("GIT_REASON_PROFILE", "ci") // no advisor: a plan selects none
	cs := connect(t, newRepo(t), nil)
	callTool(t, cs, "assess", map[string]any{"task": "T-1", "subject": "Queue backend", "question": "Keep the queue in the database?",
		"materiality": "trivial", "reversibility": "reversible"})
	callTool(t, cs, "plan", map[string]any{"task": "T-1"})
	callTool(t, cs, "conclude", map[string]any{"task": "T-1", "decision": "keep it"})
	attempt := map[string]any{"task": "T-1", "outcome": "succeeded"} // the conclusion defaulted: the latest
	for range 60 {
		callTool(t, cs, "attempt", attempt)
	}
	const writes = 5
	decodes, compiles := record.Decodes(), schemas.Compiles()
	for range writes {
		callTool(t, cs, "attempt", attempt)
	}
	// One decode a write: its own record, for the commit's message.
	if got := record.Decodes() - decodes; got > writes {
		t.Errorf("%d writes on a task of 63 records decoded %d records, want at most %d", writes, got, writes)
	}
	if got := schemas.Compiles() - compiles; got != 0 {
		t.Errorf("%d writes compiled %d schemas, want 0 (each compiled once, on the first write)", writes, got)
	}
}

// A write after another writer appended to the task (a command line in
// another process) is admitted on the task as that writer left it, never
// on the state the server's own last write left: the defaulted
// assessment is the other writer's, and the new record's clock follows
// its record's.
func TestWriteAfterAnotherWriterSeesIt(t *testing.T) {
	t.Setenv("GIT_REASON_PROFILE", "ci")
	dir := newRepo(t)
	cs := connect(t, dir, nil)
	callTool(t, cs, "assess", map[string]any{"task": "T-1", "subject": "Queue backend", "question": "Keep the queue in the database?",
		"materiality": "trivial", "reversibility": "reversible"})
	callTool(t, cs, "plan", map[string]any{"task": "T-1"})

	other, err := ops.Open(context.Background(), ops.Options{Dir: dir}) // as 'git reason assess' opens it
	if err != nil {
		t.Fatal(err)
	}
	res, err := other.Append(context.Background(), "T-1", record.KindAssessment,
		[]byte(`{"subject":"Queue backend, again","question":"Move the queue to a broker?","materiality":"trivial","reversibility":"reversible"}`))
	if err != nil {
		t.Fatal(err)
	}

	_, plan := callTool(t, cs, "plan", map[string]any{"task": "T-1"})
	body, _ := plan["body"].(map[string]any)
	if got := body["assessment"]; got != res.ID {
		t.Errorf("plan after another writer's assessment %s names assessment %v", res.ID, got)
	}
	if got, _ := plan["clock"].(float64); int64(got) != res.Clock+1 {
		t.Errorf("plan's clock %v, want %d (one above the other writer's record)", plan["clock"], res.Clock+1)
	}
	_, concl := callTool(t, cs, "conclude", map[string]any{"task": "T-1", "decision": "move it"})
	if body, _ := concl["body"].(map[string]any); body["assessment"] != res.ID {
		t.Errorf("conclusion after another writer's assessment %s concludes %v", res.ID, body["assessment"])
	}
}
