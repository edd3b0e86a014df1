package mcpserver

import (
	"bytes"
	"io"
	"net/http"
	"path/filepath"
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
		if r.Method == http.MethodPost && refuseDeep(w, r) {
			return
		}
		sdk.ServeHTTP(w, r)
	})
}

// refuseDeep reads a message's body (MaxBody at most: the guard caps it)
// and answers one nested too deep (tooDeep) with JSON-RPC's error, status
// 400, as the SDK answers a request it refuses, reporting that it did;
// otherwise the SDK reads the body as it was, a read error included.
func refuseDeep(w http.ResponseWriter, r *http.Request) bool {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), failedRead{err}))
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	deep, ok := tooDeep(body)
	if !ok {
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(rpcError(idOf(body), jsonrpc.CodeInvalidRequest, deep))
	return true
}

// failedRead is a body whose reading failed with err.
type failedRead struct{ err error }

func (f failedRead) Read([]byte) (int, error) { return 0, f.err }
