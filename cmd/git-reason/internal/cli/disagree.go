package cli

import (
	"context"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

type disagreeOptions struct {
	writeOptions
	Cites      []string
	Summary    string
	Assessment string // default: the task's latest
}

func disagreeCommand() *cli.Command {
	o := &disagreeOptions{}
	return &cli.Command{
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "cites", Usage: "a record `ID` whose position conflicts (at least two)"},
			&cli.StringFlag{Name: "summary", Usage: "what the conflict is, as `TEXT`", Destination: &o.Summary},
			latestFlag("assessment", &o.Assessment),
			o.fileFlag(), o.jsonFlag(),
		},
		Action: func(c *cli.Context) error {
			if err := requireFlags(c, "cites", "summary"); err != nil {
				return err
			}
			if _, err := o.parse(c, 0); err != nil {
				return err
			}
			o.Cites = c.StringSlice("cites")
			return runDisagree(c.Context, o)
		},
	}
}

func runDisagree(ctx context.Context, o *disagreeOptions) error {
	return o.write(ctx, record.KindDisagreement, func(sess *ops.Session) (any, error) {
		id, err := orLatest(ctx, sess, o.Task, o.Assessment, record.KindAssessment)
		return &record.Disagreement{Assessment: id, Cites: o.Cites, Summary: o.Summary}, err
	})
}
