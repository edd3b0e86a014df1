package cli

import (
	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

func disagreeCommand() *cli.Command {
	return &cli.Command{
		Name:      "disagree",
		Usage:     "open a disagreement between records whose positions conflict",
		ArgsUsage: "TASK --cites ID --cites ID --summary S [--assessment ID]",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "cites", Usage: "a record `ID` whose position conflicts (at least two)"},
			&cli.StringFlag{Name: "summary", Usage: "what the conflict is"},
			&cli.StringFlag{Name: "assessment", Usage: "the assessment `ID` (default: the latest)"},
			fileFlag, jsonFlag,
		},
		Action: writeAction(record.KindDisagreement, 1, func(c *cli.Context, sess *ops.Session, task string) (any, error) {
			id, err := target(c, sess, task, "assessment", record.KindAssessment)
			return &record.Disagreement{Assessment: id, Cites: c.StringSlice("cites"), Summary: c.String("summary")}, err
		}),
	}
}
