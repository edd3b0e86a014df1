package main

// Real MCP clients drive the sequence of mcp_test.go through the built
// binary ('git reason mcp' over stdio): the official Go SDK's client,
// mcp-go's client, and the MCP inspector's command line from npm
// (installed into the user's cache directory on first use; the test skips,
// saying why, when npm or the package cannot be had).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgoproto "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"git-reason/reliability/harness"
)

// inspectorVersion is the pinned version of the MCP inspector tested.
const inspectorVersion = "2.12.0"

func mcpCommand(s *sandbox) *exec.Cmd {
	cmd := exec.Command("git", "reason", "mcp")
	cmd.Dir, cmd.Env = s.dir, s.env
	return cmd
}

// connectMCP connects client to 'git reason mcp' in the sandbox; the
// session is closed when the test ends.
func connectMCP(t *testing.T, s *sandbox, client *mcp.Client) *mcp.ClientSession {
	t.Helper()
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: mcpCommand(s)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// sdkDriver is the Go SDK's client.
type sdkDriver struct{ cs *mcp.ClientSession }

func (d sdkDriver) call(t *testing.T, method string, params map[string]any) json.RawMessage {
	t.Helper()
	return answered(t, method, func(ctx context.Context) (any, error) {
		switch method {
		case "tools/list":
			return d.cs.ListTools(ctx, nil)
		case "tools/call":
			return d.cs.CallTool(ctx, &mcp.CallToolParams{Name: params["name"].(string), Arguments: params["arguments"]})
		case "resources/list":
			return d.cs.ListResources(ctx, nil)
		case "resources/read":
			return d.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: params["uri"].(string)})
		}
		t.Fatalf("no %s in the Go SDK driver", method)
		return nil, nil
	})
}

// answered is a client's answer to method, asked by ask within a minute,
// as JSON; an error fails the test.
func answered(t *testing.T, method string, ask func(context.Context) (any, error)) json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := ask(ctx)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	raw, _ := json.Marshal(res)
	return raw
}

func TestMCPClientGoSDK(t *testing.T) {
	t.Parallel()
	s := newMCPSandbox(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-client", Version: "1.8.0"}, nil)
	cs := connectMCP(t, s, client)
	runSequence(t, sdkDriver{cs}, mcpSequence(false))
}

// mcpgoDriver is mcp-go's client.
type mcpgoDriver struct{ c *mcpgo.Client }

func (d mcpgoDriver) call(t *testing.T, method string, params map[string]any) json.RawMessage {
	t.Helper()
	return answered(t, method, func(ctx context.Context) (any, error) {
		switch method {
		case "tools/list":
			return d.c.ListTools(ctx, mcpgoproto.ListToolsRequest{})
		case "tools/call":
			req := mcpgoproto.CallToolRequest{}
			req.Params.Name, req.Params.Arguments = params["name"].(string), params["arguments"]
			return d.c.CallTool(ctx, req)
		case "resources/list":
			return d.c.ListResources(ctx, mcpgoproto.ListResourcesRequest{})
		case "resources/read":
			req := mcpgoproto.ReadResourceRequest{}
			req.Params.URI = params["uri"].(string)
			return d.c.ReadResource(ctx, req)
		}
		t.Fatalf("no %s in the mcp-go driver", method)
		return nil, nil
	})
}

func TestMCPClientMcpGo(t *testing.T) {
	t.Parallel()
	s := newMCPSandbox(t)
	tr := mcpgotransport.NewStdioWithOptions("git", s.env, []string{"reason", "mcp"},
		mcpgotransport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			cmd := exec.CommandContext(ctx, command, args...)
			cmd.Dir, cmd.Env = s.dir, env
			return cmd, nil
		}))
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The client probes with server/discover and, after 5 s without an
	// answer, falls back to initialize on the same session: on a loaded
	// machine the answer to the probe came later and the server refused the
	// initialize as a duplicate. The minute below bounds the probe instead.
	c := mcpgo.NewClient(tr, mcpgo.WithDiscoverTimeout(-1))
	defer c.Close()
	init := mcpgoproto.InitializeRequest{}
	init.Params.ClientInfo = mcpgoproto.Implementation{Name: "mcp-go-client", Version: "1.2.1"}
	init.Params.ProtocolVersion = mcpgoproto.LATEST_PROTOCOL_VERSION
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	runSequence(t, mcpgoDriver{c}, mcpSequence(false))
}

// inspectorDriver runs the MCP inspector's command line once per call; each
// call is a session of its own against the same repository.
type inspectorDriver struct {
	s      *sandbox
	node   string
	script string
}

