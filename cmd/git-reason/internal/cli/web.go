package cli

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"

	"github.com/urfave/cli/v2"
)

type webOptions struct {
	base
	Listen string // loopback ADDR; port 0 picks a free one
	Browse bool   // --open: start the platform's opener on the address
}

func webCommand() *cli.Command {
	o := &webOptions{}
	return &cli.Command{
		Name:  "web",
		Usage: "serve the read-only Reasoning page on loopback; open the printed address (it carries the token)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:0", Usage: "loopback `ADDR` to listen on (port 0: any free port)", Destination: &o.Listen},
			&cli.BoolFlag{Name: "open", Usage: "open the page in the browser", Destination: &o.Browse},
			&cli.StringFlag{Name: "profile", Usage: "execution profile"},
		},
		Action: func(c *cli.Context) error {
			o.bind(c)
			if err := noMoreArgs(c, 0); err != nil {
				return err
			}
			return runWeb(c.Context, o)
		},
	}
}

// runWeb serves until ctx ends (Ctrl-C), then exits 0. The repository is
// opened once first, so that running it outside a repository fails at
// once, then afresh for every request.
func runWeb(ctx context.Context, o *webOptions) error {
	if _, err := o.Open(); err != nil {
		return err
	}
	return o.Net.Web(ctx, WebRequest{Listen: o.Listen, Open: o.Open, Ready: func(url string) {
		fmt.Fprintf(o.Err, "git reason: the Reasoning page is at %s\n", url)
		if o.Browse {
			if err := browse(url); err != nil {
				fmt.Fprintf(o.Err, "git reason: could not open a browser (%v): open the address above\n", err)
			}
		}
	}})
}

// browse starts the platform's opener on url without waiting for it.
func browse(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
