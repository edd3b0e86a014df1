package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

func showCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show one record by id or unique prefix",
		ArgsUsage: "ID",
		Flags:     []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			if !c.Args().Present() {
				return ops.Usage("missing ID: usage: git reason show ID")
			}
			if err := noMoreArgs(c, 1); err != nil {
				return err
			}
			sess, err := open(c)
			if err != nil {
				return err
			}
			e, _, err := sess.Find(c.Context, c.Args().First())
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return printJSON(c.App.Writer, e.Record)
			}
			w := c.App.Writer
			fmt.Fprintf(w, "%s %s\ntask:    %s\nclock:   %d\ncreated: %s\nactor:   %s\norigin:  %s\nsummary: %s\n\nbody:\n",
				e.Kind, e.ID, e.Task, e.Clock, record.Printable(e.Created), record.Printable(e.Actor), record.Printable(e.Origin), record.Summary(e))
			if err := printJSON(w, e.Body); err != nil {
				return err
			}
			fmt.Fprintln(w, "derived:")
			return printJSON(w, e.Derived)
		},
	}
}
