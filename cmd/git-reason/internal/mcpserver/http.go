package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"git-reason/cmd/git-reason/internal/ops"
)

// Path is the endpoint's path.
const Path = "/mcp"

// DefaultMaxInFlight bounds the requests served at once.
const DefaultMaxInFlight = ops.MCPMaxInFlight

// MaxBody caps a request: the largest record body with its JSON escaping.
const MaxBody = 1 << 20

// NoBody are the methods whose requests carry no body: the guard refuses
// one that does.
var NoBody = []string{http.MethodGet, http.MethodDelete}

// Browser is what a web page on an origin given with --allow-origin may
// use of the endpoint, which the guard's answer to its preflight lists:
// the transport's methods (GET too, so that the page reads the 405 that
// says no event stream is offered, not a failed preflight), its request
// headers, and the session id the page must read to go on.
var Browser = struct{ Methods, Headers, Expose []string }{
	Methods: []string{http.MethodGet, http.MethodPost, http.MethodDelete},
	Headers: []string{"Mcp-Session-Id", "Mcp-Protocol-Version", "Last-Event-ID"},
	Expose:  []string{"Mcp-Session-Id"},
}

// sessionIdle closes a session no request has used for this long, so that
// sessions a host abandoned without DELETE do not accumulate.
const sessionIdle = 30 * time.Minute

// MaxSessions bounds the sessions kept at once over HTTP. A host that
// initializes in a loop without DELETE (an agent host reconnecting) opened
// one each time, each kept sessionIdle: some 12 KB each
// (bench/mcpsessions/run.sh: 12.4-12.5 MB per 1,000), without bound. Past
// it, the least recently used session with no request under way is closed
// to open the new one: its host's next request is answered 404, on which
// an MCP client initializes again. A session in a request is never closed
// for another; when every one is, the initialize is refused (503).
const MaxSessions = 64

// codeBusy is the JSON-RPC error of an initialize refused because every
// session is in a request (the range -32000 to -32099 is the server's).
const codeBusy = -32000

// TokenPath is where the HTTP server keeps the token it generates: a file
// of its own, so that a peer's serve token never opens the repository's
// writes.
func (s *Server) TokenPath() string {
	return filepath.Join(s.env.Repo.CommonDir, "reason", "mcp-token")
}

// HTTPHandler is the streamable endpoint without the guard (package
// serving puts it behind the guard serve uses: a loopback or allowed Host,
// no browser Origin unless allowed, the bearer token kept in TokenPath,
// JSON content, at most DefaultMaxInFlight requests at once, MaxBody): POST
// for messages, DELETE to end a session, nothing else, at Path only. No
// standalone event stream is offered (GET answers 405, as the transport
// allows): progress reaches the client on the stream of the call it
// belongs to, and a stream held open would hold a request slot. Every
// session is served by this one server (calls on the repository are
// serialised by it).
func (s *Server) HTTPHandler() http.Handler {
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.sdk },
		&mcp.StreamableHTTPOptions{SessionTimeout: sessionIdle, MaxRequestBodyBytes: MaxBody,
			// The guard checks the Host first, with the names the user
			// allowed, which the SDK's own loopback check does not know.
			DisableLocalhostProtection: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != Path {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodPost && r.Method != http.MethodDelete {
			w.Header().Set("Allow", "POST, DELETE")
			http.Error(w, "method not allowed: POST messages, DELETE a session", http.StatusMethodNotAllowed)
			return
		}
		if r.Method == http.MethodPost {
			body, done := refuse(w, r)
			if done {
				return
			}
			// The tools and resources handlers' contexts end with the
			// request (the guard's deadline, the client gone), which the
			// SDK's do not: they outlived it, holding the repository.
			defer s.requests.during(r)()
			if r.Header.Get(sessionHeader) == "" {
				s.open(sdk, w, r, body)
				return
			}
		}
		if !s.live.enter(w, r.Header.Get(sessionHeader)) {
			return
		}
		defer s.live.leave(r.Header.Get(sessionHeader))
		sdk.ServeHTTP(w, r)
	})
}

// open serves a POST that names no session, an initialize, which opens
// one when there is room (liveSessions.reserve), else answers JSON-RPC's
// error to body's id, status 503.
func (s *Server) open(sdk http.Handler, w http.ResponseWriter, r *http.Request, body []byte) {
	if !s.live.reserve(s.sdk.Sessions) {
		w.Header().Set("Retry-After", "5")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write(rpcError(idOf(body), codeBusy, fmt.Sprintf("all %d MCP sessions are in a request: "+
			"end a session you no longer use (DELETE), or initialize again once a request ends", s.live.limit())))
		return
	}
	o := &opening{ResponseWriter: w, live: &s.live}
	defer o.served()
	sdk.ServeHTTP(o, r)
}

// opening is an initialize's answer. Its session is counted, as one with
// a request under way, from the moment the answer starts (before its
// client can know the session and send it a request, which a client does
// as soon as the answer's event arrives, before the handler returns) until
// the handler returns: counted from that return, a request come in
// between was not under way for reserve, and its leave took the count
// below zero, the session then never closed for another.
type opening struct {
	http.ResponseWriter
	live *liveSessions
	once sync.Once
	id   string
}

// start counts the session the answer names, once, before its first byte.
func (o *opening) start() {
	o.once.Do(func() {
		o.id = o.Header().Get(sessionHeader)
		o.live.opened(o.id)
	})
}

func (o *opening) WriteHeader(code int) {
	o.start()
	o.ResponseWriter.WriteHeader(code)
}

func (o *opening) Write(b []byte) (int, error) {
	o.start()
	return o.ResponseWriter.Write(b)
}

func (o *opening) FlushError() error {
	o.start()
	return http.NewResponseController(o.ResponseWriter).Flush()
}

