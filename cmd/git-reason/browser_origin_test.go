package main

// --allow-origin lets a web page on that origin use serve and mcp --http
// from a browser: the browser's own checks, played here by pageFetch,
// pass for it (its preflight is answered, the answers name its origin,
// the MCP session id is readable) and fail for any other page, which gets
// the same refusal as before and nothing to read. Before CORS, the flag
// let through only a request no browser sends: the preflight, which
// carries no token, was answered 401.

import (
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// pageFetch is what a browser does for a script of the page at origin
// that sends method to u with headers and body: a preflight naming the
// method and the headers that need one, which must be answered 2xx for
// the origin with the method and each header allowed; then the request,
// whose answer the script may read only when it names the origin. It
// returns why the browser would refuse, or the answer's status, body and
// the headers the script can read.
func pageFetch(t *testing.T, origin, method, u string, headers map[string]string, body string) (refused string, status int, data string, readable http.Header) {
	t.Helper()
	client := &http.Client{Timeout: 30 * time.Second}
	var names []string
	for k := range headers {
		if k := strings.ToLower(k); k != "accept" { // safelisted: no preflight names it
			names = append(names, k)
		}
	}
	slices.Sort(names)
	pre, _ := http.NewRequest(http.MethodOptions, u, nil)
	pre.Header.Set("Origin", origin)
	pre.Header.Set("Access-Control-Request-Method", method)
	pre.Header.Set("Access-Control-Request-Headers", strings.Join(names, ","))
	resp, err := client.Do(pre)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	listed := func(h, v string) bool {
		for _, x := range strings.Split(resp.Header.Get(h), ",") {
			if strings.EqualFold(strings.TrimSpace(x), v) {
				return true
			}
		}
		return false
	}
	switch {
	case resp.StatusCode/100 != 2:
		return "preflight answered " + resp.Status, 0, "", nil
	case resp.Header.Get("Access-Control-Allow-Origin") != origin:
		return "preflight allows origin " + resp.Header.Get("Access-Control-Allow-Origin"), 0, "", nil
	case resp.Header.Get("Access-Control-Allow-Credentials") != "":
		t.Errorf("the preflight allows credentials")
	case !listed("Access-Control-Allow-Methods", method):
		return "preflight does not allow " + method, 0, "", nil
	}
	for _, n := range names {
		if !listed("Access-Control-Allow-Headers", n) {
			return "preflight does not allow header " + n, 0, "", nil
		}
	}
	req, _ := http.NewRequest(method, u, strings.NewReader(body))
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Origin", origin)
	if resp, err = client.Do(req); err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.Header.Get("Access-Control-Allow-Origin") != origin {
		return "the answer is not for the page's origin", 0, "", nil
	}
	if resp.Header.Get("Access-Control-Allow-Credentials") != "" {
		t.Errorf("the answer allows credentials")
	}
	if !slices.Contains(resp.Header.Values("Vary"), "Origin") {
		t.Errorf("the answer does not vary by Origin: %q", resp.Header.Values("Vary"))
	}
	readable = http.Header{}
	for _, k := range append([]string{"Content-Type"}, strings.Split(resp.Header.Get("Access-Control-Expose-Headers"), ",")...) {
		if k = strings.TrimSpace(k); k != "" && resp.Header.Get(k) != "" {
			readable.Set(k, resp.Header.Get(k))
		}
	}
	return "", resp.StatusCode, string(b), readable
}

func TestServeAllowedOrigin(t *testing.T) {
	t.Parallel()
	const page, token = "https://reviews.example", "page-token-7f3a-b05c"
	s := newSandbox(t, "advisors:\n"+cliAdvisor("adv-page", "fake-page", "answers_peers: true"),
		map[string]string{"fake-page": "cat >/dev/null\necho '{\"stance\":\"endorse\",\"summary\":\"read by the page\",\"confidence\":0.6}'\n"},
		"PAGE_TOKEN="+token)
	srv := startServe(t, s.env, s.dir, "--token-env", "PAGE_TOKEN", "--allow-origin", page)
	headers := map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json"}

	refused, code, body, _ := pageFetch(t, page, http.MethodPost, srv.url, headers, reviewBody)
	if refused != "" || code != http.StatusOK || !strings.Contains(body, "read by the page") {
		t.Errorf("the allowed page: %s %d %s", refused, code, body)
	}
	// The page reads a refusal too: it learns to send the token.
	delete(headers, "Authorization")
	if refused, code, body, _ := pageFetch(t, page, http.MethodPost, srv.url, headers, reviewBody); refused != "" || code != http.StatusUnauthorized || !strings.Contains(body, "token") {
		t.Errorf("the allowed page without the token: %s %d %s", refused, code, body)
	}
	headers["Authorization"] = "Bearer " + token
	for _, other := range []string{"https://attacker.example", "http://reviews.example", "null"} {
		if refused, code, body, _ := pageFetch(t, other, http.MethodPost, srv.url, headers, reviewBody); refused != "preflight answered 403 Forbidden" {
			t.Errorf("the page at %s: %q %d %s, want its preflight refused", other, refused, code, body)
		}
	}
	// Without --allow-origin no page is allowed.
	_ = srv.cmd.Process.Signal(os.Interrupt)
	_ = srv.cmd.Wait()
	srv = startServe(t, s.env, s.dir, "--token-env", "PAGE_TOKEN")
	if refused, _, _, _ := pageFetch(t, page, http.MethodPost, srv.url, headers, reviewBody); refused != "preflight answered 403 Forbidden" {
		t.Errorf("a page with no --allow-origin: %q, want its preflight refused", refused)
	}
}

func TestMCPHTTPAllowedOrigin(t *testing.T) {
	t.Parallel()
	const page, token = "http://localhost:5173", "mcp-page-token-2c9d"
	s := newSandbox(t, mcpOverlay, map[string]string{"fake-advisor": fakeAdvisor}, "PAGE_TOKEN="+token)
	m := startMCPHTTP(t, s, "--http", "127.0.0.1:0", "--token-env", "PAGE_TOKEN", "--allow-origin", page)
	headers := map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}

	refused, code, body, readable := pageFetch(t, page, http.MethodPost, m.url, headers, httpInitialize)
	session := readable.Get("Mcp-Session-Id")
	if refused != "" || code != http.StatusOK || !strings.Contains(body, `"serverInfo"`) || session == "" {
		t.Fatalf("the allowed page's initialize: %s %d %s, session %q", refused, code, body, session)
	}
	headers["Mcp-Session-Id"], headers["Mcp-Protocol-Version"] = session, "2025-06-18"
	if refused, code, body, _ := pageFetch(t, page, http.MethodPost, m.url, headers, httpInitialized); refused != "" || code/100 != 2 {
		t.Errorf("the allowed page's initialized: %s %d %s", refused, code, body)
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	if refused, code, body, _ := pageFetch(t, page, http.MethodPost, m.url, headers, list); refused != "" || code != http.StatusOK || !strings.Contains(body, `"assess"`) {
		t.Errorf("the allowed page's tools/list: %s %d %.200s", refused, code, body)
	}
	// The page may end its session; the event stream it is told is not
	// offered (405), rather than failing its preflight.
	delete(headers, "Content-Type")
	if refused, code, _, _ := pageFetch(t, page, http.MethodGet, m.url, headers, ""); refused != "" || code != http.StatusMethodNotAllowed {
		t.Errorf("the allowed page's GET: %s %d", refused, code)
	}
	if refused, code, body, _ := pageFetch(t, page, http.MethodDelete, m.url, headers, ""); refused != "" || code/100 != 2 {
		t.Errorf("the allowed page's DELETE: %s %d %s", refused, code, body)
	}
	headers["Content-Type"] = "application/json"
	delete(headers, "Mcp-Session-Id")
	if refused, _, _, _ := pageFetch(t, "http://localhost:5174", http.MethodPost, m.url, headers, httpAssess); refused != "preflight answered 403 Forbidden" {
		t.Errorf("another page: %q, want its preflight refused", refused)
	}
	if out := s.git("for-each-ref", "refs/reasoning"); out != "" {
		t.Errorf("records written:\n%s", out)
	}
}
