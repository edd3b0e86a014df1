package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

type searchOptions struct {
	base
	Text string
}

func searchCommand() *cli.Command {
	o := &searchOptions{}
	return &cli.Command{
		Description: "Reads an index under .git/reason/ keyed by each task's head: only the tasks whose head\n" +
			"moved since the last search are read again, and a missing index is rebuilt. For a regular\n" +
			"expression, use 'git reason log --grep PATTERN'.",
		Flags: []cli.Flag{o.jsonFlag()},
		Action: func(c *cli.Context) error {
			o.bind(c)
			defer o.page(c)()
			if err := noMoreArgs(c, 1); err != nil {
				return err
			}
			o.Text = c.Args().First()
			if strings.TrimSpace(o.Text) == "" {
				// Blank is no TEXT: said as every verb says its missing argument.
				return ops.Usage("missing TEXT: usage: git reason %s %s", verbPath(c), c.Command.ArgsUsage)
			}
			sess, err := o.Open()
			if err != nil {
				return err
			}
			hits, err := sess.Search(c.Context, o.Text)
			if err != nil {
				return err
			}
			return o.render(hits, func(w io.Writer) error {
				if len(hits) == 0 {
					fmt.Fprintf(w, "no record mentions %q\n", o.Text)
					return nil
				}
				fmt.Fprint(w, record.NotVerifiedFirst(len(hits), func(i int) (string, *record.Finding) { return hits[i].Task, hits[i].DoesNotVerify }).String())
				for _, h := range hits {
					fmt.Fprintf(w, "%s %s %s %s  %s\n", h.Task, record.ShortID(h.ID), h.Kind, h.Created, record.Printable(h.Summary))
					for _, m := range h.Matches {
						fmt.Fprintf(w, "    %s: %s\n", m.Field, record.Printable(excerpt(m.Text, o.Text)))
					}
				}
				return nil
			})
		},
	}
}

// excerpt is text cut to about 100 characters around the first place it
// contains q (any case).
func excerpt(text, q string) string {
	r := []rune(text)
	if len(r) <= 100 {
		return text
	}
	at := len([]rune(text[:max(0, strings.Index(strings.ToLower(text), strings.ToLower(q)))]))
	from := max(0, at-40)
	to := min(len(r), from+100)
	out := string(r[from:to])
	if from > 0 {
		out = "…" + out
	}
	if to < len(r) {
		out += "…"
	}
	return out
}
