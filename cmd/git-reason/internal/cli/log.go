package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v2"
)

func logCommand() *cli.Command {
	return &cli.Command{
		Name:      "log",
		Usage:     "show the timeline of a task, or of every task",
		ArgsUsage: "[TASK]",
		Flags:     []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			if err := noMoreArgs(c, 1); err != nil {
				return err
			}
			sess, err := open(c)
			if err != nil {
				return err
			}
			var task string
			if c.Args().Present() {
				if task, err = taskArg(c); err != nil {
					return err
				}
			}
			lines, err := sess.Log(c.Context, task)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return printJSON(c.App.Writer, lines)
			}
			tw := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
			for _, l := range lines {
				fmt.Fprintf(tw, "%s\t%d\t%s\t%-12s\t%s\t%s\n", l.Task, l.Clock, l.ID[:10], l.Kind, l.Created, l.Summary)
			}
			return tw.Flush()
		},
	}
}
