package cli

import (
	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

func resolveCommand() *cli.Command {
	return &cli.Command{
		Name:      "resolve",
		Usage:     "settle one open disagreement, citing evidence",
		ArgsUsage: "TASK DISAGREEMENT --decision S --evidence KIND:REF:SUMMARY...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "decision", Usage: "how the disagreement is settled"},
			&cli.StringSliceFlag{Name: "evidence", Usage: "KIND:REF:SUMMARY (at least one)"},
			fileFlag, jsonFlag,
		},
		Action: func(c *cli.Context) error {
			task, err := taskArg(c)
			if err != nil {
				return err
			}
			if err := noMoreArgs(c, 2); err != nil {
				return err
			}
			body, err := bodyFrom(c, func() (any, error) {
				if c.Args().Len() < 2 {
					return nil, ops.Usage("missing DISAGREEMENT: usage: git reason resolve %s", c.Command.ArgsUsage)
				}
				ev, err := parseEvidenceList(c.StringSlice("evidence"))
				return &record.Resolution{Disagreement: c.Args().Get(1), Decision: c.String("decision"), Evidence: ev}, err
			})
			if err != nil {
				return err
			}
			env, err := open(c)
			if err != nil {
				return err
			}
			res, err := env.Append(c.Context, task, record.KindResolution, body)
			if err != nil {
				return err
			}
			return printResult(c, res)
		},
	}
}
