package transport

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	neturl "net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// errorBodyLimit caps what is read of a non-2xx body: enough to tell an
// authentication 403 from another, and never quoted.
const errorBodyLimit = 64 << 10

// HTTPPost sends one JSON POST and returns the reply's status, header
// (canonical keys) and body, reading at most limit+1 bytes of a 2xx body
// and errLimit of another, following no redirect (a redirect could carry a
// declared key header to another host, and would be a second attempt),
// with no timeout of its own: the caller's context is the only deadline.
// Its one implementation is httpwire.Post.
type HTTPPost func(ctx context.Context, url string, header map[string]string, payload []byte, limit, errLimit int64) (status int, replyHeader map[string][]string, body []byte, err error)

// httpPost is what the HTTP adapters post with; nil until [UseHTTP].
var httpPost HTTPPost

// UseHTTP gives the HTTP adapters (chat_completions, messages, peer) their
// client. The program that asks advisors calls it once, before any Ask,
// with httpwire.Post; one that never does links no HTTP client, and its
// HTTP adapters fail as unavailable.
func UseHTTP(post HTTPPost) { httpPost = post }

// postFor is postJSON of body to path below the target's base URL, its
// answer decoded as R: an answer that is not R's JSON, or one in which
// holds does not find what makes it one, is Malformed ("the response is
// not <what>").
func postFor[R any](ctx context.Context, t Target, path string, body any, holds func(*R) bool, what string) (*R, error) {
	raw, err := postJSON(ctx, t, endpoint(t.BaseURL, path), body)
	if err != nil {
		return nil, err
	}
	var resp R
	if err := json.Unmarshal(raw, &resp); err != nil || !holds(&resp) {
		return nil, failf(Malformed, "the response is not %s", what)
	}
	return &resp, nil
}

// postJSON sends body to url once, with the target's declared headers and
// credential, and returns the 2xx response body, read up to the target's
// cap. Everything else is classified into a Failure from which the
// credential value has been scrubbed.
func postJSON(ctx context.Context, t Target, url string, body any) ([]byte, error) {
	if f := contextFailure(ctx); f != nil {
		return nil, f
	}
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, failf(Malformed, "encode the request: %v", err)
	}
	if _, err := neturl.Parse(url); err != nil {
		return nil, failf(Unavailable, "invalid base url for advisor %s", t.ID)
	}
	header := make(map[string]string, len(t.Headers)+1)
	for k, v := range t.Headers {
		header[k] = v
	}
	secret := ""
	if t.Credential != "" {
		secret = os.Getenv(t.Credential)
		if secret == "" {
			return nil, failf(Authentication, "credential variable %s is not set", t.Credential)
		}
		name, value := authHeader(t, secret)
		header[name] = value
	}
	if httpPost == nil {
		return nil, failf(Unavailable, "this program has no HTTP client: run 'git reason consult'")
	}
	limit := t.maxOutput()
	status, replyHeader, out, err := httpPost(ctx, url, header, payload, limit, errorBodyLimit)
	if err != nil {
		return nil, transportFailure(ctx, err).scrub(secret)
	}
	if status < 200 || status > 299 {
		return nil, statusFailure(status, replyHeader, out, time.Now()).scrub(secret)
	}
	if int64(len(out)) > limit {
		return nil, failf(Malformed, "response larger than %d bytes", limit)
	}
	return out, nil
}

// authHeader gives the header name and value that carry the credential.
func authHeader(t Target, secret string) (string, string) {
	name, scheme := t.AuthHeader, t.AuthScheme
	if name == "" {
		name = "Authorization"
		if scheme == "" {
			scheme = "Bearer"
		}
	}
	if scheme == "" {
		return name, secret
	}
	return name, scheme + " " + secret
}

// transportFailure classifies an error that left no HTTP status: the
// context first, then the network.
func transportFailure(ctx context.Context, err error) *Failure {
	if f := contextFailure(ctx); f != nil {
		return f
	}
	var nerr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &nerr) && nerr.Timeout():
		return failf(Timeout, "the connection timed out")
	case errors.Is(err, syscall.ECONNREFUSED):
		return failf(Unavailable, "connection refused")
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return failf(Unavailable, "connection closed by the server")
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return failf(Unavailable, "host not found")
	}
	return failf(Unavailable, "request failed")
}

// authWords are what a 403 body says when the key, not the request, is
// refused.
var authWords = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)auth|key|permission|credential`)
})

// statusFailure classifies a non-2xx response. The body is read only to
// tell an authentication 403 from another; it is never quoted.
func statusFailure(code int, header map[string][]string, body []byte, now time.Time) *Failure {
	switch {
	case code == 401:
		return failf(Authentication, "server answered %d", code)
	case code == 403 && authWords().Match(body):
		return failf(Authentication, "server answered %d", code)
	case code == 429:
		f := failf(RateLimit, "server answered %d", code)
		f.RetryAfter = retryAfter(header, now)
		return f
	case code == 408, code >= 500:
		return failf(Unavailable, "server answered %d", code)
	case code >= 300 && code < 400:
		return failf(Unavailable, "server answered %d, a redirect, which is not followed", code)
	}
	return failf(Unavailable, "server refused the request with %d", code)
}

// retryAfter reads how long a rate-limited responder asked us to wait:
// retry-after-ms (milliseconds) first, being more precise, then Retry-After
// as seconds or as an HTTP date. It returns 0 when neither says.
func retryAfter(h map[string][]string, now time.Time) time.Duration {
	if v := strings.TrimSpace(headerValue(h, "Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(headerValue(h, "Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 || s > 1e9 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if at, err := parseHTTPDate(v); err == nil {
		if d := at.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// headerValue is the first value of the header with the canonical name
// key, "" when there is none.
func headerValue(h map[string][]string, key string) string {
	if vs := h[key]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// parseHTTPDate reads an HTTP date in any of the three formats HTTP/1.1
// allows (RFC 9110 section 5.6.7): IMF-fixdate, and the obsolete RFC 850
// and asctime forms.
func parseHTTPDate(v string) (time.Time, error) {
	var err error
	for _, layout := range []string{"Mon, 02 Jan 2006 15:04:05 GMT", time.RFC850, time.ANSIC} {
		var at time.Time
		if at, err = time.Parse(layout, v); err == nil {
			return at, nil
		}
	}
	return time.Time{}, err
}
