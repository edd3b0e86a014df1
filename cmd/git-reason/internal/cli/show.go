package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

type showOptions struct {
	base
	ID string // a record id or unique prefix
}

func showCommand() *cli.Command {
	o := &showOptions{}
	return &cli.Command{
		Name:      "show",
		Usage:     "show one record by id or unique prefix",
		ArgsUsage: "ID",
		Flags:     []cli.Flag{o.jsonFlag()},
		Action: func(c *cli.Context) error {
			o.bind(c)
			defer o.page(c)()
			if !c.Args().Present() {
				return ops.Usage("missing ID: usage: git reason show ID")
			}
			if err := noMoreArgs(c, 1); err != nil {
				return err
			}
			o.ID = c.Args().First()
			return runShow(c.Context, o)
		},
	}
}

func runShow(ctx context.Context, o *showOptions) error {
	sess, err := o.Open()
	if err != nil {
		return err
	}
	e, _, err := sess.Find(ctx, o.ID)
	if err != nil {
		return err
	}
	return o.render(e.Record, func(w io.Writer) error {
		fmt.Fprintf(w, "%s %s\ntask:    %s\nclock:   %d\ncreated: %s\nactor:   %s\norigin:  %s\nsummary: %s\n\nbody:\n",
			e.Kind, e.ID, e.Task, e.Clock, record.Printable(e.Created), record.Printable(e.Actor), record.Printable(e.Origin), record.Summary(e))
		if err := exportJSON(w, e.Body); err != nil {
			return err
		}
		fmt.Fprintln(w, "derived:")
		return exportJSON(w, e.Derived)
	})
}