func (d inspectorDriver) call(t *testing.T, method string, params map[string]any) json.RawMessage {
	t.Helper()
	args := []string{d.script, "--cli", "--cwd", d.s.dir}
	for _, kv := range d.s.env {
		args = append(args, "-e", kv)
	}
	args = append(args, "git", "reason", "mcp", "--method", method)
	switch method {
	case "tools/call":
		args = append(args, "--tool-name", params["name"].(string))
		if a, _ := params["arguments"].(map[string]any); len(a) > 0 {
			args = append(args, "--tool-arg")
			for k, v := range a {
				if s, ok := v.(string); ok {
					args = append(args, k+"="+s)
				} else {
					raw, _ := json.Marshal(v)
					args = append(args, k+"="+string(raw))
				}
			}
		}
	case "resources/read":
		args = append(args, "--uri", params["uri"].(string))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.node, args...)
	cmd.Dir = d.s.dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 5 && json.Valid(out) {
		return out // a tool error, printed as the result
	}
	if err != nil {
		t.Fatalf("inspector %s: %v\n%s\n%s", method, err, out, stderr.String())
	}
	return out
}

// installInspector installs the pinned inspector into the user's cache
// directory once and returns the script of its command line.
func installInspector(t *testing.T) (node, script string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		harness.MissingTool(t, "node is not on PATH, so the MCP inspector cannot run")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		harness.MissingTool(t, "npm is not on PATH, so the MCP inspector cannot be installed")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		harness.MissingTool(t, fmt.Sprintf("no cache directory for the MCP inspector: %v", err))
	}
	dir := filepath.Join(cache, "git-reason-tests", "mcp-inspector-"+inspectorVersion)
	script = filepath.Join(dir, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	if _, err := os.Stat(script); err == nil {
		return node, script
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		harness.MissingTool(t, err.Error())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", "--prefix", dir,
		"@modelcontextprotocol/inspector@"+inspectorVersion)
	if out, err := cmd.CombinedOutput(); err != nil {
		harness.MissingTool(t, fmt.Sprintf("npm install @modelcontextprotocol/inspector@%s failed: %v\n%s", inspectorVersion, err, out))
	}
	if _, err := os.Stat(script); errors.Is(err, os.ErrNotExist) {
		harness.MissingTool(t, fmt.Sprintf("the inspector %s has no command line at %s", inspectorVersion, script))
	}
	return node, script
}

// inspectorCalls are the calls TestMCPClientInspector sends through the
// inspector outside the long form: the tool list (every tool's declaration
// parsed by the TypeScript SDK), a write with its structured result, the
// refused conclusion (a tool error, the inspector's exit status 5) and the
// accepted one, and a resource read. The other calls are more of the same
// kinds, each its own node start; the long form sends every call through it.
var inspectorCalls = map[string]bool{"tools/list": true, "resources/read": true, "assess": true, "conclude": true}

// mixedDriver sends the calls via picks through via and the others through
// rest, in the sequence's order, against the same repository.
type mixedDriver struct {
	via, rest mcpDriver
	picks     func(method string, params map[string]any) bool
}

func (d mixedDriver) call(t *testing.T, method string, params map[string]any) json.RawMessage {
	t.Helper()
	if d.picks(method, params) {
		return d.via.call(t, method, params)
	}
	return d.rest.call(t, method, params)
}

// TestMCPClientInspector runs the sequence through the inspector's command
// line, one node start per call (about 1.5 s of CPU each here, and about
// twice that in wall time, the longest test of the package when every call
// went through it): the calls of inspectorCalls through it, the others
// through the Go SDK's client on one session, so that every check of the
// sequence still runs; with GIT_REASON_LONG=1 every call through the
// inspector. With -short it is left to the full run, which .ci/run makes:
// the Go clients above run the same sequence in every form, so the quick
// run keeps the protocol covered and drops only the third-party client.
func TestMCPClientInspector(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("skipped in -short mode: the inspector starts node once per call; the full run drives the whole sequence through it")
	}
	node, script := installInspector(t)
	s := newMCPSandbox(t)
	inspector := inspectorDriver{s: s, node: node, script: script}
	if harness.Long() {
		runSequence(t, inspector, mcpSequence(false))
		return
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-client", Version: "1.8.0"}, nil)
	cs := connectMCP(t, s, client)
	sent := 0
	runSequence(t, mixedDriver{via: inspector, rest: sdkDriver{cs}, picks: func(method string, params map[string]any) bool {
		name, _ := params["name"].(string)
		if inspectorCalls[method] || method == "tools/call" && inspectorCalls[name] {
			sent++
			return true
		}
		return false
	}}, mcpSequence(false))
	if sent < 5 {
		t.Errorf("only %d calls went through the inspector, want the 5 of inspectorCalls", sent)
	}
}
