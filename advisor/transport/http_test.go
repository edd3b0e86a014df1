package transport

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// httpFakes are the two HTTP wire formats' fakes, for tests of what they
// share beyond the contract suite.
func httpFakes() []httpResponder { return []httpResponder{chatFake(), messagesFake()} }

// serveOnce starts a loopback server whose every request gets handler, and
// returns a target of fake's wire pointing at it and a request counter.
func serveOnce(t *testing.T, fake httpResponder, handler http.HandlerFunc) (Target, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		handler(w, r)
	}))
	t.Cleanup(srv.Close)
	return fake.target(srv.URL + basePath), &n
}

func ask(t *testing.T, a Adapter, target Target) (Answer, *Failure) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ans, err := a.Ask(ctx, target, testRequest)
	if err == nil {
		return ans, nil
	}
	var f *Failure
	if !errors.As(err, &f) {
		t.Fatalf("error %T %v is not a *Failure", err, err)
	}
	return ans, f
}

func TestHTTPStatusClassification(t *testing.T) {
	// dateIn90s stands for a Retry-After date 90 s from when its request
	// is made: each subtest writes the date itself and bounds the wait
	// by the clock around the request, since an HTTP date has whole
	// seconds and a loaded machine takes its time.
	const dateIn90s = "<date in 90 s>"
	tests := []struct {
		status         int
		header         map[string]string
		body           string
		want           FailureKind
		wantRetryAfter time.Duration // for dateIn90s, bounded by the clock instead
	}{
		{401, nil, "", Authentication, 0},
		{403, nil, `{"error": "permission denied for this key"}`, Authentication, 0},
		{403, nil, `{"error": "invalid credential"}`, Authentication, 0},
		{403, nil, `{"error": "region not served"}`, Unavailable, 0},
		{429, map[string]string{"Retry-After": "12"}, "", RateLimit, 12 * time.Second},
		{429, map[string]string{"Retry-After-Ms": "1500"}, "", RateLimit, 1500 * time.Millisecond},
		{429, map[string]string{"Retry-After-Ms": "250", "Retry-After": "1"}, "", RateLimit, 250 * time.Millisecond},
		{429, map[string]string{"Retry-After": dateIn90s}, "", RateLimit, 90 * time.Second},
		{429, nil, "", RateLimit, 0},
		{408, nil, "", Unavailable, 0},
		{500, nil, "", Unavailable, 0},
		{502, nil, "", Unavailable, 0},
		{503, nil, "", Unavailable, 0},
		{529, nil, `{"error": "overloaded"}`, Unavailable, 0},
		{404, nil, "", Unavailable, 0},
		{400, nil, `{"error": "bad key name"}`, Unavailable, 0},
	}
	for _, fake := range httpFakes() {
		a := fake.adapter()
		for _, tc := range tests {
			t.Run(fake.name+"/"+http.StatusText(tc.status)+"/"+tc.body, func(t *testing.T) {
				t.Setenv(credVar, canary)
				before := time.Now()
				at := before.Add(90 * time.Second).Truncate(time.Second) // as the header says it
				target, n := serveOnce(t, fake, func(w http.ResponseWriter, r *http.Request) {
					for k, v := range tc.header {
						if v == dateIn90s {
							v = at.UTC().Format(http.TimeFormat)
						}
						w.Header().Set(k, v)
					}
					w.WriteHeader(tc.status)
					w.Write([]byte(tc.body))
				})
				_, f := ask(t, a, target)
				after := time.Now()
				if f == nil || f.Kind != tc.want {
					t.Fatalf("failure = %v, want %s", f, tc.want)
				}
				if tc.header["Retry-After"] == dateIn90s {
					// The wait runs from the moment the reply was read.
					if f.RetryAfter < at.Sub(after) || f.RetryAfter > at.Sub(before) {
						t.Errorf("retry after = %v, want between %v and %v", f.RetryAfter, at.Sub(after), at.Sub(before))
					}
				} else if f.RetryAfter != tc.wantRetryAfter {
					t.Errorf("retry after = %v, want %v", f.RetryAfter, tc.wantRetryAfter)
				}
				if n.Load() != 1 {
					t.Errorf("%d requests, want exactly 1", n.Load())
				}
			})
		}
	}
}

