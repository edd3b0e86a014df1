package cli

import (
	"context"

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
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "commit", Usage: "a commit of the attempt: any `REV` git reads (HEAD, a branch, a hash) (repeatable)"},
			&cli.StringFlag{Name: "outcome", Usage: "the `OUTCOME`: succeeded, failed or abandoned", Destination: &o.Outcome},
			&cli.StringFlag{Name: "notes", Usage: "what happened, as `TEXT`", Destination: &o.Notes},
			latestFlag("conclusion", &o.Conclusion),
			o.fileFlag(), o.jsonFlag(),
		},
		Action: func(c *cli.Context) error {
			if err := requireFlags(c, "outcome"); err != nil {
				return err
			}
			if _, err := o.parse(c, 0); err != nil {
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
		if err != nil {
			return nil, err
		}
		// Any revision git reads names a commit; the record keeps the full
		// hash, which stays true when branches move.
		var commits []string
		for _, s := range o.Commits {
			h, err := sess.ResolveCommit(ctx, s)
			if err != nil {
				return nil, err
			}
			commits = append(commits, h)
		}
		return &record.Attempt{Conclusion: id, Commits: commits, Outcome: o.Outcome, Notes: o.Notes}, nil
	})
}
