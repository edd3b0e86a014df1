package transport

import (
	"encoding/json"
	"net/http"
	"testing"
)

func TestMessagesContract(t *testing.T) {
	runContract(t, messagesFake())
}

// The header names a messages server in these tests wants: made up, and
// declared as data the way a real declaration would carry them.
const (
	fakeKeyHeader     = "X-Fake-Key"
	fakeVersionHeader = "X-Fake-Wire-Version"
)

// messagesFake is a messages server that insists on a declared version
// header and takes the key in a declared custom header without a scheme.
func messagesFake() httpResponder {
	return httpResponder{name: "messages", wireFake: wireFake{
		path: basePath + "/messages",
		target: func(base string) Target {
			return Target{ID: "fake-messages", Transport: "api", Adapter: "messages",
				BaseURL: base, Credential: credVar, Model: "model-b",
				Headers:    map[string]string{fakeVersionHeader: "2"},
				AuthHeader: fakeKeyHeader}
		},
		credential: func(r *http.Request) (string, bool) {
			var req struct {
				Model     string `json:"model"`
				MaxTokens int    `json:"max_tokens"`
				System    string `json:"system"`
				Messages  []struct{ Role, Content string }
			}
			ok := json.NewDecoder(r.Body).Decode(&req) == nil &&
				req.Model == "model-b" && req.MaxTokens > 0 && req.System != "" &&
				len(req.Messages) == 1 && req.Messages[0].Role == "user" &&
				r.Header.Get(fakeVersionHeader) == "2" && r.Header.Get("Authorization") == ""
			return r.Header.Get(fakeKeyHeader), ok
		},
		answer: func(w http.ResponseWriter, _ *http.Request, text, model string) {
			resp := map[string]any{
				"id": "msg-1", "type": "message", "role": "assistant", "stop_reason": "end_turn",
				// Text split over two blocks around a block of another
				// type: the adapter joins the text blocks only.
				"content": []any{
					map[string]any{"type": "text", "text": text[:len(text)/2]},
					map[string]any{"type": "other", "input": map[string]any{}},
					map[string]any{"type": "text", "text": text[len(text)/2:]},
				},
			}
			if model != "" {
				resp["model"] = model
			}
			writeJSON(w, resp)
		},
	}}
}
