package ops

import (
	"context"
	"fmt"
	"net"
	"net/http"
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
	token, line, err := guard.Token(req.TokenVar, e.ServeTokenPath(), "peers")
	if err != nil {
		return Usage("%v", err)
	}
	if line != "" {
		note(line)
	}
	ln, err := net.Listen("tcp", req.Listen)
	if err != nil {
		return Usage("listen on %s: %v", req.Listen, err)
	}
	scheme := "http"
	if req.TLSCert != "" {
		scheme = "https"
	}
	for _, w := range guard.Exposure(ln.Addr(), req.TLSCert != "", req.AllowHosts) {
		note(w)
	}
	h := guard.Wrap(guard.Config{Token: token, AllowHosts: req.AllowHosts,
		AllowOrigins: req.AllowOrigins, MaxInFlight: req.MaxInFlight, MaxBody: transport.PeerQuestionLimit * 2}, e.PeerHandler())
	if req.Ready != nil {
		req.Ready(scheme + "://" + ln.Addr().String() + transport.PeerPath)
	}
	if err := guard.Run(ctx, ln, h, req.TLSCert, req.TLSKey); err != nil {
		if req.TLSCert != "" {
			return Usage("%v", err)
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
