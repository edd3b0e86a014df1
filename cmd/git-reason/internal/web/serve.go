package web

import (
	"context"
	"net"

	"git-reason/cmd/git-reason/internal/guard"
	"git-reason/cmd/git-reason/internal/ops"
)

// Request says where to serve the Reasoning page.
type Request struct {
	Listen string // a loopback address (no host, :8080: 127.0.0.1); port 0 picks a free one
	Open   func() (*ops.Session, error)
	// Ready is called once, when the server listens, with the address
	// holding the token (for the user to read) and a function that mints a
	// one-time address (for a program to open: it carries a code that
	// opens the page once, never the token).
	Ready func(url string, oneTime func() (string, error))
}

// Serve serves the page until ctx ends, then shuts down and returns nil.
// It listens on loopback only: the page has no other protection against
// the network than its token, and its Host check would refuse every other
// name anyway.
func Serve(ctx context.Context, req Request) error {
	// An address with no host (:8080) asks for a port: on loopback, the
	// only place the page listens. Another address is refused before
	// anything listens there when it is written as one.
	listen := guard.OnLoopback(req.Listen)
	if host, port, err := net.SplitHostPort(listen); err == nil {
		if ip := net.ParseIP(host); ip != nil && !ip.IsLoopback() {
			return beyondLoopback(req.Listen, port)
		}
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return ops.Usage("%s", guard.ListenFailed(req.Listen, err))
	}
	ta, ok := ln.Addr().(*net.TCPAddr)
	if !ok || !ta.IP.IsLoopback() {
		ln.Close()
		_, port, _ := net.SplitHostPort(listen)
		return beyondLoopback(req.Listen, port)
	}
	token, err := newSecret()
	if err != nil {
		ln.Close()
		return err
	}
	k := newKeys(token, cookieFor(ta.Port))
	h := handler(req.Open, k)
	if req.Ready != nil {
		base := "http://" + ln.Addr().String() + "/"
		req.Ready(base+"?token="+token, func() (string, error) {
			code, err := k.mint()
			return base + "?code=" + code, err
		})
	}
	return guard.Run(ctx, ln, h, guard.Page, "", "")
}

// beyondLoopback refuses to serve the page at listen, which is not a
// loopback address, naming the one to give instead.
func beyondLoopback(listen, port string) error {
	if port == "" {
		port = "PORT"
	}
	return ops.Usage("--listen %s: the Reasoning page listens on loopback only: use --listen %s", listen, net.JoinHostPort("127.0.0.1", port))
}
