package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
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

// httpClient follows no redirects (a redirect could carry a declared key
// header to another host, and would be a second attempt) and has no timeout
// of its own: the caller's context is the only deadline.
var httpClient = &http.Client{
	Transport: http.DefaultTransport.(*http.Transport).Clone(),
	CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	},
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
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return nil, failf(Unavailable, "invalid base url for advisor %s", t.ID)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	for k, v := range t.Headers {
		hreq.Header.Set(k, v)
	}
	secret := ""
	if t.Credential != "" {
		// The one place the credential value is read for HTTP.
		secret = os.Getenv(t.Credential)
		if secret == "" {
			return nil, failf(Authentication, "credential variable %s is not set", t.Credential)
		}
		name, value := authHeader(t, secret)
		hreq.Header.Set(name, value)
	}
	out, f := roundTrip(ctx, hreq, t.maxOutput())
	if f != nil {
		return nil, f.scrub(secret)
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

func roundTrip(ctx context.Context, hreq *http.Request, limit int64) ([]byte, *Failure) {
	resp, err := httpClient.Do(hreq)
	if err != nil {
		return nil, transportFailure(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		head, _ := io.ReadAll(io.LimitReader(resp.Body, errorBodyLimit))
		return nil, statusFailure(resp, head, time.Now())
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, transportFailure(ctx, err)
	}
	if int64(len(body)) > limit {
		return nil, failf(Malformed, "response larger than %d bytes", limit)
	}
	return body, nil
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
func statusFailure(resp *http.Response, body []byte, now time.Time) *Failure {
	code := resp.StatusCode
	switch {
	case code == http.StatusUnauthorized:
		return failf(Authentication, "server answered %d", code)
	case code == http.StatusForbidden && authWords().Match(body):
		return failf(Authentication, "server answered %d", code)
	case code == http.StatusTooManyRequests:
		f := failf(RateLimit, "server answered %d", code)
		f.RetryAfter = retryAfter(resp.Header, now)
		return f
	case code == http.StatusRequestTimeout, code >= 500:
		return failf(Unavailable, "server answered %d", code)
	case code >= 300 && code < 400:
		return failf(Unavailable, "server answered %d, a redirect, which is not followed", code)
	}
	return failf(Unavailable, "server refused the request with %d", code)
}

// retryAfter reads how long a rate-limited responder asked us to wait:
// retry-after-ms (milliseconds) first, being more precise, then Retry-After
// as seconds or as an HTTP date. It returns 0 when neither says.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 || s > 1e9 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if at, err := http.ParseTime(v); err == nil {
		if d := at.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
