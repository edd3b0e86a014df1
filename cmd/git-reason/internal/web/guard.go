package web

import (
	"crypto/subtle"
	"net/http"
	"net/url"

	"git-reason/cmd/git-reason/internal/guard"
)

// cookieName holds the token once the URL's token has been accepted.
const cookieName = "git_reason_token"

// protect wraps h with the checks every request passes: a loopback Host, a
// safe method, and the token from the URL or the cookie. A correct token
// in the URL is moved to an HttpOnly cookie and the browser is sent to the
// same address without it, so the token stays out of history and links.
func protect(token string, h http.Handler) http.Handler {
	same := func(got string) bool {
		return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
	}
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
		if q := r.URL.Query(); q.Has("token") {
			if !same(q.Get("token")) {
				http.Error(w, "wrong token: open the address 'git reason web' printed", http.StatusForbidden)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: cookieName, Value: token, Path: "/",
				HttpOnly: true, SameSite: http.SameSiteStrictMode})
			q.Del("token")
			u := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
			http.Redirect(w, r, u.String(), http.StatusSeeOther)
			return
		}
		if c, err := r.Cookie(cookieName); err != nil || !same(c.Value) {
			http.Error(w, "token required: open the address 'git reason web' printed", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
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
