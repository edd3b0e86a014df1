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
			return runResolve(c.Context, o, c.Command.ArgsUsage, c.NArg() == 1)
		},
	}
}

// runResolve writes the resolution; alone is whether DISAGREEMENT was the
// one argument (TASK taken from the branch).
func runResolve(ctx context.Context, o *resolveOptions, usage string, alone bool) error {
	return o.write(ctx, record.KindResolution, func(sess *ops.Session) (any, error) {
		if o.Disagreement == "" {
			return nil, ops.Usage("missing DISAGREEMENT: usage: git reason resolve %s", usage)
		}
		// One argument is DISAGREEMENT; a task's name there was meant
		// as TASK, and would be read as an id it is not.
		if alone && o.Disagreement != o.Task && record.CheckTask(o.Disagreement) == nil {
			if head, err := sess.TaskHead(o.Disagreement); err == nil && head != "" {
				return nil, ops.Usage("%s is a task, not a disagreement: name both, 'git reason resolve %s DISAGREEMENT' ('git reason status %s' lists its open disagreements)",
					o.Disagreement, o.Disagreement, o.Disagreement)
			}
		}
		ev, err := parseEvidenceList(sess, o.Evidence)
		return &record.Resolution{Disagreement: o.Disagreement, Decision: o.Decision, Evidence: ev}, err
	})
}
