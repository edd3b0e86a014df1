package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"

	"git-reason/record"
)

// Stdio is the transport 'git reason mcp' serves one session on: MCP's
// newline-delimited JSON-RPC over in and out, read by the SDK's own
// IOTransport. Writing differs in one respect: a result is written as the
// SDK already encoded it, inside its envelope, where the SDK would encode
// the envelope and so scan and copy the whole result a second time. The
// bytes are the same. For tools/list, whose answer is some 69 KB of
// schemas, that second pass was close to half of the server's time.
//
// Reading differs in one respect too: when the client closes its end
// (end of input), the requests already read are answered before the
// session ends, where the SDK would cancel them unanswered. So
// 'printf REQUESTS | git reason mcp' answers every request it was given,
// as a shell pipe expects.
//
// With maxRunning requests read and not yet answered, the server holds
// the next request it reads and reads no more until one is answered: the
// client's writes wait, as a pipe's do. Notifications and answers before
// that request are read and handed on, so that a client's
// notifications/cancelled for a call under way arrives while the calls
// fill the bound (it waited for one of them to end).
// The SDK read every line at once and queued it, each as a goroutine of
// its own: 8,000 status calls written while an assess waited for a
// ref's lock took the server to 190 MB (TestMCPStdioFloodIsBounded).
// While the server itself waits for an answer of the client (the SDK
// asks a client of an older protocol version for input itself), it goes
// on reading, so that the answer can arrive, and answers a request past
// maxRunning with an error instead.
func Stdio(in io.ReadCloser, out io.WriteCloser) mcp.Transport {
	return &stdio{in: in, out: out}
}

type stdio struct {
	in  io.ReadCloser
	out io.WriteCloser
	// stop ends the input as the client's end of input does (Server.Run's
	// ctx); nil: Connect's.
	stop context.Context
	conn atomic.Pointer[stdioConn] // Connect's, for running
}

// stopGrace is how long the requests read when a stdio session is
// stopped are given to be answered, as guard gives an HTTP server's: then
// the session ends, the calls still under way cancelled, and they are
// given as long again to unwind (Server.Run); one still running after
// that is left to be cut as the process ends. A variable for tests.
var stopGrace = 5 * time.Second

// stderr is the server's log, where a stopped session says it gave up on
// a call (Server.Run). A variable for tests.
var stderr io.Writer = os.Stderr

func (t *stdio) Connect(ctx context.Context) (mcp.Connection, error) {
	in := &inbox{r: bufio.NewReader(t.in), closer: t.in}
	inner, err := (&mcp.IOTransport{Reader: in, Writer: t.out}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	stop := t.stop
	if stop == nil {
		stop = ctx
	}
	c := &stdioConn{Connection: inner, in: in, out: t.out, changed: make(chan struct{}), stop: stop}
	in.bad = c.answerBad
	t.conn.Store(c)
	return c, nil
}

// running is how many requests read on t's connection are not answered.
func (t *stdio) running() int {
	c := t.conn.Load()
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pending
}

// stdioConn is the SDK's connection with results written directly. Every
// write goes through its lock, the SDK's own writes included, so lines
// never interleave.
type stdioConn struct {
	mcp.Connection
	in  *inbox
	mu  sync.Mutex
	out io.Writer
	buf []byte

	// pending is the requests read and not yet answered, under mu;
	// changed is closed (and made anew) whenever it or asking moves. ids
	// holds their ids, under mu. asking holds the ids of the server's own
	// requests to the client not yet answered, cancelled or failed to
	// write, under mu.
	pending int
	changed chan struct{}
	ids     map[jsonrpc.ID]bool
	asking  map[jsonrpc.ID]bool

	stop context.Context // its end ends the input (stdio.stop)
}

// Read is the SDK connection's, counting the requests it reads; at the
// end of input, or any other error that ends the session, it returns once
// every request read is answered. Stopped (c.stop), it reads no more and
// returns the end of input once every request read is answered, or after
// stopGrace. (The ctx the SDK gives never ends.)
//
// A request whose id is that of one not yet answered is answered here,
// to null, and not handed on: the SDK drops such a request unanswered,
// and the end of input then waited for its answer for good (the server
// never exited; stopped, it gave up after stopGrace).
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(c.stop)
		req, call := msg.(*jsonrpc.Request)
		if err == nil && call && req.ID.IsValid() {
			c.room() // held here, the request is the last one read
			if c.stop.Err() != nil {
				err = c.stop.Err() // unanswered, as one not read
			}
		}
		if err != nil {
			var giveUp <-chan time.Time
			if c.stop.Err() != nil {
				err = io.EOF
				giveUp = time.After(stopGrace)
			}
			c.drain(giveUp) // the session ends on any error: the end of input
			return nil, err
		}
		if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID.IsValid() {
			c.ask(resp.ID, false)
		}
		if call && req.ID.IsValid() {
			if used, full := c.take(req.ID); used || full {
				id, _ := marshal(req.ID.Raw())
				if used {
					c.answerBad(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: id %s is that of a request not yet answered; give each request an id of its own", id))
				} else {
					c.answerBad(id, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: %d requests are under way, the most this server runs at once; send it again once one is answered", maxRunning))
				}
				continue
			}
		}
		return msg, err
	}
}

// maxRunning is how many requests read over stdio may be unanswered at
// once: past it the server reads no more (Stdio). Calls on the
// repository's session run one at a time, consult's beside them (at
// most reason.mcpConsults), so that a client gains nothing from more.
const maxRunning = 32

// room waits until fewer than maxRunning requests read are unanswered,
// the server asks the client something, or the input is stopped.
func (c *stdioConn) room() {
	for {
		c.mu.Lock()
		ok, changed := c.pending < maxRunning || len(c.asking) > 0, c.changed
		c.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-c.stop.Done():
			return
		}
	}
}

