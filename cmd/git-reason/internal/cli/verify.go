package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:      "verify",
		Usage:     "replay task histories through the admission rules and report what they would not have admitted",
		ArgsUsage: "[TASK...] [--all]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "verify every task (the default when no TASK is named)"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			sess, err := open(c)
			if err != nil {
				return err
			}
			tasks := c.Args().Slice()
			if c.Bool("all") {
				tasks = nil
			}
			res, err := sess.Verify(c.Context, tasks, nil)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				if err := printJSON(c.App.Writer, res); err != nil {
					return err
				}
			} else {
				for _, f := range res.Findings {
					fmt.Fprintln(c.App.Writer, f.String())
				}
				if len(res.Findings) == 0 {
					fmt.Fprintf(c.App.ErrWriter, "verified %d task(s): every record admissible\n", len(res.Tasks))
				}
			}
			if n := len(res.Findings); n > 0 {
				return refusedf("verify found %d problem(s) in the reasoning history: each needs a person to look at it", n)
			}
			return nil
		},
	}
}
