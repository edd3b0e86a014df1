package cli

import (
	"context"
	"io"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
)

type contextOptions struct {
	base
	Range  string
	Format string
}

func contextCommand() *cli.Command {
	o := &contextOptions{}
	return &cli.Command{
		Name:  "context",
		Usage: "show the reasoning behind a range of commits (a pull request): markdown with a Mermaid diagram per task, or JSON",
		ArgsUsage: "[RANGE]\n\n" +
			"RANGE is A..B or A...B as git log reads them, or one revision R (R..HEAD). The default\n" +
			"runs from the merge base with the upstream, else with the default branch (origin/HEAD,\n" +
			"else main, else master), to HEAD. A task is linked to the range by a 'Reason-Task:'\n" +
			"trailer of one of its commits, by an attempt or validation naming one of them, or\n" +
			"(weakly, and shown as such) by evidence citing a file the range changes.\n\n" +
			"Printed on a terminal it is text; in a pipe, markdown whose record text is inert\n" +
			"(--format text|markdown chooses):\n\n" +
			"   git reason context | gh pr comment --body-file -",
		Flags: []cli.Flag{formatFlag(&o.Format), o.jsonFlag()},
		Action: func(c *cli.Context) error {
			o.bind(c)
			if err := noMoreArgs(c, 1); err != nil {
				return err
			}
			o.Range = c.Args().First()
			return runContext(c.Context, o)
		},
	}
}

func runContext(ctx context.Context, o *contextOptions) error {
	format, err := o.reportFormat(o.Format)
	if err != nil {
		return err
	}
	sess, err := o.Open()
	if err != nil {
		return err
	}
	rep, err := sess.Context(ctx, ops.ContextQuery{Range: o.Range})
	if err != nil {
		return err
	}
	return o.render(rep, func(w io.Writer) error {
		_, err := io.WriteString(w, ops.RenderContext(rep, format))
		return err
	})
}
