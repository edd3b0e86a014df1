package mcpserver

import (
	"context"
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
	return &stdioConn{Connection: inner, spy: spy, out: t.out}, nil
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
}

var (
	resultHead = []byte(`{"jsonrpc":"2.0","id":`)
	resultMid  = []byte(`,"result":`)
)

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
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
