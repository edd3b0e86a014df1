package serving

import (
	"context"
	"net"
	"net/http"
	"time"

	"git-reason/advisor/transport"
	"git-reason/advisor/transport/httpwire"
	"git-reason/cmd/git-reason/internal/guard"
	"git-reason/cmd/git-reason/internal/ops"
)

// Peers answers peers' review requests with this repository's own
// available advisors until ctx ends; then it shuts down and returns nil.
// A token is always required, loopback included: the variable named by
// TokenVar when set, else a token generated once and kept (mode 0600) in
// e.ServeTokenPath(). Every request passes the guard (host, origin, token,
// content type, concurrency, size).
func Peers(ctx context.Context, e *ops.Session, req ops.ServeRequest) error {
	note := req.Note
	if note == nil {
		note = func(string) {}
	}
	if (req.TLSCert == "") != (req.TLSKey == "") {
		return ops.Usage("give both --tls-cert and --tls-key, or neither")
	}
	if _, _, err := e.Availability(ctx, time.Now()); err != nil {
		return err
	}
	token, line, err := guard.Token(req.TokenVar, e.ServeTokenPath(), "peers")
	if err != nil {
		return ops.Usage("%v", err)
	}
	if line != "" {
		note(line)
	}
	ln, err := net.Listen("tcp", req.Listen)
	if err != nil {
		return ops.Usage("listen on %s: %v", req.Listen, err)
	}
	scheme := "http"
	if req.TLSCert != "" {
		scheme = "https"
	}
	for _, w := range guard.Exposure(ln.Addr(), req.TLSCert != "", req.AllowHosts) {
		note(w)
	}
	h := guard.Wrap(guard.Config{Token: token, AllowHosts: req.AllowHosts,
		AllowOrigins: req.AllowOrigins, MaxInFlight: req.MaxInFlight, MaxBody: transport.PeerQuestionLimit * 2}, PeerHandler(e))
	if req.Ready != nil {
		req.Ready(scheme + "://" + ln.Addr().String() + transport.PeerPath)
	}
	if err := guard.Run(ctx, ln, h, req.TLSCert, req.TLSKey); err != nil {
		if req.TLSCert != "" {
			return ops.Usage("%v", err)
		}
		return err
	}
	return nil
}

// PeerHandler is the review endpoint without the guard (Peers puts the
// guard in front of it): the session's ReviewForPeer at transport.PeerPath.
func PeerHandler(e *ops.Session) http.Handler {
	return httpwire.Endpoint(transport.PeerPath, transport.PeerRequestLimit, transport.PeerReview(e.ReviewForPeer))
}
