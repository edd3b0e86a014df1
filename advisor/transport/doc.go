// Package transport asks one advisor one question, once.
//
// Every adapter implements [Adapter]: given a [Target] (the advisor's
// declaration, reduced to what the wire needs) and a [Request], it returns an
// [Answer] — the raw output and the model the responder reported — or a
// [*Failure] of one of seven kinds: timeout, rate_limit, authentication,
// malformed, empty, unavailable, cancelled. Each call is exactly one attempt:
// retries, back-off and circuits belong to the caller, which must see every
// failure as it happened.
//
// The adapters are named after wire protocols, never after whoever runs the
// server, and are found by name with [For]:
//
//   - chat_completions: POST {base}/chat/completions, the widely implemented
//     chat-completions format;
//   - messages: POST {base}/messages, the messages format;
//   - exec: runs a declared command with the prompt on stdin, answer on
//     stdout, in its own process group with a minimal environment;
//   - peer: POST {base}/v1/review to another git reason instance, whose
//     server side is [PeerReview].
//
// Anything a wire format needs beyond its shape — a version header, the
// header that carries the key — comes from the declaration ([Target.Headers],
// [Target.AuthHeader], [Target.AuthScheme]), so this package never names a
// vendor.
//
// # The HTTP client
//
// The three HTTP adapters post through the client the program hands over
// with [UseHTTP] (httpwire.Post): this package does not import net/http, so
// that a program that never asks an advisor over HTTP, git-reason itself,
// starts without its initialisation. Until then they fail as unavailable.
//
// # Attribution and transcripts
//
// An adapter reports the model the responder named, or "" when it named
// none; it never guesses and never writes records. The driver records the
// model, in exactly one place. [Answer.Output] is the raw text: callers pass
// it to [Normalise] and keep only the normalised conclusion (the record's own
// answer type), never the text itself.
//
// # Secrets
//
// [Target.Credential] is the name of an environment variable. Adapters read
// its value with os.Getenv at the moment of the call and put it only where
// the declaration says (a request header, or the environment of the exec
// child). A [Failure] never carries it: details are built from status codes
// and classifications, never from response bodies or stderr, and are
// scrubbed of the value besides.
package transport
