package guard

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Config is what the guard lets through.
type Config struct {
	// Token is the bearer token every request must carry; it must not be
	// empty.
	Token string
	// AllowHosts are Host names (with or without a port) accepted beyond
	// the loopback ones.
	AllowHosts []string
	// AllowOrigins are exact Origin values accepted (scheme://host[:port]):
	// the web pages allowed to send requests, with the token, and to read
	// the answers. Their preflights are answered, and every answer to
	// them names the origin (CORS); no other origin gets either.
	AllowOrigins []string
	// Methods are the methods an allowed page may use, as a preflight
	// answers (default POST).
	Methods []string
	// Headers are the request headers an allowed page may send beyond
	// Authorization and Content-Type, as a preflight answers.
	Headers []string
	// Expose are the response headers an allowed page may read beyond
	// the ones every page may.
	Expose []string
	// MaxInFlight bounds the requests served at once (default 4).
	MaxInFlight int
	// RetryAfter is what a request past MaxInFlight is told (default 5s).
	RetryAfter time.Duration
	// MaxBody caps a request body in bytes (default 128 KiB).
	MaxBody int64
	// Deadline bounds one request's work, through its context (default
	// 4 minutes: under Server's write timeout, so the answer is written).
	Deadline time.Duration
	// NoBody are methods accepted without a Content-Type, provided they
	// carry no body (the MCP streamable transport's GET and DELETE): the
	// content type is what keeps a web page's simple POST out, and a
	// request without a body has nothing to type. The other checks apply.
	NoBody []string
}

