package cli

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
)

type advisorsOptions struct {
	base
	IDs []string // only these advisors; none: every declared one
}

func advisorsCommand() *cli.Command {
	o := &advisorsOptions{}
	return &cli.Command{
		Flags: []cli.Flag{profileFlag(), o.jsonFlag()},
		Action: func(c *cli.Context) error {
			o.bind(c)
			o.IDs = c.Args().Slice()
			return runAdvisors(c.Context, o)
		},
	}
}

func runAdvisors(ctx context.Context, o *advisorsOptions) error {
	sess, err := o.Open()
	if err != nil {
		return err
	}
	list, err := sess.Advisors(ctx)
	if err != nil {
		return err
	}
	if len(o.IDs) > 0 {
		if list.Advisors, err = onlyAdvisors(list.Advisors, o.IDs); err != nil {
			return err
		}
	}
	if !o.JSON {
		if !sess.InRepository() {
			fmt.Fprintln(o.Err, "outside a repository: the shipped declarations and yours, with no repository's overlay or circuits")
		}
		fmt.Fprintf(o.Err, "profile %s (mode %s)\n", list.Profile, list.Mode)
	}
	return o.render(list, func(w io.Writer) error {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ADVISOR\tTRANSPORT\tSTATUS\tUNTIL\tREASON")
		for _, r := range list.Advisors {
			until := r.Until
			if until == "" {
				until = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Transport, r.Status, until, r.Reason)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, r := range list.Advisors {
			if r.Unreadable != nil {
				fmt.Fprintln(w, r.Unreadable.Said(r.ID).CLI)
			}
		}
		return nil
	})
}

// onlyAdvisors keeps the rows of the advisors named, in preference order.
// A name that no declaration has is bad input, answered with the nearest
// declared id when one is close, as a misspelled verb is.
func onlyAdvisors(rows []ops.AdvisorRow, ids []string) ([]ops.AdvisorRow, error) {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	out := make([]ops.AdvisorRow, 0, len(want))
	for _, r := range rows {
		if want[r.ID] {
			out = append(out, r)
			delete(want, r.ID)
		}
	}
	for _, id := range ids {
		if !want[id] {
			continue
		}
		best, dist := "", 3
		for _, r := range rows {
			if d := ops.EditDistance(id, r.ID); d < dist {
				best, dist = r.ID, d
			}
		}
		if best != "" {
			return nil, ops.Usage("no advisor %q is declared: did you mean '%s'? (see 'git reason advisors')", id, best)
		}
		return nil, ops.Usage("no advisor %q is declared (see 'git reason advisors' for every declared one)", id)
	}
	return out, nil
}
