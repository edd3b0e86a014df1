package cli

import (
	"context"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

type assessOptions struct {
	writeOptions
	Subject, Question, Materiality, Reversibility string
	Needs, Evidence                               []string
	NewEvidence                                   bool
}

func assessCommand() *cli.Command {
	o := &assessOptions{}
	return &cli.Command{
		Description: "On a terminal, the fields left out are asked for one by one (with one piece of evidence\n" +
			"for a material or critical decision); Ctrl-D at a question aborts, nothing written (exit 2).\n" +
			"Without a terminal (a script, a pipe) a missing flag is the usual one-line error (exit 2).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "subject", Usage: "what the decision is about, in a line of `TEXT`", Destination: &o.Subject},
			&cli.StringFlag{Name: "question", Usage: "the question to settle, as `TEXT`", Destination: &o.Question},
			&cli.StringFlag{Name: "materiality", Usage: "the `LEVEL`: trivial, minor, material or critical", Destination: &o.Materiality},
			&cli.StringFlag{Name: "reversibility", Usage: "`HOW` reversible: reversible, costly or irreversible", Destination: &o.Reversibility},
			&cli.StringSliceFlag{Name: "needs", Usage: "a `CAPABILITY` review needs (repeatable)"},
			&cli.StringSliceFlag{Name: "evidence", Usage: "`EVIDENCE` as KIND:REF:SUMMARY, KIND one of file, command, commit, url, note (repeatable)"},
			&cli.BoolFlag{Name: "new-evidence", Usage: "review again even if a standing conclusion exists", Destination: &o.NewEvidence},
			o.fileFlag(), o.jsonFlag(),
		},
		Action: func(c *cli.Context) error {
			// On a terminal the missing fields are asked for (ask.go).
			missing := requireFlags(c, "subject", "question", "materiality", "reversibility")
			if missing != nil && !onTerminal(c) {
				return missing
			}
			if _, err := o.parse(c, 0); err != nil {
				return err
			}
			o.Needs, o.Evidence = c.StringSlice("needs"), c.StringSlice("evidence")
			if missing != nil {
				if err := o.ask(c); err != nil {
					return err
				}
			}
			return runAssess(c.Context, o)
		},
	}
}

func runAssess(ctx context.Context, o *assessOptions) error {
	return o.write(ctx, record.KindAssessment, func(sess *ops.Session) (any, error) {
		ev, err := parseEvidenceList(sess, o.Evidence)
		return &record.Assessment{Subject: o.Subject, Question: o.Question, Materiality: o.Materiality,
			Reversibility: o.Reversibility, Needs: o.Needs, Evidence: ev, NewEvidence: o.NewEvidence}, err
	})
}
