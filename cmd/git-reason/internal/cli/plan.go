package cli

import (
	"context"
	"fmt"
	"io"

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
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "assessment", Usage: "plan for this assessment `ID` instead of the latest", Destination: &o.Assessment},
			profileFlag(),
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
	sess, err := o.Open()
	if err != nil {
		return err
	}
	body, err := o.body(func() (any, error) {
		id, err := orLatest(ctx, sess, o.Task, o.Assessment, record.KindAssessment)
		return &record.Plan{Assessment: id}, err
	})
	if err != nil {
		return err
	}
	res, err := sess.Append(ctx, o.Task, record.KindPlan, body)
	if err != nil {
		return o.refused(sess, record.KindPlan, err)
	}
	// What each selected advisor would be sent; the plan stands without it.
	qs, qerr := sess.PlanQuestions(ctx, res)
	if qerr != nil {
		fmt.Fprintf(o.Err, "warning: cannot say what the advisors would be sent: %v\n", qerr)
	}
	lowered := sess.PlanLowered(ctx, res)
	out := struct {
		recordJSON
		Questions []ops.AdvisorQuestion `json:"questions,omitempty"`
	}{recordJSON{Record: res.Record, Commit: res.Commit, Lowered: lowered}, qs}
	err = o.render(out, func(w io.Writer) error {
		if err := o.printRecord(res, lowered); err != nil {
			return err
		}
		printQuestions(w, qs)
		return nil
	})
	if err = storedAnyway(res, err); err == nil {
		o.printNextAfter(ctx, sess, res)
	}
	return err
}
