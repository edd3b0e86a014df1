package main

// 'git reason mcp --http' is safe on a laptop: the attacks a web page or
// another local process can make on it, each through the real binary, and
// a real client's session over HTTP. Each attack tries to append a record
// (initialize, then tools/call assess), which is what the endpoint would
// let any page do without the guard in front of it.

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type mcpHTTP struct {
	t      *testing.T
	url    string
	stderr *syncBuffer
	cmd    *exec.Cmd
	client *http.Client
}

// startMCPHTTP runs 'git-reason mcp --http' with args in the sandbox and
// returns once it listens. The binary is run directly, not through git's
// dispatch, so that its own exit status after Ctrl-C is seen (git dies of
// the signal it forwarded). The server stops when the test ends (Ctrl-C,
// then a kill after 10 seconds) or after two minutes at most.
func startMCPHTTP(t *testing.T, s *sandbox, args ...string) *mcpHTTP {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel) // after the server is stopped: cleanups run last first
	cmd := exec.CommandContext(ctx, "git-reason", append([]string{"mcp"}, args...)...)
	cmd.Dir, cmd.Env = s.dir, s.env
	m := &mcpHTTP{t: t, stderr: &syncBuffer{}, cmd: cmd, client: &http.Client{Timeout: 30 * time.Second}}
	m.url = startListening(t, cmd, m.stderr, `serving MCP on (\S+)`)
	return m
}

// post sends one JSON-RPC message with headers ("Host" sets the Host
// header) and returns the status, the session id and the body.
func (m *mcpHTTP) post(headers map[string]string, body string) (int, string, string) {
	m.t.Helper()
	h := map[string]string{"Accept": "application/json, text/event-stream"}
	maps.Copy(h, headers)
	code, got, data := postHTTP(m.t, m.client, m.url, h, body)
	return code, got.Get("Mcp-Session-Id"), data
}

const (
	httpInitialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"page","version":"1"}}}`
	httpInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	httpAssess      = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"assess","arguments":{"task":"Planted","subject":"planted","question":"planted by a page?","materiality":"trivial","reversibility":"reversible"}}}`
)

// attack tries to append a record with headers: initialize, and when that
// is answered, the rest of a session. It returns the first status.
func (m *mcpHTTP) attack(headers map[string]string) int {
	m.t.Helper()
	code, session, _ := m.post(headers, httpInitialize)
	if code == http.StatusOK {
		h := map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-06-18"}
		for k, v := range headers {
			h[k] = v
		}
		m.post(h, httpInitialized)
		m.post(h, httpAssess)
	}
	return code
}

// startMCPSession starts 'git-reason mcp --http' on loopback with a token
// it generates, initializes a session, and returns the server and the
// headers a request of that session carries (the token, the session id,
// the content type).
func startMCPSession(t *testing.T, s *sandbox) (*mcpHTTP, map[string]string) {
	t.Helper()
	m := startMCPHTTP(t, s, "--http", "127.0.0.1:0")
	token := generatedToken(t, "mcp --http", m.stderr.String(), filepath.Join(s.dir, ".git", "reason", "mcp-token"))
	h := map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json"}
	code, session, _ := m.post(h, httpInitialize)
	if code != http.StatusOK {
		t.Fatalf("initialize: %d", code)
	}
	h["Mcp-Session-Id"], h["Mcp-Protocol-Version"] = session, "2025-06-18"
	m.post(h, httpInitialized)
	return m, h
}

