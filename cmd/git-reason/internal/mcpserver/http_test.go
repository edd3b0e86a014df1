package mcpserver

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"git-reason/cmd/git-reason/internal/guard"
	"git-reason/reliability/harness"
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

// guarded serves srv over HTTP behind the guard, its deadline deadline,
// as mcp --http does (guard.Run with serve's bounds).
func guarded(t *testing.T, srv *Server, deadline time.Duration) string {
	return guardedWith(t, srv, deadline, guard.API, nil)
}

// guardedWith serves srv as guarded does, bounded by tm, its handler
// wrapped by wrap when not nil, and returns its URL.
func guardedWith(t *testing.T, srv *Server, deadline time.Duration, tm guard.Limits, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := srv.HTTPHandler()
	if wrap != nil {
		h = wrap(h)
	}
	h = guard.Wrap(guard.Config{Token: testToken, NoBody: NoBody, MaxInFlight: 8, Deadline: deadline}, h)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- guard.Run(ctx, ln, h, tm, "", "") }()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + ln.Addr().String()
}

const callTasks = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"tasks","arguments":{}}}`

// holdTasks makes srv's tasks calls signal started (n at most at once)
// and wait for release to be closed before they run.
func holdTasks(srv *Server, n int) (started, release chan struct{}) {
	started, release = make(chan struct{}, n), make(chan struct{})
	tasks := srv.tools["tasks"]
	orig := tasks.run
	tasks.run = func(ctx context.Context, c *call) (*outcome, error) {
		started <- struct{}{}
		<-release
		return orig(ctx, c)
	}
	return started, release
}

// busy is how many requests to session id are under way.
func (l *liveSessions) busy(id string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if u := l.uses[id]; u != nil {
		return u.busy
	}
	return 0
}

// Past the bound on sessions, the least recently used session with no
// request under way is closed for the new one, never one in a request,
// even the least recently used; when every session is in a request, the
// initialize is refused in one line saying what to do.
func TestBusySessionNeverClosedForAnother(t *testing.T) {
	srv := serverOn(t, newRepo(t))
	srv.live.max = 2
	url := guarded(t, srv, time.Minute)
	started, release := holdTasks(srv, 2)
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
	// The initialize below comes once c's call is counted as under way,
	// not after a fixed 200 ms, which a loaded machine can outlast.
	for deadline := time.Now().Add(time.Minute); srv.live.busy(c.id) == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the second call was not under way within a minute")
		}
	}
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

// A call whose HTTP request ended (the guard's deadline, the client gone)
// before the SDK started its handler runs under a context already ended:
// no one waits for its answer. Before, it ran with no deadline at all.
func TestCallAfterItsRequestEndedIsCancelled(t *testing.T) {
	var q requests
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	release := q.during(r)
	key := r.Header.Get(requestHeader)
	ctx, stop := q.bound(context.Background(), key)
	if ctx.Err() != nil {
		t.Fatalf("the call of a request under way: %v", ctx.Err())
	}
	stop()
	release()
	ctx, stop = q.bound(context.Background(), key)
	defer stop()
	if ctx.Err() == nil {
		t.Error("the call of a request that had ended runs under a live context")
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
	case <-time.After(20 * time.Second):
		t.Fatalf("the call still runs 20 s after its request's 300 ms deadline: %d rounds", rounds.Load())
	}
	n := rounds.Load()
	time.Sleep(100 * time.Millisecond)
	if m := rounds.Load(); m != n {
		t.Errorf("rounds after the call ended: %d, then %d", n, m)
	}
	// The server is free again: the session's next call is answered. It
	// runs the real tool under the same 300 ms deadline, which a loaded
	// machine can outlast (2 runs in 60 under load): it is asked again
	// until answered, as a server still held by the first call never
	// answers it.
	srv.tools["tasks"].run = srv.tasks
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		code, _, body := h.post(callTasks)
		if code == http.StatusOK && strings.Contains(body, `"tasks":[]`) {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("the next call, asked for 20 s: %d %s", code, body)
			break
		}
	}
}

// A session is counted from the moment its initialize is answered: a
// client acts on the answer as soon as its event arrives (an SDK client
// does), so its next request can come in before the initialize's handler
// has returned. Counted only from that return, a call made in between was
// not under way for the bound (its session was closed for another while
// in it) and its end took the count below zero, so that the session, idle,
// was never closed again: 64 of them and every initialize was refused.
func TestSessionCountedFromItsAnswer(t *testing.T) {
	srv := serverOn(t, newRepo(t))
	srv.live.max = 1
	h := srv.HTTPHandler()
	started, release := holdTasks(srv, 1)
	serve := func(w http.ResponseWriter, id, body string) { serveMessage(h, w, id, body) }
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	inCall := &reachingSDK{ResponseRecorder: httptest.NewRecorder(), reached: make(chan struct{})}
	answered := make(chan struct{})
	first := &onFlush{ResponseRecorder: httptest.NewRecorder()}
	first.flushed = func() { // the client has the answer; the handler has not returned
		id := first.Header().Get(sessionHeader)
		serve(httptest.NewRecorder(), id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		go func() { serve(inCall, id, callTasks); close(answered) }()
		<-inCall.reached
	}
	serve(first, "", initialize)
	<-started
	second := httptest.NewRecorder()
	serve(second, "", initialize)
	if second.Code != http.StatusServiceUnavailable {
		t.Errorf("initialize while the only session is in a call made before its initialize returned: %d, want 503", second.Code)
	}
	close(release)
	<-answered
	if body := inCall.Body.String(); !strings.Contains(body, `"tasks":[]`) {
		t.Errorf("the call under way when another session was opened: %d %s", inCall.Code, body)
	}
	third := httptest.NewRecorder()
	serve(third, "", initialize)
	if third.Code != http.StatusOK {
		t.Errorf("initialize once that session is idle: %d %s, want it closed for this one", third.Code, third.Body)
	}
}

// onFlush calls flushed the first time the answer is flushed to the client.
type onFlush struct {
	*httptest.ResponseRecorder
	once    atomic.Bool
	flushed func()
}

func (f *onFlush) Flush() {
	f.ResponseRecorder.Flush()
	if f.once.CompareAndSwap(false, true) {
		f.flushed()
	}
}

// serveMessage has h answer body, a message of session id (none for
// initialize), on w, as a host sends it.
func serveMessage(h http.Handler, w http.ResponseWriter, id, body string) {
	r := httptest.NewRequest(http.MethodPost, Path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if id != "" {
		r.Header.Set(sessionHeader, id)
		r.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	h.ServeHTTP(w, r)
}

// reachingSDK closes reached when the SDK starts its answer (our handler
// only writes to refuse a request).
type reachingSDK struct {
	*httptest.ResponseRecorder
	once    atomic.Bool
	reached chan struct{}
}

func (r *reachingSDK) Header() http.Header {
	if r.once.CompareAndSwap(false, true) {
		close(r.reached)
	}
	return r.ResponseRecorder.Header()
}

// Initializes at once keep every session counted: reserve listed the live
// sessions before taking its lock, so a session opened in between was
// taken for ended and its count dropped, never to be closed for another
// and past the bound (before, in 10 runs of 10: 2 to 94 such sessions here, over a bound of 8).
func TestSessionsOpenedAtOnceAllCounted(t *testing.T) {
	srv := serverOn(t, newRepo(t))
	srv.live.max = 8
	ts := httptest.NewServer(srv.HTTPHandler())
	t.Cleanup(ts.Close)
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	done := make(chan error)
	for range 16 {
		go func() {
			for range 50 {
				req, _ := http.NewRequest(http.MethodPost, ts.URL+Path, strings.NewReader(initialize))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					done <- err
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			done <- nil
		}()
	}
	for range 16 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	srv.live.mu.Lock()
	defer srv.live.mu.Unlock()
	live, uncounted := 0, 0
	for ss := range srv.sdk.Sessions() {
		live++
		if srv.live.uses[ss.ID()] == nil {
			uncounted++
		}
	}
	if uncounted > 0 || live > srv.live.max {
		t.Errorf("after 800 initializes, 16 at once: %d sessions live, %d of them uncounted; want at most %d, all counted", live, uncounted, srv.live.max)
	}
}

// A host that asks for a large answer and never reads it holds the
// server only until the write timeout: the answer's write fails, the
// handler returns and the connection is closed. Without the timeout the
// handler waits in its write for as long as the host keeps the
// connection, holding one of --max-inflight's places.
func TestUnreadAnswerReleased(t *testing.T) {
	srv := serverOn(t, newRepo(t))
	tm := guard.API
	tm.Write = 500 * time.Millisecond
	var inFlight atomic.Int64
	url := guardedWith(t, srv, time.Minute, tm, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			inFlight.Add(1)
			defer inFlight.Add(-1)
			h.ServeHTTP(w, r)
		})
	})
	h := openHTTP(t, url)
	tasks := srv.tools["tasks"]
	orig := tasks.run
	big := strings.Repeat("x", 32<<20) // far past what the sockets hold
	tasks.run = func(ctx context.Context, c *call) (*outcome, error) {
		o, err := orig(ctx, c)
		if o != nil {
			o.text = big
		}
		return o, err
	}
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\n%s: %s\r\nMcp-Protocol-Version: 2025-06-18\r\nContent-Length: %d\r\n\r\n%s",
		Path, c.RemoteAddr(), testToken, sessionHeader, h.id, len(callTasks), callTasks)
	start := time.Now()
	// Generous waits: under load the tool's run and the SDK's encoding
	// of 32 MiB take seconds; without the timeout the handler never
	// returns at all.
	for inFlight.Load() == 0 && time.Since(start) < 20*time.Second {
		time.Sleep(10 * time.Millisecond)
	}
	if inFlight.Load() == 0 {
		t.Fatal("the call never reached the handler")
	}
	for inFlight.Load() != 0 && time.Since(start) < 30*time.Second {
		time.Sleep(10 * time.Millisecond)
	}
	if n := inFlight.Load(); n != 0 {
		t.Fatalf("%d handler(s) still writing %v after the call, to a host that reads nothing (write timeout %v)", n, time.Since(start), tm.Write)
	}
	// What the sockets held is all the host can read: then the server
	// has closed the connection.
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := io.Copy(io.Discard, c); err != nil || n >= int64(len(big)) {
		t.Errorf("after the handler returned, the host read %d bytes, then %v: want less than the answer, then the server's close", n, err)
	}
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// FuzzHTTP drives mcp --http's whole handler chain (the guard as serving
// configures it, then the endpoint), in front of a repository of three
// tasks, with any request: any method, target, Host, Origin,
// Content-Type, Content-Length, header and body, with the token, a wrong
// one, one after another scheme or none (cred%4), in a session just
// opened, one made up or none (cred/4%3). No request makes it panic, hang
// or answer a server error, or says the token back; one without the token
// sees nothing of the repository and writes nothing to it.
func FuzzHTTP(f *testing.F) {
	dir := newRepo(f)
	harness.WriteFile(f, filepath.Join(dir, "a.go"), "package a\n")
	harness.Git(f, dir, "add", "a.go")
	harness.Git(f, dir, "commit", "-q", "-m", "a for T-000001")
	if err := harness.BulkTasks(context.Background(), dir, "T-", 3); err != nil {
		f.Fatal(err)
	}
	srv := serverOn(f, dir)
	f.Cleanup(func() { srv.Close() })
	h := guard.Wrap(guard.Config{Token: testToken, AllowHosts: []string{"reason.example"}, AllowOrigins: []string{"https://allowed.example"},
		MaxBody: MaxBody, NoBody: NoBody, Methods: Browser.Methods, Headers: Browser.Headers, Expose: Browser.Expose, MaxInFlight: 8}, srv.HTTPHandler())
	g := harness.Guarded{Handler: h, GitDir: filepath.Join(dir, ".git"), Token: testToken, Content: []string{"bulk subject", "which way for", "T-000"}}
	// in answers a message of a session (none for initialize) let in.
	in := func(t *testing.T, method, id, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, Path, strings.NewReader(body))
		r.Host = "127.0.0.1"
		r.Header.Set("Authorization", "Bearer "+testToken)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		if id != "" {
			r.Header.Set(sessionHeader, id)
			r.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		return harness.Serve(t, h, r, time.Minute)
	}
	for _, body := range []string{initialize, callTasks, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, `{"jsonrpc":"2.0","id":4,"method":"resources/list"}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"show","arguments":{"task":"T-000001"}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"assess","arguments":{"task":"T-000001","subject":"s","question":"q?"}}}`,
		`[{"jsonrpc":"2.0","id":7,"method":"ping"}]`, `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"context","arguments":{"range":"HEAD~1..HEAD"}}}`,
		`{"jsonrpc":"2.0","id":10,"method":"resources/read","params":{"uri":"reason://task/T-000001"}}`} {
		for cred := range uint8(12) {
			f.Add("POST", Path, "127.0.0.1:7412", "", "application/json", int64(len(body)), "Accept", "application/json, text/event-stream", []byte(body), cred)
		}
	}
	f.Add("DELETE", Path, "localhost", "https://allowed.example", "", int64(0), "", "", []byte(nil), uint8(5))
	f.Add("OPTIONS", Path, "reason.example:7412", "https://allowed.example", "", int64(-1), "Access-Control-Request-Method", "POST", []byte(nil), uint8(0))
	f.Add("GET", Path, "[::1]:7412", "http://evil.example", "", int64(0), "Last-Event-ID", "1", []byte(nil), uint8(1))
	f.Fuzz(func(t *testing.T, method, target, host, origin, ctype string, length int64, header, value string, body []byte, cred uint8) {
		s := harness.Stranger{Method: method, Target: target, Host: host, Origin: origin, ContentType: ctype,
			Length: length, Header: header, Value: value, Body: body}
		auth := [...]string{"", "Bearer " + testToken, "Bearer " + testToken[1:] + "x", "Basic " + testToken}[cred%4]
		r, ok := s.Request(context.Background(), auth)
		if !ok {
			return
		}
		if !strings.EqualFold(header, "Accept") {
			r.Header.Set("Accept", "application/json, text/event-stream")
		}
		switch cred / 4 % 3 {
		case 1:
			w := in(t, http.MethodPost, "", initialize)
			id := w.Header().Get(sessionHeader)
			if id == "" {
				t.Fatalf("initialize: %d %s", w.Code, w.Body)
			}
			in(t, http.MethodPost, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			defer in(t, http.MethodDelete, id, "")
			r.Header.Set(sessionHeader, id)
			r.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		case 2:
			r.Header.Set(sessionHeader, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
		}
		g.Try(t, s, r, cred%4 == 1)
	})
}

// BenchmarkIDCheck is what reading a message's id before the SDK does
// (idKept, in refused) costs, in one run, against what the message costs
// without it:
//
//	go test ./cmd/git-reason/internal/mcpserver -run '^$' -bench IDCheck -benchtime 200x -count 1
//
// status: an ordinary tools/call, against the whole request through the
// endpoint (status of a task, the answer written); 1MiB: a message of a
// 1 MiB assess (its needs 100,000 small objects, the most tokens a body
// holds), against the SDK's own decoding of it (jsonrpc.DecodeMessage),
// which it does at least once more per message. Each iteration times
// both, so that both see the same machine load; check/without is the
// ratio.
func BenchmarkIDCheck(b *testing.B) {
	b.Run("status", func(b *testing.B) {
		srv := serverOn(b, newRepo(b))
		h := srv.HTTPHandler()
		post := func(session, body string) *httptest.ResponseRecorder {
			w := httptest.NewRecorder()
			serveMessage(h, w, session, body)
			return w
		}
		session := post("", initialize).Header().Get(sessionHeader)
		post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		status := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"status","arguments":{"task":"T-7"}}}`
		idCheckAgainst(b, []byte(status), func() {
			if w := post(session, status); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"id":2,`) {
				b.Fatalf("status: %d %s", w.Code, w.Body)
			}
		})
	})
	b.Run("1MiB", func(b *testing.B) {
		needs := strings.Repeat(`{"n":"x"},`, 100_000)
		msg := []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"assess","arguments":{"task":"T-7","needs":[` +
			needs[:len(needs)-1] + `]}}}`)
		if len(msg) > MaxBody {
			b.Fatalf("%d bytes, past MaxBody", len(msg))
		}
		idCheckAgainst(b, msg, func() {
			if _, err := jsonrpc.DecodeMessage(msg); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// idCheckAgainst times idKept on msg against without, interleaved, and
// reports both and their ratio; idKept is run reps times a turn, so that
// the clock's own cost is small beside it.
func idCheckAgainst(b *testing.B, msg []byte, without func()) {
	reps := max(1, 100_000/len(msg))
	var check, other time.Duration
	for b.Loop() {
		t0 := time.Now()
		for range reps {
			if !idKept(msg) {
				b.Fatal("the id refused")
			}
		}
		t1 := time.Now()
		without()
		check += t1.Sub(t0) / time.Duration(reps)
		other += time.Since(t1)
	}
	b.ReportMetric(float64(check.Nanoseconds())/float64(b.N), "check-ns/op")
	b.ReportMetric(float64(other.Nanoseconds())/float64(b.N), "without-ns/op")
	b.ReportMetric(float64(check)/float64(other), "check/without")
}
