package cli

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
)

type serveOptions struct {
	base
	Listen       string // ADDR to listen on
	TokenVar     string // the variable holding the token peers must send
	AllowHosts   cli.StringSlice
	AllowOrigins cli.StringSlice
	MaxInFlight  int
	TLSCert      string
	TLSKey       string
}

func serveCommand() *cli.Command {
	o := &serveOptions{}
	return &cli.Command{
		Name:  "serve",
		Usage: "serve reviews to peers: each request is answered by this repository's own available advisors",
		Description: "Every request needs the token ('Authorization: Bearer <token>'), loopback included: the value of\n" +
			"the --token-env variable, or one generated once and kept in .git/reason/serve-token (mode 0600).\n" +
			"Requests must be application/json, name a loopback Host (or one given with --allow-host) and carry\n" +
			"no Origin header (unless given with --allow-origin): web pages cannot spend your advisors.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:7411", Usage: "`ADDR` to listen on", Destination: &o.Listen},
			&cli.StringFlag{Name: "token-env", Value: "GIT_REASON_PEER_TOKEN", Usage: "variable holding the token peers must send (unset: a generated token in .git/reason/serve-token)", Destination: &o.TokenVar},
			&cli.StringSliceFlag{Name: "allow-host", Usage: "accept requests naming `HOST` (repeatable; loopback names are always accepted)", Destination: &o.AllowHosts},
			&cli.StringSliceFlag{Name: "allow-origin", Usage: "accept requests from the web page `ORIGIN` (scheme://host[:port], repeatable)", Destination: &o.AllowOrigins},
			&cli.IntFlag{Name: "max-inflight", Value: 4, Usage: "answer at most `N` requests at once (503 past it)", Destination: &o.MaxInFlight},
			&cli.StringFlag{Name: "tls-cert", Usage: "serve HTTPS with the PEM certificate `FILE`", Destination: &o.TLSCert},
			&cli.StringFlag{Name: "tls-key", Usage: "the certificate's PEM private key `FILE`", Destination: &o.TLSKey},
			&cli.StringFlag{Name: "profile", Usage: "execution profile"},
		},
		Action: func(c *cli.Context) error {
			o.bind(c)
			if err := noMoreArgs(c, 0); err != nil {
				return err
			}
			return runServe(c.Context, o)
		},
	}
}

// runServe serves until ctx ends (Ctrl-C), then exits 0.
func runServe(ctx context.Context, o *serveOptions) error {
	if o.MaxInFlight < 1 {
		return ops.Usage("--max-inflight %d: give at least 1", o.MaxInFlight)
	}
	sess, err := o.Open()
	if err != nil {
		return err
	}
	return o.Net.Peers(ctx, sess, ops.ServeRequest{Listen: o.Listen, TokenVar: o.TokenVar,
		AllowHosts: o.AllowHosts.Value(), AllowOrigins: o.AllowOrigins.Value(), MaxInFlight: o.MaxInFlight,
		TLSCert: o.TLSCert, TLSKey: o.TLSKey,
		Note:  func(line string) { fmt.Fprintf(o.Err, "git reason: %s\n", line) },
		Ready: func(url string) { fmt.Fprintf(o.Err, "git reason: serving reviews on %s\n", url) }})
}
