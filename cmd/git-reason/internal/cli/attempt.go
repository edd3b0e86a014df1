package cli

import (
	"strings"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

func attemptCommand() *cli.Command {
	return &cli.Command{
		Name:      "attempt",
		Usage:     "record an implementation attempt of a conclusion",
		ArgsUsage: "TASK --commit SHA... --outcome succeeded|failed|abandoned [--notes S] [--conclusion ID]",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "commit", Usage: "a commit `SHA` of the attempt (repeatable)"},
			&cli.StringFlag{Name: "outcome", Usage: "succeeded, failed or abandoned"},
			&cli.StringFlag{Name: "notes", Usage: "what happened"},
			&cli.StringFlag{Name: "conclusion", Usage: "the conclusion `ID` (default: the latest)"},
			fileFlag, jsonFlag,
		},
		Action: writeAction(record.KindAttempt, 1, func(c *cli.Context, sess *ops.Session, task string) (any, error) {
			id, err := target(c, sess, task, "conclusion", record.KindConclusion)
			var commits []string
			for _, s := range c.StringSlice("commit") {
				commits = append(commits, strings.ToLower(s))
			}
			return &record.Attempt{Conclusion: id, Commits: commits, Outcome: c.String("outcome"), Notes: c.String("notes")}, err
		}),
	}
}
