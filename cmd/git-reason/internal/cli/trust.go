package cli

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

type trustOptions struct {
	base
	Show, Revoke bool
}

func trustCommand() *cli.Command {
	o := &trustOptions{}
	return &cli.Command{
		Name:  "trust",
		Usage: "show what this repository's .reason/advisors.yaml would run and send, and trust that exact content",
		Description: "A repository's .reason/advisors.yaml is a stranger's file until you trust it: its new advisors and\n" +
			"the fields that run or send something (transport, adapter, base_url, credential, executable, command,\n" +
			"headers, auth_header, auth_scheme, local) are ignored until then. 'git reason trust' shows every\n" +
			"advisor the file adds or changes, what it runs and where it sends which credential, and records the\n" +
			"file's SHA-256 for this repository in your configuration directory. Any change to the file untrusts it.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "show", Usage: "only show what the file would run and send; trust nothing", Destination: &o.Show},
			&cli.BoolFlag{Name: "revoke", Usage: "forget the trust recorded for this repository", Destination: &o.Revoke},
			o.jsonFlag(),
		},
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
			o.bind(c)
			if err := noMoreArgs(c, 0); err != nil {
				return err
			}
			return runTrust(o)
		},
	}
}

func runTrust(o *trustOptions) error {
	if o.Show && o.Revoke {
		return ops.Usage("give --show or --revoke, not both")
	}
	sess, err := o.Open()
	if err != nil {
		return err
	}
	res, err := sess.Trust(ops.TrustRequest{Revoke: o.Revoke, Show: o.Show})
	if err != nil {
		return err
	}
	return o.render(res, func(w io.Writer) error {
		if o.Revoke {
			if res.Revoked {
				fmt.Fprintf(w, "trust revoked for %s: its .reason/advisors.yaml runs and sends nothing until trusted again\n", record.Printable(res.Repository))
			} else {
				fmt.Fprintf(w, "nothing to revoke: %s was not trusted\n", record.Printable(res.Repository))
			}
			return nil
		}
		fmt.Fprintf(w, "%s (sha256 %s):\n", record.Printable(res.File), res.SHA256)
		if len(res.Effects) == 0 {
			fmt.Fprintln(w, "  adds and changes nothing that runs or sends something")
		}
		for _, e := range res.Effects {
			what := "new advisor " + e.Advisor
			if !e.New {
				what = fmt.Sprintf("advisor %s (changes %v)", e.Advisor, e.Changed)
			}
			fmt.Fprintf(w, "  %s: %s\n", record.Printable(what), record.Printable(e.Declaration.Describe()))
		}
		switch {
		case o.Show && res.Trusted:
			fmt.Fprintln(w, "this content is trusted")
		case o.Show:
			fmt.Fprintln(w, "not trusted: run 'git reason trust' to trust this exact content")
		default:
			fmt.Fprintln(w, "trusted: this exact content takes effect; any change untrusts it ('git reason trust --revoke' undoes it)")
		}
		return nil
	})
}
