package cli

import (
	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

func assessCommand() *cli.Command {
	return &cli.Command{
		Name:      "assess",
		Usage:     "record what is uncertain, how much it matters and what is known",
		ArgsUsage: "TASK --subject S --question Q --materiality M --reversibility R [--needs CAP]... [--evidence KIND:REF:SUMMARY]... [--new-evidence]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "subject", Usage: "what the decision is about"},
			&cli.StringFlag{Name: "question", Usage: "the question to settle"},
			&cli.StringFlag{Name: "materiality", Usage: "trivial, minor, material or critical"},
			&cli.StringFlag{Name: "reversibility", Usage: "reversible, costly or irreversible"},
			&cli.StringSliceFlag{Name: "needs", Usage: "a capability review needs (repeatable)"},
			&cli.StringSliceFlag{Name: "evidence", Usage: "KIND:REF:SUMMARY, KIND one of file, command, commit, url, note (repeatable)"},
			&cli.BoolFlag{Name: "new-evidence", Usage: "review again even if a standing conclusion exists"},
			fileFlag, jsonFlag,
		},
		Action: writeAction(record.KindAssessment, 1, func(c *cli.Context, _ *ops.Session, _ string) (any, error) {
			ev, err := parseEvidenceList(c.StringSlice("evidence"))
			return &record.Assessment{Subject: c.String("subject"), Question: c.String("question"),
				Materiality: c.String("materiality"), Reversibility: c.String("reversibility"),
				Needs: c.StringSlice("needs"), Evidence: ev, NewEvidence: c.Bool("new-evidence")}, err
		}),
	}
}