// take counts a request read with id, or refuses it: used when a request
// not yet answered has that id, full when maxRunning are unanswered (read
// while the server waits for the client's answer, room).
func (c *stdioConn) take(id jsonrpc.ID) (used, full bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ids[id] {
		return true, false
	}
	if c.pending >= maxRunning {
		return false, true
	}
	if c.ids == nil {
		c.ids = map[jsonrpc.ID]bool{}
	}
	c.ids[id] = true
	c.moved(&c.pending, 1)
	return false, false
}

// count moves pending by d (never below zero) and tells drain and room.
func (c *stdioConn) count(d int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.moved(&c.pending, d)
}

// ask adds id to asking, or removes it, and tells room. An id is removed
// when its answer is read, when the server cancels its request (the SDK
// does when the call's context ends: a timeout), and when the request's
// write fails: a count only an answer lowered stayed up for good after
// any of those, and the transport then refused every request past
// maxRunning at once instead of reading no more.
func (c *stdioConn) ask(id jsonrpc.ID, asked bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if asked {
		if c.asking == nil {
			c.asking = map[jsonrpc.ID]bool{}
		}
		c.asking[id] = true
	} else if c.asking[id] {
		delete(c.asking, id)
	} else {
		return
	}
	c.tell()
}

// cancelledID is the id a notifications/cancelled message's params name.
func cancelledID(params json.RawMessage) (jsonrpc.ID, bool) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	return id, err == nil && id.IsValid()
}

// moved moves *n by d (never below zero) and tells whoever waits on
// changed. Called with mu held.
func (c *stdioConn) moved(n *int, d int) {
	*n = max(*n+d, 0)
	c.tell()
}

// tell wakes whoever waits on changed. Called with mu held.
func (c *stdioConn) tell() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// drain waits until no request read is unanswered, or giveUp fires.
func (c *stdioConn) drain(giveUp <-chan time.Time) {
	for {
		c.mu.Lock()
		done, changed := c.pending == 0, c.changed
		c.mu.Unlock()
		if done {
			return
		}
		select {
		case <-changed:
		case <-giveUp:
			return
		}
	}
}

