package mcpserver

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"git-reason/gitstore"
	"git-reason/reliability/harness"
)

// TestWriteSuggestsFromTheWritersState: the next tools a write suggests
// are those the status tool suggests at the same head, and they come
// from the state the writer admitted the record on: a write replays no
// history and reads no blob, where deriving the state again for them
// replayed the new commit (one history, one blob, and the verdict
// written).
func TestWriteSuggestsFromTheWritersState(t *testing.T) {
	dir := newRepo(t)
	costs := filepath.Join(t.TempDir(), "costs")
	t.Setenv(gitstore.CostEnv, costs)
	cs := connect(t, dir, nil)
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		_, out := callTool(t, cs, name, args)
		return out
	}
	cost := func() gitstore.Cost {
		t.Helper()
		gitstore.WriteCost(nil)
		data := harness.ReadFile(t, costs)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		var c gitstore.Cost
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	writes := []struct {
		tool string
		args map[string]any
	}{
		{"assess", map[string]any{"task": "T", "subject": "Queue choice", "question": "Move jobs to the new queue?",
			"materiality": "critical", "reversibility": "costly",
			"evidence": []any{map[string]any{"kind": "note", "summary": "the old queue drops jobs"}}}},
		{"assess", map[string]any{"task": "T", "subject": "Queue choice, again", "question": "Or keep the old one?",
			"materiality": "minor", "reversibility": "reversible"}},
		{"close", map[string]any{"task": "T", "outcome": "abandoned", "reason": "the old queue stays"}},
	}
	for i, w := range writes {
		before := cost()
		out := call(w.tool, w.args)
		after := cost()
		if h, b := after.Histories-before.Histories, after.Blobs-before.Blobs; h != 0 || b != 0 {
			t.Errorf("write %d (%s) replayed %d histories, %d blobs, want none", i, w.tool, h, b)
		}
		want := mustJSON(t, call("status", map[string]any{"task": "T"})["suggested_next_tools"])
		if got := mustJSON(t, out["suggested_next_tools"]); got != want {
			t.Errorf("write %d (%s) suggests %s, status at the same head %s", i, w.tool, got, want)
		}
	}
}
