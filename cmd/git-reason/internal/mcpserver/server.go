package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
	"git-reason/schemas"
)

// Options configure a server.
type Options struct {
	Dir     string // the repository's directory (any directory inside it)
	Version string // reported in initialize
	// Profile is the execution profile named on the command line ("":
	// reason.profile, else the default), for every call: one that does
	// not exist is refused by New.
	Profile string
	// CacheDelay, when positive, lets each task's cache file under
	// .git/reason/ be written up to this long after an append instead of
	// during it (the server reads the task from memory meanwhile); Close
	// writes what is still pending.
	CacheDelay time.Duration
}

// Server serves one repository over MCP: every tool of share/tools.yaml,
// the task reports as resources. Reads and writes go through the same
// operations (and so the same writer) as the command line.
type Server struct {
	sdk      *mcp.Server
	env      *ops.Session
	dir      string
	profile  string     // Options.Profile, for the sessions consult opens
	mu       sync.Mutex // one operation on env at a time (consult opens its own)
	sessions sessions
	byVerb   map[string]string // CLI verb → tool name
	tools    map[string]*tool
	states   elicitStates // of local reviews asked of a person (elicit.go)
	notes    notices      // what env warned of during the call that holds mu
	live     liveSessions // the sessions opened over HTTP (http.go)
	requests requests     // the HTTP requests under way (http.go)
	consults consults     // the consult calls under way, by session (session.go)
}

// tool is one declared tool bound to its handler.
type tool struct {
	spec   ops.ToolSpec
	kind   record.Kind // the record kind a write tool appends, if any
	input  json.RawMessage
	output json.RawMessage
	run    func(ctx context.Context, c *call) (*outcome, error)
	own    bool // runs outside the server's lock (it opens its own repository session)
	// late: the arguments are the task and a body of kind, which the
	// writer validates against the body schema the input schema is made
	// of, so they are checked against the input schema only when the call
	// fails (see handle).
	late bool

	once      sync.Once
	validator *schemas.Schema
	verr      error
	// result is the output schema tools/list gives, which every result
	// is held to before it is sent.
	result *schemas.Output
	// published is the document 'git reason VERB --json' is held to, for
	// a tool whose answer is that output (nil for the others): an answer
	// is held to it as well, before its suggested next tools are added.
	published *schemas.Output
}

// call is one tools/call as a handler sees it.
type call struct {
	session *mcp.ServerSession
	req     *mcp.CallToolRequest
	args    map[string]any // decoded, and checked against the input schema unless the tool is late
	// notes are the warnings the call's operations gave, which its result
	// carries (notices); a tool that opens its own session gives it
	// Notify: notes.add.
	notes notices
}

// notices are the warnings a session gave during one call
// (ops.Options.Notify), as the tools say them: that the repository's
// .reason/advisors.yaml is not trusted, and what of it review was computed
// without; that .reason/allowed_signers is not trusted, so the signatures
// of its keys read as unknown; a task skipped. The command line says each
// once per command on standard error, which no MCP client reads: a
// result carries those its call gave (field notices, and the text), once
// each. Not once per MCP session: a client that plans after the result
// that said it (after a compaction, or another session over HTTP) would
// plan without knowing; and only the calls whose answer depends on the
// file say it (advisors, plan, consult, a status proposing consult; the
// reads that judge a signature of a key the file lists), not every call.
// Safe from any goroutine (the store's skip warnings).
type notices struct {
	mu    sync.Mutex
	lines []string
}

func (n *notices) add(a record.Advice) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if l := a.ToolMessage(); !slices.Contains(n.lines, l) {
		n.lines = append(n.lines, l)
	}
}

// take returns the lines given and forgets them.
func (n *notices) take() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	l := n.lines
	n.lines = nil
	return l
}