var (
	resultHead = []byte(`{"jsonrpc":"2.0","id":`)
	resultMid  = []byte(`,"result":`)
)

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) (err error) {
	resp, ok := msg.(*jsonrpc.Response)
	if ok {
		defer c.count(-1) // after the write, outside the lock
	} else if req, call := msg.(*jsonrpc.Request); call && req.ID.IsValid() {
		c.ask(req.ID, true) // before the write: the answer may be read at once
		defer func() {
			if err != nil {
				c.ask(req.ID, false) // not sent: no answer comes
			}
		}()
	} else if call && req.Method == "notifications/cancelled" {
		if id, ok := cancelledID(req.Params); ok {
			c.ask(id, false) // the server no longer waits for its answer
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ok {
		// Before the write: the client may send its next request with
		// this id as soon as it reads the answer.
		delete(c.ids, resp.ID)
	}
	if !ok || resp.Error != nil || len(resp.Result) == 0 || !resp.ID.IsValid() {
		return c.Connection.Write(ctx, msg)
	}
	if err := ctx.Err(); err != nil {
		return err // as the SDK's connection refuses a write on a done context
	}
	id, err := marshal(resp.ID.Raw())
	if err != nil {
		return c.Connection.Write(ctx, msg)
	}
	// The result is compact JSON: the SDK encoded it with encoding/json.
	b := append(c.buf[:0], resultHead...)
	b = append(b, id...)
	b = append(b, resultMid...)
	b = append(b, resp.Result...)
	b = append(b, '}', '\n')
	if cap(b) <= 1<<20 {
		c.buf = b // kept for the next answer, up to a megabyte
	}
	_, err = c.out.Write(b)
	return err
}

// inbox hands the SDK the client's lines that are JSON-RPC messages, one
// by one, and answers a line that is not with JSON-RPC's error for it (a
// parse error for a line that is not JSON, an invalid request for one
// that is no message), so that one bad line costs that line alone: the
// SDK ended the session on either, unable to go on past a syntax error.
// MCP's stdio messages are one line each. A line longer than maxLine is
// answered as an invalid request, without being kept, and so is one the
// server refuses over either transport (refused).
type inbox struct {
	r      *bufio.Reader
	closer io.Closer
	line   []byte                                            // what is left of the line being handed over
	err    error                                             // the reader's error, returned once line is handed over
	bad    func(id json.RawMessage, code int64, what string) // answers a bad line
}

func (b *inbox) Read(p []byte) (int, error) {
	for len(b.line) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		line, long, err := b.readLine()
		b.err = err
		if long {
			b.bad(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: a line longer than %d bytes; each message is one line of JSON", maxLine))
			continue
		}
		msg := bytes.TrimSpace(line)
		if len(msg) == 0 {
			continue
		}
		if !json.Valid(msg) {
			what := "a line that is not JSON"
			var syntax *json.SyntaxError
			if errors.As(json.Unmarshal(msg, new(any)), &syntax) {
				what = fmt.Sprintf("%s (%v at byte %d)", what, syntax, syntax.Offset)
			}
			b.bad(nil, jsonrpc.CodeParseError, "Parse error: "+what+"; each message is one line of JSON")
			continue
		}
		if id, why, ok := refused(msg); ok {
			b.bad(id, jsonrpc.CodeInvalidRequest, why)
			continue
		}
		if _, err := jsonrpc.DecodeMessage(msg); err != nil {
			b.bad(idOf(msg), jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error()+`; a message is a JSON-RPC 2.0 request, notification or response ("jsonrpc":"2.0")`)
			continue
		}
		b.line = append(msg, '\n')
	}
	n := copy(p, b.line)
	b.line = b.line[n:]
	return n, nil
}

func (b *inbox) Close() error { return b.closer.Close() }

// maxLine is the longest line inbox hands on: a request over HTTP's
// bound, MaxBody. The SDK's own bound is 16 MiB, past which it ended the
// session (exit 1, every request after the line unanswered) once the
// whole line had been read into memory; a line of 16 MiB that held
// 5,400,000 empty arrays as a tool's argument cost the server 3.9-7.2 s
// of CPU and 470-545 MB to decode (bench/serverload/run.sh).
const maxLine = MaxBody

// readLine reads the next line, newline included; a line longer than
// maxLine is read past without being kept, and reported as long.
func (b *inbox) readLine() (line []byte, long bool, err error) {
	for {
		chunk, err := b.r.ReadSlice('\n')
		if len(line)+len(chunk) > maxLine {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = b.r.ReadSlice('\n')
			}
			return nil, true, err
		}
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, false, err
		}
	}
}

// answerBad writes the JSON-RPC error for a line inbox did not hand on.
func (c *stdioConn) answerBad(id json.RawMessage, code int64, what string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, _ = c.out.Write(rpcError(id, code, what))
}

