package cli

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/urfave/cli/v2"
)

type logOptions struct {
	base
	Task string // "": every task
}

func logCommand() *cli.Command {
	o := &logOptions{}
	return &cli.Command{
		Name:      "log",
		Usage:     "show the timeline of a task, or of every task",
		ArgsUsage: "[TASK]",
		Flags:     []cli.Flag{o.jsonFlag()},
		Action: func(c *cli.Context) error {
			o.bind(c)
			if err := noMoreArgs(c, 1); err != nil {
				return err
			}
			if c.Args().Present() {
				task, err := taskArg(c)
				if err != nil {
					return err
				}
				o.Task = task
			}
			return runLog(c.Context, o)
		},
	}
}

func runLog(ctx context.Context, o *logOptions) error {
	sess, err := o.Open()
	if err != nil {
		return err
	}
	lines, err := sess.Log(ctx, o.Task)
	if err != nil {
		return err
	}
	return o.render(lines, func(w io.Writer) error {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, l := range lines {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%-12s\t%s\t%s\n", l.Task, l.Clock, l.ID[:10], l.Kind, l.Created, l.Summary)
		}
		return tw.Flush()
	})
}