// outcome is a handler's successful answer.
type outcome struct {
	out  any    // structured content
	text string // a short rendering for the text content
	task string // the task the call concerns, "" for none
	// wrote is the record the call appended, whose state gives the next
	// steps; nil when it wrote none.
	wrote *record.Result
	// input, when set, asks the client for input first (MCP multi
	// round-trip requests): the call is made again with the responses
	// and state.
	input mcp.InputRequestMap
	state string
	// published is the part of out that the document of the tool's
	// verb holds, where it is not out itself: the list of a listAnswer
	// (every task's status, log, tasks, search); nil for out.
	published json.RawMessage
}

// New opens the repository and builds the server.
func New(ctx context.Context, opts Options) (*Server, error) {
	s := &Server{dir: opts.Dir, profile: opts.Profile, byVerb: map[string]string{}, tools: map[string]*tool{}}
	env, err := ops.Open(ctx, ops.Options{Dir: opts.Dir, Profile: opts.Profile, Resident: true, Surface: record.SurfaceMCP, Notify: s.notes.add})
	if err != nil {
		return nil, err
	}
	// A profile named on the command line must exist, as for every verb:
	// a typo is never silently ignored.
	if opts.Profile != "" {
		if _, _, err := env.Profile(); err != nil {
			return nil, err
		}
	}
	specs, err := ops.Tools()
	if err != nil {
		return nil, err
	}
	s.env = env
	if opts.CacheDelay > 0 {
		env.Store.WriteBehind(opts.CacheDelay)
	}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	s.sdk = mcp.NewServer(&mcp.Implementation{Name: "git-reason", Version: version}, &mcp.ServerOptions{
		Instructions: "git reason keeps engineering reasoning as typed records in git. Call prepare_session once, " +
			"then status; a decision goes assess, plan, consult, (resolve), conclude, validate.",
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Resources: &mcp.ResourceCapabilities{}},
	})
	handlers := s.handlers()
	for _, spec := range specs {
		t, ok := handlers[spec.Name]
		if !ok {
			return nil, fmt.Errorf("share/tools.yaml declares tool %s, which this server does not implement", spec.Name)
		}
		t.spec = spec
		if spec.Verb != "" {
			s.byVerb[spec.Verb] = spec.Name
		}
		s.tools[spec.Name] = t
		output, err := outputSchema(t.output)
		if err == nil {
			t.result, err = schemas.OutputDocument("mcp."+spec.Name+".json", output)
		}
		// The schema tool answers with the documents wrapped ({envelope,
		// body, derived} or {output}), not as 'git reason schema --json'.
		if name, ok := schemas.Outputs[spec.Verb]; ok && err == nil && spec.Name != "schema" {
			t.published, err = schemas.OutputDocument(name, nil)
		}
		if err != nil {
			return nil, fmt.Errorf("output schema of %s: %w", spec.Name, err)
		}
		s.sdk.AddTool(sdkTool(t, output), s.handle(t))
	}
	for name := range handlers {
		if _, ok := s.tools[name]; !ok {
			return nil, fmt.Errorf("tool %s is implemented but not declared in share/tools.yaml", name)
		}
	}
	s.addResources()
	// Over HTTP, a request's handler ends with the HTTP request it came
	// in (a notification's POST is answered before it is handled).
	s.sdk.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if strings.HasPrefix(method, "notifications/") {
				return next(ctx, method, req)
			}
			key := "" // none over stdio
			if extra := req.GetExtra(); extra != nil && extra.Header != nil {
				key = extra.Header.Get(requestHeader)
			}
			ctx, stop := s.requests.bound(ctx, key)
			defer stop()
			return next(ctx, method, req)
		}
	})
	// Warm what every call reads, so that concurrent calls only read it.
	// The identity as a write takes it: a clone's origin is recorded by
	// its first record, not by starting a server on it.
	_, _, _ = env.Catalog()
	_, _, _ = env.Profile()
	_ = env.IdentifyWriter()
	s.notes.take() // said to the calls that depend on them
	return s, nil
}

