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
		Action: writeAction(record.KindResolution, 2, func(c *cli.Context, _ *ops.Session, _ string) (any, error) {
			if c.Args().Len() < 2 {
				return nil, ops.Usage("missing DISAGREEMENT: usage: git reason resolve %s", c.Command.ArgsUsage)
			}
			ev, err := parseEvidenceList(c.StringSlice("evidence"))
			return &record.Resolution{Disagreement: c.Args().Get(1), Decision: c.String("decision"), Evidence: ev}, err
		}),
	}
}
