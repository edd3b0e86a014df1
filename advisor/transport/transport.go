package transport

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"
)

// Request is what an advisor is asked: the assessment's question and subject,
// summaries of the evidence, the capabilities the review needs, how material
// and reversible the decision is, and the material the evidence points to.
type Request struct {
	Subject       string   `json:"subject"`
	Question      string   `json:"question"`
	Evidence      []string `json:"evidence,omitempty"`
	Needs         []string `json:"needs,omitempty"`
	Materiality   string   `json:"materiality,omitempty"`
	Reversibility string   `json:"reversibility,omitempty"`
	// Material is the evidence's content as package material rendered it
	// for this advisor: redacted, within its budget, each block between
	// markers that say it is data. Prompt puts it in as it is.
	Material string `json:"material,omitempty"`
}

// Answer is what one responder said. Output is the raw text, to be passed to
// [Normalise] and then dropped: it is never stored. Model is the model the
// responder reported, or "" when it reported none; adapters never fill it
// from the declaration.
type Answer struct {
	Output string
	Model  string
	// ModelDeclared says that Model is what the responder's own
	// declaration names rather than a report of the model (a peer whose
	// advisor reported none): it is recorded as declared.
	ModelDeclared bool
}

// FailureKind classifies why a consultation produced no answer.
type FailureKind string

// The failure kinds. The values are those of the consultation record.
const (
	// Timeout: the caller's deadline passed before the responder answered.
	Timeout FailureKind = "timeout"
	// RateLimit: the responder refused for now; Failure.RetryAfter says how
	// long it asked us to wait, 0 when it did not say.
	RateLimit FailureKind = "rate_limit"
	// Authentication: the credential is missing, wrong or not allowed.
	Authentication FailureKind = "authentication"
	// Malformed: an answer came but could not be read, or was larger than
	// the cap.
	Malformed FailureKind = "malformed"
	// Empty: the answer was blank.
	Empty FailureKind = "empty"
	// Unavailable: the responder could not be reached or failed on its side.
	Unavailable FailureKind = "unavailable"
	// Cancelled: the caller gave up (Ctrl-C); not a failure of the advisor.
	Cancelled FailureKind = "cancelled"
)

// Failure is the only error an [Adapter] returns. Detail is one short
// lowercase phrase for a person; it never contains the credential value or
// any part of a response body. RetryAfter is set for [RateLimit] when the
// responder said how long to wait.
type Failure struct {
	Kind       FailureKind
	Detail     string
	RetryAfter time.Duration
}

// Error returns "kind: detail".
func (f *Failure) Error() string {
	if f.Detail == "" {
		return string(f.Kind)
	}
	return string(f.Kind) + ": " + f.Detail
}

// failf builds a Failure whose detail is the formatted phrase, shortened.
func failf(kind FailureKind, format string, args ...any) *Failure {
	return &Failure{Kind: kind, Detail: shorten(fmt.Sprintf(format, args...))}
}

// maxDetail keeps details well inside the record's 1000-character limit.
const maxDetail = 300

func shorten(s string) string {
	if len(s) <= maxDetail {
		return s
	}
	return strings.ToValidUTF8(s[:maxDetail], "") + "…"
}

// scrub removes a secret value from a failure's detail. Details are built
// without bodies in the first place; this is the second line of defence.
func (f *Failure) scrub(secret string) *Failure {
	if f != nil && secret != "" && strings.Contains(f.Detail, secret) {
		f.Detail = strings.ReplaceAll(f.Detail, secret, "[redacted]")
	}
	return f
}

// DefaultMaxOutput caps what is read from a responder when the target sets
// no MaxOutput: 1 MiB.
const DefaultMaxOutput int64 = 1 << 20

// Target is one advisor as an adapter needs it, built by the caller from the
// declaration. Only the fields its adapter uses matter.
type Target struct {
	// ID is the advisor's declared id, used in details only.
	ID string
	// Transport is the declared transport (api, cli, local_runtime, peer).
	Transport string
	// Adapter is the declared adapter name, the key of [For].
	Adapter string
	// BaseURL is where the HTTP adapters send requests; any compatible
	// server works, a loopback one included.
	BaseURL string
	// Credential is the NAME of the environment variable holding the key.
	// Its value is read at the moment of the call and only there. Empty:
	// no credential is sent.
	Credential string
	// Command is the exec adapter's argv; the prompt goes to its stdin.
	Command []string
	// Dir is the directory the exec adapter runs Command in; "" is this
	// process's own.
	Dir string
	// Model is the declared model to request; "" requests none.
	Model string
	// PeerAdvisor is, for a peer, the advisor at the peer to ask; ""
	// leaves the choice to the peer (its first available one).
	PeerAdvisor string
	// Headers are extra request headers a wire format needs (a version
	// header, for example), exactly as declared.
	Headers map[string]string
	// AuthHeader names the header that carries the credential; empty means
	// Authorization. AuthScheme prefixes the value ("Bearer" gives
	// "Bearer <key>"); with AuthHeader empty it defaults to Bearer, with a
	// custom AuthHeader and no scheme the bare value is sent.
	AuthHeader, AuthScheme string
	// MaxOutput caps the bytes read from the responder (the HTTP response
	// body, or the command's stdout); beyond it the answer is malformed.
	// 0 means [DefaultMaxOutput].
	MaxOutput int64
}

func (t Target) maxOutput() int64 {
	if t.MaxOutput > 0 {
		return t.MaxOutput
	}
	return DefaultMaxOutput
}

// Adapter asks one responder over one wire protocol.
type Adapter interface {
	// Ask sends req to the responder t describes and waits for its answer
	// until ctx is done. It makes exactly one attempt: no retry, no
	// fallback. A non-nil error is always a *Failure; ctx's deadline gives
	// Timeout and its cancellation Cancelled. A blank answer is Empty. Ask
	// reads the credential variable itself, at the moment of the call, and
	// never puts its value in a Failure.
	Ask(ctx context.Context, t Target, req Request) (Answer, error)
}

var registry = map[string]Adapter{
	"chat_completions": chatCompletions{},
	"messages":         messages{},
	"exec":             execAdapter{},
	"peer":             peer{},
}

// For returns the adapter with the given name: chat_completions, messages,
// exec or peer. The second result is false for any other name. Every
// adapter it returns removes the credential's value from the answer too,
// should the responder echo it: the value is never stored or printed.
func For(adapter string) (Adapter, bool) {
	a, ok := registry[adapter]
	if !ok {
		return nil, false
	}
	return scrubbing{a}, true
}

// scrubbing removes the credential's value from an answer, reading it, as
// the adapter did, at the moment of the call.
type scrubbing struct{ Adapter }

func (s scrubbing) Ask(ctx context.Context, t Target, req Request) (Answer, error) {
	ans, err := s.Adapter.Ask(ctx, t, req)
	if t.Credential != "" {
		if secret := os.Getenv(t.Credential); secret != "" {
			ans.Output = strings.ReplaceAll(ans.Output, secret, "[redacted]")
			ans.Model = strings.ReplaceAll(ans.Model, secret, "[redacted]")
		}
	}
	return ans, err
}

// contextFailure classifies a done context: its deadline is a timeout, any
// other cancellation is cancelled. It returns nil while ctx is live.
func contextFailure(ctx context.Context) *Failure {
	switch err := ctx.Err(); {
	case err == nil:
		return nil
	case err == context.DeadlineExceeded:
		return failf(Timeout, "no answer before the deadline")
	default:
		return failf(Cancelled, "cancelled by the caller")
	}
}
