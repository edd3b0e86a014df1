package web

import (
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"git-reason/cmd/git-reason/internal/guard"
)

// cookieFor is the name of the cookie that holds the token of the page
// served on port, once the URL's token or code has been accepted. Each
// server has its own: a browser sends a host's cookies to every port of
// it, so under one name the page of a second repository (another 'git
// reason web', another port) replaced the first one's token, and the
// first page answered 403 from then on, its live poll too. The port is
// no secret, the token is: the name never holds it. A page served again
// on the same port replaces its own cookie.
func cookieFor(port int) string { return "git_reason_token_" + strconv.Itoa(port) }

// protect wraps h with the checks every request passes: a loopback Host, a
// safe method, and the token from the URL or the cookie, or a one-time
// code from the URL. An accepted token or code is moved to an HttpOnly
// cookie holding the token, and the browser is sent to the same page
// without it, so that neither stays in history or links.
func protect(k *keys, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secureHeaders(w)
		if !guard.HostAllowed(r.Host, nil) {
			http.Error(w, "refused: the Reasoning page answers only to localhost and loopback addresses", http.StatusForbidden)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "the Reasoning page is read-only", http.StatusMethodNotAllowed)
			return
		}
		q := r.URL.Query()
		switch {
		case q.Has("code"):
			if err := k.redeem(q.Get("code")); err != nil {
				http.Error(w, err.Error(), http.StatusForbidden)
				return
			}
		case q.Has("token"):
			if !k.isToken(q.Get("token")) {
				http.Error(w, "wrong token: open the address 'git reason web' printed", http.StatusForbidden)
				return
			}
		default:
			if c, err := r.Cookie(k.cookie); err != nil || !k.isToken(c.Value) {
				http.Error(w, "token required: open the address 'git reason web' printed", http.StatusForbidden)
				return
			}
			h.ServeHTTP(w, r)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: k.cookie, Value: k.token, Path: "/",
			HttpOnly: true, SameSite: http.SameSiteStrictMode})
		q.Del("code")
		q.Del("token")
		w.Header().Set("Location", localPath(r.URL.Path, q.Encode()))
		w.WriteHeader(http.StatusSeeOther)
	})
}

// localPath is a Location on this server for the decoded path p and the
// encoded query: p is cleaned to one leading slash and re-encoded, so that
// a request target such as //evil.example/x, /\evil.example or
// /%2F%2Fevil.example can never become a redirect to another origin
// (browsers read "//host" and "/\host" as a host). Anything else that
// would not stay a path on this origin goes to the start page.
func localPath(p, query string) string {
	p = path.Clean("/" + strings.ReplaceAll(p, `\`, "/"))
	u := url.URL{Path: p, RawQuery: query}
	loc := u.String()
	if !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") {
		return "/"
	}
	return loc
}

// secureHeaders holds the browser to this server's own resources, keeps
// the page out of frames and the token out of Referer headers.
func secureHeaders(w http.ResponseWriter) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "+
		"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Cache-Control", "no-store")
}
