package serving

import (
	"context"
	"crypto/tls"
	"encoding/pem"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"git-reason/advisor/transport"
	"git-reason/advisor/transport/httpwire"
	"git-reason/cmd/git-reason/internal/guard"
	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/gitstore/git"
)

// Peers answers peers' review requests with this repository's own
// available advisors until ctx ends; then it shuts down and returns nil.
// A token is always required, loopback included: the variable named by
// TokenVar when set, else a token generated once and kept (mode 0600) in
// e.ServeTokenPath(). Every request passes the guard (host, origin, token,
// content type, concurrency, size). A request may be as large as the
// endpoint takes (transport.PeerRequestLimit): it carries the evidence's
// material within the asking side's budget for a peer (400 KB by default,
// share/context.yaml), so the guard must not refuse what the endpoint
// would read.
func Peers(ctx context.Context, e *ops.Session, req ops.ServeRequest) error {
	none, err := e.AnswersPeers(ctx)
	if err != nil {
		return err
	}
	var warnings []string
	switch none {
	case transport.PeerNoAdvisor:
		warnings = append(warnings, noAdvisorWarning)
	case transport.PeerNoAdvisorMay:
		warnings = append(warnings, noAdvisorMayWarning)
	}
	return serveGuarded(ctx, req, endpoint{path: transport.PeerPath, tokenPath: e.ServeTokenPath(), clients: "peers",
		limits: guard.Config{MaxBody: transport.PeerRequestLimit}, handler: PeerHandler(e), warnings: warnings})
}

// noAdvisorWarning is said when serve starts with no advisor of its own
// to ask (peers are never asked for a peer): every request would be
// answered as unavailable, which the asking side records as a failure.
const noAdvisorWarning = "warning: no advisor is available here, so every review request will be answered as unavailable: " +
	"see why with 'git reason advisors', or declare one in .reason/advisors.yaml and run 'git reason trust'"

// noAdvisorMayWarning is said when serve starts with advisors available
// that may not answer a peer: exec advisors whose declaration does not opt
// them in, since a command run here could be asked to read this machine's
// files and put them in its answer.
const noAdvisorMayWarning = "warning: no advisor here may answer a peer, so every review request will be answered as unavailable: " +
	"an advisor that runs a command on this machine (transport cli) could be asked to read its files, so it answers peers only when its declaration " +
	"(yours, or a repository's you trusted) says answers_peers: true, and then runs in an empty temporary directory"

// endpoint is one HTTP endpoint that serveGuarded serves.
type endpoint struct {
	path      string       // its path: the URL given to Ready ends with it
	tokenPath string       // where the token is kept when no variable names one
	clients   string       // who sends the token, for the note that says where it is
	limits    guard.Config // MaxBody, NoBody and what an allowed page may use; the rest comes from the request
	handler   http.Handler
	warnings  []string // said once it listens, after the exposure's
}

// serveGuarded serves e behind the guard at req.Listen until ctx ends,
// then shuts down and returns nil. It tells req.Note where the token is
// (when it generated one) and what serving beyond loopback exposes, and
// req.Ready where the endpoint is reached once it listens. What the user got wrong
// (half a TLS pair, an address it cannot listen on, a certificate it
// cannot load) is a usage error, given before the token file is made.
func serveGuarded(ctx context.Context, req ops.ServeRequest, e endpoint) error {
	note := req.Note
	if note == nil {
		note = func(string) {}
	}
	if (req.TLSCert == "") != (req.TLSKey == "") {
		return ops.Usage("give both --tls-cert and --tls-key, or neither")
	}
	// What the user got wrong is refused before the token file is made:
	// a bad address or TLS pair writes nothing.
	if req.TLSCert != "" {
		if err := checkTLSPair(req.TLSCert, req.TLSKey); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", req.Listen)
	if err != nil {
		return ops.Usage("%s", guard.ListenFailed(req.Listen, err))
	}
	// The token's directory is .git/reason/, which in a shared
	// repository (core.sharedRepository) the group's other members write
	// too: made as git makes its own (2770 for group), before the guard
	// would make it 0700. The token itself stays 0600.
	if err := git.MkdirAll(filepath.Dir(e.tokenPath), 0o700); err != nil {
		ln.Close()
		return err
	}
	token, line, err := guard.Token(req.TokenVar, e.tokenPath, e.clients)
	if err != nil {
		ln.Close()
		return ops.Usage("%v", err)
	}
	if line != "" {
		note(line)
	}
	scheme := "http"
	if req.TLSCert != "" {
		scheme = "https"
	}
	for _, w := range append(guard.Exposure(ln.Addr(), req.TLSCert != "", req.AllowHosts), e.warnings...) {
		note(w)
	}
	cfg := e.limits
	cfg.Token, cfg.AllowHosts, cfg.AllowOrigins, cfg.MaxInFlight = token, req.AllowHosts, req.AllowOrigins, req.MaxInFlight
	h := guard.Wrap(cfg, e.handler)
	if req.Ready != nil {
		req.Ready(guard.Reach(ln.Addr(), scheme, e.path, req.AllowHosts))
	}
	if err := guard.Run(ctx, ln, h, guard.API, req.TLSCert, req.TLSKey); err != nil {
		if req.TLSCert != "" {
			return ops.Usage("%v", err)
		}
		return err
	}
	return nil
}

// checkTLSPair loads the certificate and key a server is given, and says
// what is wrong with them in the flags' terms: which file cannot be read
// and why, which holds no PEM block of its kind, or that the key is not
// the certificate's (crypto/tls says "failed to find any PEM data in
// certificate input", "private key does not match public key").
func checkTLSPair(certFile, keyFile string) error {
	certPEM, err := readPEM("--tls-cert", certFile, "the certificate", func(t string) bool { return t == "CERTIFICATE" })
	if err != nil {
		return err
	}
	keyPEM, err := readPEM("--tls-key", keyFile, "its private key", func(t string) bool { return strings.HasSuffix(t, "PRIVATE KEY") })
	if err != nil {
		return err
	}
	if _, err := tls.X509KeyPair(certPEM, keyPEM); err != nil {
		if strings.Contains(err.Error(), "does not match") {
			return ops.Usage("--tls-key %s is not the private key of the certificate in --tls-cert %s: give the certificate's own key", keyFile, certFile)
		}
		return ops.Usage("--tls-cert %s and --tls-key %s: %s", certFile, keyFile, strings.TrimPrefix(err.Error(), "tls: "))
	}
	return nil
}

// readPEM reads the file given with flag and requires a PEM block whose
// type kind accepts (the file of what, in a person's terms).
func readPEM(flag, file, what string, kind func(string) bool) ([]byte, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the system's reason, not Go's "open FILE:"
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ops.Usage("%s %s: no such file: give the file of %s, PEM-encoded", flag, file, what)
		}
		return nil, ops.Usage("%s %s: %v", flag, file, err)
	}
	for rest := data; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			return nil, ops.Usage("%s %s holds no PEM block of %s: give the file of %s, PEM-encoded", flag, file, what, what)
		}
		if kind(b.Type) {
			return data, nil
		}
	}
}

// PeerHandler is the review endpoint without the guard (Peers puts the
// guard in front of it): the session's ReviewForPeer at transport.PeerPath.
func PeerHandler(e *ops.Session) http.Handler {
	return httpwire.Endpoint(transport.PeerPath, transport.PeerRequestLimit, transport.PeerReview(e.ReviewForPeer))
}
