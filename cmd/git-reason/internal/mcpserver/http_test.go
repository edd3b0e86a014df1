package mcpserver

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"git-reason/cmd/git-reason/internal/guard"
)

// httpSession is a session opened over HTTP at url, as a host opens one.
type httpSession struct {
	t   *testing.T
	url string
	id  string
}

// post sends one message of the session (none before initialize) and
// returns the status, the session id answered and the body.
func (h *httpSession) post(body string) (int, string, string) {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.url+Path, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if h.id != "" {
		req.Header.Set(sessionHeader, h.id)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Error(err)
		return 0, "", ""
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get(sessionHeader), string(data)
}

const testToken = "test-token-0123456789abcdef"

// openHTTP initializes a session at url.
func openHTTP(t *testing.T, url string) *httpSession {
	t.Helper()
	h := &httpSession{t: t, url: url}
	code, id, body := h.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if code != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %q %s", code, id, body)
	}
	h.id = id
	h.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return h
}

// guarded serves srv over HTTP behind the guard, its deadline deadline.
func guarded(t *testing.T, srv *Server, deadline time.Duration) string {
	ts := httptest.NewServer(guard.Wrap(guard.Config{Token: testToken, NoBody: NoBody, MaxInFlight: 8, Deadline: deadline}, srv.HTTPHandler()))
	t.Cleanup(ts.Close)
	return ts.URL
}

const callTasks = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"tasks","arguments":{}}}`

// Past the bound on sessions, the least recently used session with no
// request under way is closed for the new one, never one in a request,
// even the least recently used; when every session is in a request, the
// initialize is refused in one line saying what to do.
func TestBusySessionNeverClosedForAnother(t *testing.T) {
	srv := serverOn(t, newRepo(t))
	srv.live.max = 2
	url := guarded(t, srv, time.Minute)
	started, release := make(chan struct{}, 2), make(chan struct{})
	tasks := srv.tools["tasks"]
	orig := tasks.run
	tasks.run = func(ctx context.Context, c *call) (*outcome, error) {
		started <- struct{}{}
		<-release
		return orig(ctx, c)
	}
	answered := make(chan string, 2)
	inCall := func(h *httpSession) {
		go func() {
			code, _, body := h.post(callTasks)
			answered <- strconv.Itoa(code) + " " + body
		}()
	}
	a := openHTTP(t, url)
	inCall(a)
	<-started
	b := openHTTP(t, url)
	if code, _, body := b.post(`{"jsonrpc":"2.0","id":3,"method":"ping"}`); code != http.StatusOK {
		t.Fatalf("ping: %d %s", code, body)
	}
	c := openHTTP(t, url) // a, the least recently used, is in a call: b is closed
	if code, _, body := b.post(`{"jsonrpc":"2.0","id":4,"method":"ping"}`); code != http.StatusNotFound || !strings.Contains(body, "initialize a new session") {
		t.Errorf("the idle session after a third initialize: %d %s, want 404", code, body)
	}
	inCall(c) // waits for the server's lock, which a's call holds: in a request too
	time.Sleep(200 * time.Millisecond)
	d := &httpSession{t: t, url: url}
	code, _, body := d.post(`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	want := `{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"all 2 MCP sessions are in a request: end a session you no longer use (DELETE), or initialize again once a request ends"}}`
	if code != http.StatusServiceUnavailable || strings.TrimSpace(body) != want {
		t.Errorf("initialize with every session in a request: %d %s\nwant 503 %s", code, body, want)
	}
	close(release)
	for range 2 {
		if got := <-answered; !strings.HasPrefix(got, "200 ") || !strings.Contains(got, `"tasks":[]`) {
			t.Errorf("a call under way when another session was opened: %s", got)
		}
	}
}

// A call whose request ends (the guard's deadline here) ends with it: the
// SDK gave the handler a context of the session's, which the request's
// end did not cancel, so work that checks its context went on holding
// the repository (and a core) after the client was answered.
func TestCallEndsWithItsRequest(t *testing.T) {
	srv := serverOn(t, newRepo(t))
	url := guarded(t, srv, 300*time.Millisecond)
	var rounds atomic.Int64
	ended := make(chan error, 1)
	srv.tools["tasks"].run = func(ctx context.Context, c *call) (*outcome, error) {
		for ctx.Err() == nil { // a loop checking its context at each record batch
			rounds.Add(1)
			time.Sleep(time.Millisecond)
		}
		ended <- context.Cause(ctx)
		return nil, ctx.Err()
	}
	h := openHTTP(t, url)
	h.post(callTasks)
	select {
	case err := <-ended:
		if err != context.DeadlineExceeded {
			t.Errorf("the call ended with %v, want the request's deadline", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatalf("the call still runs 3 s after its request's 300 ms deadline: %d rounds", rounds.Load())
	}
	n := rounds.Load()
	time.Sleep(100 * time.Millisecond)
	if m := rounds.Load(); m != n {
		t.Errorf("rounds after the call ended: %d, then %d", n, m)
	}
	// The server is free again: the session's next call is answered.
	srv.tools["tasks"].run = srv.tasks
	if code, _, body := h.post(callTasks); code != http.StatusOK || !strings.Contains(body, `"tasks":[]`) {
		t.Errorf("the next call: %d %s", code, body)
	}
}