func TestHTTPSuccessShapes(t *testing.T) {
	plain := mustJSON(testConclusion, false)
	tests := []struct {
		adapter string
		body    string
		want    FailureKind // "" means plain comes back as the output
	}{
		{"chat_completions", "not json at all", Malformed},
		{"chat_completions", "{}", Malformed},
		{"chat_completions", `{"choices": "many"}`, Malformed},
		{"chat_completions", `{"choices": []}`, Empty},
		{"chat_completions", `{"choices": [{"message": {"role": "assistant", "content": null}}]}`, Empty},
		{"chat_completions", `{"choices": [{"message": {"content": 7}}]}`, Malformed},
		{"chat_completions", `{"choices": [{"message": {"content": [{"type": "text", "text": ` + mustJSON(plain, false) + `}]}}]}`, ""},
		{"messages", "not json at all", Malformed},
		{"messages", "{}", Malformed},
		{"messages", `{"content": []}`, Empty},
		{"messages", `{"content": [{"type": "other"}]}`, Empty},
		{"messages", `{"content": [{"type": "text", "text": "  "}]}`, Empty},
		{"messages", `{"content": [{"type": "text", "text": ` + mustJSON(plain, false) + `}]}`, ""},
	}
	for _, tc := range tests {
		fake := chatFake()
		if tc.adapter == "messages" {
			fake = messagesFake()
		}
		t.Run(tc.adapter+"/"+tc.body, func(t *testing.T) {
			t.Setenv(credVar, canary)
			target, _ := serveOnce(t, fake, func(w http.ResponseWriter, r *http.Request) {
				w.Write([]byte(tc.body))
			})
			ans, f := ask(t, fake.adapter(), target)
			switch {
			case tc.want == "" && f != nil:
				t.Fatalf("failure %v, want an answer", f)
			case tc.want == "" && ans.Output != plain:
				t.Errorf("output = %q, want %q", ans.Output, plain)
			case tc.want != "" && (f == nil || f.Kind != tc.want):
				t.Errorf("failure = %v, want %s", f, tc.want)
			}
		})
	}
}

func TestHTTPCredential(t *testing.T) {
	for _, fake := range httpFakes() {
		t.Run(fake.name+"/unset variable fails before any request", func(t *testing.T) {
			t.Setenv(credVar, "")
			target, n := serveOnce(t, fake, func(w http.ResponseWriter, r *http.Request) {})
			_, f := ask(t, fake.adapter(), target)
			if f == nil || f.Kind != Authentication || !strings.Contains(f.Detail, credVar) {
				t.Errorf("failure = %v, want authentication naming %s", f, credVar)
			}
			if n.Load() != 0 {
				t.Errorf("%d requests sent without a credential", n.Load())
			}
		})
		t.Run(fake.name+"/read at the moment of the call", func(t *testing.T) {
			var got []string
			target, _ := serveOnce(t, fake, func(w http.ResponseWriter, r *http.Request) {
				got = append(got, echoed(r))
				http.Error(w, "", http.StatusServiceUnavailable)
			})
			for _, v := range []string{"first-value", "second-value"} {
				t.Setenv(credVar, v)
				ask(t, fake.adapter(), target)
			}
			if len(got) != 2 || !strings.Contains(got[0], "first-value") || !strings.Contains(got[1], "second-value") {
				t.Errorf("headers seen %q, want each call to carry the value set at its time", got)
			}
		})
	}
	t.Run("no credential declared sends none", func(t *testing.T) {
		fake := chatFake()
		target, _ := serveOnce(t, fake, func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "" {
				http.Error(w, "unexpected credential", http.StatusBadRequest)
				return
			}
			fake.answer(w, r, mustJSON(testConclusion, false), "")
		})
		target.Credential = ""
		if _, f := ask(t, fake.adapter(), target); f != nil {
			t.Errorf("failure %v", f)
		}
	})
	t.Run("scheme declared with a custom header", func(t *testing.T) {
		t.Setenv(credVar, canary)
		var got string
		fake := chatFake()
		target, _ := serveOnce(t, fake, func(w http.ResponseWriter, r *http.Request) {
			got = r.Header.Get("X-Custom-Auth")
			fake.answer(w, r, mustJSON(testConclusion, false), "")
		})
		target.AuthHeader, target.AuthScheme = "X-Custom-Auth", "Token"
		ask(t, fake.adapter(), target)
		if got != "Token "+canary {
			t.Errorf("X-Custom-Auth = %q", got)
		}
	})
}

func TestHTTPRedirectNotFollowed(t *testing.T) {
	t.Setenv(credVar, canary)
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	t.Cleanup(other.Close)
	for _, fake := range httpFakes() {
		target, n := serveOnce(t, fake, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
		})
		_, f := ask(t, fake.adapter(), target)
		if f == nil || f.Kind != Unavailable || n.Load() != 1 {
			t.Errorf("%s: failure %v after %d requests, want unavailable after 1", fake.name, f, n.Load())
		}
	}
	if elsewhere.Load() != 0 {
		t.Errorf("the redirect was followed %d times, carrying the key elsewhere", elsewhere.Load())
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 8, 15, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		header map[string]string
		want   time.Duration
	}{
		{nil, 0},
		{map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{map[string]string{"Retry-After": " 0 "}, 0},
		{map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		{map[string]string{"Retry-After": "-3"}, 0},
		{map[string]string{"Retry-After": "soon"}, 0},
		{map[string]string{"Retry-After": now.Add(2 * time.Minute).Format(http.TimeFormat)}, 2 * time.Minute},
		{map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{map[string]string{"Retry-After-Ms": "40"}, 40 * time.Millisecond},
		{map[string]string{"Retry-After-Ms": "40", "Retry-After": "9"}, 40 * time.Millisecond},
		{map[string]string{"Retry-After-Ms": "x", "Retry-After": "9"}, 9 * time.Second},
	}
	for _, tc := range tests {
		h := http.Header{}
		for k, v := range tc.header {
			h.Set(k, v)
		}
		if got := retryAfter(h, now); got != tc.want {
			t.Errorf("retryAfter(%v) = %v, want %v", tc.header, got, tc.want)
		}
	}
}
