package cli

import (
	"context"
	"io"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
)

type contextOptions struct {
	base
	Range   string
	Format  string
	MaxSize int
	// IncludeLocal keeps in a github body the tasks on no remote.
	IncludeLocal bool
}

// contextArgs is what follows context on its command line: RANGE, and
// how the range is read and printed.
const contextArgs = "[RANGE]\n\n" +
	"RANGE is A..B or A...B as git log reads them, or one revision R (R..HEAD). The default\n" +
	"runs from the merge base with the upstream, else with the default branch (origin/HEAD,\n" +
	"else main, else master, else the branch init.defaultBranch names), to HEAD; with none\n" +
	"of them, it is HEAD's whole history, and a note says so. A task is linked to the range\n" +
	"by a 'Reason-Task:' trailer of one of its commits, by an attempt or validation naming\n" +
	"one of them, or (weakly, and shown as such) by evidence citing a file the range changes.\n\n" +
	"Printed on a terminal it is text; in a pipe, markdown whose record text is inert\n" +
	"(--format text|markdown chooses). --format github is a pull request comment body:\n" +
	"each task collapsed in a <details> block, cut to --max-size with a note on what was cut;\n" +
	"a linked task on none of the repository's remotes (never pushed) is left out unless\n" +
	"--include-local, since a stranger's commit can name it:\n\n" +
	"   git reason context --format github | gh pr comment --body-file -"

func contextCommand() *cli.Command {
	o := &contextOptions{}
	return &cli.Command{
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Usage: "`FORMAT`: text (the default on a terminal), markdown (the default in a pipe) or github (a pull request comment body)", Destination: &o.Format},
			&cli.IntFlag{Name: "max-size", Value: ops.DefaultCommentLimit, Usage: "hold a --format github body to `BYTES`", Destination: &o.MaxSize},
			&cli.BoolFlag{Name: "include-local", Usage: "keep in a --format github body the linked tasks on no remote (never pushed), which it leaves out", Destination: &o.IncludeLocal},
			o.jsonFlag(),
		},
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
	if err := o.formatOrJSON(o.Format); err != nil {
		return err
	}
	github := o.Format == "github"
	// Only a github body is held to --max-size, but a size it can never
	// take is refused whatever the format, not passed over unsaid.
	if o.MaxSize < ops.MinCommentLimit {
		return ops.Usage("--max-size %d: give at least %d bytes", o.MaxSize, ops.MinCommentLimit)
	}
	format := ops.FormatMarkdown
	if !github {
		var err error
		if format, err = o.reportFormat(o.Format); err != nil {
			return ops.Usage("--format %q: give text, markdown or github", o.Format)
		}
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
		if !github {
			_, err := io.WriteString(w, ops.RenderContext(rep, format))
			return err
		}
		if !o.IncludeLocal {
			// A stranger's commit can name a task never shared here.
			rep.LeaveOutLocal()
		}
		body, err := ops.ContextComment(rep, o.MaxSize)
		if err != nil {
			return err
		}
		_, err = io.WriteString(w, body)
		return err
	})
}
