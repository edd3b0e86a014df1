package cli

import (
	"context"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

type resolveOptions struct {
	writeOptions
	Disagreement string // the second argument
	Decision     string
	Evidence     []string
}

func resolveCommand() *cli.Command {
	o := &resolveOptions{}
	return &cli.Command{
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "decision", Usage: "how the disagreement is settled, as `TEXT`", Destination: &o.Decision},
			&cli.StringSliceFlag{Name: "evidence", Usage: "`EVIDENCE` as KIND:REF:SUMMARY (at least one)"},
			o.fileFlag(), o.jsonFlag(),
		},
		Action: func(c *cli.Context) error {
			// DISAGREEMENT follows TASK unless --file holds it; TASK is
			// the branch's when only what follows it is given.
			after := 1
			if isSet(c, "file") {
				after = 0
			} else if c.NArg() == 0 {
				return ops.Usage("missing DISAGREEMENT: usage: git reason resolve %s", c.Command.ArgsUsage)
			}
			if err := requireFlags(c, "decision", "evidence"); err != nil {
				return err
			}
			rest, err := o.parse(c, after)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				o.Disagreement = rest[0]
			}
			o.Evidence = c.StringSlice("evidence")
			if o.Disagreement == "" && o.File == "" {
				return ops.Usage("missing DISAGREEMENT: usage: git reason resolve %s", c.Command.ArgsUsage)
			}
			return runResolve(c.Context, o, c.Command.ArgsUsage)
		},
	}
}

func runResolve(ctx context.Context, o *resolveOptions, usage string) error {
	return o.write(ctx, record.KindResolution, func(*ops.Session) (any, error) {
		if o.Disagreement == "" {
			return nil, ops.Usage("missing DISAGREEMENT: usage: git reason resolve %s", usage)
		}
		ev, err := parseEvidenceList(o.Evidence)
		return &record.Resolution{Disagreement: o.Disagreement, Decision: o.Decision, Evidence: ev}, err
	})
}
