package transport

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestChatCompletionsContract(t *testing.T) {
	runContract(t, chatFake())
}

type httpResponder struct {
	name string
	wireFake
}

func (h httpResponder) adapter() Adapter {
	a, _ := For(h.name)
	return a
}

// chatFake is a chat-completions server: the key as a bearer token (the
// default), the prompt in messages, the answer in choices[0].message.
func chatFake() httpResponder {
	return httpResponder{name: "chat_completions", wireFake: wireFake{
		path: basePath + "/chat/completions",
		target: func(base string) Target {
			return Target{ID: "fake-chat", Transport: "api", Adapter: "chat_completions",
				BaseURL: base, Credential: credVar, Model: "model-a"}
		},
		credential: func(r *http.Request) (string, bool) {
			var req struct {
				Model    string `json:"model"`
				Messages []struct{ Role, Content string }
			}
			ok := json.NewDecoder(r.Body).Decode(&req) == nil &&
				req.Model == "model-a" && len(req.Messages) > 0 &&
				req.Messages[len(req.Messages)-1].Role == "user"
			value, bearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !bearer {
				value = ""
			}
			return value, ok
		},
		answer: func(w http.ResponseWriter, _ *http.Request, text, model string) {
			resp := map[string]any{
				"id": "cmpl-1", "object": "chat.completion",
				"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
					"message": map[string]any{"role": "assistant", "content": text}}},
			}
			if model != "" {
				resp["model"] = model
			}
			writeJSON(w, resp)
		},
	}}
}
