package advisor

import (
	"context"
	"errors"
	"os"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"git-reason/advisor/transport"
	"git-reason/record"
)

// Asked is the outcome of asking one advisor once: a normalised conclusion
// with the model that answered, or a typed failure. The raw answer is not
// kept.
type Asked struct {
	Advisor    string
	Transport  string
	Conclusion *record.Answer
	Model      *record.Model // who answered: reported by the responder, else declared
	Failure    *record.Failure
	Duration   time.Duration
	Endpoint   string // what was contacted (see Endpoint)
	// Sent is what the advisor was asked (digest, size, material), when
	// the run had material; nil otherwise.
	Sent *record.Question
}

// Completed reports whether the advisor answered with a conclusion.
func (a *Asked) Completed() bool { return a.Conclusion != nil }

// Target is the transport target a declaration describes.
func Target(d Declaration) transport.Target {
	t := transport.Target{ID: d.ID, Transport: d.Transport, Adapter: d.Adapter, BaseURL: d.BaseURL,
		Credential: d.Credential, Command: d.Command, Model: d.Model, Headers: d.Headers, AuthHeader: d.AuthHeader,
		PeerAdvisor: d.PeerAdvisor, Dir: d.Dir}
	if d.AuthHeader == "" {
		t.AuthHeader = "Authorization"
	}
	t.AuthScheme = "Bearer"
	if d.AuthScheme != nil {
		t.AuthScheme = *d.AuthScheme
	}
	return t
}

// DeclaredModel is the model a declaration names, for attribution when the
// responder reports none: the vendor's model id, or the advisor's id when
// the declaration names no model (a peer, say).
func DeclaredModel(d Declaration) string {
	if d.Model != "" {
		return d.Model
	}
	return "advisor " + d.ID
}

// Ask asks one advisor once, within its own timeout, and normalises the
// answer. It makes exactly one attempt: retries would hide failures from
// the circuits. An exec advisor declared with workdir: empty runs in an
// empty temporary directory, as for a peer (AskForPeer).
func Ask(ctx context.Context, d Declaration, req transport.Request) *Asked {
	return askIn(ctx, d, d.RunsInEmptyDir(), req)
}

// AskForPeer asks one advisor a peer's question, as Ask does, when
// d.MayAnswerPeers (the caller checks). An exec advisor runs in an empty
// temporary directory, removed once it has answered: the question
// carries its material, and a peer's question must not find this
// repository where the command starts. The question is held to d's own
// budget (ContextBudget), as a consultation here is: the peer's material
// past it is cut (FitForPeer), and a question whose own fields exceed it
// is not asked. The peer chose the material, and 4 MiB of it reached an
// advisor declaring 4 KiB, each request, at this user's expense.
func AskForPeer(ctx context.Context, d Declaration, req transport.Request) *Asked {
	req, ok := FitForPeer(req, ContextBudget(d))
	if !ok {
		return &Asked{Advisor: d.ID, Transport: d.Transport, Endpoint: Endpoint(d),
			Failure: &record.Failure{Kind: string(transport.Unavailable), Detail: "the peer's question is larger than the advisor's context budget"}}
	}
	return askIn(ctx, d, d.Adapter == AdapterExec, req)
}

// peerCutNote ends a peer's material cut by FitForPeer.
const peerCutNote = "\n[The material was cut here to fit this reviewer's context budget: the rest was not sent.]\n"

// FitForPeer returns req with its material cut, at a line end when one
// fits (else at a character's), so that the whole prompt
// (transport.Prompt) is at most budget bytes, the cut said by a note; false
// when the question's own fields (question, subject, summaries, needs)
// leave no room for that note.
func FitForPeer(req transport.Request, budget int) (transport.Request, bool) {
	head, tail := transport.Frame(req)
	room := budget - len(head) - len(tail)
	if len(req.Material) <= room {
		return req, true
	}
	if room -= len(peerCutNote); room < 0 {
		return req, false
	}
	m := req.Material[:room]
	if i := strings.LastIndexByte(m, '\n'); i >= 0 {
		m = m[:i+1]
	} else {
		for len(m) > 0 && !utf8.RuneStart(req.Material[len(m)]) {
			m = m[:len(m)-1]
		}
	}
	req.Material = m + peerCutNote
	return req, true
}

// askIn asks d once, in an empty temporary directory outside any git
// repository (emptyDir), removed once it has answered, when empty says so.
func askIn(ctx context.Context, d Declaration, empty bool, req transport.Request) *Asked {
	t := Target(d)
	if empty {
		dir, err := emptyDir()
		if err != nil {
			return &Asked{Advisor: d.ID, Transport: d.Transport, Endpoint: Endpoint(d),
				Failure: &record.Failure{Kind: string(transport.Unavailable), Detail: "no empty directory to run it in: " + err.Error()}}
		}
		defer os.RemoveAll(dir)
		t.Dir = dir
	}
	return ask(ctx, d, t, req)
}

// ask asks the advisor d declares, as target t, once.
func ask(ctx context.Context, d Declaration, t transport.Target, req transport.Request) *Asked {
	out := &Asked{Advisor: d.ID, Transport: d.Transport, Endpoint: Endpoint(d)}
	start := time.Now()
	defer func() { out.Duration = time.Since(start) }()
	adapter, ok := transport.For(d.Adapter)
	if !ok {
		out.Failure = &record.Failure{Kind: string(transport.Unavailable), Detail: "no adapter " + d.Adapter}
		return out
	}
	if changed := coveredChange(d); changed != "" {
		out.Failure = &record.Failure{Kind: string(transport.Unavailable),
			Detail: changed + " changed since it was trusted: run 'git reason trust'"}
		return out
	}
	ctx, cancel := context.WithTimeout(ctx, d.TimeoutOrDefault())
	defer cancel()
	ans, err := adapter.Ask(ctx, t, req)
	if err == nil {
		var c record.Answer
		if c, err = transport.Normalise(ans.Output); err == nil {
			out.Conclusion = &c
			out.Model = &record.Model{Name: DeclaredModel(d), Source: "declared"}
			if name := strings.TrimSpace(ans.Model); plausibleModel(name) {
				out.Model = &record.Model{Name: name, Source: "reported"}
				if ans.ModelDeclared {
					out.Model.Source = "declared"
				}
			}
			return out
		}
	}
	out.Failure = failureOf(err)
	return out
}

func failureOf(err error) *record.Failure {
	var f *transport.Failure
	if errors.As(err, &f) {
		return &record.Failure{Kind: string(f.Kind), Detail: f.Detail, RetryAfterS: int((f.RetryAfter + time.Second - 1) / time.Second)}
	}
	if errors.Is(err, context.Canceled) {
		return &record.Failure{Kind: string(transport.Cancelled)}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &record.Failure{Kind: string(transport.Timeout)}
	}
	return &record.Failure{Kind: string(transport.Unavailable), Detail: "unexpected error"}
}

// MaxModelName is the longest model name a record keeps.
const MaxModelName = 200

// plausibleModel reports whether a responder's report of its model can be
// recorded as such: non-blank, printable and not too long. Anything else
// is no report, and the declared model is recorded instead.
func plausibleModel(name string) bool {
	if name == "" || utf8.RuneCountInString(name) > MaxModelName {
		return false
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}
