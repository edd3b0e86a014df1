package cli

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

type logOptions struct {
	base
	Task    string         // "": every task
	Max     int            // -n: the newest N entries; 0 all
	Since   time.Time      // --since: entries created at or after
	Until   time.Time      // --until: entries created at or before
	Kind    record.Kind    // --kind: only this kind
	OneLine bool           // --oneline: id, kind and summary
	Grep    string         // --grep: only records with a text this regular expression matches
	Icase   bool           // -i: --grep and --author ignore case
	Author  *regexp.Regexp // --author: only records whose actor it matches
	Now     func() time.Time
}

func logCommand() *cli.Command {
	o := &logOptions{Now: time.Now}
	var since, until, kind, author string
	return &cli.Command{
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "max-count", Aliases: []string{"n"}, Usage: "show only the newest `N` entries", Destination: &o.Max},
			sinceFlag("entries created", &since),
			&cli.StringFlag{Name: "until", Usage: "only entries created until `WHEN` (the forms of --since)", Destination: &until},
			&cli.StringFlag{Name: "kind", Usage: "only records of `KIND` (assessment, plan, consultation, ...)", Destination: &kind},
			&cli.BoolFlag{Name: "oneline", Usage: "one short line per entry: id, kind, summary", Destination: &o.OneLine},
			&cli.StringFlag{Name: "grep", Usage: "only records with a subject, question, decision, evidence, answer, resolution or other text that the regular expression `PATTERN` matches (case-sensitive, as git log --grep), read from the search index", Destination: &o.Grep},
			&cli.StringFlag{Name: "author", Usage: "only records whose actor (\"Name <email>\") the regular expression `PATTERN` matches, as git log --author", Destination: &author},
			&cli.BoolFlag{Name: "regexp-ignore-case", Aliases: []string{"i"}, Usage: "--grep and --author ignore case", Destination: &o.Icase},
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
			if kind != "" {
				k, err := record.ParseKind(kind)
				if err != nil {
					return ops.Usage("--kind: %v", err)
				}
				o.Kind = k
			}
			if author != "" {
				expr := author
				if o.Icase {
					expr = "(?i)" + expr
				}
				if o.Author, err = regexp.Compile(expr); err != nil {
					return ops.Usage("--author %q: not a regular expression: %v", author, err)
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
	keep := func(l ops.LogLine) bool {
		if o.Kind != "" && l.Kind != o.Kind {
			return false
		}
		if o.Author != nil && !o.Author.MatchString(l.Actor) {
			return false
		}
		if !o.Since.IsZero() || !o.Until.IsZero() {
			t, err := time.Parse(time.RFC3339Nano, l.Created)
			if err == nil && (t.Before(o.Since) || !o.Until.IsZero() && t.After(o.Until)) {
				return false
			}
		}
		return true
	}
	lines := []ops.LogLine{}
	empty := false // no task at all: said as status says it
	if o.Grep != "" {
		all, err := sess.Grep(ctx, o.Task, o.Grep, o.Icase)
		if err != nil {
			return err
		}
		lines = lastKept(all, keep, o.Max)
	} else if o.Task == "" && o.Max > 0 {
		// The newest N across every task: read newest first, stop early.
		if lines, err = sess.LogNewest(ctx, o.Max, keep); err != nil {
			return err
		}
		if len(lines) == 0 {
			tasks, err := sess.Store.Tasks(ctx)
			if err != nil {
				return err
			}
			empty = len(tasks) == 0
		}
	} else {
		all, err := sess.Log(ctx, o.Task)
		if err != nil {
			return err
		}
		empty = o.Task == "" && len(all) == 0
		lines = lastKept(all, keep, o.Max)
	}
	return o.render(lines, func(w io.Writer) error {
		if empty {
			fmt.Fprintln(w, sess.NoTasks(ctx)) // as status says it
			return nil
		}
		printNotVerified(w, lines)
		if o.OneLine {
			for _, l := range lines {
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

// lastKept is the lines of all that keep accepts, in order: the last n
// of them when n > 0.
func lastKept(all []ops.LogLine, keep func(ops.LogLine) bool, n int) []ops.LogLine {
	lines := []ops.LogLine{}
	for _, l := range all {
		if keep(l) {
			lines = append(lines, l)
		}
	}
	if n > 0 && len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

// printNotVerified says first, once per task, which tasks of lines do not
// verify: their lines show what replay recomputes and refuses.
func printNotVerified(w io.Writer, lines []ops.LogLine) {
	said := map[string]bool{}
	for _, l := range lines {
		if l.DoesNotVerify != nil && !said[l.Task] {
			said[l.Task] = true
			fmt.Fprintf(w, "%s: %s\n", l.Task, record.NotVerified(l.DoesNotVerify))
		}
	}
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
