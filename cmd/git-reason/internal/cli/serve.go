package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve reviews to peers: each request is answered by this repository's own available advisors",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:7411", Usage: "`ADDR` to listen on"},
			&cli.StringFlag{Name: "token-env", Value: "GIT_REASON_PEER_TOKEN", Usage: "variable holding the token peers must send (unset: no token, loopback only)"},
			&cli.StringFlag{Name: "profile", Usage: "execution profile"},
		},
		Action: func(c *cli.Context) error {
			if err := noMoreArgs(c, 0); err != nil {
				return err
			}
			sess, err := open(c)
			if err != nil {
				return err
			}
			return sess.ServePeers(c.Context, ops.ServeRequest{Listen: c.String("listen"), TokenVar: c.String("token-env"),
				Ready: func(url string) { fmt.Fprintf(c.App.ErrWriter, "git reason: serving reviews on %s\n", url) }})
		},
	}
}
