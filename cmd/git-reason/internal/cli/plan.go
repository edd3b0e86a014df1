package cli

import (
	"github.com/urfave/cli/v2"

	"git-reason/record"
)

func planCommand() *cli.Command {
	return &cli.Command{
		Name:      "plan",
		Usage:     "compute the review plan for the task's latest assessment",
		ArgsUsage: "TASK [--assessment ID]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "assessment", Usage: "plan for this assessment `ID` instead of the latest"},
			&cli.StringFlag{Name: "profile", Usage: "execution profile"},
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
				return &record.Plan{Assessment: id}, nil
			})
			if err != nil {
				return err
			}
			res, err := env.Append(c.Context, task, record.KindPlan, body)
			if err != nil {
				return err
			}
			return printResult(c, res)
		},
	}
}