// rpcError is the line of JSON-RPC's error for a message the SDK is not
// given: to the id the message gave when it is a string or a number, else
// to null.
func rpcError(id json.RawMessage, code int64, what string) []byte {
	if len(id) == 0 || (id[0] != '"' && id[0] != '-' && (id[0] < '0' || id[0] > '9')) {
		id = json.RawMessage("null")
	}
	msg, _ := json.Marshal(what)
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`+"\n", id, code, msg)
}

// idOf is the id a message names, as it is written ("" for none).
func idOf(msg []byte) json.RawMessage {
	var named struct{ ID json.RawMessage }
	_ = json.Unmarshal(msg, &named)
	return named.ID
}

// refused is the id to answer and the message of JSON-RPC's invalid
// request error for a message the server refuses before the SDK reads it,
// over either transport, and whether it does:
//
//   - one nested too deep (tooDeep), answered to its id;
//   - a batch (a JSON array of messages), answered to null before any of
//     its messages runs: MCP's revision 2025-03-26 alone had batches
//     (2025-06-18 removed them), and the SDK refuses one only when it knows
//     the client speaks a later revision: one request from a client that
//     declared none, or 2025-03-26, ran every call in it (1 MiB holds some 10,000
//     status calls), each as costly as a request of its own, under one
//     of the guard's slots for requests at once;
//   - a request whose id is null, answered to null: JSON-RPC 2.0 makes
//     it a request owed an answer (a notification has no id), MCP allows
//     no null id, and the SDK took it for a notification and never
//     answered, so that a client waiting for the answer waited for good;
//   - one whose id is a number the SDK would answer under another id
//     (numberKept), answered to null: the answer must not name another
//     request's id.
func refused(msg []byte) (json.RawMessage, string, bool) {
	if deep, ok := tooDeep(msg); ok {
		return idOf(msg), deep, true
	}
	if msg = bytes.TrimLeft(msg, " \t\r\n"); len(msg) > 0 && msg[0] == '[' {
		return nil, "Invalid Request: a batch (a JSON array of messages), which MCP has not had since its revision 2025-06-18; send each message on its own", true
	}
	id, request := wireID(msg)
	if request && string(id) == "null" {
		return nil, "Invalid Request: a request whose id is null, which MCP does not allow; give it a string or an integer id (a notification has no id at all)", true
	}
	if !numberKept(id) {
		return nil, fmt.Sprintf("Invalid Request: an id that is a number must be an integer of at most %d in magnitude written without a fraction or exponent (1, not 1.0 or 1e0), which the answer names exactly; use such a number or a string", maxID), true
	}
	return nil, "", false
}

// maxID is the largest magnitude of a number id: 2^53, past which not
// every integer is a float64, which the SDK reads a number id into before
// making it an int64 (1.5 is answered as 1, 2^53+1 as 2^53, 2^64 and 1e30
// as -2^63 on amd64).
const maxID = 1 << 53

// wireID is msg's id as it is written, read as the SDK reads it (its JSON
// library, its case-sensitive field names), and whether msg has a method
// (a request or a notification); nil for a message that does not decode,
// which is the SDK's to refuse.
func wireID(msg []byte) (id segjson.RawMessage, request bool) {
	var m struct {
		ID     segjson.RawMessage `json:"id"`
		Method segjson.RawMessage `json:"method"`
	}
	if _, err := segjson.Parse(msg, &m, segjson.DontMatchCaseInsensitiveStructFields|segjson.ZeroCopy); err != nil {
		return nil, false
	}
	return m.ID, len(m.Method) > 0
}

// numberKept reports whether id, as written, is not a number or is an
// integer of at most maxID in magnitude, written without fraction or
// exponent.
func numberKept(id segjson.RawMessage) bool {
	if len(id) == 0 || (id[0] != '-' && (id[0] < '0' || id[0] > '9')) {
		return true
	}
	n, err := strconv.ParseInt(string(id), 10, 64)
	return err == nil && -maxID <= n && n <= maxID
}

// tooDeep is the JSON-RPC error message for a message whose arrays and
// objects nest past record.MaxNesting, found in its bytes before anything
// decodes it: the SDK decodes a message up to 1,000 levels deep, a
// tools/call's _meta into maps and slices (1 MiB of it nested 990 deep
// cost the server 16-19 s of CPU and 126-179 MB), and the server a tool's
// arguments (0.5 s and 45 MB). No message this server takes nests past
// a handful of levels: a tool's arguments are a record's body.
func tooDeep(msg []byte) (string, bool) {
	at, ok := record.TooDeep(msg)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("Invalid Request: arrays and objects nested more than %d levels deep (at %s); no message to this server nests so deep", record.MaxNesting, at), true
}