// bearer adds the token to every request of a client.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func TestMCPHTTPGuard(t *testing.T) {
	t.Parallel()
	s := newMCPSandbox(t)
	// No host in the address: loopback.
	m := startMCPHTTP(t, s, "--http", ":0")
	u, err := url.Parse(m.url)
	if err != nil || u.Hostname() != "127.0.0.1" || u.Path != "/mcp" {
		t.Fatalf("--http :0 serves on %s, want loopback at /mcp", m.url)
	}

	// The attack: a web page's simple POST, foreign Host, no token.
	if code := m.attack(map[string]string{"Content-Type": "text/plain", "Host": "attacker.example:" + u.Port(), "Origin": "http://attacker.example"}); code == http.StatusOK {
		t.Errorf("a web page's text/plain POST was answered")
	}

	// No token configured: one is generated, its place said, kept 0600.
	token := generatedToken(t, "mcp --http", m.stderr.String(), filepath.Join(s.dir, ".git", "reason", "mcp-token"))
	if serve, err := os.ReadFile(filepath.Join(s.dir, ".git", "reason", "serve-token")); err == nil && strings.TrimSpace(string(serve)) == token {
		t.Errorf("the MCP token is serve's token")
	}

	for name, c := range guardAttacks(token, u.Port()) {
		if code := m.attack(c.headers); code != c.want {
			t.Errorf("%s: %d, want %d", name, code, c.want)
		}
	}
	// A GET (the standalone event stream) needs the token too, and is not
	// offered.
	for _, c := range []struct {
		auth string
		want int
	}{{"", http.StatusUnauthorized}, {"Bearer " + token, http.StatusMethodNotAllowed}} {
		req, _ := http.NewRequest(http.MethodGet, m.url, nil)
		req.Header.Set("Accept", "text/event-stream")
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		resp, err := m.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("GET with %q: %d, want %d", c.auth, resp.StatusCode, c.want)
		}
	}
	if out := s.git("for-each-ref", "refs/reasoning"); out != "" {
		t.Fatalf("a refused request wrote records:\n%s", out)
	}

	// A real client with the token: the whole sequence (tools/list, a
	// reasoning cycle with writes, a refusal, resources) over HTTP.
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-http-client", Version: "1.8.0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: m.url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatalf("connect with the token: %v\n%s", err, m.stderr.String())
	}
	runSequence(t, sdkDriver{cs}, mcpSequence(false))
	if err := cs.Close(); err != nil {
		t.Errorf("close the session: %v", err)
	}
	if out := s.git("for-each-ref", "refs/reasoning"); !strings.Contains(out, "refs/reasoning/tasks/") {
		t.Errorf("the client's writes are not on the refs: %q", out)
	}

	// Ctrl-C: the server shuts down and exits 0.
	_ = m.cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- m.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("after Ctrl-C: %v\n%s", err, m.stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Errorf("the server did not stop on Ctrl-C")
	}
}

