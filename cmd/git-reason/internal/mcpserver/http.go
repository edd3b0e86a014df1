package mcpserver

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"git-reason/cmd/git-reason/internal/guard"
	"git-reason/cmd/git-reason/internal/ops"
)

// HTTPOptions say where and how to serve MCP over streamable HTTP.
type HTTPOptions struct {
	Listen   string // address to listen on, e.g. 127.0.0.1:7412
	TokenVar string // environment variable holding the token; unset: the token file
	// AllowHosts and AllowOrigins widen the guard (see package guard).
	AllowHosts, AllowOrigins []string
	MaxInFlight              int    // requests at once; 0 is DefaultMaxInFlight
	TLSCert, TLSKey          string // serve HTTPS with these PEM files
	// Ready is called once, with the endpoint's URL, when the server listens.
	Ready func(url string)
	// Note receives one line each for what the user must know: where the
	// token is, and warnings when serving beyond loopback.
	Note func(line string)
}

// Path is the endpoint's path.
const Path = "/mcp"

// DefaultMaxInFlight bounds the requests served at once.
const DefaultMaxInFlight = ops.MCPMaxInFlight

// maxBody caps a request: the largest record body with its JSON escaping.
const maxBody = 1 << 20

// sessionIdle closes a session no request has used for this long, so that
// sessions a host abandoned without DELETE do not accumulate.
const sessionIdle = 30 * time.Minute

// TokenPath is where the HTTP server keeps the token it generates: a file
// of its own, so that a peer's serve token never opens the repository's
// writes.
func (s *Server) TokenPath() string {
	return filepath.Join(s.env.Repo.CommonDir, "reason", "mcp-token")
}

// ServeHTTP serves MCP over streamable HTTP at Path until ctx ends; then it
// shuts down and returns nil. Every request passes the same guard as serve:
// a loopback (or allowed) Host, no browser Origin (or an allowed one), the
// bearer token (the variable named by TokenVar when set, else one
// generated once and kept with mode 0600 in TokenPath), JSON content, at
// most MaxInFlight at once, a capped body, and the server's timeouts. No
// standalone event stream is offered (GET answers 405, as the transport
// allows): progress reaches the client on the stream of the call it
// belongs to, and a stream held open would hold a request slot.
func (s *Server) ServeHTTP(ctx context.Context, o HTTPOptions) error {
	note := o.Note
	if note == nil {
		note = func(string) {}
	}
	if (o.TLSCert == "") != (o.TLSKey == "") {
		return ops.Usage("give both --tls-cert and --tls-key, or neither")
	}
	if o.MaxInFlight == 0 {
		o.MaxInFlight = DefaultMaxInFlight
	}
	if o.MaxInFlight < 1 {
		return ops.Usage("--max-inflight %d: give at least 1", o.MaxInFlight)
	}
	token, line, err := guard.Token(o.TokenVar, s.TokenPath(), "MCP clients")
	if err != nil {
		return ops.Usage("%v", err)
	}
	if line != "" {
		note(line)
	}
	// Loopback unless the address names another host: ":7412" is
	// 127.0.0.1:7412, and all interfaces must be asked for (0.0.0.0:7412).
	if host, port, err := net.SplitHostPort(o.Listen); err == nil && host == "" {
		o.Listen = net.JoinHostPort("127.0.0.1", port)
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return ops.Usage("listen on %s: %v", o.Listen, err)
	}
	scheme := "http"
	if o.TLSCert != "" {
		scheme = "https"
	}
	for _, w := range guard.Exposure(ln.Addr(), o.TLSCert != "", o.AllowHosts) {
		note(w)
	}
	h := guard.Wrap(guard.Config{Token: token, AllowHosts: o.AllowHosts, AllowOrigins: o.AllowOrigins,
		MaxInFlight: o.MaxInFlight, MaxBody: maxBody, NoBody: []string{http.MethodGet, http.MethodDelete}},
		s.httpHandler())
	if o.Ready != nil {
		o.Ready(scheme + "://" + ln.Addr().String() + Path)
	}
	if err := guard.Run(ctx, ln, h, o.TLSCert, o.TLSKey); err != nil {
		if o.TLSCert != "" {
			return ops.Usage("%v", err)
		}
		return err
	}
	return nil
}

// httpHandler is the streamable endpoint without the guard: POST for
// messages, DELETE to end a session, nothing else, at Path only. Every
// session is served by this one server (calls on the repository are
// serialised by it).
func (s *Server) httpHandler() http.Handler {
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.sdk },
		&mcp.StreamableHTTPOptions{SessionTimeout: sessionIdle, MaxRequestBodyBytes: maxBody,
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
		sdk.ServeHTTP(w, r)
	})
}
