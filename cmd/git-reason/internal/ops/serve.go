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
// advisors that may answer a peer (advisor.Declaration.MayAnswerPeers):
// the one the request names (by its id here), or else the first that
// policy would select for the capabilities it needs (available ones
// first, then recovering ones, in preference order), the next asked only
// when one fails. The peer's consultation keeps one answer, so asking
// every advisor would spend their quota for answers nobody reads. A peer
// advisor is never asked, so that two servers never ask each other in a
// loop, nor an exec advisor whose declaration does not opt it in: it runs
// a command here, which a question could ask to read this machine's
// files. When no advisor may be asked, the response's note says why.
// Nothing is recorded here: the asking side records the outcome.
func (e *Session) ReviewForPeer(ctx context.Context, req transport.Request, name string) transport.PeerResponse {
	cat, candidates, note, err := e.peerCandidates(ctx)
	if err != nil {
		return transport.PeerResponse{}
	}
	var order []string
	if name != "" {
		// Named: that advisor, when policy would ask it for these needs, or nobody.
		if slices.Contains(policy.Select(candidates, req.Needs, len(candidates)), name) {
			order = []string{name}
		}
		if len(order) == 0 {
			return transport.PeerResponse{Answers: []transport.PeerAnswer{{Advisor: "advisor-1", Status: transport.PeerFailed,
				Failure: &record.Failure{Kind: string(transport.Unavailable)}}}}
		}
	} else {
		order = policy.Select(candidates, req.Needs, len(candidates))
	}
	if len(order) == 0 {
		return transport.PeerResponse{Answers: []transport.PeerAnswer{}, Note: note}
	}
	// The caller learns what answered and how each one failed, never
	// which advisors this server declares, where they live or what their
	// errors said: ids become positions, failures keep their kind only.
	answers := make([]transport.PeerAnswer, 0, 1)
	for i, id := range order {
		d, _ := cat.Advisor(id)
		a := advisor.AskForPeer(ctx, d, req)
		pa := transport.PeerAnswer{Advisor: fmt.Sprintf("advisor-%d", i+1), Status: transport.PeerFailed}
		if a.Failure != nil {
			pa.Failure = &record.Failure{Kind: a.Failure.Kind, RetryAfterS: a.Failure.RetryAfterS}
		}
		if a.Completed() {
			pa = transport.PeerAnswer{Advisor: pa.Advisor, Status: transport.PeerCompleted, Conclusion: a.Conclusion, Model: a.Model}
			if d.Model == "" && a.Model != nil && a.Model.Source == "declared" {
				// The model is the declaration's stand-in, "advisor ID":
				// no model is known, and the id stays here.
				pa.Model = nil
			}
		}
		answers = append(answers, pa)
		if a.Completed() || ctx.Err() != nil {
			break
		}
	}
	return transport.PeerResponse{Answers: answers}
}

// AnswersPeers says, when a peer's review request would find no advisor
// to ask here now (ReviewForPeer), why, in the words the answer to the
// peer gives (transport.PeerNoAdvisor, transport.PeerNoAdvisorMay); ""
// when one would. serve says it when it starts.
func (e *Session) AnswersPeers(ctx context.Context) (string, error) {
	_, candidates, note, err := e.peerCandidates(ctx)
	if err != nil {
		return "", err
	}
	if len(policy.Select(candidates, nil, 1)) > 0 {
		return "", nil
	}
	return note, nil
}

// peerCandidates is the catalog and the availability now of the advisors
// a peer's request may be answered by (those whose declaration
// MayAnswerPeers), with the note that says why none may be asked should
// policy select none of them: transport.PeerNoAdvisorMay when an exec
// advisor that does not opt in is available or recovering, else
// transport.PeerNoAdvisor.
func (e *Session) peerCandidates(ctx context.Context) (*advisor.Catalog, []policy.Advisor, string, error) {
	cat, snap, err := e.catalogNow(ctx)
	if err != nil {
		return nil, nil, "", err
	}
	var candidates, withheld []policy.Advisor
	for _, s := range snap {
		d, ok := cat.Advisor(s.ID)
		switch {
		case !ok:
		case d.MayAnswerPeers():
			candidates = append(candidates, s)
		case d.Transport != advisor.TransportPeer:
			withheld = append(withheld, s)
		}
	}
	note := transport.PeerNoAdvisor
	if len(policy.Select(withheld, nil, 1)) > 0 {
		note = transport.PeerNoAdvisorMay
	}
	return cat, candidates, note, nil
}
