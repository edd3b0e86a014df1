package transport

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

func TestPeerContract(t *testing.T) {
	runContract(t, peerFake())
}

// peerFake is another git reason instance: the real PeerHandler, whose
// consult reports a failed advisor first and then one that answered.
//
// A peer answers with a structured document, never with text, so an answer
// text that does not normalise stands for a peer whose response body is
// that text: blank text a blank body (empty), garbage a garbage body
// (malformed). A model not reported stands for a peer that only declared
// one, which the adapter must not pass on as reported.
func peerFake() httpResponder {
	return httpResponder{name: "peer", wireFake: wireFake{
		path: PeerPath,
		target: func(base string) Target {
			return Target{ID: "fake-peer", Transport: "peer", Adapter: "peer",
				BaseURL: strings.TrimSuffix(base, basePath), Credential: credVar}
		},
		credential: func(r *http.Request) (string, bool) {
			value, bearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !bearer {
				value = ""
			}
			return value, true // PeerHandler checks the body itself
		},
		answer: func(w http.ResponseWriter, r *http.Request, text, model string) {
			c, err := Normalise(text)
			if err != nil {
				w.Write([]byte(text))
				return
			}
			PeerHandler(func(context.Context, Request) []PeerAnswer {
				return []PeerAnswer{
					{Advisor: "first-fake", Status: PeerFailed, Failure: &PeerFailure{Kind: Timeout}},
					{Advisor: "second-fake", Status: PeerCompleted, Conclusion: &c, Model: peerModel(model)},
				}
			}).ServeHTTP(w, r)
		},
	}}
}

func peerModel(reported string) *PeerModel {
	if reported == "" {
		return &PeerModel{Name: "declared-model-x", Source: "declared"}
	}
	return &PeerModel{Name: reported, Source: "reported"}
}
