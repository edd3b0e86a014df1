package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/policy/neutrality"
	"git-reason/record"
)

type checkNeutralityOptions struct {
	base
	Paths  []string
	Staged bool   // the index, not the work tree
	Range  string // A..B: the files changed there, as they are at B
}

func checkCommand() *cli.Command {
	o := &checkNeutralityOptions{}
	return &cli.Command{
		Subcommands: []*cli.Command{{
			Name:      "neutrality",
			Usage:     "find provider, vendor, model or advisor names in provider-neutral files; exits 3 on violations",
			ArgsUsage: "[PATH...] [--staged] [--range A..B]",
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "staged", Usage: "check the files staged in the index, not the work tree, by the .reason/neutrality.yaml staged there", Destination: &o.Staged},
				&cli.StringFlag{Name: "range", Usage: "check the files changed in `A..B`, as they are at B, by B's .reason/neutrality.yaml (so a range that changes it is judged by its own change: review that file in the diff)", Destination: &o.Range},
				o.jsonFlag(),
			},
			Action: func(c *cli.Context) error {
				o.bind(c)
				o.Paths = c.Args().Slice()
				if c.IsSet("range") && o.Range == "" {
					// Empty, it would check the whole tree, as if not given.
					return ops.Usage("--range \"\": write A..B")
				}
				return runCheckNeutrality(c.Context, o)
			},
		}},
	}
}

func runCheckNeutrality(ctx context.Context, o *checkNeutralityOptions) error {
	sess, err := o.Open()
	if err != nil {
		return err
	}
	res, err := sess.CheckNeutrality(ctx, ops.NeutralityRequest{Paths: o.Paths, Staged: o.Staged, Range: o.Range})
	if err != nil {
		return err
	}
	err = o.render(res, func(w io.Writer) error {
		if !res.Configured {
			fmt.Fprintf(o.Err, "neutrality is not configured here (no %s): nothing checked\n", neutrality.ConfigPath)
			return nil
		}
		for _, v := range res.Violations {
			fmt.Fprintln(w, ops.ViolationLine(v))
		}
		for _, s := range res.Skipped {
			// The path is a name a clone chose: escaped, as text output is.
			fmt.Fprintf(o.Err, "not checked: %s: %s\n", record.Printable(s.Path), record.Printable(s.Reason))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if n := len(res.Violations); n > 0 {
		return refusedf("%s: rename each occurrence, move its file under an excluded path, or add an allow entry with a reason to %s", record.Plural(n, "neutrality violation"), neutrality.ConfigPath)
	}
	return nil
}
