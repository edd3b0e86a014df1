package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"

	"git-reason/record"
)

// PeerPath is where a git reason serve instance takes review requests.
const PeerPath = "/v1/review"

// PeerRequest is the body POSTed to [PeerPath].
type PeerRequest struct {
	Request Request `json:"request"`
}

// PeerResponse is a peer's answer: one entry per advisor it consulted, in
// its plan order.
type PeerResponse struct {
	Answers []PeerAnswer `json:"answers"`
}

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
// as JSON (so [Normalise] reads it back unchanged) and Model its model name
// when the peer says the name was reported, "" when the peer only declared
// it — a declared name at the peer is not a report from the responder. When
// no answer completed the peer is unavailable: its advisors' failures are
// theirs, not the peer's (an authentication failure there must not open our
// circuit for an hour), and they are summarised in the detail.
type peer struct{}

// Ask implements [Adapter].
func (peer) Ask(ctx context.Context, t Target, req Request) (Answer, error) {
	raw, err := postJSON(ctx, t, endpoint(t.BaseURL, strings.TrimPrefix(PeerPath, "/")), PeerRequest{Request: req})
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
	for _, a := range resp.Answers {
		if a.Status == PeerCompleted && a.Conclusion != nil {
			out, err := json.Marshal(a.Conclusion)
			if err != nil {
				return Answer{}, failf(Malformed, "the peer's conclusion cannot be encoded")
			}
			model := ""
			if a.Model != nil && a.Model.Source == "reported" {
				model = a.Model.Name
			}
			return Answer{Output: string(out), Model: model}, nil
		}
		kind := "failed"
		if a.Failure != nil && a.Failure.Kind != "" {
			kind = string(a.Failure.Kind)
		}
		failed = append(failed, fmt.Sprintf("%s %s", a.Advisor, kind))
	}
	if len(failed) == 0 {
		return Answer{}, failf(Unavailable, "the peer consulted no advisor")
	}
	return Answer{}, failf(Unavailable, "no advisor at the peer completed (%s)", strings.Join(failed, ", "))
}

// peerRequestLimit caps a review request body.
const peerRequestLimit = 1 << 20

// PeerQuestionLimit caps a review request's question, in bytes: as large
// as a whole record body, no larger.
const PeerQuestionLimit = 64 << 10

// PeerHandler serves [PeerPath] for git reason serve: it decodes a
// [PeerRequest], calls consult with the request's context, and answers 200
// with a [PeerResponse] of what consult returned (an empty list when it
// returned nil). It answers 404 on other paths, 405 to anything but POST,
// 413 to a body over 1 MiB and 400 to a body that is not a request with a
// question. Authentication of the caller, if any, is a wrapper's job.
func PeerHandler(consult func(ctx context.Context, req Request) []PeerAnswer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != PeerPath {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "use POST", http.StatusMethodNotAllowed)
			return
		}
		var in PeerRequest
		dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, peerRequestLimit))
		if err := dec.Decode(&in); err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				http.Error(w, "request too large", http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "body is not a review request", http.StatusBadRequest)
			return
		}
		if _, err := dec.Token(); err != io.EOF {
			http.Error(w, "body is not a single review request", http.StatusBadRequest)
			return
		}
		if len(in.Request.Question) > PeerQuestionLimit {
			http.Error(w, "the question is too large", http.StatusRequestEntityTooLarge)
			return
		}
		if strings.TrimSpace(in.Request.Question) == "" {
			http.Error(w, "the request has no question", http.StatusBadRequest)
			return
		}
		answers := consult(r.Context(), in.Request)
		if answers == nil {
			answers = []PeerAnswer{}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(PeerResponse{Answers: answers})
	})
}

// PeerFailureOf converts an adapter error into the failure a peer reports,
// rounding RetryAfter up to whole seconds as the record does.
func PeerFailureOf(err error) *record.Failure {
	var f *Failure
	if !errors.As(err, &f) {
		return &record.Failure{Kind: string(Unavailable), Detail: "internal error"}
	}
	return &record.Failure{Kind: string(f.Kind), Detail: f.Detail, RetryAfterS: int(math.Ceil(f.RetryAfter.Seconds()))}
}
