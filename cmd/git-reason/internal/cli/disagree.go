package cli

import (
	"github.com/urfave/cli/v2"

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
		Action: func(c *cli.Context) error {
			task, err := taskArg(c)
			if err != nil {
				return err
			}
			if err := noMoreArgs(c, 1); err != nil {
				return err
			}
			env, err := open(c)
			if err != nil {
				return err
			}
			body, err := bodyFrom(c, func() (any, error) {
				id := c.String("assessment")
				if id == "" {
					var err error
					if id, err = latest(c, env, task, record.KindAssessment); err != nil {
						return nil, err
					}
				}
				return &record.Disagreement{Assessment: id, Cites: c.StringSlice("cites"), Summary: c.String("summary")}, nil
			})
			if err != nil {
				return err
			}
			res, err := env.Append(c.Context, task, record.KindDisagreement, body)
			if err != nil {
				return err
			}
			return printResult(c, res)
		},
	}
}
