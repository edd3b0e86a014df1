package web

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/reliability/harness"
)

// TestGuard: a request reaches a page only with a loopback Host, a safe
// method and the token (from the URL, then the cookie); every answer
// carries the strict policy.
func TestGuard(t *testing.T) {
	const token = "s3cret"
	h := handler(func() (*ops.Session, error) { return nil, errors.New("no repository here") }, newKeys(token, cookieFor(9)))
	cookie := "git_reason_token_9=" + token
	cases := []struct {
		name, method, host, target, cookie string
		want                               int
	}{
		{"no token", "GET", "127.0.0.1:9", "/", "", http.StatusForbidden},
		{"wrong token", "GET", "127.0.0.1:9", "/?token=guess", "", http.StatusForbidden},
		{"wrong cookie", "GET", "127.0.0.1:9", "/", "git_reason_token_9=guess", http.StatusForbidden},
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
				if sc := w.Header().Get("Set-Cookie"); !strings.Contains(sc, cookie) || !strings.Contains(sc, "HttpOnly") || !strings.Contains(sc, "SameSite=Strict") ||
					!strings.Contains(sc, "Path=/") || strings.Contains(sc, "Expires") || strings.Contains(sc, "Max-Age") {
					t.Errorf("Set-Cookie %q", sc)
				}
			}
		})
	}
}

// TestOneTimeCode: a code opens the page once, within its lifetime, and
// sets the token's cookie; used again, expired or wrong, it is refused.
func TestOneTimeCode(t *testing.T) {
	const token = "s3cret"
	k := newKeys(token, cookieFor(9))
	now := time.Unix(1e9, 0)
	k.now = func() time.Time { return now }
	h := handler(func() (*ops.Session, error) { return nil, errors.New("no repository here") }, k)
	get := func(target string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", target, nil)
		r.Host = "127.0.0.1:9"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	code, err := k.mint()
	if err != nil {
		t.Fatal(err)
	}
	wrong := code[:len(code)-1] + "0"
	if strings.HasSuffix(code, "0") {
		wrong = code[:len(code)-1] + "1"
	}
	if w := get("/?code=" + wrong); w.Code != http.StatusForbidden {
		t.Errorf("a wrong code: %d", w.Code)
	}
	w := get("/task/T-1?code=" + code)
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/task/T-1" ||
		!strings.Contains(w.Header().Get("Set-Cookie"), "git_reason_token_9="+token) {
		t.Fatalf("first use: %d, Location %q, Set-Cookie %q", w.Code, w.Header().Get("Location"), w.Header().Get("Set-Cookie"))
	}
	if w := get("/?code=" + code); w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "used already") {
		t.Errorf("second use: %d %s", w.Code, w.Body)
	}
	late, _ := k.mint()
	now = now.Add(codeLifetime)
	if w := get("/?code=" + late); w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "expired") {
		t.Errorf("expired: %d %s", w.Code, w.Body)
	}
	if w := get("/?code="); w.Code != http.StatusForbidden {
		t.Errorf("empty code: %d", w.Code)
	}
}

// TestStaticFilesOnly: the assets the pages name are served, no template
// is, and no directory is listed: /static/ is not found (the mux sends /static/.
// and the like there).
func TestStaticFilesOnly(t *testing.T) {
	const token = "s3cret"
	h := handler(func() (*ops.Session, error) { return nil, errors.New("no repository here") }, newKeys(token, cookieFor(9)))
	get := func(target string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", target, nil)
		r.Host = "127.0.0.1:9"
		r.Header.Set("Cookie", "git_reason_token_9="+token)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	for _, file := range []string{"/static/live.js", "/static/style.css"} {
		if w := get(file); w.Code != http.StatusOK || w.Body.Len() == 0 {
			t.Errorf("%s: %d, %d bytes", file, w.Code, w.Body.Len())
		}
	}
	if w := get("/static/"); w.Code != http.StatusNotFound || strings.Contains(w.Body.String(), "live.js") {
		t.Errorf("/static/: %d, want 404 and no listing: %s", w.Code, w.Body)
	}
	// A name no file system holds is not found either, not a server error.
	for _, bad := range []string{"/static/%E9.js", "/static/%FF%FE.css"} {
		if w := get(bad); w.Code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404: %s", bad, w.Code, w.Body)
		}
	}
	// The pages' templates are the server's, not assets.
	for _, tmpl := range []string{"/static/layout.html", "/static/tasks.html"} {
		if w := get(tmpl); w.Code != http.StatusNotFound || strings.Contains(w.Body.String(), "{{") {
			t.Errorf("%s: %d, want 404: %.100s", tmpl, w.Code, w.Body)
		}
	}
}

