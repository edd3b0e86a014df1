package cli

import (
	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
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
		Action: writeAction(record.KindPlan, 1, func(c *cli.Context, sess *ops.Session, task string) (any, error) {
			id, err := target(c, sess, task, "assessment", record.KindAssessment)
			return &record.Plan{Assessment: id}, err
		}),
	}
}