// Run serves one session over the transport until it ends, or ctx does.
// On Stdio, ctx's end ends the input as the client's end of input does:
// the requests read are answered (for stopGrace) before Run returns. The
// SDK, given ctx, closed the session at once, refused to write the
// answers of the calls under way, and then waited for them forever
// (stdioConn.drain): 'git reason mcp' never stopped for Ctrl-C or SIGTERM
// with a call under way. The SDK waits as long for a call that does not
// end when the session's end cancels it: Run gives up on it stopGrace
// after that (twice stopGrace after ctx ended, as guard gives up on an
// HTTP request), saying so on stderr, and returns.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	st, ok := t.(*stdio)
	if !ok {
		return s.sdk.Run(ctx, t)
	}
	stopping := &stdio{in: st.in, out: st.out, stop: ctx}
	ran := make(chan error, 1)
	go func() { ran <- s.sdk.Run(context.WithoutCancel(ctx), stopping) }()
	select {
	case err := <-ran:
		return err
	case <-ctx.Done():
	}
	select {
	case err := <-ran:
		return err
	case <-time.After(2 * stopGrace):
		fmt.Fprintf(stderr, "git reason: stopped with %d call(s) still running %v after the stop (cancelled, they did not end); what they were doing is cut\n", stopping.running(), 2*stopGrace)
		return ctx.Err()
	}
}

// Close writes the task caches CacheDelay holds back.
func (s *Server) Close() { s.env.Store.Flush() }

// sdkTool is the MCP tool a row declares: annotations from the policy (a
// read tool is read-only; nothing is destructive, records being
// append-only; open world where advisors are contacted), the policy
// verbatim under MetaKey, and the input and output schemas.
func sdkTool(t *tool, output json.RawMessage) *mcp.Tool {
	no, open := false, t.spec.ContactsAdvisors
	return &mcp.Tool{
		Name:         t.spec.Name,
		Description:  t.spec.Description,
		InputSchema:  t.input,
		OutputSchema: output,
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint:    t.spec.ExecutionClass != ops.ClassMutate,
			DestructiveHint: &no,
			IdempotentHint:  t.spec.Idempotent,
			OpenWorldHint:   &open,
		},
		Meta: mcp.Meta{MetaKey: t.spec.Policy()},
	}
}

// catchUp integrates what a plain git fetch brought since the last call
// (ops.Session.CatchUpLive), as the command line does before each
// command, saying what it did on stderr, the server's log. Called with
// s.mu held.
func (s *Server) catchUp(ctx context.Context) {
	s.env.CatchUpLive(ctx, func(line string) { fmt.Fprintf(os.Stderr, "git reason: %s\n", record.Printable(line)) })
}