// Wrap returns next behind the guard.
func Wrap(cfg Config, next http.Handler) http.Handler {
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = 4
	}
	if cfg.RetryAfter <= 0 {
		cfg.RetryAfter = 5 * time.Second
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = 128 << 10
	}
	if cfg.Deadline <= 0 {
		cfg.Deadline = 4 * time.Minute
	}
	if len(cfg.Methods) == 0 {
		cfg.Methods = []string{http.MethodPost}
	}
	slots := make(chan struct{}, cfg.MaxInFlight)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(cfg.AllowOrigins) > 0 {
			// What is answered depends on the Origin: a cache must not
			// hand one page's answer to another.
			w.Header().Add("Vary", "Origin")
		}
		if !HostAllowed(r.Host, cfg.AllowHosts) {
			refuse(w, http.StatusForbidden, "the Host header names no loopback host: add it with --allow-host if it is yours")
			return
		}
		if len(r.Header.Values("Origin")) > 1 {
			// Get reads the first alone: an empty one before a page's
			// origin passed that page as no page. Browsers send one.
			refuse(w, http.StatusBadRequest, "send at most one Origin header")
			return
		}
		if o := r.Header.Get("Origin"); o != "" {
			if !contains(cfg.AllowOrigins, o) {
				refuse(w, http.StatusForbidden, "requests from web pages are refused: add the origin with --allow-origin if it is yours")
				return
			}
			if crossOrigin(w, r, cfg) {
				return // a preflight: answered without the token, as browsers send none
			}
		}
		if !authorized(r.Header.Get("Authorization"), cfg.Token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="git reason"`)
			refuse(w, http.StatusUnauthorized, "send the server's token as 'Authorization: Bearer <token>'")
			return
		}
		if contains(cfg.NoBody, r.Method) && r.Header.Get("Content-Type") == "" {
			if r.ContentLength != 0 {
				refuse(w, http.StatusUnsupportedMediaType, "a "+r.Method+" request carries no body")
				return
			}
		} else if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			refuse(w, http.StatusUnsupportedMediaType, "send Content-Type: application/json")
			return
		}
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
		default:
			w.Header().Set("Retry-After", strconv.Itoa(int((cfg.RetryAfter+time.Second-1)/time.Second)))
			refuse(w, http.StatusServiceUnavailable, "the server is busy: try again later")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, cfg.MaxBody)
		ctx, cancel := context.WithTimeout(r.Context(), cfg.Deadline)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// crossOrigin gives an allowed page's request the CORS headers that let
// the page read the answer, and answers it when it is a preflight (an
// OPTIONS naming the method to come), which it reports. The answer names
// the one origin, never "*", and never allows credentials: the page
// sends the token itself, as the Authorization header the preflight
// allows, and no cookie or TLS client certificate of the browser's
// counts here. A preflight does nothing and reveals nothing but the
// methods and headers: the request that follows passes every check.
func crossOrigin(w http.ResponseWriter, r *http.Request, cfg Config) bool {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", r.Header.Get("Origin"))
	if len(cfg.Expose) > 0 {
		h.Set("Access-Control-Expose-Headers", strings.Join(cfg.Expose, ", "))
	}
	if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
		return false
	}
	h.Add("Vary", "Access-Control-Request-Method")
	h.Add("Vary", "Access-Control-Request-Headers")
	h.Set("Access-Control-Allow-Methods", strings.Join(cfg.Methods, ", "))
	h.Set("Access-Control-Allow-Headers", strings.Join(append([]string{"Authorization", "Content-Type"}, cfg.Headers...), ", "))
	h.Set("Access-Control-Max-Age", "600")
	if r.Header.Get("Access-Control-Request-Private-Network") == "true" {
		// A page on a public address asking a loopback server: the user
		// named this origin, so it may (Private Network Access).
		h.Set("Access-Control-Allow-Private-Network", "true")
	}
	w.WriteHeader(http.StatusNoContent)
	return true
}

// ListenHint ends the error of an address a server cannot listen on.
const ListenHint = "give HOST:PORT, such as 127.0.0.1:0 (port 0 picks a free one)"

// ListenFailed says why a server cannot listen on addr, as typed, in a
// person's terms: net.Listen's error repeats the address and names the
// system call ("listen tcp 127.0.0.1:7411: bind: address already in
// use"); an address in use, the one met most (a second serve on the
// default port), says so and what to do.
func ListenFailed(addr string, err error) string {
	var addrErr *net.AddrError
	var dnsErr *net.DNSError
	var why string
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return fmt.Sprintf("listen on %s: the address is in use (another server, perhaps another git reason, listens there): give another port, such as 127.0.0.1:0 (port 0 picks a free one)", addr)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		why = "this machine has no such address"
	case errors.Is(err, syscall.EACCES):
		why = "permission denied (a port below 1024 needs privileges)"
	case errors.As(err, &dnsErr):
		why = fmt.Sprintf("no such host %q", dnsErr.Name)
	case errors.As(err, &addrErr):
		why = addrErr.Err // "missing port in address", "invalid port"
	default:
		why = err.Error()
		var opErr *net.OpError
		if errors.As(err, &opErr) && opErr.Err != nil {
			why = opErr.Err.Error()
		}
	}
	return fmt.Sprintf("listen on %s: %s: %s", addr, why, ListenHint)
}

// Limits bound each connection of a server, so that a client that is slow
// or silent cannot hold one: API and Page are the one place where the
// servers' are chosen, Run the one place that serves with them. The
// number of connections is not bounded: one that sends nothing costs a
// descriptor and about 7 KB until ReadHeader cuts it (bench/connflood),
// and past a bound of N connections, N silent ones would keep honest
// clients waiting, where without one they are answered until the
// process's descriptors run out.
type Limits struct {
	ReadHeader time.Duration // from the connection's start (or the previous answer's end) to the end of a request's headers
	Read       time.Duration // the same to the end of its body
	Write      time.Duration // from the end of its headers to the end of its answer
	Idle       time.Duration // a kept-alive connection waiting for its next request
	HeaderSize int           // bytes of a request's headers
}

// API bounds the connections of serve and mcp --http: their answers may
// take an advisor's minutes, under Write (Config.Deadline, 4 minutes, is
// under it so that the answer is written).
var API = Limits{ReadHeader: 10 * time.Second, Read: 30 * time.Second,
	Write: 5 * time.Minute, Idle: time.Minute, HeaderSize: 32 << 10}

// Page bounds the connections of web: its answers are pages read from the
// repository, for which a minute is ample, and it never had an idle
// timeout of its own (net/http then uses Read, which Idle here says).
var Page = Limits{ReadHeader: 10 * time.Second, Read: 30 * time.Second,
	Write: time.Minute, Idle: 30 * time.Second, HeaderSize: 16 << 10}

// server is the http.Server for h, bounded by l: every server git reason
// runs is made here (policy's TestServersInOnePlace).
func server(h http.Handler, l Limits) *http.Server {
	return &http.Server{Handler: h,
		ReadHeaderTimeout: l.ReadHeader, ReadTimeout: l.Read,
		WriteTimeout: l.Write, IdleTimeout: l.Idle,
		MaxHeaderBytes: l.HeaderSize}
}

// Run serves h on ln, bounded by l (API or Page), until ctx ends, then
// shuts down and returns nil once the requests under way have ended (see
// stopGrace). With a certificate and key it speaks HTTPS only.
func Run(ctx context.Context, ln net.Listener, h http.Handler, l Limits, tlsCert, tlsKey string) error {
	return run(ctx, ln, h, l, tlsCert, tlsKey, stopGrace)
}

// stopGrace is how long the requests under way when a server stops are
// given to end by themselves. Then their contexts end (a git process one
// waits for is interrupted, an advisor's call cancelled), and they are
// given as long again to unwind and release what they hold; one still
// running after that is cut as the process ends.
const stopGrace = 5 * time.Second

// run is Run with the grace given.
func run(ctx context.Context, ln net.Listener, h http.Handler, l Limits, tlsCert, tlsKey string, grace time.Duration) error {
	srv := server(h, l)
	requests, cut := context.WithCancel(context.Background())
	defer cut()
	srv.BaseContext = func(net.Listener) context.Context { return requests }
	served, shutDown := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(shutDown)
		select {
		case <-ctx.Done():
		case <-served:
			return
		}
		for i := 0; i < 2; i++ {
			sctx, cancel := context.WithTimeout(context.Background(), grace)
			err := srv.Shutdown(sctx)
			cancel()
			if err == nil {
				return
			}
			cut()
		}
	}()
	var err error
	if tlsCert != "" {
		err = srv.ServeTLS(ln, tlsCert, tlsKey)
	} else {
		err = srv.Serve(ln)
	}
	// Serve returns as soon as Shutdown begins: the requests under way
	// are waited for here, else the process ended with a write cut
	// wherever it was.
	close(served)
	<-shutDown
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		if tlsCert != "" {
			return fmt.Errorf("serve TLS with %s and %s: %w", tlsCert, tlsKey, err)
		}
		return err
	}
	return nil
}

// Exposure returns one warning line for each thing the user must know
// about a server listening on addr: beyond loopback in clear, the token
// and every request cross the network readable; and only loopback Host
// names are accepted until the machine's name is allowed. A listener on
// every interface is named so ("every interface (port 7411)"), never by
// the address no client can type ([::]:7411).
func Exposure(addr net.Addr, tls bool, allowHosts []string) []string {
	if IsLoopback(addr) {
		return nil
	}
	var out []string
	if !tls {
		where := addr.String() + " beyond loopback"
		if port, ok := everyInterface(addr); ok {
			where = "every interface (port " + port + ")"
		}
		out = append(out, fmt.Sprintf("warning: serving on %s without TLS: the token and every request cross the network in clear; use --tls-cert and --tls-key", where))
	}
	if len(allowHosts) == 0 {
		// The example is what a client elsewhere types: the address
		// listened on when there is one (the URL printed names it), else
		// this machine's name.
		example := ""
		if ta, ok := addr.(*net.TCPAddr); ok && !ta.IP.IsUnspecified() {
			example = " (such as --allow-host " + ta.IP.String() + ")"
		} else if name, err := os.Hostname(); err == nil && name != "" && !strings.ContainsAny(name, " \t/@") {
			example = " (such as --allow-host " + name + ")"
		}
		out = append(out, "warning: only loopback Host names are accepted: name this machine with --allow-host"+example+" for clients elsewhere")
	}
	return out
}

// Reach is where a client reaches path on a server listening on addr, for
// the line that says where it serves: the URL, or, on every interface
// (an address given with no host, 0.0.0.0 or ::, which no client can
// type), the port with the URL from this machine (127.0.0.1, which a
// listener on every interface answers too) and, when a host name is
// allowed, the URL through the first one from elsewhere.
func Reach(addr net.Addr, scheme, path string, allowHosts []string) string {
	port, ok := everyInterface(addr)
	if !ok {
		return scheme + "://" + addr.String() + path
	}
	out := fmt.Sprintf("every interface, port %s: %s://%s%s from this machine", port, scheme, net.JoinHostPort("127.0.0.1", port), path)
	if len(allowHosts) > 0 {
		host := allowHosts[0]
		if _, _, err := net.SplitHostPort(host); err != nil {
			host = net.JoinHostPort(strings.Trim(host, "[]"), port)
		}
		out += fmt.Sprintf(", %s://%s%s from elsewhere", scheme, host, path)
	}
	return out
}

// everyInterface returns addr's port when addr listens on every
// interface.
func everyInterface(addr net.Addr) (string, bool) {
	ta, ok := addr.(*net.TCPAddr)
	if !ok || !ta.IP.IsUnspecified() {
		return "", false
	}
	return strconv.Itoa(ta.Port), true
}

// OnLoopback is listen with 127.0.0.1 for a missing host: ":7412" asks
// for a port, and a server meant for this machine listens on loopback
// unless every interface is named (0.0.0.0:7412).
func OnLoopback(listen string) string {
	if host, port, err := net.SplitHostPort(listen); err == nil && host == "" {
		return net.JoinHostPort("127.0.0.1", port)
	}
	return listen
}

// authorized compares the bearer token in constant time; only the Bearer
// scheme is accepted.
func authorized(header, token string) bool {
	got, ok := strings.CutPrefix(header, "Bearer ")
	if !ok || token == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}

// HostAllowed reports whether a request's Host header names this machine
// (DNS rebinding is refused by it). It accepts localhost, loopback addresses, and the allowed
// names, with or without a port.
func HostAllowed(host string, allowed []string) bool {
	if host == "" {
		return false
	}
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.TrimSuffix(strings.Trim(name, "[]"), ".")
	if strings.EqualFold(name, "localhost") {
		return true
	}
	if ip := net.ParseIP(name); ip != nil && ip.IsLoopback() {
		return true
	}
	for _, a := range allowed {
		if strings.EqualFold(a, host) || strings.EqualFold(a, name) {
			return true
		}
	}
	return false
}

// IsLoopback reports whether addr (an address the server listens on)
// is a loopback one.
func IsLoopback(addr net.Addr) bool {
	ta, ok := addr.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

func refuse(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}
