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
	ops.LogQuery
	OneLine bool // --oneline: id, kind and summary
	Now     func() time.Time
}

func logCommand() *cli.Command {
	o := &logOptions{Now: time.Now}
	var since, until, grep, author string
	var icase bool
	return &cli.Command{
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "max-count", Aliases: []string{"n"}, Usage: "show only the newest `N` entries", Destination: &o.Max},
			sinceFlag("entries created", &since),
			filterFlag(&cli.StringFlag{Name: "until", Usage: "only entries created until `WHEN` (the forms of --since)", Destination: &until}),
			&cli.StringSliceFlag{Name: "kind", Usage: "only records of `KIND` (assessment, plan, consultation, ...) (repeatable: of any KIND given)"},
			&cli.BoolFlag{Name: "oneline", Usage: "one short line per entry: id, kind, summary, after the task when every task is listed", Destination: &o.OneLine},
			filterFlag(&cli.StringFlag{Name: "grep", Usage: "only records with a subject, question, decision, evidence, answer, resolution or other text that the regular expression `PATTERN` matches (case-sensitive, as git log --grep), read from the search index", Destination: &grep}),
			filterFlag(&cli.StringFlag{Name: "author", Usage: "only records whose actor (\"Name <email>\") the regular expression `PATTERN` matches, as git log --author", Destination: &author}),
			&cli.BoolFlag{Name: "regexp-ignore-case", Aliases: []string{"i"}, Usage: "--grep and --author ignore case", Destination: &icase},
			o.jsonFlag(),
		},
		Action: func(c *cli.Context) error {
			o.bind(c)
			defer o.page(c)()
			var err error
			if o.Task, err = optionalTask(c); err != nil {
				return err
			}
			// 0 is the default (every entry), never a count asked for.
			if o.Max < 0 || o.Max == 0 && isSet(c, "max-count") {
				return ops.Usage("-n %d: give a positive number of entries", o.Max)
			}
			for _, kind := range c.StringSlice("kind") {
				k, err := record.ParseKind(kind)
				if err != nil {
					// A kind typed a letter or two wrong is named, as a
					// verb's or an option's is.
					if best := ops.Nearest(kindNames(), kind); best != "" {
						return ops.Usage("--kind: %v: did you mean '%s'? (see 'git reason log -h')", err, best)
					}
					return ops.Usage("--kind: %v", err)
				}
				o.Kinds = append(o.Kinds, k)
			}
			if grep != "" {
				if o.Grep, err = ops.Pattern("--grep", grep, icase); err != nil {
					return err
				}
			}
			if author != "" {
				if o.Author, err = ops.Pattern("--author", author, icase); err != nil {
					return err
				}
			}
			if since != "" || until != "" {
				sess, err := o.Open()
				if err != nil {
					return err
				}
				if o.Since, err = when(c.Context, sess, "--since", since, o.Now()); err != nil {
					return err
				}
				if o.Until, err = when(c.Context, sess, "--until", until, o.Now()); err != nil {
					return err
				}
			}
			return runLog(c.Context, o)
		},
	}
}

// when reads a date option as git log reads it (ops.Session.ParseWhen);
// an empty value is the zero time.
func when(ctx context.Context, sess *ops.Session, flag, s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return sess.ParseWhen(ctx, flag, s, now)
}

func runLog(ctx context.Context, o *logOptions) error {
	sess, err := o.Open()
	if err != nil {
		return err
	}
	lines, empty, err := sess.QueryLog(ctx, o.LogQuery)
	if err != nil {
		return err
	}
	return o.render(lines, func(w io.Writer) error {
		if empty {
			fmt.Fprintln(w, sess.NoTasks(ctx)) // as status says it
			return nil
		}
		printNotVerified(w, lines)
		if o.OneLine {
			for _, l := range lines {
				if o.Task == "" {
					// Every task's lines together: each says whose it is,
					// first, as the long form does.
					fmt.Fprintf(w, "%s ", l.Task)
				}
				fmt.Fprintf(w, "%s %s %s%s\n", record.ShortID(l.ID), l.Kind, l.Summary, signatureTag(l.Signature))
			}
			return nil
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, l := range lines {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%-12s\t%s\t%s%s\n", l.Task, l.Clock, record.ShortID(l.ID), l.Kind, l.Created, l.Summary, signatureTag(l.Signature))
		}
		return tw.Flush()
	})
}

// printNotVerified says first, once per task, which tasks of lines do not
// verify: their lines show what replay recomputes and refuses.
func printNotVerified(w io.Writer, lines []ops.LogLine) {
	fmt.Fprint(w, record.NotVerifiedFirst(len(lines), func(i int) (string, *record.Finding) { return lines[i].Task, lines[i].DoesNotVerify }).String())
}

// signatureTag is a log line's signature, after its summary: nothing for
// an unsigned record (most repositories sign none; --json says
// "unsigned"), else the status in brackets.
func signatureTag(s *ops.Signature) string {
	if s == nil || s.Status == ops.Unsigned {
		return ""
	}
	return "  [" + record.Printable(s.Text) + "]"
}
