package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
)

type webOptions struct {
	base
	Listen string // loopback ADDR; port 0 picks a free one
	Browse bool   // --open: start a browser on a one-time address
}

func webCommand() *cli.Command {
	o := &webOptions{}
	return &cli.Command{
		Description: "--open starts $BROWSER, else the platform's opener, on an address carrying a one-time code\n" +
			"(valid once, for two minutes), never the token: a command line is readable by every local user.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:0", Usage: "loopback `ADDR` to listen on (port 0: any free port; no host, as in :8080: 127.0.0.1)", Destination: &o.Listen},
			&cli.BoolFlag{Name: "open", Usage: "open the page in the browser ($BROWSER, else the platform's opener)", Destination: &o.Browse},
			profileFlag(),
		},
		Action: noArgs(&o.base, func(c *cli.Context) error {
			// The page serves for hours: its session is resident, so
			// that a change of configuration, allowed signers or their
			// trust shows on the next request.
			var sess *ops.Session
			var err error
			o.Open = func() (*ops.Session, error) {
				if sess == nil && err == nil {
					sess, err = openSession(c, true, nil)
				}
				return sess, err
			}
			ctx, stop := untilStopped(c.Context)
			defer stop()
			return runWeb(ctx, o)
		}),
	}
}

// runWeb serves until ctx ends (Ctrl-C, SIGTERM), then exits 0. The repository is
// opened once first, so that running it outside a repository fails at
// once; every request reads its refs and files afresh through that
// session, one request at a time (web.Serve).
func runWeb(ctx context.Context, o *webOptions) error {
	if _, err := o.Open(); err != nil {
		return err
	}
	return o.Net.Web(ctx, WebRequest{Listen: o.Listen, Open: o.Open, Ready: func(url string, oneTime func() (string, error)) {
		fmt.Fprintf(o.Err, "git reason: the Reasoning page is at %s\n", url)
		if !o.Browse {
			return
		}
		// The browser gets a one-time address: its command line is in
		// every local user's process list, and the token must not be.
		once, err := oneTime()
		if err == nil {
			err = browse(once)
		}
		if err != nil {
			fmt.Fprintf(o.Err, "git reason: could not open a browser (%v): open the address above\n", err)
		}
	}})
}

// browse starts a browser on url without waiting for it: $BROWSER when
// set (a command, with its arguments separated by spaces, to which url
// is added), else the platform's opener.
func browse(url string) error {
	var argv []string
	switch b := strings.Fields(os.Getenv("BROWSER")); {
	case len(b) > 0:
		argv = b
	case runtime.GOOS == "darwin":
		argv = []string{"open"}
	case runtime.GOOS == "windows":
		argv = []string{"rundll32", "url.dll,FileProtocolHandler"}
	default:
		argv = []string{"xdg-open"}
	}
	cmd := exec.Command(argv[0], append(argv[1:], url)...)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