// TestMCPHostileMessagesRefused: what one message costs the server is
// bounded before anything decodes it, over HTTP and over stdio, each
// answered in one line in the transport's own error shape. Without the
// checks, a tools/call's _meta nested 990 deep (the SDK decodes it into
// maps and slices, up to 1,000 levels) was answered as if honest, after
// 16-19 s of CPU and 126-179 MB for 1 MiB of it; an assess whose needs
// held distinct numbers like 2e999999 went to the schema library, 30 ms
// each (1 MiB holds 80,000); a line of 16 MiB over stdio was decoded,
// 420-545 MB (bench/serverload/run.sh); a batch from a client declaring
// revision 2025-03-26 had every call in it run, and over stdio ended the
// session; and an id past 2^53 (2^64, 1e30) was answered under another
// (-9223372036854775808).
func TestMCPHostileMessagesRefused(t *testing.T) {
	t.Parallel()
	s := newMCPSandbox(t)
	m, h := startMCPSession(t, s)

	deep := strings.Repeat("[", 990) + strings.Repeat("]", 990)
	many := strings.TrimSuffix(strings.Repeat(deep+",", 50), ",")
	numbers := make([]string, 40)
	for i := range numbers {
		numbers[i] = strconv.Itoa(i+1) + "e999999" // distinct: uniqueItems reads every one
	}
	assess := `"task":"T-7","subject":"s","question":"q","materiality":"minor","reversibility":"reversible"`
	for _, c := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"_meta nested 990 deep", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"x":[` + many + `]},"name":"status","arguments":{}}}`,
			http.StatusBadRequest, `{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid Request: arrays and objects nested more than 64 levels deep (at /params/_meta/x/0/0/0/0/0/…); no message to this server nests so deep"}}`},
		{"arguments nested 990 deep", `{"jsonrpc":"2.0","id":"four","method":"tools/call","params":{"name":"status","arguments":{"x":[` + many + `]}}}`,
			http.StatusBadRequest, `{"jsonrpc":"2.0","id":"four","error":{"code":-32600,"message":"Invalid Request: arrays and objects nested more than 64 levels deep (at /params/arguments/x/0/0/0/0/0/…); no message to this server nests so deep"}}`},
		{"id 2^64", `{"jsonrpc":"2.0","id":18446744073709551616,"method":"tools/call","params":{"name":"status","arguments":{"task":"T-7"}}}`,
			http.StatusBadRequest, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: an id that is a number must be an integer of at most 9007199254740992 in magnitude written without a fraction or exponent (1, not 1.0 or 1e0), which the answer names exactly; use such a number or a string"}}`},
		{"id 1e30", `{"jsonrpc":"2.0","id":1e30,"method":"tools/call","params":{"name":"status","arguments":{"task":"T-7"}}}`,
			http.StatusBadRequest, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: an id that is a number must be`},
		{"huge numbers", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"assess","arguments":{` + assess + `,"needs":[` + strings.Join(numbers, ",") + `]}}}`,
			http.StatusOK, `"text":"bad_input: arguments of assess: /needs/0: a number of more than 64 characters, or with an exponent past 1000, which no record holds"`},
	} {
		code, _, body := m.post(h, c.body)
		if code != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d %s\nwant %d %s", c.name, code, body, c.status, c.want)
		}
	}
	// A batch, from a client that declares revision 2025-03-26, the one
	// that had batches (the SDK refuses one from a later revision): it is
	// refused whole before any call in it runs.
	old := maps.Clone(h)
	old["Mcp-Protocol-Version"] = "2025-03-26"
	status := `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"status","arguments":{"task":"T-7"}}}`
	code, _, body := m.post(old, "["+fmt.Sprintf(status, 10)+","+fmt.Sprintf(status, 11)+"]")
	if want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a batch (a JSON array of messages), which MCP has not had since its revision 2025-06-18; send each message on its own"}}`; code != http.StatusBadRequest || strings.TrimSpace(body) != want {
		t.Errorf("a batch: %d %s\nwant 400 %s", code, body, want)
	}
	// Honest calls are answered as before, the message nested 64 deep.
	code, _, body = m.post(h, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"_meta":{"x":`+strings.Repeat("[", 61)+strings.Repeat("]", 61)+`},"name":"status","arguments":{"task":"T-7"}}}`)
	if code != http.StatusOK || !strings.Contains(body, `no task \"T-7\"`) {
		t.Errorf("an honest status over HTTP: %d %s", code, body)
	}

	// stdio: a line longer than a request over HTTP may be, a line nested
	// too deep, a batch, an id past 2^53, each answered to its id (or
	// null), and the session goes on; it ends with its input.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git-reason", "mcp")
	cmd.Dir, cmd.Env = s.dir, s.env
	cmd.Stdin = strings.NewReader(strings.Join([]string{httpInitialize, httpInitialized,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"status","arguments":{"x":"` + strings.Repeat("a", 2<<20) + `"}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"status","arguments":{"x":[` + many + `]}}}`,
		"[" + fmt.Sprintf(status, 10) + "," + fmt.Sprintf(status, 11) + "]",
		`{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"status","arguments":{"task":"T-7"}}}`}, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git reason mcp: %v", err)
	}
	for _, want := range []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a line longer than 1048576 bytes; each message is one line of JSON"}}`,
		`{"jsonrpc":"2.0","id":8,"error":{"code":-32600,"message":"Invalid Request: arrays and objects nested more than 64 levels deep (at /params/arguments/x/0/0/0/0/0/…); no message to this server nests so deep"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a batch (a JSON array of messages)`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: an id that is a number must be`,
		`{"jsonrpc":"2.0","id":9,"result":`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("stdio: no %s in\n%.2000s", want, out)
		}
	}
}

// TestMCPStdioReusedID: a host (or the model steering it) that sends a
// request with the id of one not yet answered. The SDK drops such a
// request unanswered, and at the end of input the server waited for its
// answer for good: 'printf REQUESTS | git reason mcp' never exited. Each
// request now gets one answer, the reused id's refused to null, and the
// server exits at the end of its input.
func TestMCPStdioReusedID(t *testing.T) {
	t.Parallel()
	s := newMCPSandbox(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	status := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"status","arguments":{"task":"T-7"}}}`
	lines := []string{httpInitialize, httpInitialized}
	for range 8 {
		lines = append(lines, status) // the first is under way as the others are read
	}
	lines = append(lines, `{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	cmd := exec.CommandContext(ctx, "git-reason", "mcp")
	cmd.Dir, cmd.Env = s.dir, s.env
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git reason mcp, 8 requests with id 3 on its input: %v (did not exit at the end of its input)\n%.2000s", err, out)
	}
	answered := strings.Count(string(out), `{"jsonrpc":"2.0","id":3,"result":`)
	refused := strings.Count(string(out), `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: id 3 is that of a request not yet answered; give each request an id of its own"}}`)
	if answered < 1 || refused < 1 || answered+refused != 8 || !strings.Contains(string(out), `"id":4,"result":{}`) {
		t.Errorf("8 requests with id 3: %d answered, %d refused, want one answer each and some refused, and ping 4 answered:\n%.3000s", answered, refused, out)
	}
}

// TestMCPNullID: a request whose id is null. JSON-RPC 2.0 makes it a
// request owed an answer (only a message without an id is a
// notification), and MCP allows no null id; the SDK took it for a
// notification and said nothing, so a client waiting for the answer
// waited for good. It is now refused, to null, over stdio and over HTTP
// (400), and the session goes on; a notification is still not answered.
func TestMCPNullID(t *testing.T) {
	t.Parallel()
	s := newMCPSandbox(t)
	const want = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a request whose id is null, which MCP does not allow; give it a string or an integer id (a notification has no id at all)"}}`
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git-reason", "mcp")
	cmd.Dir, cmd.Env = s.dir, s.env
	cmd.Stdin = strings.NewReader(strings.Join([]string{httpInitialize, httpInitialized,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0", "id" : null, "method":"tools/call","params":{"name":"status","arguments":{"task":"T-7"}}}`,
		`{"jsonrpc":"2.0","method":"ping"}`,
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`}, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git reason mcp: %v\n%.2000s", err, out)
	}
	// The answers in any order: the refusals are written as their
	// requests are read, the others when the server has answered them.
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	count := func(match func(string) bool) int {
		n := 0
		for _, l := range lines {
			if match(l) {
				n++
			}
		}
		return n
	}
	if len(lines) != 4 || count(func(l string) bool { return l == want }) != 2 ||
		count(func(l string) bool { return strings.HasPrefix(l, `{"jsonrpc":"2.0","id":1,"result":`) }) != 1 ||
		count(func(l string) bool { return l == `{"jsonrpc":"2.0","id":4,"result":{}}` }) != 1 {
		t.Errorf("stdio, two requests with id null, a notification and ping 4: got\n%.3000s\nwant the initialize answer, twice %s, and ping 4's answer", out, want)
	}

	m, h := startMCPSession(t, s)
	code, _, body := m.post(h, `{"jsonrpc":"2.0","id":null,"method":"ping"}`)
	if code != http.StatusBadRequest || strings.TrimSpace(body) != want {
		t.Errorf("HTTP, ping with id null: %d %q\nwant 400 %s", code, body, want)
	}
	if code, _, body := m.post(h, `{"jsonrpc":"2.0","id":5,"method":"ping"}`); code != http.StatusOK || !strings.Contains(body, `"id":5,"result":{}`) {
		t.Errorf("HTTP, ping 5 after: %d %s", code, body)
	}
}

// A host that initializes in a loop without DELETE (a buggy agent host
// reconnecting) no longer makes the server keep a session each time: past
// mcpserver.MaxSessions (64), the least recently used session is closed
// to open the new one, and its next request is answered 404 saying why
// and what to do; every other session goes on.
func TestMCPHTTPSessionsBounded(t *testing.T) {
	t.Parallel()
	s := newMCPSandbox(t)
	m, h := startMCPSession(t, s)
	const max = 64 // mcpserver.MaxSessions
	ids := []string{h["Mcp-Session-Id"]}
	open := func() string {
		t.Helper()
		init := map[string]string{"Authorization": h["Authorization"], "Content-Type": "application/json"}
		code, id, body := m.post(init, httpInitialize)
		if code != http.StatusOK || id == "" {
			t.Fatalf("initialize %d: %d %q %s", len(ids)+1, code, id, body)
		}
		m.post(map[string]string{"Authorization": h["Authorization"], "Content-Type": "application/json",
			"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-06-18"}, httpInitialized)
		return id
	}
	ping := func(id string) (int, string) {
		t.Helper()
		code, _, body := m.post(map[string]string{"Authorization": h["Authorization"], "Content-Type": "application/json",
			"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-06-18"}, `{"jsonrpc":"2.0","id":9,"method":"ping"}`)
		return code, body
	}
	for len(ids) < max {
		ids = append(ids, open())
	}
	// The first session is used again: the second is now the least
	// recently used.
	if code, body := ping(ids[0]); code != http.StatusOK {
		t.Fatalf("ping of the first session: %d %s", code, body)
	}
	ids = append(ids, open())
	code, body := ping(ids[1])
	if code != http.StatusNotFound || !strings.Contains(body, "closed, the least recently used, to open another (at most 64 are kept") ||
		!strings.Contains(body, "initialize a new session") {
		t.Errorf("the least recently used session, after %d initializes: %d %s\nwant 404 saying it was closed for another", max+1, code, body)
	}
	for i, id := range ids {
		if i == 1 {
			continue
		}
		if code, body := ping(id); code != http.StatusOK {
			t.Errorf("session %d of %d: %d %s", i+1, max+1, code, body)
		}
	}
}