// handle wraps a tool's handler: arguments parsed and validated against the
// tool's input schema, the operation run, and its outcome rendered as
// structured content with a short text, or as a tool error with recovery
// actions. A late tool's arguments are validated by the writer, as the
// body of a record, against the schema its input schema is made of (the
// body's, with the task beside it and ids the server fills in no longer
// required): a body that does not fit that schema is refused before
// anything is written, with the arguments' own violations, checked then.
// Checked before the call too, every write paid for the same validation
// twice.
func (s *Server) handle(t *tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		c := &call{session: req.Session, req: req}
		task := ""
		var out *outcome
		err := s.parse(t.spec.Name, req, c)
		if err == nil && !t.late {
			err = t.check(c.args)
		}
		if err == nil {
			task, _ = c.args["task"].(string)
			if !t.own {
				s.mu.Lock()
				s.notes.take() // a call's before this one (nextActions, classify, a resource)
				s.env.Hold()
				s.catchUp(ctx)
			}
			out, err = t.run(ctx, c)
			if !t.own {
				for _, l := range s.notes.take() {
					c.notes.add(record.Advice{Tools: l})
				}
				s.env.Release()
				s.mu.Unlock()
			}
			if err != nil && t.late {
				if cerr := t.check(c.args); cerr != nil {
					err = cerr // the arguments do not fit the tool: said as before the call
				}
			}
		}
		if err != nil {
			s.mu.Lock()
			te := s.classify(ctx, t.spec.Name, task, t.kind, err)
			s.mu.Unlock()
			te.Notices = c.notes.take()
			return errorResult(te), nil
		}
		if out.input != nil {
			return &mcp.CallToolResult{InputRequests: out.input, RequestState: out.state}, nil
		}
		structured, err := marshal(out.out)
		if err != nil {
			return nil, err
		}
		text := out.text
		if t.published != nil {
			doc := structured
			if out.published != nil {
				doc = out.published
			}
			if err := s.check(t.published, doc); err != nil {
				return nil, err
			}
		}
		if out.task != "" && !s.sessions.of(req.Session).NativeToolSearch {
			s.mu.Lock()
			s.env.Hold()
			next := s.nextActions(ctx, out.task, out.wrote)
			s.env.Release()
			s.mu.Unlock()
			if structured, err = withField(structured, "suggested_next_tools", next); err != nil {
				return nil, err
			}
		}
		if notes := c.notes.take(); len(notes) > 0 {
			if structured, err = withField(structured, "notices", notes); err != nil {
				return nil, err
			}
			text += "\nnotice: " + strings.Join(notes, "\nnotice: ")
		}
		if err := s.checkResult(t, structured); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: shown(text)}},
			StructuredContent: structured,
		}, nil
	}
}

// checkResult holds structured, a result of t, to t's output schema, as
// the command line holds its --json output to the document it publishes
// (a large result's parts seen valid before are not validated again): a
// result that breaks it is this server's bug, and the call fails with it
// instead of sending it.
func (s *Server) checkResult(t *tool, structured json.RawMessage) error {
	return s.check(t.result, structured)
}

func (s *Server) check(o *schemas.Output, structured json.RawMessage) error {
	var b bytes.Buffer
	if err := json.Indent(&b, structured, "", "  "); err != nil {
		return err
	}
	b.WriteByte('\n')
	return o.Check(b.Bytes(), s.env.Store.OutputChecks(o.Name, o.Doc), "the result was not sent: this is a bug of git reason, please report it")
}

// parse decodes the arguments of tool, a JSON object, into c.args. A
// number the schema library must not see (record.HugeNumber: it reads
// 2e999999 as a big.Rat, 30 ms, in a type check, a bound or uniqueItems)
// is bad input before the arguments are checked against the tool's input
// schema: an assess whose needs held 100 such numbers, all distinct, took
// 2.4-3.1 s of CPU, and a request of 1 MiB holds 80,000. The transports have
// refused a message nested past record.MaxNesting before this decode
// (refuseDeep).
func (s *Server) parse(tool string, req *mcp.CallToolRequest, c *call) error {
	raw := []byte("{}")
	if req.Params != nil && len(req.Params.Arguments) > 0 && !bytes.Equal(bytes.TrimSpace(req.Params.Arguments), []byte("null")) {
		raw = req.Params.Arguments
	}
	var inst any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&inst); err != nil {
		return badInput("arguments are not valid JSON: " + err.Error())
	}
	args, ok := inst.(map[string]any)
	if !ok {
		return badInput("arguments must be a JSON object")
	}
	if huge, ok := record.HugeNumber(args); ok {
		return badInput("arguments of " + tool + ": " + huge.String())
	}
	c.args = args
	return nil
}

// check validates decoded arguments against the tool's input schema.
func (t *tool) check(args map[string]any) error {
	t.once.Do(func() { t.validator, t.verr = schemas.CompileDocument(t.spec.Name+".input.json", t.input) })
	if t.verr != nil {
		return t.verr
	}
	if err := t.validator.Validate(args); err != nil {
		te := badInput("arguments of " + t.spec.Name + ": " + violations(err, args))
		if t.kind != "" {
			te.RecoveryActions = []Action{{Tool: "schema", Arguments: map[string]any{"kind": string(t.kind)}}}
		}
		return te
	}
	return nil
}

