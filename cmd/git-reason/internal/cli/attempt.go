package cli

import (
	"strings"

	"github.com/urfave/cli/v2"

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
				id := c.String("conclusion")
				if id == "" {
					var err error
					if id, err = latest(c, env, task, record.KindConclusion); err != nil {
						return nil, err
					}
				}
				var commits []string
				for _, s := range c.StringSlice("commit") {
					commits = append(commits, strings.ToLower(s))
				}
				return &record.Attempt{Conclusion: id, Commits: commits, Outcome: c.String("outcome"), Notes: c.String("notes")}, nil
			})
			if err != nil {
				return err
			}
			res, err := env.Append(c.Context, task, record.KindAttempt, body)
			if err != nil {
				return err
			}
			return printResult(c, res)
		},
	}
}
