package transport

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"git-reason/advisor/transport/httpwire"
)

// wireFake is a loopback server speaking one HTTP wire format, shared by the
// fakes of chat_completions, messages and peer. Each fills in the parts that
// differ.
type wireFake struct {
	// path is the request path the adapter must POST to.
	path string
	// target declares an advisor speaking this wire at base.
	target func(base string) Target
	// credential finds the credential value where target declared it, and
	// says whether the request has the shape the wire requires.
	credential func(r *http.Request) (value string, ok bool)
	// answer writes a 2xx reply carrying text and model.
	answer func(w http.ResponseWriter, r *http.Request, text, model string)
}

// basePath is the path every fake's base URL has, so that the adapters are
// seen to join paths rather than replace them.
const basePath = "/v1"

func (f wireFake) start(t *testing.T, b behaviour) (Target, func() received) {
	if b.act == unreachable {
		return f.target(refusedURL(t)), func() received { return received{} }
	}
	var mu sync.Mutex
	var got received
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		cred, ok := f.credential(r)
		mu.Lock()
		got.attempts++
		got.text, got.credential = string(body), cred
		mu.Unlock()
		if r.Method != http.MethodPost || r.URL.Path != f.path {
			http.NotFound(w, r)
			return
		}
		if !ok {
			http.Error(w, "request lacks what this wire requires", http.StatusBadRequest)
			return
		}
		behave(w, r, b, stop, f.answer)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) }) // runs first: releases stubborn handlers
	return f.target(srv.URL + basePath), func() received {
		mu.Lock()
		defer mu.Unlock()
		return got
	}
}

// behave makes an HTTP responder act as b says. Error bodies echo the
// credential header back, as careless servers do.
func behave(w http.ResponseWriter, r *http.Request, b behaviour, stop <-chan struct{},
	reply func(http.ResponseWriter, *http.Request, string, string)) {
	echo := `{"error":{"message":"request with credential ` + echoed(r) + ` refused ` + transcriptMarker + `"}}`
	switch b.act {
	case answer:
		select {
		case <-time.After(b.delay):
		case <-r.Context().Done():
			return
		}
		reply(w, r, b.text, b.model)
	case refuseAuth:
		http.Error(w, echo, http.StatusUnauthorized)
	case rateLimit:
		w.Header().Set("Retry-After", strconv.Itoa(b.retryAfter))
		http.Error(w, echo, http.StatusTooManyRequests)
	case failing:
		http.Error(w, echo, http.StatusServiceUnavailable)
	case hang:
		<-r.Context().Done()
	case stubborn:
		<-stop
	}
}

// echoed is every header value of the request, so that whichever header
// carries the credential is echoed.
func echoed(r *http.Request) string {
	var b bytes.Buffer
	for _, vs := range r.Header {
		for _, v := range vs {
			b.WriteString(v + " ")
		}
	}
	return b.String()
}

// refusedURL is a loopback URL where nothing listens.
func refusedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + basePath
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(mustJSON(v, false)))
}

// The HTTP adapters post with the client the program that asks advisors
// links.
func init() { UseHTTP(httpwire.Post) }

// peerHandler is a peer's review endpoint as git reason serve serves it,
// without the guard in front.
func peerHandler(consult func(context.Context, Request) []PeerAnswer) http.Handler {
	return httpwire.Endpoint(PeerPath, PeerRequestLimit, PeerReview(func(ctx context.Context, req Request, _ string) PeerResponse {
		return PeerResponse{Answers: consult(ctx, req)}
	}))
}
