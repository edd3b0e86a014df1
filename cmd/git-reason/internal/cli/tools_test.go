package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"git-reason/cmd/git-reason/internal/mcpserver"
	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/reliability/harness"
)

// notProjected are the verbs that are no MCP tool, and why.
var notProjected = map[string]string{
	"hooks":       "installs files into the repository's hooks directory: the host's own edit tools do that",
	"hook":        "the shims git runs; no host calls it",
	"serve":       "a server of its own",
	"mcp":         "this server",
	"tools":       "tools/list is that table",
	"demo":        "a tour for a person at a terminal",
	"help":        "tools/list describes every tool",
	"completion":  "for a shell",
	"__complete":  "what the completion scripts ask for the values only the repository knows",
	"man":         "for a person",
	"version":     "initialize reports the server's version",
	"trust":       "a person's decision about a repository; no agent may take it",
	"task delete": "removes a ref: only a person deletes a task made by mistake; an agent closes it",
	"pull":        "talks to remotes with the user's git credentials",
	"push":        "talks to remotes with the user's git credentials",
	"sync":        "talks to remotes with the user's git credentials",
	"remote":      "changes the repository's git remote configuration",
	"web":         "a server of its own",
}

// verbs lists every command line verb, with subcommands as "check
// neutrality".
func verbs() []string {
	var out []string
	for _, c := range newApp(nil, nil, nil, nil, nil).Commands {
		if len(c.Subcommands) == 0 {
			out = append(out, c.Name)
			continue
		}
		for _, sub := range c.Subcommands {
			if sub.Name == "help" {
				continue // help, as the top help verb is (notProjected)
			}
			out = append(out, c.Name+" "+sub.Name)
		}
	}
	return out
}

// A verb, a tool and a row of share/tools.yaml agree: every row names an
// MCP tool the server lists and, when it has one, a verb the command line
// has; every tool is a row; every verb is projected by a row or listed in
// notProjected with its reason.
func TestVerbsToolsAndRowsAgree(t *testing.T) {
	rows, err := ops.Tools()
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, v := range verbs() {
		have[v] = true
	}
	projected := map[string]bool{}
	for _, r := range rows {
		if r.Verb == "" {
			continue
		}
		if !have[r.Verb] {
			t.Errorf("share/tools.yaml: tool %s projects verb %q, which the command line does not have", r.Name, r.Verb)
		}
		projected[r.Verb] = true
	}
	for _, v := range verbs() {
		top, _, _ := strings.Cut(v, " ")
		if !projected[v] && notProjected[v] == "" && notProjected[top] == "" {
			t.Errorf("verb %q is neither projected by a row of share/tools.yaml nor listed in notProjected with a reason", v)
		}
		if projected[v] && notProjected[v] != "" {
			t.Errorf("verb %q is projected by a tool and listed as not projected", v)
		}
	}

	var tools []string
	for _, tl := range listedTools(t) {
		tools = append(tools, tl.Name)
	}
	var names []string
	for _, r := range rows {
		names = append(names, r.Name)
	}
	sort.Strings(tools)
	sort.Strings(names)
	if !reflect.DeepEqual(tools, names) {
		t.Errorf("MCP tools %v, rows %v", tools, names)
	}
}

// 'git reason tools --json' prints the rows.
func TestToolsJSONIsTheTable(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main([]string{"git-reason", "tools", "--json"}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got []ops.ToolSpec
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	rows, _ := ops.Tools()
	if !reflect.DeepEqual(got, rows) {
		t.Fatalf("tools --json:\n%s\nwant the rows of share/tools.yaml", out.String())
	}
}

func listedTools(t *testing.T) []*mcp.Tool {
	t.Helper()
	harness.NeedGit(t)
	dir := t.TempDir()
	harness.Git(t, dir, "init", "-q")
	ctx := context.Background()
	srv, err := mcpserver.New(ctx, mcpserver.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	go srv.Run(ctx, st) // as 'git reason mcp' serves; it ends when the client closes
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}
