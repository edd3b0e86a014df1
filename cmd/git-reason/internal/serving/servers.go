package serving

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"git-reason/advisor/transport"
	"git-reason/advisor/transport/httpwire"
	"git-reason/cmd/git-reason/internal/cli"
	"git-reason/cmd/git-reason/internal/guard"
	"git-reason/cmd/git-reason/internal/mcpserver"
	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/cmd/git-reason/internal/web"
)

// Servers gives the HTTP adapters their client and returns the network
// verbs' servers: what cli.MainNet needs to run consult, serve, web and
// mcp in this process.
func Servers() cli.Servers {
	transport.UseHTTP(httpwire.Post)
	return cli.Servers{Peers: Peers, MCP: MCP, Web: Web}
}

// MCP serves the repository at req.Dir over MCP: on req.In and req.Out
// until the host closes them or ctx ends, or over streamable HTTP under
// serve's rules when req.HTTP is set.
func MCP(ctx context.Context, req cli.MCPRequest) error {
	// A running server keeps the tasks it writes in memory: their cache
	// files are written just after an append, not during it.
	srv, err := mcpserver.New(ctx, mcpserver.Options{Dir: req.Dir, Version: req.Version, Profile: req.Profile, CacheDelay: 100 * time.Millisecond})
	if err != nil {
		return err
	}
	defer srv.Close()
	if h := req.HTTP; h != nil {
		return mcpHTTP(ctx, srv, *h)
	}
	t := mcpserver.Stdio(io.NopCloser(req.In), nopWriteCloser{req.Out})
	if err := srv.Run(ctx, t); err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}

// mcpHTTP serves srv over streamable HTTP at mcpserver.Path, behind the
// guard serve uses, with a token file of its own (so that a peer's serve
// token never opens the repository's writes). An address with no host
// (":7412") is loopback: all interfaces must be asked for (0.0.0.0:7412).
func mcpHTTP(ctx context.Context, srv *mcpserver.Server, req ops.ServeRequest) error {
	if req.MaxInFlight == 0 {
		req.MaxInFlight = mcpserver.DefaultMaxInFlight
	}
	if req.MaxInFlight < 1 {
		return ops.Usage("--max-inflight %d: give at least 1", req.MaxInFlight)
	}
	req.Listen = guard.OnLoopback(req.Listen)
	return serveGuarded(ctx, req, endpoint{path: mcpserver.Path, tokenPath: srv.TokenPath(), clients: "MCP clients",
		limits: guard.Config{MaxBody: mcpserver.MaxBody, NoBody: mcpserver.NoBody,
			Methods: mcpserver.Browser.Methods, Headers: mcpserver.Browser.Headers, Expose: mcpserver.Browser.Expose},
		handler: srv.HTTPHandler()})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// Web serves the read-only Reasoning page until ctx ends.
func Web(ctx context.Context, req cli.WebRequest) error {
	return web.Serve(ctx, web.Request{Listen: req.Listen, Open: req.Open, Ready: req.Ready})
}
