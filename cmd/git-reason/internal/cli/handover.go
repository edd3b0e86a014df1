package cli

import (
	"bytes"
	"context"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

// handoverTaskBytes is about what handover --json prints a task: 555
// bytes at 20,000 tasks of an assessment and a plan each (the task and
// its signatures' summary). A task of more prints more, and the buffer
// grows from there.
const handoverTaskBytes = 560

type handoverOptions struct {
	base
	Since  string // "7d", a Go duration, or a date
	Task   string
	Actor  string
	Format string
	Now    func() time.Time
}

func handoverCommand() *cli.Command {
	o := &handoverOptions{Now: time.Now}
	return &cli.Command{
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "derive", Usage: "derive from the refs alone (the only mode; accepted for scripts)"},
			filterFlag(&cli.StringFlag{Name: "since", Value: "7d", Usage: "list tasks concluded or validated since `WHEN` (7d, 36h, 2026-11-01, or as git log takes it: 2 weeks ago)", Destination: &o.Since}),
			filterFlag(&cli.StringFlag{Name: "task", Usage: "only `TASK`", Destination: &o.Task}),
			filterFlag(&cli.StringFlag{Name: "actor", Usage: "only tasks with a record by `ACTOR`", Destination: &o.Actor}),
			formatFlag(&o.Format), o.jsonFlag(),
		},
		Action: noArgs(&o.base, func(c *cli.Context) error {
			return runHandover(c.Context, o)
		}),
	}
}

func runHandover(ctx context.Context, o *handoverOptions) error {
	if err := o.formatOrJSON(o.Format); err != nil {
		return err
	}
	format, err := o.reportFormat(o.Format)
	if err != nil {
		return err
	}
	if o.Task != "" {
		if err := record.CheckTask(o.Task); err != nil {
			return err
		}
	}
	sess, err := o.Open()
	if err != nil {
		return err
	}
	since, err := sess.ParseWhen(ctx, "--since", o.Since, o.Now())
	if err != nil {
		return err
	}
	rep, err := sess.Handover(ctx, ops.HandoverQuery{Since: since, Task: o.Task, Actor: o.Actor})
	if err != nil {
		return err
	}
	if o.JSON && o.JQ == "" {
		// Held to its schema as render holds every output, whole,
		// before a byte is printed. Sized ahead at handoverTaskBytes a
		// task, the buffer is not grown from 64 KB by doubling, each
		// time new memory and a copy of what it held.
		var buf bytes.Buffer
		buf.Grow(handoverTaskBytes * (1 + len(rep.Open) + len(rep.Settled)))
		if err := writeHandoverJSON(&buf, rep); err != nil {
			return err
		}
		if err := o.checkOutput(buf.Bytes()); err != nil {
			return err
		}
		_, err := o.Out.Write(buf.Bytes())
		return err
	}
	return o.render(rep, func(w io.Writer) error {
		return ops.WriteHandover(w, rep, format)
	})
}
