package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"time"

	"git-reason/cmd/git-reason/internal/ops"
)

// Request says where to serve the Reasoning page.
type Request struct {
	Listen string // a loopback address; port 0 picks a free one
	Open   func() (*ops.Session, error)
	// Ready is called once, with the address holding the token, when the
	// server listens.
	Ready func(url string)
}

// Serve serves the page until ctx ends, then shuts down and returns nil.
// It listens on loopback only: the page has no other protection against
// the network than its token, and its Host check would refuse every other
// name anyway.
func Serve(ctx context.Context, req Request) error {
	ln, err := net.Listen("tcp", req.Listen)
	if err != nil {
		return ops.Usage("listen on %s: %v", req.Listen, err)
	}
	if ta, ok := ln.Addr().(*net.TCPAddr); !ok || !ta.IP.IsLoopback() {
		ln.Close()
		return ops.Usage("the Reasoning page listens on loopback only: use --listen 127.0.0.1:PORT")
	}
	token, err := newToken()
	if err != nil {
		ln.Close()
		return err
	}
	srv := &http.Server{Handler: Handler(req.Open, token), ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: 30 * time.Second, WriteTimeout: time.Minute, MaxHeaderBytes: 16 << 10}
	if req.Ready != nil {
		req.Ready("http://" + ln.Addr().String() + "/?token=" + token)
	}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newToken is 32 random bytes in hex: a page reached without it is refused.
func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
