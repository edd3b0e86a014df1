package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HostCapabilities is what the host can do itself, negotiated once per
// session by prepare_session. It is built only from what the host declares
// (its initialize capabilities and the facts it states as arguments), never
// from its name or version. The only thing it changes in the server's
// answers: suggested_next_tools appear only when NativeToolSearch is false.
type HostCapabilities struct {
	NativeToolSearch      bool `json:"native_tool_search"`
	NativeSubagents       bool `json:"native_subagents"`
	NestedSubagents       bool `json:"nested_subagents"`
	NativeWorktrees       bool `json:"native_worktrees"`
	NativeEdit            bool `json:"native_edit"`
	MCPTasks              bool `json:"mcp_tasks"`
	DynamicToolList       bool `json:"dynamic_tool_list"`
	WorkspaceBinding      bool `json:"workspace_binding"`
	ApprovalOrElicitation bool `json:"approval_or_elicitation"`
}

// capabilityNames lists the capabilities in their declared order.
var capabilityNames = []string{"native_tool_search", "native_subagents", "nested_subagents",
	"native_worktrees", "native_edit", "mcp_tasks", "dynamic_tool_list", "workspace_binding",
	"approval_or_elicitation"}

// Where a negotiated capability came from.
const (
	fromStated     = "stated"     // an argument of prepare_session
	fromInitialize = "initialize" // the client's initialize capabilities
	fromDefault    = "default"    // nothing said: false
)

// Negotiated is prepare_session's answer.
type Negotiated struct {
	Capabilities HostCapabilities  `json:"capabilities"`
	Sources      map[string]string `json:"sources"`
}

// negotiate builds the capabilities from the facts stated (name → value;
// absent means not stated) and the client's initialize capabilities. A
// stated fact wins; otherwise what initialize declared (elicitation means
// approval_or_elicitation, roots means workspace_binding, the tasks
// extension (TasksExtension, or "tasks") among the extensions or the
// experimental capabilities means mcp_tasks); otherwise false. A top-level
// "tasks" capability is not seen: the SDK does not decode it.
func negotiate(stated map[string]bool, client *mcp.ClientCapabilities) Negotiated {
	declared := map[string]bool{}
	if client != nil {
		if client.Elicitation != nil {
			declared["approval_or_elicitation"] = true
		}
		if client.RootsV2 != nil {
			declared["workspace_binding"] = true
		}
		for _, key := range []string{"tasks", TasksExtension} {
			if _, ok := client.Experimental[key]; ok {
				declared["mcp_tasks"] = true
			}
			if _, ok := client.Extensions[key]; ok {
				declared["mcp_tasks"] = true
			}
		}
	}
	values := map[string]bool{}
	out := Negotiated{Sources: map[string]string{}}
	for _, name := range capabilityNames {
		v, ok := stated[name]
		switch {
		case ok:
			out.Sources[name] = fromStated
		case declared[name]:
			v, out.Sources[name] = true, fromInitialize
		default:
			out.Sources[name] = fromDefault
		}
		values[name] = v
	}
	raw, _ := json.Marshal(values)
	_ = json.Unmarshal(raw, &out.Capabilities)
	return out
}

// TasksExtension is the identifier under which a client declares MCP tasks
// among its capabilities' extensions.
const TasksExtension = "io.modelcontextprotocol/tasks"

// sessions keeps each session's negotiated capabilities.
type sessions struct {
	mu   sync.Mutex
	caps map[*mcp.ServerSession]HostCapabilities
}

// of returns the session's capabilities: those negotiated by
// prepare_session, or, before it was called, those its initialize
// capabilities declare with defaults for the rest.
//
// What initialize declared does not change during a session: the
// capabilities made from it are kept, negotiated once, until
// prepare_session negotiates others.
func (s *sessions) of(ss *mcp.ServerSession) HostCapabilities {
	s.mu.Lock()
	c, ok := s.caps[ss]
	s.mu.Unlock()
	if ok {
		return c
	}
	declared := clientCapabilities(ss)
	c = negotiate(nil, declared).Capabilities
	if declared != nil {
		s.keep(ss, c, false)
	}
	return c
}

// set keeps a session's capabilities until the session ends (over HTTP a
// server sees many sessions come and go).
func (s *sessions) set(ss *mcp.ServerSession, c HostCapabilities) { s.keep(ss, c, true) }

// keep keeps c as the session's capabilities: in place of those it has
// when replace, else only when it has none (what prepare_session
// negotiated meanwhile stands).
func (s *sessions) keep(ss *mcp.ServerSession, c HostCapabilities, replace bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.caps == nil {
		s.caps = map[*mcp.ServerSession]HostCapabilities{}
	}
	_, known := s.caps[ss]
	if known && !replace {
		return
	}
	if !known && ss != nil {
		go func() {
			_ = ss.Wait()
			s.forget(ss)
		}()
	}
	s.caps[ss] = c
}

func (s *sessions) forget(ss *mcp.ServerSession) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.caps, ss)
}

// clientCapabilities returns what the client declared in initialize; its
// name and version (clientInfo) are deliberately not read.
func clientCapabilities(ss *mcp.ServerSession) *mcp.ClientCapabilities {
	if ss == nil {
		return nil
	}
	p := ss.InitializeParams()
	if p == nil {
		return nil
	}
	return p.Capabilities
}

// prepareSession is the prepare_session tool.
func (s *Server) prepareSession(_ context.Context, c *call) (*outcome, error) {
	stated := map[string]bool{}
	for _, name := range capabilityNames {
		if v, ok := c.args[name].(bool); ok {
			stated[name] = v
		}
	}
	n := negotiate(stated, clientCapabilities(c.session))
	s.sessions.set(c.session, n.Capabilities)
	text := "host capabilities:"
	for _, name := range capabilityNames {
		text += fmt.Sprintf(" %s=%t (%s)", name, valueOf(n.Capabilities, name), n.Sources[name])
	}
	return &outcome{out: n, text: text}, nil
}

func valueOf(c HostCapabilities, name string) bool {
	raw, _ := json.Marshal(c)
	var m map[string]bool
	_ = json.Unmarshal(raw, &m)
	return m[name]
}

// consults counts the consult calls under way, by the session (the
// client) that made them: each starts advisors' processes and requests,
// and one client could start any number at once (reason.mcpConsults).
type consults struct {
	mu sync.Mutex
	n  map[*mcp.ServerSession]int
}

// enter counts a consult call of ss, or reports false when ss has most
// under way already.
func (q *consults) enter(ss *mcp.ServerSession, most int) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.n[ss] >= most {
		return false
	}
	if q.n == nil {
		q.n = map[*mcp.ServerSession]int{}
	}
	q.n[ss]++
	return true
}

// leave counts a consult call of ss as ended.
func (q *consults) leave(ss *mcp.ServerSession) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.n[ss]--; q.n[ss] <= 0 {
		delete(q.n, ss)
	}
}
