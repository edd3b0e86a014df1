package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

type verifyOptions struct {
	base
	Tasks []string // none: every task
}

func verifyCommand() *cli.Command {
	o := &verifyOptions{}
	var all bool
	return &cli.Command{
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "verify every task (the default when no TASK is named)", Destination: &all},
			o.jsonFlag(),
		},
		Action: func(c *cli.Context) error {
			o.bind(c)
			o.Tasks = c.Args().Slice()
			if all && len(o.Tasks) > 0 {
				// Both: which was meant is not known (it verified every
				// task and said nothing of the TASK named, even one that
				// does not exist).
				return ops.Usage("--all and TASK exclude each other: name the tasks, or give --all (or neither) for every task")
			}
			return runVerify(c.Context, o)
		},
	}
}

func runVerify(ctx context.Context, o *verifyOptions) error {
	sess, err := o.Open()
	if err != nil {
		return err
	}
	res, err := sess.Verify(ctx, o.Tasks, nil)
	if err != nil {
		return err
	}
	err = o.render(res, func(w io.Writer) error {
		printFindings(w, "", res.Findings, verifyAll)
		printSignatures(o.Err, res.Signatures)
		if len(res.Findings) == 0 {
			fmt.Fprintf(o.Err, "verified %s: every record admissible\n", record.Plural(len(res.Tasks), "task"))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if n := len(res.Findings); n > 0 {
		return refusedf("verify found %s in the reasoning history: each needs a person to look at it", record.Plural(n, "problem"))
	}
	return nil
}
