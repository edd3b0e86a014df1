package cli

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
)

type serveOptions struct {
	base
	Listen   string // ADDR to listen on
	TokenVar string // the variable holding the token peers must send
}

func serveCommand() *cli.Command {
	o := &serveOptions{}
	return &cli.Command{
		Name:  "serve",
		Usage: "serve reviews to peers: each request is answered by this repository's own available advisors",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:7411", Usage: "`ADDR` to listen on", Destination: &o.Listen},
			&cli.StringFlag{Name: "token-env", Value: "GIT_REASON_PEER_TOKEN", Usage: "variable holding the token peers must send (unset: no token, loopback only)", Destination: &o.TokenVar},
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
	sess, err := o.Open()
	if err != nil {
		return err
	}
	return sess.ServePeers(ctx, ops.ServeRequest{Listen: o.Listen, TokenVar: o.TokenVar,
		Ready: func(url string) { fmt.Fprintf(o.Err, "git reason: serving reviews on %s\n", url) }})
}
