package cli

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
)

type serveOptions struct {
	base
	Listen string // ADDR to listen on
	httpOptions
}

// httpOptions are the rules of a server that answers HTTP beyond this
// process, the same for serve and mcp --http: the token, the hosts and
// origins accepted, how many requests at once, and TLS.
type httpOptions struct {
	TokenVar     string // the variable holding the token clients must send
	AllowHosts   cli.StringSlice
	AllowOrigins cli.StringSlice
	MaxInFlight  int
	TLSCert      string
	TLSKey       string
}

// flags declares httpOptions' flags. when prefixes each usage ("with
// --http: " where they apply to one mode only); who names the clients;
// tokenVar and tokenFile are the token's variable and the file of the one
// generated when it is unset; maxInFlight is --max-inflight's default.
func (h *httpOptions) flags(when, who, tokenVar, tokenFile string, maxInFlight int) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "token-env", Value: tokenVar, Usage: when + "the environment `VARIABLE` holding the token " + who + " must send (unset: a generated token in .git/reason/" + tokenFile + ")", Destination: &h.TokenVar},
		&cli.StringSliceFlag{Name: "allow-host", Usage: when + "accept requests naming `HOST` (repeatable; loopback names are always accepted)", Destination: &h.AllowHosts},
		&cli.StringSliceFlag{Name: "allow-origin", Usage: when + "let the web page `ORIGIN` (scheme://host[:port], repeatable) call from a browser and read the answers (CORS; it still sends the token)", Destination: &h.AllowOrigins},
		&cli.IntFlag{Name: "max-inflight", Value: maxInFlight, Usage: when + "answer at most `N` requests at once (503 past it)", Destination: &h.MaxInFlight},
		&cli.StringFlag{Name: "tls-cert", Usage: when + "serve HTTPS with the PEM certificate `FILE`", Destination: &h.TLSCert},
		&cli.StringFlag{Name: "tls-key", Usage: when + "the certificate's PEM private key `FILE`", Destination: &h.TLSKey},
	}
}

// request is the ServeRequest that serves on listen under these rules,
// saying on errw where it serves what; a --max-inflight below 1, a
// --token-env that cannot name a variable, and an --allow-origin or
// --allow-host that no request can carry, are refused.
func (h *httpOptions) request(listen, what string, errw io.Writer) (*ops.ServeRequest, error) {
	if h.MaxInFlight < 1 {
		return nil, ops.Usage("--max-inflight %d: give at least 1", h.MaxInFlight)
	}
	if !isVariableName(h.TokenVar) {
		return nil, ops.Usage("--token-env %q: give the name of the environment variable holding the token (letters, digits and _)", h.TokenVar)
	}
	// The guard compares an Origin and a Host with the values given: one
	// written otherwise than a browser sends it would let nothing through,
	// and "null" (the origin of any sandboxed page) everything.
	for _, o := range h.AllowOrigins.Value() {
		if u, err := url.Parse(o); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || o != u.Scheme+"://"+u.Host {
			return nil, ops.Usage("--allow-origin %q: give the origin as a browser sends it, scheme://host[:port] with no path (https://reviews.example)", o)
		}
	}
	for _, a := range h.AllowHosts.Value() {
		if a == "" || strings.ContainsAny(a, "/@ \t") {
			return nil, ops.Usage("--allow-host %q: give a host name, with or without its port (reviews.example, reviews.example:7411)", a)
		}
	}
	return &ops.ServeRequest{Listen: listen, TokenVar: h.TokenVar,
		AllowHosts: h.AllowHosts.Value(), AllowOrigins: h.AllowOrigins.Value(), MaxInFlight: h.MaxInFlight,
		TLSCert: h.TLSCert, TLSKey: h.TLSKey,
		Note:  func(line string) { fmt.Fprintf(errw, "git reason: %s\n", line) },
		Ready: func(url string) { fmt.Fprintf(errw, "git reason: serving %s on %s\n", what, url) }}, nil
}

func serveCommand() *cli.Command {
	o := &serveOptions{}
	return &cli.Command{
		Description: "Every request needs the token ('Authorization: Bearer <token>'), loopback included: the value of\n" +
			"the --token-env variable (16 characters at least), or one generated once and kept in\n" +
			".git/reason/serve-token (mode 0600).\n" +
			"Requests must be application/json, name a loopback Host (or one given with --allow-host) and carry\n" +
			"no Origin header: web pages cannot spend your advisors. A page on an origin given with --allow-origin\n" +
			"can, from a browser, with the token: its preflight is answered and the answers name its origin.\n" +
			"Requests are answered by this repository's own advisors, never by its peers. An advisor that runs a\n" +
			"command here (transport cli) answers a peer only when its declaration says answers_peers: true, and then\n" +
			"runs in an empty temporary directory: a question could ask it to read this machine's files. With none\n" +
			"that may answer ('git reason advisors' says why), serve warns when it starts: every request would be\n" +
			"answered as unavailable, with a note saying why.",
		Flags: slices.Concat(
			[]cli.Flag{&cli.StringFlag{Name: "listen", Value: "127.0.0.1:7411", Usage: "`ADDR` to listen on (no host, as in :7411: every interface)", Destination: &o.Listen}},
			o.flags("", "peers", "GIT_REASON_PEER_TOKEN", "serve-token", 4),
			[]cli.Flag{profileFlag()}),
		Action: noArgs(&o.base, func(c *cli.Context) error {
			ctx, stop := untilStopped(c.Context)
			defer stop()
			return runServe(ctx, o)
		}),
	}
}

// runServe serves until ctx ends (Ctrl-C, SIGTERM), then exits 0.
func runServe(ctx context.Context, o *serveOptions) error {
	req, err := o.request(o.Listen, "reviews", o.Err)
	if err != nil {
		return err
	}
	sess, err := o.Open()
	if err != nil {
		return err
	}
	return o.Net.Peers(ctx, sess, *req)
}

// isVariableName reports whether s can name an environment variable as a
// shell sets one: a letter or _, then letters, digits and _.
func isVariableName(s string) bool {
	for i, r := range s {
		if r != '_' && !('A' <= r && r <= 'Z' || 'a' <= r && r <= 'z') && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return s != ""
}
