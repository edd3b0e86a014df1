package web

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"git-reason/cmd/git-reason/internal/ops"
)

// TestGuard: a request reaches a page only with a loopback Host, a safe
// method and the token (from the URL, then the cookie); every answer
// carries the strict policy.
func TestGuard(t *testing.T) {
	const token = "s3cret"
	h := Handler(func() (*ops.Session, error) { return nil, errors.New("no repository here") }, token)
	cookie := "git_reason_token=" + token
	cases := []struct {
		name, method, host, target, cookie string
		want                               int
	}{
		{"no token", "GET", "127.0.0.1:9", "/", "", http.StatusForbidden},
		{"wrong token", "GET", "127.0.0.1:9", "/?token=guess", "", http.StatusForbidden},
		{"wrong cookie", "GET", "127.0.0.1:9", "/", "git_reason_token=guess", http.StatusForbidden},
		{"token in URL", "GET", "127.0.0.1:9", "/task/T-1?token=" + token, "", http.StatusSeeOther},
		{"cookie", "GET", "127.0.0.1:9", "/favicon.ico", cookie, http.StatusNoContent},
		{"localhost", "GET", "localhost:9", "/favicon.ico", cookie, http.StatusNoContent},
		{"ipv6 loopback", "GET", "[::1]:9", "/favicon.ico", cookie, http.StatusNoContent},
		{"rebinding name", "GET", "evil.example:9", "/favicon.ico", cookie, http.StatusForbidden},
		{"rebinding with token", "GET", "evil.example", "/?token=" + token, "", http.StatusForbidden},
		{"other address", "GET", "192.168.1.5:9", "/favicon.ico", cookie, http.StatusForbidden},
		{"write method", "POST", "127.0.0.1:9", "/", cookie, http.StatusMethodNotAllowed},
		{"page reaches the repository", "GET", "127.0.0.1:9", "/", cookie, http.StatusInternalServerError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(c.method, c.target, nil)
			r.Host = c.host
			if c.cookie != "" {
				r.Header.Set("Cookie", c.cookie)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != c.want {
				t.Fatalf("status %d, want %d: %s", w.Code, c.want, w.Body)
			}
			if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
				t.Errorf("Content-Security-Policy %q", csp)
			}
			if c.want == http.StatusSeeOther {
				if loc := w.Header().Get("Location"); loc != "/task/T-1" {
					t.Errorf("redirect to %q, want the page without its token", loc)
				}
				if sc := w.Header().Get("Set-Cookie"); !strings.Contains(sc, cookie) || !strings.Contains(sc, "HttpOnly") || !strings.Contains(sc, "SameSite=Strict") {
					t.Errorf("Set-Cookie %q", sc)
				}
			}
		})
	}
}
