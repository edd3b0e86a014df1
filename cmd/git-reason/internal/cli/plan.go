package cli

import (
	"context"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

type planOptions struct {
	writeOptions
	Assessment string // default: the task's latest
}

func planCommand() *cli.Command {
	o := &planOptions{}
	return &cli.Command{
		Name:      "plan",
		Usage:     "compute the review plan for the task's latest assessment",
		ArgsUsage: "[TASK] [--assessment ID]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "assessment", Usage: "plan for this assessment `ID` instead of the latest", Destination: &o.Assessment},
			&cli.StringFlag{Name: "profile", Usage: "execution profile"},
			o.fileFlag(), o.jsonFlag(),
		},
		Action: func(c *cli.Context) error {
			if _, err := o.parse(c, 0); err != nil {
				return err
			}
			return runPlan(c.Context, o)
		},
	}
}

func runPlan(ctx context.Context, o *planOptions) error {
	return o.write(ctx, record.KindPlan, func(sess *ops.Session) (any, error) {
		id, err := orLatest(ctx, sess, o.Task, o.Assessment, record.KindAssessment)
		return &record.Plan{Assessment: id}, err
	})
}
