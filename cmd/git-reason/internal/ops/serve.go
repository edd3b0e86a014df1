package ops

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"git-reason/advisor"
	"git-reason/advisor/transport"
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
	// Ready is called once, when the server listens, with where it is
	// reached: its URL, or on every interface the port and the URLs to
	// type (guard.Reach).
	Ready func(url string)
	// Note receives one line each for what the user must know: where the
	// token is, a warning when serving beyond loopback in clear, and one
	// when serve has no advisor to answer with.
	Note func(line string)
}

// MCPMaxInFlight is how many requests git reason mcp --http answers at
// once by default: room for a few concurrent calls of one host and the
// notifications that cancel them.
const MCPMaxInFlight = 8

// ServeTokenPath is where serve keeps the token it generates.
func (e *Session) ServeTokenPath() string {
	return filepath.Join(e.Repo.CommonDir, "reason", "serve-token")
}

// ReviewForPeer answers one peer's request with one of this repository's
// advisors: the one the request names (by its id here), or else the first
// that policy would select for the capabilities it needs (available ones
// first, then recovering ones, in preference order), the next asked only
// when one fails. The peer's consultation keeps one answer, so asking
// every advisor would spend their quota for answers nobody reads. A peer
// advisor is never asked, so that two servers never ask each other in a
// loop. Nothing is recorded here: the asking side records the outcome.
func (e *Session) ReviewForPeer(ctx context.Context, req transport.Request, name string) []transport.PeerAnswer {
	cat, candidates, err := e.peerCandidates(ctx)
	if err != nil {
		return nil
	}
	var order []string
	if name != "" {
		// Named: that advisor, when policy would ask it for these needs, or nobody.
		if slices.Contains(policy.Select(candidates, req.Needs, len(candidates)), name) {
			order = []string{name}
		}
		if len(order) == 0 {
			return []transport.PeerAnswer{{Advisor: "advisor-1", Status: transport.PeerFailed,
				Failure: &record.Failure{Kind: string(transport.Unavailable)}}}
		}
	} else {
		order = policy.Select(candidates, req.Needs, len(candidates))
	}
	// The caller learns what answered and how each one failed, never
	// which advisors this server declares, where they live or what their
	// errors said: ids become positions, failures keep their kind only.
	answers := make([]transport.PeerAnswer, 0, 1)
	for i, id := range order {
		d, _ := cat.Advisor(id)
		a := advisor.AskEach(ctx, []advisor.Declaration{d}, req)[0]
		pa := transport.PeerAnswer{Advisor: fmt.Sprintf("advisor-%d", i+1), Status: transport.PeerFailed}
		if a.Failure != nil {
			pa.Failure = &record.Failure{Kind: a.Failure.Kind, RetryAfterS: a.Failure.RetryAfterS}
		}
		if a.Completed() {
			pa = transport.PeerAnswer{Advisor: pa.Advisor, Status: transport.PeerCompleted, Conclusion: a.Conclusion, Model: a.Model}
		}
		answers = append(answers, pa)
		if a.Completed() || ctx.Err() != nil {
			break
		}
	}
	return answers
}

// AnswersPeers reports whether a peer's review request would find an
// advisor to ask here now (ReviewForPeer): one that is not a peer and is
// available or recovering. When none is, every request is answered as
// unavailable, so serve says so when it starts.
func (e *Session) AnswersPeers(ctx context.Context) (bool, error) {
	_, candidates, err := e.peerCandidates(ctx)
	if err != nil {
		return false, err
	}
	return len(policy.Select(candidates, nil, 1)) > 0, nil
}

// peerCandidates is the catalog and the availability now of the advisors
// a peer's request may be answered by: every declared one but the peers.
func (e *Session) peerCandidates(ctx context.Context) (*advisor.Catalog, []policy.Advisor, error) {
	cat, snap, err := e.catalogNow(ctx)
	if err != nil {
		return nil, nil, err
	}
	var candidates []policy.Advisor
	for _, s := range snap {
		if d, ok := cat.Advisor(s.ID); ok && d.Transport != advisor.TransportPeer {
			candidates = append(candidates, s)
		}
	}
	return cat, candidates, nil
}
