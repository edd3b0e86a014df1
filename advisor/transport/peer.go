package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"git-reason/record"
)

// PeerPath is where a git reason serve instance takes review requests.
const PeerPath = "/v1/review"

// PeerRequest is the body POSTed to [PeerPath]. Advisor, when set, names
// the one advisor at the peer to ask (the asking side's peer_advisor);
// otherwise the peer asks its first available one.
type PeerRequest struct {
	Request Request `json:"request"`
	Advisor string  `json:"advisor,omitempty"`
}

// PeerResponse is a peer's answer: one entry per advisor it consulted, in
// its plan order.
type PeerResponse struct {
	Answers []PeerAnswer `json:"answers"`
	// Note says in one line, when no advisor there was asked, why: one of
	// PeerNoAdvisor and PeerNoAdvisorMay. The asking side repeats only
	// those words, never another text a peer sends.
	Note string `json:"note,omitempty"`
}

// The notes of a [PeerResponse] that asked no advisor.
const (
	// PeerNoAdvisor: the server has no advisor available to ask now.
	PeerNoAdvisor = "no advisor is available at this server to answer a peer"
	// PeerNoAdvisorMay: the server's available advisors run commands on
	// its machine, which answer peers only when their declaration opts in.
	PeerNoAdvisorMay = "no advisor at this server may answer a peer: an advisor that runs a command on that machine (transport cli) answers peers only when its declaration says answers_peers: true"
)

// PeerAnswer is one advisor's outcome at the peer. Status is "completed"
// (Conclusion and Model set) or "failed" (Failure set). Raw output is never
// part of it. Its parts are the consultation record's own types, so the
// wire carries exactly what a record would store; Model.Source is
// "reported" when the peer's responder named the model, "declared" when the
// peer fell back to its declaration.
type PeerAnswer struct {
	Advisor    string          `json:"advisor"`
	Status     string          `json:"status"`
	Conclusion *record.Answer  `json:"conclusion,omitempty"`
	Model      *record.Model   `json:"model,omitempty"`
	Failure    *record.Failure `json:"failure,omitempty"`
}

// The statuses of a [PeerAnswer].
const (
	PeerCompleted = "completed"
	PeerFailed    = "failed"
)

// peer asks another git reason instance (transport peer): POST
// {base}/v1/review with {"request": Request}, the credential, if declared,
// as a bearer token unless AuthHeader says otherwise.
//
// The peer's first completed answer is the answer: Output is its conclusion
// as JSON (so [Normalise] reads it back unchanged) and Model the model the
// peer recorded as having answered, ModelDeclared when the peer only
// declared it: the record attributes the answer to that model, marked
// declared, rather than to the peer's id. When
// no answer completed the peer is unavailable: its advisors' failures are
// theirs, not the peer's (an authentication failure there must not open our
// circuit for an hour), and they are summarised in the detail.
type peer struct{}

// Ask implements [Adapter].
func (peer) Ask(ctx context.Context, t Target, req Request) (Answer, error) {
	raw, err := postJSON(ctx, t, endpoint(t.BaseURL, strings.TrimPrefix(PeerPath, "/")), PeerRequest{Request: req, Advisor: t.PeerAdvisor})
	if err != nil {
		return Answer{}, err
	}
	if strings.TrimSpace(string(raw)) == "" {
		return Answer{}, failf(Empty, "the peer sent an empty response")
	}
	var resp PeerResponse
	if err := json.Unmarshal(raw, &resp); err != nil || resp.Answers == nil {
		return Answer{}, failf(Malformed, "the peer's response is not a review")
	}
	var failed []string
	for i, a := range resp.Answers {
		if a.Status == PeerCompleted && a.Conclusion != nil {
			out, err := json.Marshal(a.Conclusion)
			if err != nil {
				return Answer{}, failf(Malformed, "the peer's conclusion cannot be encoded")
			}
			// The peer recorded who answered there, reported or declared:
			// that is the attribution, kept with its source.
			ans := Answer{Output: string(out)}
			if a.Model != nil {
				ans.Model, ans.ModelDeclared = a.Model.Name, a.Model.Source != "reported"
			}
			return ans, nil
		}
		// The detail is this side's words: the peer's advisor by
		// position, its failure by a kind this side knows. The peer's
		// own texts are a stranger's (a control character there made the
		// writer refuse the consultation, and consult fail).
		kind := "failed"
		if a.Failure != nil && knownKind(FailureKind(a.Failure.Kind)) {
			kind = a.Failure.Kind
		}
		failed = append(failed, fmt.Sprintf("advisor-%d %s", i+1, kind))
	}
	if len(failed) == 0 {
		if resp.Note == PeerNoAdvisor || resp.Note == PeerNoAdvisorMay {
			return Answer{}, failf(Unavailable, "the peer consulted no advisor: %s", resp.Note)
		}
		return Answer{}, failf(Unavailable, "the peer consulted no advisor")
	}
	return Answer{}, failf(Unavailable, "no advisor at the peer completed (%s)", strings.Join(failed, ", "))
}

// knownKind reports whether k is one of the failure kinds.
func knownKind(k FailureKind) bool {
	switch k {
	case Timeout, RateLimit, Authentication, Malformed, Empty, Unavailable, Cancelled:
		return true
	}
	return false
}

// PeerRequestLimit caps a review request body, in bytes: room for the
// material of the largest default budget (share/context.yaml) with JSON
// escaping it.
const PeerRequestLimit = 4 << 20

// PeerQuestionLimit caps a review request's question, in bytes: as large
// as a whole record body, no larger.
const PeerQuestionLimit = 64 << 10

// PeerReview is the peer side of the review endpoint, with the HTTP left
// out (httpwire.Endpoint serves it at [PeerPath], with bodies of at most
// [PeerRequestLimit] bytes): given a request's body, it returns the status
// and the reply. consult answers one well-formed request with this
// repository's advisors (the one the request names, when it names one); a body that is not exactly one review request
// with a question of at most [PeerQuestionLimit] bytes is refused without
// calling it.
func PeerReview(consult func(ctx context.Context, req Request, advisor string) PeerResponse) func(ctx context.Context, body []byte) (int, []byte) {
	return func(ctx context.Context, body []byte) (int, []byte) {
		var in PeerRequest
		dec := json.NewDecoder(bytes.NewReader(body))
		if err := dec.Decode(&in); err != nil {
			return 400, []byte("body is not a review request")
		}
		if _, err := dec.Token(); err != io.EOF {
			return 400, []byte("body is not a single review request")
		}
		if len(in.Request.Question) > PeerQuestionLimit {
			return 413, []byte("the question is too large")
		}
		if strings.TrimSpace(in.Request.Question) == "" {
			return 400, []byte("the request has no question")
		}
		if len(in.Advisor) > 100 {
			return 400, []byte("the advisor's name is too long")
		}
		resp := consult(ctx, in.Request, in.Advisor)
		if resp.Answers == nil {
			resp.Answers = []PeerAnswer{}
		}
		reply, err := json.Marshal(resp)
		if err != nil {
			return 500, []byte("the answers could not be encoded")
		}
		return 200, reply
	}
}
