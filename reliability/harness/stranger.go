package harness

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Stranger is one request from anyone on the network, as a fuzz target
// makes it from its arguments: the servers' fuzz targets (serve, mcp
// --http, web) drive their whole handler chain with it in process.
type Stranger struct {
	Method, Target, Host, Origin, ContentType string
	// Length is the Content-Length sent: negative for none (chunked),
	// shorter than Body to cut it, longer for a client that stops
	// sending before its end.
	Length int64
	// Header and Value are one more header of any name.
	Header, Value string
	Body          []byte
}

// Request is the request the server's handler would be given for s, with
// the Authorization header auth when not empty; false when net/http's
// server refuses it before any handler sees it (a request line or header
// it cannot parse).
func (s Stranger) Request(ctx context.Context, auth string) (*http.Request, bool) {
	if !token(s.Method) || s.Target == "" || strings.ContainsAny(s.Target, " ") || !fieldValue(s.Target) {
		return nil, false
	}
	u, err := url.ParseRequestURI(s.Target)
	if err != nil {
		return nil, false
	}
	for _, v := range []string{s.Host, s.Origin, s.ContentType, s.Value, auth} {
		if !fieldValue(v) {
			return nil, false
		}
	}
	if s.Header != "" && !token(s.Header) {
		return nil, false
	}
	r := &http.Request{Method: s.Method, URL: u, RequestURI: s.Target, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{}, RemoteAddr: "127.0.0.1:40000"}
	if s.Header != "" {
		r.Header.Set(s.Header, s.Value)
	}
	for k, v := range map[string]string{"Host": s.Host, "Origin": s.Origin, "Content-Type": s.ContentType, "Authorization": auth} {
		if v != "" {
			r.Header.Set(k, v)
		}
	}
	// As the server reads it: the URL's host (absolute form) before the
	// header's, which the handler does not see among the headers.
	r.Host = u.Host
	if r.Host == "" {
		r.Host = r.Header.Get("Host")
	}
	r.Header.Del("Host")
	if r.Host == "" || !fieldValue(r.Host) || strings.ContainsAny(r.Host, " /\\?#@") {
		return nil, false // HTTP/1.1 needs a Host, of host characters
	}
	body := s.Body
	switch {
	case s.Length < 0:
		r.ContentLength = -1
		r.TransferEncoding = []string{"chunked"}
		r.Body = io.NopCloser(bytes.NewReader(body))
	case s.Length <= int64(len(body)):
		r.ContentLength = s.Length
		r.Header.Set("Content-Length", strconv.FormatInt(s.Length, 10))
		r.Body = io.NopCloser(bytes.NewReader(body[:s.Length]))
	default:
		r.ContentLength = s.Length
		r.Header.Set("Content-Length", strconv.FormatInt(s.Length, 10))
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{io.ErrUnexpectedEOF}))
	}
	if r.ContentLength == 0 {
		r.Body = http.NoBody
	}
	return r.WithContext(ctx), true
}

