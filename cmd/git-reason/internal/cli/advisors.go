package cli

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/urfave/cli/v2"
)

type advisorsOptions struct{ base }

func advisorsCommand() *cli.Command {
	o := &advisorsOptions{}
	return &cli.Command{
		Name:  "advisors",
		Usage: "list every declared advisor with its transport and availability (contacts nothing)",
		Flags: []cli.Flag{&cli.StringFlag{Name: "profile", Usage: "execution profile"}, o.jsonFlag()},
		Action: func(c *cli.Context) error {
			o.bind(c)
			if err := noMoreArgs(c, 0); err != nil {
				return err
			}
			return runAdvisors(c.Context, o)
		},
	}
}

func runAdvisors(ctx context.Context, o *advisorsOptions) error {
	sess, err := o.Open()
	if err != nil {
		return err
	}
	list, err := sess.Advisors(ctx)
	if err != nil {
		return err
	}
	if !o.JSON {
		fmt.Fprintf(o.Err, "profile %s (mode %s)\n", list.Profile, list.Mode)
	}
	return o.render(list, func(w io.Writer) error {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ADVISOR\tTRANSPORT\tSTATUS\tUNTIL\tREASON")
		for _, r := range list.Advisors {
			until := r.Until
			if until == "" {
				until = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Transport, r.Status, until, r.Reason)
		}
		return tw.Flush()
	})
}