// violations renders a validation error's leaves on one line. A task
// name the schema refused is said once, as record.CheckTask says it on
// the command line (invalid task name "x.lock": it must not end in
// '.lock'), not as the pattern or the negation that refused it.
func violations(err error, args map[string]any) string {
	leaves := schemas.Leaves(err)
	if leaves == nil {
		return oneLine(err.Error())
	}
	parts := []string{}
	named := map[string]bool{}
	for _, e := range leaves {
		at := e.InstanceLocation
		if at == "" {
			at = "/"
		}
		msg := e.Message
		if schemas.Blank(e) {
			msg = schemas.BlankMessage // said as the writer says it
		}
		if name, ok := taskAt(args, at); ok {
			if cerr := record.CheckTask(name); cerr != nil {
				if named[at] {
					continue
				}
				named[at], msg = true, withoutSentinel(cerr.Error())
			}
		}
		parts = append(parts, at+": "+msg)
	}
	return strings.Join(parts, "; ")
}

// taskAt is the string at an argument location that holds a task name:
// task, close's by, an item of verify's tasks.
func taskAt(args map[string]any, at string) (string, bool) {
	var v any
	switch rest, list := strings.CutPrefix(at, "/tasks/"); {
	case at == "/task" || at == "/by":
		v = args[at[1:]]
	case list:
		items, _ := args["tasks"].([]any)
		i, err := strconv.Atoi(rest)
		if err != nil || i < 0 || i >= len(items) {
			return "", false
		}
		v = items[i]
	}
	name, ok := v.(string)
	return name, ok
}

// errorResult is a tool error: structured {code, message,
// recovery_actions} and the message as text.
func errorResult(te *ToolError) *mcp.CallToolResult {
	if te.RecoveryActions == nil {
		te.RecoveryActions = []Action{}
	}
	raw, _ := marshal(te)
	text := te.Code + ": " + te.Message
	for _, l := range te.Notices {
		text += "\nnotice: " + l
	}
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: shown(text)}},
		StructuredContent: raw,
	}
}

// shown is a text a host shows a person, as a terminal would be shown it
// (record.PrintableText): a host that runs in a terminal prints a result's
// text there, and what a record fetched from elsewhere says reaches it in
// log lines, search hits and reports. The structured content keeps the
// records as stored, as --json does.
func shown(text string) string { return record.PrintableText(text) }

// marshal is JSON without HTML escaping, as the command line prints it.
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// listAnswer is an answer of one member, name, holding the list that
// 'git reason VERB --json' prints (structured content is an object), and
// that list as the part of the answer the command's document holds
// (outcome.published); an empty list is [], never null.
func listAnswer(name string, list any) (any, json.RawMessage, error) {
	raw, err := marshal(list)
	if err != nil {
		return nil, nil, err
	}
	if string(raw) == "null" {
		raw = json.RawMessage("[]")
	}
	return map[string]json.RawMessage{name: raw}, raw, nil
}

// withField appends a field to a JSON object, keeping the order of the
// fields before it.
func withField(objJSON json.RawMessage, name string, v any) (json.RawMessage, error) {
	val, err := marshal(v)
	if err != nil {
		return nil, err
	}
	trimmed := bytes.TrimSpace(objJSON)
	if len(trimmed) < 2 || trimmed[0] != '{' || trimmed[len(trimmed)-1] != '}' {
		return nil, fmt.Errorf("structured content is not an object")
	}
	var b bytes.Buffer
	b.Write(trimmed[:len(trimmed)-1])
	if !bytes.Equal(bytes.TrimSpace(trimmed[1:len(trimmed)-1]), nil) {
		b.WriteByte(',')
	}
	key, _ := json.Marshal(name)
	b.Write(key)
	b.WriteByte(':')
	b.Write(val)
	b.WriteByte('}')
	return b.Bytes(), nil
}
