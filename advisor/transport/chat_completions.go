package transport

import (
	"context"
	"encoding/json"
	"strings"
)

// chatCompletions speaks the widely implemented chat-completions format:
// POST {base}/chat/completions with {"model", "messages"}; the answer is
// choices[0].message.content and the model that answered is "model".
type chatCompletions struct{}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model    string        `json:"model,omitempty"`
	Messages []chatMessage `json:"messages"`
}

type chatResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			// Content is a string, or in some servers a list of parts.
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	} `json:"choices"`
}

// Ask implements [Adapter].
func (chatCompletions) Ask(ctx context.Context, t Target, req Request) (Answer, error) {
	body := chatRequest{
		Model: t.Model,
		Messages: []chatMessage{
			{Role: "system", Content: systemText},
			{Role: "user", Content: Prompt(req)},
		},
	}
	resp, err := postFor(ctx, t, "chat/completions", body, func(r *chatResponse) bool { return r.Choices != nil }, "a chat completion")
	if err != nil {
		return Answer{}, err
	}
	if len(resp.Choices) == 0 {
		return Answer{}, failf(Empty, "the response has no choices")
	}
	text, ok := contentText(resp.Choices[0].Message.Content)
	if !ok {
		return Answer{}, failf(Malformed, "the response's message content is neither text nor text parts")
	}
	if strings.TrimSpace(text) == "" {
		return Answer{}, failf(Empty, "the response's message has no text")
	}
	return Answer{Output: text, Model: resp.Model}, nil
}

// contentText reads message content given as a string, as null, or as a
// list of {"type": "text", "text"} parts.
func contentText(raw json.RawMessage) (string, bool) {
	if raw == nil || isNull(raw) {
		return "", true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return "", false
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), true
}

// endpoint joins a declared base URL and a path with exactly one slash.
func endpoint(base, path string) string {
	return strings.TrimRight(base, "/") + "/" + path
}