func (o *opening) Unwrap() http.ResponseWriter { return o.ResponseWriter }

// served ends the initialize's request.
func (o *opening) served() {
	o.start()
	o.live.leave(o.id)
}

// sessionHeader names the session a request belongs to.
const sessionHeader = "Mcp-Session-Id"

// liveSessions are the sessions opened over HTTP, each with when a
// request last used it and how many are under way, and the initializes
// under way: at most max (MaxSessions) at once.
type liveSessions struct {
	mu      sync.Mutex
	max     int
	pending int
	uses    map[string]*sessionUse // by session id
}

type sessionUse struct {
	last   time.Time
	busy   int  // requests under way
	closed bool // closed for another: its requests are answered 404
}

func (l *liveSessions) limit() int {
	if l.max <= 0 {
		return MaxSessions
	}
	return l.max
}

// reserve makes room for a new session among the live ones, closing the
// least recently used with no request under way as often as needed, and
// reports whether there is room. It lists the live sessions under its
// lock: listed before, a session opened (bound, then counted by opened)
// between the list and the lock was taken for ended and left uncounted,
// never closed for another and past the bound.
func (l *liveSessions) reserve(sessions func() iter.Seq[*mcp.ServerSession]) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.uses == nil {
		l.uses = map[string]*sessionUse{}
	}
	byID := map[string]*mcp.ServerSession{}
	for ss := range sessions() {
		byID[ss.ID()] = ss
	}
	n := l.pending
	for id, u := range l.uses {
		switch {
		case byID[id] == nil:
			delete(l.uses, id) // ended: DELETE, idle, or closed here
		case !u.closed:
			n++
		}
	}
	for ; n >= l.limit(); n-- {
		victim := ""
		for id, u := range l.uses {
			if !u.closed && u.busy == 0 && (victim == "" || u.last.Before(l.uses[victim].last)) {
				victim = id
			}
		}
		if victim == "" {
			return false
		}
		l.uses[victim].closed = true
		// Closing waits for the session's handlers to return: not
		// under the lock, nor before the new session is served.
		go func(ss *mcp.ServerSession) { _ = ss.Close() }(byID[victim])
	}
	l.pending++
	return true
}

// opened ends a reservation: the session id the initialize is answered
// with ("" when none was opened), its initialize under way until leave.
func (l *liveSessions) opened(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending--
	if id != "" {
		l.uses[id] = &sessionUse{last: time.Now(), busy: 1}
	}
}

// enter counts a request to session id as under way, unless the session
// was closed for another: then it answers 404, as the SDK answers a
// session it no longer knows, saying why, and reports false.
func (l *liveSessions) enter(w http.ResponseWriter, id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	u := l.uses[id]
	if u != nil && u.closed {
		http.Error(w, fmt.Sprintf("session not found: it was closed, the least recently used, to open another "+
			"(at most %d are kept; end the ones you no longer use with DELETE): initialize a new session", l.limit()),
			http.StatusNotFound)
		return false
	}
	if u != nil {
		u.busy++
		u.last = time.Now()
	}
	return true
}

// leave counts a request entered as ended.
func (l *liveSessions) leave(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if u := l.uses[id]; u != nil {
		u.busy--
		u.last = time.Now()
	}
}

// requestHeader carries, from the transport to the handlers, which HTTP
// request a message came in (the SDK gives a handler the request's
// header, not its context); the transport sets it, replacing any the
// client sent.
const requestHeader = "Git-Reason-Request"

// requests are the HTTP requests under way, by the value of requestHeader
// each carries.
type requests struct {
	mu   sync.Mutex
	next uint64
	ctx  map[string]context.Context
}

// during registers r as under way until the returned function is called.
func (q *requests) during(r *http.Request) func() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.ctx == nil {
		q.ctx = map[string]context.Context{}
	}
	q.next++
	key := strconv.FormatUint(q.next, 10)
	q.ctx[key] = r.Context()
	r.Header.Set(requestHeader, key)
	return func() {
		q.mu.Lock()
		defer q.mu.Unlock()
		delete(q.ctx, key)
	}
}

// errRequestEnded is why a handler's context ended when its HTTP request
// had ended before the handler started.
var errRequestEnded = errors.New("the HTTP request of this call ended")

// bound is ctx ended also when the HTTP request the message came in ends
// (key, its requestHeader; "" over stdio), and the function that
// releases it.
func (q *requests) bound(ctx context.Context, key string) (context.Context, func()) {
	if key == "" {
		return ctx, func() {}
	}
	q.mu.Lock()
	rctx := q.ctx[key]
	q.mu.Unlock()
	ctx, cancel := context.WithCancelCause(ctx)
	if rctx == nil {
		// The request ended (the deadline, the client gone) before the
		// SDK started its handler: no one is waiting for the answer.
		cancel(errRequestEnded)
		return ctx, func() {}
	}
	stop := context.AfterFunc(rctx, func() { cancel(context.Cause(rctx)) })
	return ctx, func() { stop(); cancel(nil) }
}

// refuse reads a message's body (MaxBody at most: the guard caps it) and
// answers one the server refuses (refused: nested too deep, a batch, an id
// the answer would not name exactly) with JSON-RPC's error, status 400, as
// the SDK answers a request it refuses and as the transport prescribes for
// input a server cannot accept, reporting that it did; otherwise the SDK
// reads the body as it was, a read error included. It returns what it
// read.
func refuse(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), failedRead{err}))
		return body, false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	id, why, ok := refused(body)
	if !ok {
		return body, false
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(rpcError(id, jsonrpc.CodeInvalidRequest, why))
	return body, true
}

// failedRead is a body whose reading failed with err.
type failedRead struct{ err error }

func (f failedRead) Read([]byte) (int, error) { return 0, f.err }
