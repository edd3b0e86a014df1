package cli

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

type logOptions struct {
	base
	Task    string      // "": every task
	Max     int         // -n: the newest N entries; 0 all
	Since   time.Time   // --since: entries created at or after
	Kind    record.Kind // --kind: only this kind
	OneLine bool        // --oneline: id, kind and summary
	Now     func() time.Time
}

func logCommand() *cli.Command {
	o := &logOptions{Now: time.Now}
	var since, kind string
	return &cli.Command{
		Name:      "log",
		Usage:     "show the timeline of a task, or of every task",
		ArgsUsage: "[TASK] [-n N] [--since WHEN] [--kind KIND] [--oneline]",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "max-count", Aliases: []string{"n"}, Usage: "show only the newest `N` entries", Destination: &o.Max},
			&cli.StringFlag{Name: "since", Usage: "only entries created since `WHEN`: a date (2026-01-31), an RFC 3339 time, or an age (36h, 7d)", Destination: &since},
			&cli.StringFlag{Name: "kind", Usage: "only records of `KIND` (assessment, plan, consultation, ...)", Destination: &kind},
			&cli.BoolFlag{Name: "oneline", Usage: "one short line per entry: id, kind, summary", Destination: &o.OneLine},
			o.jsonFlag(),
		},
		Action: func(c *cli.Context) error {
			o.bind(c)
			defer o.page(c)()
			var err error
			if o.Task, err = optionalTask(c); err != nil {
				return err
			}
			if o.Max < 0 {
				return ops.Usage("-n %d: give a positive number of entries", o.Max)
			}
			if kind != "" {
				k, err := record.ParseKind(kind)
				if err != nil {
					return ops.Usage("--kind: %v", err)
				}
				o.Kind = k
			}
			if since != "" {
				t, err := parseSince(since, o.Now())
				if err != nil {
					return err
				}
				o.Since = t
			}
			return runLog(c.Context, o)
		},
	}
}

// parseSince reads a date, an RFC 3339 time, or an age before now
// (Go durations, plus d for days and w for weeks).
func parseSince(s string, now time.Time) (time.Time, error) { return ops.ParseSince(s, now) }

func runLog(ctx context.Context, o *logOptions) error {
	sess, err := o.Open()
	if err != nil {
		return err
	}
	all, err := sess.Log(ctx, o.Task)
	if err != nil {
		return err
	}
	lines := []ops.LogLine{}
	for _, l := range all {
		if o.Kind != "" && l.Kind != o.Kind {
			continue
		}
		if !o.Since.IsZero() {
			if t, err := time.Parse(time.RFC3339Nano, l.Created); err == nil && t.Before(o.Since) {
				continue
			}
		}
		lines = append(lines, l)
	}
	if o.Max > 0 && len(lines) > o.Max {
		lines = lines[len(lines)-o.Max:]
	}
	return o.render(lines, func(w io.Writer) error {
		if o.Task == "" && len(all) == 0 {
			fmt.Fprintln(w, noTasks(ctx, sess)) // as status says it
			return nil
		}
		if o.OneLine {
			for _, l := range lines {
				fmt.Fprintf(w, "%s %s %s\n", l.ID[:10], l.Kind, l.Summary)
			}
			return nil
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, l := range lines {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%-12s\t%s\t%s\n", l.Task, l.Clock, l.ID[:10], l.Kind, l.Created, l.Summary)
		}
		return tw.Flush()
	})
}
