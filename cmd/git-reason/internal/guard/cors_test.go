package guard

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// TestCrossOrigin: a page on an allowed origin can use the server from a
// browser: its preflight is answered (without the token, which browsers
// never send on one), and every answer to it names that origin, so the
// page reads answers and refusals. A page on any other origin, a foreign
// Host, or a request that is not a preflight gets nothing more than
// before: the same refusals, no CORS header. Credentials are never
// allowed, and answers vary by Origin.
func TestCrossOrigin(t *testing.T) {
	const token = testToken
	const page = "https://reviews.example"
	reached := 0
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached++
		w.Header().Set("Mcp-Session-Id", "s-1")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"answers":[]}`))
	})
	servers := map[string]http.Handler{
		"allowed": Wrap(Config{Token: token, AllowOrigins: []string{page}}, next),
		"mcp": Wrap(Config{Token: token, AllowOrigins: []string{page}, Methods: []string{"GET", "POST", "DELETE"},
			Headers: []string{"Mcp-Session-Id"}, Expose: []string{"Mcp-Session-Id"}}, next),
		"none": Wrap(Config{Token: token}, next),
	}
	preflight := map[string]string{"Origin": page, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization,content-type"}
	good := map[string]string{"Origin": page, "Authorization": "Bearer " + token, "Content-Type": "application/json"}
	with := func(m map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	for _, c := range []struct {
		name    string
		server  string
		method  string
		host    string
		headers map[string]string
		want    int
		reaches bool
		cors    map[string]string // the Access-Control-* headers wanted, exactly
	}{
		{"preflight of an allowed page", "allowed", "OPTIONS", "127.0.0.1:7411", preflight, http.StatusNoContent, false, map[string]string{
			"Access-Control-Allow-Origin": page, "Access-Control-Allow-Methods": "POST",
			"Access-Control-Allow-Headers": "Authorization, Content-Type", "Access-Control-Max-Age": "600"}},
		{"preflight of an allowed page asking for the private network", "allowed", "OPTIONS", "127.0.0.1:7411",
			with(preflight, "Access-Control-Request-Private-Network", "true"), http.StatusNoContent, false, map[string]string{
				"Access-Control-Allow-Origin": page, "Access-Control-Allow-Methods": "POST",
				"Access-Control-Allow-Headers": "Authorization, Content-Type", "Access-Control-Max-Age": "600",
				"Access-Control-Allow-Private-Network": "true"}},
		{"preflight of an allowed page to mcp", "mcp", "OPTIONS", "localhost:7412", preflight, http.StatusNoContent, false, map[string]string{
			"Access-Control-Allow-Origin": page, "Access-Control-Allow-Methods": "GET, POST, DELETE",
			"Access-Control-Allow-Headers": "Authorization, Content-Type, Mcp-Session-Id", "Access-Control-Max-Age": "600",
			"Access-Control-Expose-Headers": "Mcp-Session-Id"}},
		{"request of an allowed page", "allowed", "POST", "127.0.0.1:7411", good, http.StatusOK, true, map[string]string{"Access-Control-Allow-Origin": page}},
		{"request of an allowed page to mcp", "mcp", "POST", "127.0.0.1:7412", good, http.StatusOK, true, map[string]string{
			"Access-Control-Allow-Origin": page, "Access-Control-Expose-Headers": "Mcp-Session-Id"}},
		{"an allowed page without the token reads why", "allowed", "POST", "127.0.0.1:7411", with(good, "Authorization", ""), http.StatusUnauthorized, false,
			map[string]string{"Access-Control-Allow-Origin": page}},
		{"an allowed page's simple POST", "allowed", "POST", "127.0.0.1:7411", with(good, "Content-Type", "text/plain"), http.StatusUnsupportedMediaType, false,
			map[string]string{"Access-Control-Allow-Origin": page}},
		{"an OPTIONS that is no preflight", "allowed", "OPTIONS", "127.0.0.1:7411", map[string]string{"Origin": page}, http.StatusUnauthorized, false,
			map[string]string{"Access-Control-Allow-Origin": page}},
		{"preflight of another page", "allowed", "OPTIONS", "127.0.0.1:7411", with(preflight, "Origin", "https://attacker.example"), http.StatusForbidden, false, nil},
		{"request of another page", "allowed", "POST", "127.0.0.1:7411", with(good, "Origin", "https://attacker.example"), http.StatusForbidden, false, nil},
		{"a sandboxed page", "allowed", "OPTIONS", "127.0.0.1:7411", with(preflight, "Origin", "null"), http.StatusForbidden, false, nil},
		{"the allowed origin on another scheme", "allowed", "OPTIONS", "127.0.0.1:7411", with(preflight, "Origin", "http://reviews.example"), http.StatusForbidden, false, nil},
		{"preflight through a rebound name", "allowed", "OPTIONS", "reviews.example:7411", preflight, http.StatusForbidden, false, nil},
		{"preflight when no page is allowed", "none", "OPTIONS", "127.0.0.1:7411", preflight, http.StatusForbidden, false, nil},
		{"no Origin", "allowed", "POST", "127.0.0.1:7411", with(good, "Origin", ""), http.StatusOK, true, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := reached
			r := httptest.NewRequest(c.method, "/v1/review", strings.NewReader(`{}`))
			r.Host = c.host
			for k, v := range c.headers {
				if v != "" {
					r.Header.Set(k, v)
				}
			}
			w := httptest.NewRecorder()
			servers[c.server].ServeHTTP(w, r)
			if w.Code != c.want || (reached > before) != c.reaches {
				t.Fatalf("status %d, handler reached %v; want %d, %v: %s", w.Code, reached > before, c.want, c.reaches, w.Body)
			}
			got := map[string]string{}
			for k, v := range w.Header() {
				if strings.HasPrefix(k, "Access-Control-") {
					got[k] = strings.Join(v, ", ")
				}
			}
			if len(got) != len(c.cors) {
				t.Errorf("CORS headers %v, want %v", got, c.cors)
			}
			for k, v := range c.cors {
				if got[k] != v {
					t.Errorf("%s: %q, want %q", k, got[k], v)
				}
			}
			if c.server != "none" && !slices.Contains(w.Header().Values("Vary"), "Origin") {
				t.Errorf("Vary %q: the answer depends on the Origin", w.Header().Values("Vary"))
			}
		})
	}
}

// TestTwoOrigins: a request with two Origin headers is refused, whatever
// their order. The check read the first alone, so an empty one before a
// page's origin let that page's request pass as one from no page. A
// browser never sends two.
func TestTwoOrigins(t *testing.T) {
	reached := false
	h := Wrap(Config{Token: testToken}, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached = true }))
	for _, origins := range [][]string{{"", "https://attacker.example"}, {"https://attacker.example", ""}} {
		r := httptest.NewRequest("POST", "/v1/review", strings.NewReader(`{}`))
		r.Host = "127.0.0.1:7411"
		r.Header.Set("Authorization", "Bearer "+testToken)
		r.Header.Set("Content-Type", "application/json")
		r.Header["Origin"] = origins
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusBadRequest || reached || !strings.Contains(w.Body.String(), "one Origin header") {
			t.Fatalf("Origin %q: status %d, handler reached %v: %s; want 400, not reached, one Origin header", origins, w.Code, reached, w.Body)
		}
	}
}
