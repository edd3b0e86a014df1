package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/policy/neutrality"
)

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:  "check",
		Usage: "run a guard over this repository",
		Subcommands: []*cli.Command{{
			Name:      "neutrality",
			Usage:     "find provider, vendor, model or advisor names in provider-neutral files; exits 3 on violations",
			ArgsUsage: "[PATH...] [--staged] [--range A..B]",
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "staged", Usage: "check the files staged in the index, not the work tree"},
				&cli.StringFlag{Name: "range", Usage: "check the files changed in `A..B`, as they are at B"},
				jsonFlag,
			},
			OnUsageError: usageError,
			Action: func(c *cli.Context) error {
				sess, err := open(c)
				if err != nil {
					return err
				}
				res, err := sess.CheckNeutrality(c.Context, ops.NeutralityRequest{
					Paths: c.Args().Slice(), Staged: c.Bool("staged"), Range: c.String("range")})
				if err != nil {
					return err
				}
				return reportNeutrality(c, res, "")
			},
		}},
	}
}

// reportNeutrality prints a neutrality result, each line prefixed by
// prefix (hooks use "git-reason: "), and fails with exit 3 on violations.
func reportNeutrality(c *cli.Context, res *neutrality.Result, prefix string) error {
	if c.Bool("json") {
		if err := neutrality.FormatJSON(c.App.Writer, res); err != nil {
			return err
		}
	} else {
		if !res.Configured {
			fmt.Fprintf(c.App.ErrWriter, "%sneutrality is not configured here (no %s): nothing checked\n", prefix, neutrality.ConfigPath)
			return nil
		}
		for _, v := range res.Violations {
			fmt.Fprintf(c.App.Writer, "%s%s:%d:%d: %s (declared as %s)\n", prefix, v.Path, v.Line, v.Col, v.Name, v.DeclaredAs)
		}
		for _, s := range res.Skipped {
			fmt.Fprintf(c.App.ErrWriter, "%snot checked: %s: %s\n", prefix, s.Path, s.Reason)
		}
	}
	if n := len(res.Violations); n > 0 {
		return refusedf("%d neutrality violation(s): rename them, move them under an excluded path, or add an allow entry with a reason to %s", n, neutrality.ConfigPath)
	}
	return nil
}