// Carries reports whether any of s's fields holds secret: an answer that
// says it back only repeats the request.
func (s Stranger) Carries(secret string) bool {
	return strings.Contains(strings.Join([]string{s.Method, s.Target, s.Host, s.Origin, s.ContentType, s.Header, s.Value, string(s.Body)}, "\n"), secret)
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// token reports whether s is an HTTP token (a method, a header name).
func token(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// fieldValue reports whether s may be a header's value: no control
// character but a tab.
func fieldValue(s string) bool {
	for _, c := range []byte(s) {
		if (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// Serve has h answer r, and fails tb when it takes longer than limit (a
// request that hangs); a panic of h is tb's.
func Serve(tb testing.TB, h http.Handler, r *http.Request, limit time.Duration) *httptest.ResponseRecorder {
	tb.Helper()
	w := httptest.NewRecorder()
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		h.ServeHTTP(w, r)
	}()
	select {
	case p := <-done:
		if p != nil {
			tb.Fatalf("%s %q (Host %q): panic: %v", r.Method, r.RequestURI, r.Host, p)
		}
	case <-time.After(limit):
		tb.Fatalf("%s %q (Host %q): no answer in %v", r.Method, r.RequestURI, r.Host, limit)
	}
	return w
}

// Answer is all an answer says: its status, headers and body.
func Answer(w *httptest.ResponseRecorder) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d\n", w.Code)
	_ = w.Header().Write(&b)
	b.Write(w.Body.Bytes())
	return b.String()
}

// Listing is every file under dir with its size, mode and the SHA-256 of
// its content, one a line: two listings differ when anything was written.
func Listing(tb testing.TB, dir string) string {
	tb.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		sum := ""
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum = fmt.Sprintf("%x", sha256.Sum256(data))
		}
		fmt.Fprintf(&b, "%s %v %d %s\n", p, fi.Mode(), fi.Size(), sum)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return b.String()
}

// Guarded is a server's whole handler chain in front of a repository, as
// its fuzz target drives it.
type Guarded struct {
	Handler http.Handler
	GitDir  string // the repository's git directory: a refused request writes nothing under it
	Token   string // never in an answer, unless the request carried it
	// Content are texts of the repository's records: a refused request's
	// answer holds none of them.
	Content []string
	// Cookie, when not empty, is the one Set-Cookie value that may hold
	// the token: given to a request that was let in (the web page's).
	Cookie string
	Limit  time.Duration // the longest an answer may take (default 30s)
}

// Try has g answer r, made of s, and fails tb when the answer is a
// server error (5xx), takes longer than g.Limit, or says the token back
// (beyond g.Cookie to a request let in); and, when r does not carry the
// token or its like (let false), when it is not refused (but a
// preflight), says any of g.Content or anything under g.GitDir changed.
func (g Guarded) Try(tb testing.TB, s Stranger, r *http.Request, let bool) *httptest.ResponseRecorder {
	tb.Helper()
	limit := g.Limit
	if limit == 0 {
		limit = 30 * time.Second
	}
	var before string
	if !let {
		before = Listing(tb, g.GitDir)
	}
	w := Serve(tb, g.Handler, r, limit)
	ans := Answer(w)
	if w.Code >= 500 {
		tb.Errorf("%s %q (Host %q): status %d:\n%s", r.Method, r.RequestURI, r.Host, w.Code, ans)
	}
	shown := ans
	if g.Cookie != "" && let {
		shown = strings.ReplaceAll(shown, "Set-Cookie: "+g.Cookie+"\r\n", "")
	}
	if !s.Carries(g.Token) && strings.Contains(shown, g.Token) {
		tb.Errorf("%s %q (Host %q): the answer holds the token:\n%s", r.Method, r.RequestURI, r.Host, ans)
	}
	if let {
		return w
	}
	// A preflight is answered without the token, as browsers send none,
	// and says nothing else; every other request without it is refused.
	if preflight := r.Method == http.MethodOptions && w.Code == http.StatusNoContent && w.Body.Len() == 0; w.Code < 400 && !preflight {
		tb.Errorf("%s %q (Host %q) without the token: answered %d:\n%s", r.Method, r.RequestURI, r.Host, w.Code, ans)
	}
	for _, c := range g.Content {
		if !s.Carries(c) && strings.Contains(ans, c) {
			tb.Errorf("%s %q (Host %q), refused: the answer holds %q:\n%s", r.Method, r.RequestURI, r.Host, c, ans)
		}
	}
	if after := Listing(tb, g.GitDir); after != before {
		tb.Errorf("%s %q (Host %q), refused: the repository changed:\n%s", r.Method, r.RequestURI, r.Host, LineDiff(before, after))
	}
	return w
}

// LineDiff is the lines only one of a and b holds, marked - and +.
func LineDiff(a, b string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	ina, inb := in(a), in(b)
	var out strings.Builder
	for _, l := range strings.Split(a, "\n") {
		if !inb[l] {
			out.WriteString("- " + l + "\n")
		}
	}
	for _, l := range strings.Split(b, "\n") {
		if !ina[l] {
			out.WriteString("+ " + l + "\n")
		}
	}
	return out.String()
}
