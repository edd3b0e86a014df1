package ops

import (
	"context"
	"crypto/subtle"
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"git-reason/advisor"
	"git-reason/advisor/transport"
	"git-reason/policy"
)

// ServeRequest says where to serve reviews to peers.
type ServeRequest struct {
	Listen   string // address to listen on, e.g. 127.0.0.1:7411
	TokenVar string // environment variable holding the token peers must send
	// Ready is called once, with the review URL, when the server listens.
	Ready func(url string)
}

// ServePeers answers peers' review requests with this repository's own
// available advisors until ctx ends; then it shuts down and returns nil.
// Without a token it listens on loopback only.
func (e *Session) ServePeers(ctx context.Context, req ServeRequest) error {
	if _, _, err := e.Availability(ctx, time.Now()); err != nil {
		return err
	}
	token := os.Getenv(req.TokenVar)
	ln, err := net.Listen("tcp", req.Listen)
	if err != nil {
		return Usage("listen on %s: %v", req.Listen, err)
	}
	if ta, ok := ln.Addr().(*net.TCPAddr); token == "" && !(ok && ta.IP.IsLoopback()) {
		ln.Close()
		return Usage("serving beyond loopback needs a token: set %s", req.TokenVar)
	}
	srv := &http.Server{Handler: e.PeerHandler(token), ReadHeaderTimeout: 10 * time.Second}
	if req.Ready != nil {
		req.Ready("http://" + ln.Addr().String() + transport.PeerPath)
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

// PeerHandler is the whole HTTP surface of serve, in one place: every
// check on a request (today the bearer token when one is set) wraps the
// review endpoint here.
func (e *Session) PeerHandler(token string) http.Handler {
	h := transport.PeerHandler(e.ReviewForPeer)
	if token == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// ReviewForPeer answers one peer's request with this repository's advisors
// that policy would select for the capabilities it needs (available ones
// first, then recovering ones, in preference order), asked concurrently. A
// peer advisor is never asked, so that two servers never ask each other in
// a loop. Nothing is recorded here: the asking side records the outcome.
func (e *Session) ReviewForPeer(ctx context.Context, req transport.Request) []transport.PeerAnswer {
	cat, _, err := e.Catalog()
	if err != nil {
		return nil
	}
	_, snap, err := e.Availability(ctx, time.Now())
	if err != nil {
		return nil
	}
	var candidates []policy.Advisor
	for _, s := range snap {
		if d, ok := cat.Advisor(s.ID); ok && d.Transport != advisor.TransportPeer {
			candidates = append(candidates, s)
		}
	}
	var decls []advisor.Declaration
	for _, id := range policy.Select(candidates, req.Needs, len(candidates)) {
		d, _ := cat.Advisor(id)
		decls = append(decls, d)
	}
	answers := make([]transport.PeerAnswer, 0, len(decls))
	for _, a := range advisor.AskEach(ctx, decls, req) {
		pa := transport.PeerAnswer{Advisor: a.Advisor, Status: transport.PeerFailed, Failure: a.Failure}
		if a.Completed() {
			pa = transport.PeerAnswer{Advisor: a.Advisor, Status: transport.PeerCompleted, Conclusion: a.Conclusion, Model: a.Model}
		}
		answers = append(answers, pa)
	}
	return answers
}
