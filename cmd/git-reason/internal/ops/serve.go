package ops

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"git-reason/advisor"
	"git-reason/advisor/transport"
	"git-reason/cmd/git-reason/internal/guard"
	"git-reason/policy"
	"git-reason/record"
)

// ServeRequest says where and how to serve reviews to peers.
type ServeRequest struct {
	Listen   string // address to listen on, e.g. 127.0.0.1:7411
	TokenVar string // environment variable holding the token; unset: the token file
	// AllowHosts and AllowOrigins widen the guard (see package guard).
	AllowHosts, AllowOrigins []string
	MaxInFlight              int    // consultations at once; 0 is the guard's default
	TLSCert, TLSKey          string // serve HTTPS with these PEM files
	// Ready is called once, with the review URL, when the server listens.
	Ready func(url string)
	// Note receives one line each for what the user must know: where the
	// token is, and a warning when serving beyond loopback in clear.
	Note func(line string)
}

// ServeTokenPath is where serve keeps the token it generates.
func (e *Session) ServeTokenPath() string {
	return filepath.Join(e.Repo.CommonDir, "reason", "serve-token")
}

// ServePeers answers peers' review requests with this repository's own
// available advisors until ctx ends; then it shuts down and returns nil.
// A token is always required, loopback included: the variable named by
// TokenVar when set, else a token generated once and kept (mode 0600) in
// ServeTokenPath. Every request passes the guard (host, origin, token,
// content type, concurrency, size).
func (e *Session) ServePeers(ctx context.Context, req ServeRequest) error {
	note := req.Note
	if note == nil {
		note = func(string) {}
	}
	if (req.TLSCert == "") != (req.TLSKey == "") {
		return Usage("give both --tls-cert and --tls-key, or neither")
	}
	if _, _, err := e.Availability(ctx, time.Now()); err != nil {
		return err
	}
	token := os.Getenv(req.TokenVar)
	if token == "" {
		path := e.ServeTokenPath()
		t, created, err := guard.LoadOrCreateToken(path)
		if err != nil {
			return Usage("%v", err)
		}
		token = t
		verb := "kept"
		if created {
			verb = "generated"
		}
		note(fmt.Sprintf("token %s in %s: peers send it as 'Authorization: Bearer <token>' (read it with: cat %s), or set %s to choose one", verb, path, path, req.TokenVar))
	}
	ln, err := net.Listen("tcp", req.Listen)
	if err != nil {
		return Usage("listen on %s: %v", req.Listen, err)
	}
	scheme := "http"
	if req.TLSCert != "" {
		scheme = "https"
	}
	if !guard.IsLoopback(ln.Addr()) {
		if scheme == "http" {
			note(fmt.Sprintf("warning: serving on %s beyond loopback without TLS: the token and every question cross the network in clear; use --tls-cert and --tls-key", ln.Addr()))
		}
		if len(req.AllowHosts) == 0 {
			note("warning: only loopback Host names are accepted: name this machine with --allow-host for peers elsewhere")
		}
	}
	srv := guard.Server(guard.Wrap(guard.Config{Token: token, AllowHosts: req.AllowHosts,
		AllowOrigins: req.AllowOrigins, MaxInFlight: req.MaxInFlight, MaxBody: transport.PeerQuestionLimit * 2}, e.PeerHandler()))
	if req.Ready != nil {
		req.Ready(scheme + "://" + ln.Addr().String() + transport.PeerPath)
	}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if scheme == "https" {
		err = srv.ServeTLS(ln, req.TLSCert, req.TLSKey)
	} else {
		err = srv.Serve(ln)
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		if scheme == "https" {
			return Usage("serve TLS with %s and %s: %v", req.TLSCert, req.TLSKey, err)
		}
		return err
	}
	return nil
}

// PeerHandler is the review endpoint without the guard (ServePeers puts
// the guard in front of it).
func (e *Session) PeerHandler() http.Handler {
	return transport.PeerHandler(e.ReviewForPeer)
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
	// The caller learns what answered and how each one failed, never
	// which advisors this server declares, where they live or what their
	// errors said: ids become positions, failures keep their kind only.
	answers := make([]transport.PeerAnswer, 0, len(decls))
	for i, a := range advisor.AskEach(ctx, decls, req) {
		id := fmt.Sprintf("advisor-%d", i+1)
		pa := transport.PeerAnswer{Advisor: id, Status: transport.PeerFailed}
		if a.Failure != nil {
			pa.Failure = &record.Failure{Kind: a.Failure.Kind, RetryAfterS: a.Failure.RetryAfterS}
		}
		if a.Completed() {
			pa = transport.PeerAnswer{Advisor: id, Status: transport.PeerCompleted, Conclusion: a.Conclusion, Model: a.Model}
		}
		answers = append(answers, pa)
	}
	return answers
}
