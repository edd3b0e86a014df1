package cli

import (
	"context"
	"strings"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

type attemptOptions struct {
	writeOptions
	Commits    []string
	Outcome    string
	Notes      string
	Conclusion string // default: the task's latest
}

func attemptCommand() *cli.Command {
	o := &attemptOptions{}
	return &cli.Command{
		Name:      "attempt",
		Usage:     "record an implementation attempt of a conclusion",
		ArgsUsage: "TASK --commit SHA... --outcome succeeded|failed|abandoned [--notes S] [--conclusion ID]",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "commit", Usage: "a commit `SHA` of the attempt (repeatable)"},
			&cli.StringFlag{Name: "outcome", Usage: "succeeded, failed or abandoned", Destination: &o.Outcome},
			&cli.StringFlag{Name: "notes", Usage: "what happened", Destination: &o.Notes},
			&cli.StringFlag{Name: "conclusion", Usage: "the conclusion `ID` (default: the latest)", Destination: &o.Conclusion},
			o.fileFlag(), o.jsonFlag(),
		},
		Action: func(c *cli.Context) error {
			if err := o.parse(c, 1); err != nil {
				return err
			}
			o.Commits = c.StringSlice("commit")
			return runAttempt(c.Context, o)
		},
	}
}

func runAttempt(ctx context.Context, o *attemptOptions) error {
	return o.write(ctx, record.KindAttempt, func(sess *ops.Session) (any, error) {
		id, err := orLatest(ctx, sess, o.Task, o.Conclusion, record.KindConclusion)
		var commits []string
		for _, s := range o.Commits {
			commits = append(commits, strings.ToLower(s))
		}
		return &record.Attempt{Conclusion: id, Commits: commits, Outcome: o.Outcome, Notes: o.Notes}, err
	})
}