// FuzzWeb drives the Reasoning page's whole handler, in front of a
// repository of three tasks, with any request: any method, target, Host,
// Origin, Content-Type, Content-Length, header and body, with the token
// in the URL or the cookie, a wrong one, a one-time code or none
// (credential 0 to 5). No request makes it panic, hang or answer a
// server error, or says the token back (but in the cookie of a request
// let in); one without the token or a code sees nothing of the
// repository and writes nothing to it.
func FuzzWeb(f *testing.F) {
	harness.NeedGit(f)
	home, dir := f.TempDir(), f.TempDir()
	if err := harness.WriteHome(home, ""); err != nil {
		f.Fatal(err)
	}
	for k, v := range map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM": "1", "CI": ""} {
		f.Setenv(k, v)
	}
	harness.Git(f, dir, "init", "-q")
	harness.WriteFile(f, filepath.Join(dir, "a.go"), "package a\n")
	harness.Git(f, dir, "add", "a.go")
	harness.Git(f, dir, "commit", "-q", "-m", "a for T-000001")
	if err := harness.BulkTasks(context.Background(), dir, "T-", 3); err != nil {
		f.Fatal(err)
	}
	sess, err := ops.Open(context.Background(), ops.Options{Dir: dir, Resident: true})
	if err != nil {
		f.Fatal(err)
	}
	const token = "0123456789abcdef0123456789abcdef"
	k := newKeys(token, cookieFor(9))
	g := harness.Guarded{Handler: handler(func() (*ops.Session, error) { return sess, nil }, k), GitDir: filepath.Join(dir, ".git"),
		Token: token, Content: []string{"bulk subject", "which way for", "T-000"},
		Cookie: cookieFor(9) + "=" + token + "; Path=/; HttpOnly; SameSite=Strict"}
	for _, target := range []string{"/", "/task/T-000001", "/handover", "/context", "/head", "/advisors", "/doctor",
		"/static/live.js", "/task/T-000001?page=2", "//evil.example/x", "/%2F%2Fevil.example", "/context?range=HEAD~1..HEAD",
		"/handover?since=2020-01-01", "/head?task=T-000002", "/?phase=planned"} {
		for cred := range uint8(6) {
			f.Add("GET", target, "127.0.0.1:9", "", "", int64(-1), "", "", []byte(nil), cred)
		}
	}
	f.Add("POST", "/", "localhost", "http://evil.example", "application/json", int64(2), "X-Forwarded-For", "1.2.3.4", []byte("{}"), uint8(3))
	f.Add("HEAD", "http://127.0.0.1/task/T-000002", "evil.example", "", "", int64(9), "Accept", "text/html", []byte("x"), uint8(1))
	f.Fuzz(func(t *testing.T, method, target, host, origin, ctype string, length int64, header, value string, body []byte, cred uint8) {
		s := harness.Stranger{Method: method, Target: target, Host: host, Origin: origin, ContentType: ctype,
			Length: length, Header: header, Value: value, Body: body}
		sep := "?"
		if strings.Contains(target, "?") {
			sep = "&"
		}
		switch cred % 6 {
		case 1:
			s.Target += sep + "token=" + token
		case 2:
			s.Target += sep + "token=" + strings.ToUpper(token)
		case 5:
			code, err := k.mint()
			if err != nil {
				t.Fatal(err)
			}
			s.Target += sep + "code=" + code
		}
		r, ok := s.Request(context.Background(), "")
		if !ok {
			return
		}
		switch cred % 6 {
		case 3:
			r.Header.Add("Cookie", cookieFor(9)+"="+token)
		case 4:
			r.Header.Add("Cookie", cookieFor(9)+"=guess")
		}
		g.Try(t, harness.Stranger{Method: method, Target: target, Host: host, Origin: origin, ContentType: ctype,
			Header: header, Value: value, Body: body}, r, cred%6 == 1 || cred%6 == 3 || cred%6 == 5)
	})
}
