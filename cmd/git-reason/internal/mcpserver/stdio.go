package mcpserver

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stdio is the transport 'git reason mcp' serves one session on: MCP's
// newline-delimited JSON-RPC over in and out, read by the SDK's own
// IOTransport. Writing differs in one respect: a result is written as the
// SDK already encoded it, inside its envelope, where the SDK would encode
// the envelope and so scan and copy the whole result a second time. The
// bytes are the same. For tools/list, whose answer is some 40 KB of
// schemas, that second pass was close to half of the server's time.
//
// Reading differs in one respect too: when the client closes its end
// (end of input), the requests already read are answered before the
// session ends, where the SDK would cancel them unanswered. So
// 'printf REQUESTS | git reason mcp' answers every request it was given,
// as a shell pipe expects. No answer waits on the client: the server
// sends it no request of its own (a person is asked through input
// requests in a result).
//
// A session whose client ever sends a batch (a JSON array, which protocol
// revisions before 2025-06-18 allow) is written by the SDK alone from then
// on, since only it knows which responses complete a batch.
func Stdio(in io.ReadCloser, out io.WriteCloser) mcp.Transport {
	return &stdio{in: in, out: out}
}

type stdio struct {
	in  io.ReadCloser
	out io.WriteCloser
}

func (t *stdio) Connect(ctx context.Context) (mcp.Connection, error) {
	spy := &batchSpy{r: t.in}
	inner, err := (&mcp.IOTransport{Reader: spy, Writer: t.out}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &stdioConn{Connection: inner, spy: spy, out: t.out, changed: make(chan struct{})}, nil
}

// stdioConn is the SDK's connection with results written directly. Every
// write goes through its lock, the SDK's own writes included, so lines
// never interleave.
type stdioConn struct {
	mcp.Connection
	spy *batchSpy
	mu  sync.Mutex
	out io.Writer
	buf []byte

	// pending is the requests read and not yet answered, under mu;
	// changed is closed (and made anew) whenever it moves.
	pending int
	changed chan struct{}
}

// Read is the SDK connection's, counting the requests it reads; at the
// end of input it returns once every request read is answered (or ctx
// ends).
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if errors.Is(err, io.EOF) {
		c.drain(ctx)
		return nil, err
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
		c.count(1)
	}
	return msg, err
}

// count moves pending by d (never below zero) and tells drain.
func (c *stdioConn) count(d int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending = max(c.pending+d, 0)
	close(c.changed)
	c.changed = make(chan struct{})
}

// drain waits until no request read is unanswered, or ctx ends.
func (c *stdioConn) drain(ctx context.Context) {
	for {
		c.mu.Lock()
		done, changed := c.pending == 0, c.changed
		c.mu.Unlock()
		if done {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
}

var (
	resultHead = []byte(`{"jsonrpc":"2.0","id":`)
	resultMid  = []byte(`,"result":`)
)

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if _, ok := msg.(*jsonrpc.Response); ok {
		defer c.count(-1) // after the write, outside the lock
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error != nil || len(resp.Result) == 0 || !resp.ID.IsValid() || c.spy.batched.Load() {
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

// batchSpy passes the client's bytes to the SDK and notes whether a value
// at the top level of the stream is an array: a batch.
type batchSpy struct {
	r       io.ReadCloser
	batched atomic.Bool
	depth   int  // nesting of objects and arrays
	str     bool // inside a string
	esc     bool // after a backslash in a string
}

func (s *batchSpy) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	for _, ch := range p[:n] {
		switch {
		case s.esc:
			s.esc = false
		case s.str:
			switch ch {
			case '\\':
				s.esc = true
			case '"':
				s.str = false
			}
		case ch == '"':
			s.str = true
		case ch == '[' || ch == '{':
			if ch == '[' && s.depth == 0 {
				s.batched.Store(true)
			}
			s.depth++
		case ch == ']' || ch == '}':
			if s.depth > 0 {
				s.depth--
			}
		}
	}
	return n, err
}

func (s *batchSpy) Close() error { return s.r.Close() }
