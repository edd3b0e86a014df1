package transport

import (
	"context"
	"strings"
)

// messages speaks the messages format: POST {base}/messages with
// {"model", "max_tokens", "system", "messages"}; the answer is the text
// blocks of "content" and the model that answered is "model". A version
// header, if the server wants one, is declared in Target.Headers, and the
// key header in Target.AuthHeader.
type messages struct{}

// answerTokens is the max_tokens the format requires: far more than a
// conclusion needs, so an honest answer is never cut short.
const answerTokens = 4096

type messagesRequest struct {
	Model     string        `json:"model,omitempty"`
	MaxTokens int           `json:"max_tokens"`
	System    string        `json:"system"`
	Messages  []chatMessage `json:"messages"`
}

type messagesResponse struct {
	Model   string `json:"model"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// Ask implements [Adapter].
func (messages) Ask(ctx context.Context, t Target, req Request) (Answer, error) {
	body := messagesRequest{
		Model:     t.Model,
		MaxTokens: answerTokens,
		System:    systemText,
		Messages:  []chatMessage{{Role: "user", Content: Prompt(req)}},
	}
	resp, err := postFor(ctx, t, "messages", body, func(r *messagesResponse) bool { return r.Content != nil }, "a message")
	if err != nil {
		return Answer{}, err
	}
	var b strings.Builder
	for _, block := range resp.Content {
		if block.Type == "text" {
			b.WriteString(block.Text)
		}
	}
	if strings.TrimSpace(b.String()) == "" {
		return Answer{}, failf(Empty, "the message has no text")
	}
	return Answer{Output: b.String(), Model: resp.Model}, nil
}
