package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"git-reason/schemas"
)

// Every result is held to its tool's output schema before it is sent: a
// result the schema refuses (here, the status tool's schema made to
// require a field its result lacks) fails the call naming the schema and
// the place, and nothing of the result reaches the client; the same call
// with the tool's own schema succeeds.
func TestResultHeldToItsOutputSchema(t *testing.T) {
	dir := newRepo(t)
	srv := serverOn(t, dir)
	cs := sessionTo(t, srv, &mcp.Implementation{Name: "test-client", Version: "1"}, nil)
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
