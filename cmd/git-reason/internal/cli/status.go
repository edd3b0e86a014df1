package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

type statusOptions struct {
	base
	Task   string // "": every task
	Report bool   // also the task's markdown report
}

func statusCommand() *cli.Command {
	o := &statusOptions{}
	return &cli.Command{
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "report", Usage: "also print the task's markdown report", Destination: &o.Report},
			o.jsonFlag(),
		},
		Action: func(c *cli.Context) error {
			o.bind(c)
			if o.Report && !c.Args().Present() {
				// Not ignored: the table of every task has no report.
				return ops.Usage("--report is one task's report: name the task, as in 'git reason status TASK --report'")
			}
			if !c.Args().Present() {
				// Every task's status is long output; one task's is not.
				defer o.page(c)()
			}
			var err error
			if o.Task, err = optionalTask(c); err != nil {
				return err
			}
			return runStatus(c.Context, o)
		},
	}
}

func runStatus(ctx context.Context, o *statusOptions) error {
	sess, err := o.Open()
	if err != nil {
		return err
	}
	if o.Task == "" {
		return statusAll(ctx, o, sess)
	}
	var out ops.TaskStatusDoc
	if o.Report {
		if out.Status, out.Signatures, out.Report, err = sess.TaskReport(ctx, o.Task); err != nil {
			return err
		}
	} else if out.Status, out.Signatures, _, err = sess.TaskStatus(ctx, o.Task); err != nil {
		return err
	}
	sess.MarkPersonStep(ctx, &out.Status)
	needs, err := sess.TaskNeeds(ctx, o.Task)
	if err != nil {
		return err
	}
	out.Needs = needs
	out.Remote = sess.Shared(o.Task)
	pal, err := o.colours()
	if err != nil {
		return err
	}
	return o.render(out, func(w io.Writer) error {
		printStatus(w, pal, out.Status)
		if line := out.Signatures.Text(); line != "" {
			fmt.Fprintf(w, "  signatures:   %s\n", record.Printable(line))
		}
		if out.Remote != "" {
			fmt.Fprintf(w, "  remote:       %s\n", record.Printable(out.Remote))
		}
		printNeeds(w, needs)
		if o.Report {
			fmt.Fprintf(w, "\n%s", out.Report)
		}
		return nil
	})
}

// statusAll shows every task, what needs attention, or, in a repository
// with no task yet, how to fetch the reasoning a remote holds.
func statusAll(ctx context.Context, o *statusOptions, sess *ops.Session) error {
	if o.JSON {
		rows, err := sess.StatusList(ctx)
		if err != nil {
			return err
		}
		return o.render(rows, nil)
	}
	// The table: the rows kept by head, no status decoded when nothing
	// moved (ops.StatusRows).
	all, err := sess.StatusRows(ctx)
	if err != nil {
		return err
	}
	// A task that exists here only as a remote's history a pull
	// quarantined has no row, and a line: every verb given it says so.
	held := sess.HeldOnly()
	if len(all) == 0 {
		if len(held) == 0 {
			fmt.Fprintln(o.Out, sess.NoTasks(ctx))
		}
		for _, h := range held {
			fmt.Fprintln(o.Out, record.Printable(h.Line))
		}
		return nil
	}
	pal, err := o.colours()
	if err != nil {
		return err
	}
	w := &lineBuffer{w: o.Out} // a line per task: written in large pieces
	if err := printStatusTable(w, pal, all); err != nil {
		return err
	}
	needs, err := sess.Needs(ctx, all)
	if err != nil {
		return err
	}
	printNeeds(w, needs)
	// A task here whose remote's history a pull refused: said as doctor
	// says it, for as long as it waits.
	refused := sess.RemoteQuarantined()
	for _, s := range all {
		if h := refused[s.Task]; h != nil {
			fmt.Fprintf(w, "%s: %s\n", s.Task, record.Printable(h.Said()))
		}
	}
	for _, h := range held {
		fmt.Fprintf(w, "%s\n", record.Printable(h.Line))
	}
	// What the automatic catch-up could not integrate, said once by the
	// command after the fetch, stays in view here until it is.
	for _, l := range sess.CatchUpPending() {
		fmt.Fprintf(w, "%s\n", l)
	}
	return w.flush(len(w.buf))
}

func printStatus(w io.Writer, pal palette, s record.Status) {
	fmt.Fprintf(w, "task %s: %s (%s)\n", s.Task, pal.phase(s.Phase), record.Plural(s.Records, "record"))
	if s.DoesNotVerify != nil {
		// First, before any figure: what follows is recomputed by replay.
		fmt.Fprintf(w, "  %s\n", record.NotVerified(s.DoesNotVerify).String())
	}
	if s.Closed != nil {
		fmt.Fprintf(w, "  closed:       %s\n", s.Closed.Line())
	}
	if s.Subject != "" {
		fmt.Fprintf(w, "  subject:      %s\n", record.Printable(s.Subject))
	}
	if s.ReuseBroken() {
		fmt.Fprintf(w, "  reuses:       conclusion %s of task %s by %s, which no longer stands there (see above)\n", s.Reuses, s.ReusesTask, record.Printable(s.ReusesActor))
	} else if s.ReuseStands() {
		fmt.Fprintf(w, "  reuses:       standing conclusion %s of task %s by %s\n", s.Reuses, s.ReusesTask, record.Printable(s.ReusesActor))
	} else if s.Reuses != "" {
		fmt.Fprintf(w, "  reuses:       conclusion %s of task %s by %s, %s\n", s.Reuses, s.ReusesTask, record.Printable(s.ReusesActor), record.ReuseUnchecked)
	}
	if s.Review != "" {
		who := "no checklist"
		if len(s.LocalReview) > 0 {
			who = "local review"
		}
		if len(s.Selected) > 0 {
			who = "asks " + strings.Join(s.Selected, ", ")
		}
		fmt.Fprintf(w, "  review:       %s, %s\n", s.Review, who)
		for i, item := range s.LocalReview {
			fmt.Fprintf(w, "    %d. %s\n", i+1, record.Printable(item))
		}
	}
	fmt.Fprintf(w, "  review count: %d\n", s.ReviewCount)
	if line := record.AnsweredLine(s.AnsweredBy); line != "" {
		fmt.Fprintf(w, "  local review: %s\n", line)
	}
	if len(s.OpenDisagreements) > 0 {
		fmt.Fprintf(w, "  disputed:     %s\n", strings.Join(s.OpenDisagreements, ", "))
	}
	for _, c := range s.Standing {
		fmt.Fprintf(w, "  standing:     %s %s\n", c.Conclusion, record.Printable(c.Decision))
	}
	printNext(w, s, "  next:         ")
}

// printNext prints a status's next step after label (its options, a
// person's step has any, aligned under it): status's "next:" line, and
// the line a write prints after the record it stored.
func printNext(w io.Writer, s record.Status, label string) {
	if s.Next != "" {
		fmt.Fprintf(w, "%s%s\n", label, s.Next)
	}
	if ps := s.PersonStep; ps != nil {
		fmt.Fprintf(w, "%sa person decides: %s\n", label, record.Printable(ps.Decide))
		for _, o := range ps.Options {
			fmt.Fprintf(w, "%*s- %s, then: %s\n", len(label), "", record.Printable(o.Choice), o.Then)
		}
	}
}

// printNeeds lists the records merges made inadmissible that wait for a
// person's record.
func printNeeds(w io.Writer, needs []ops.Need) {
	for _, n := range needs {
		fmt.Fprintf(w, "%s: needs a person's record: %s; settle it with: %s\n", n.Task, n.Message, n.Command)
	}
}

// printStatusTable prints a line per task, then what a task's line cannot
// say: a history that does not verify, and who signed the records of a
// task any of whose records is signed. The columns are aligned as
// text/tabwriter aligns them (each as wide as its widest cell, counted in
// runes, and two spaces), their widths taken from the rows first, and each
// line is written at once: no cell is held beyond its line, which for a
// year's tasks was most of what status allocated.
func printStatusTable(w io.Writer, pal palette, all []ops.StatusRow) error {
	// Every PHASE cell, the header's too, carries sequences of one length
	// when coloured, so the columns stay aligned.
	phase := func(s ops.StatusRow) string {
		if s.Closed {
			return pal.phase("closed")
		}
		return pal.phase(s.Phase)
	}
	head := [...]string{"TASK", pal.paint(sgrPlain, "PHASE"), "RECORDS", "REVIEWS", "UPDATED"}
	var width [len(head)]int
	for i, c := range head {
		width[i] = utf8.RuneCountInString(c)
	}
	var num [20]byte
	digits := func(n int) int { return len(strconv.AppendInt(num[:0], int64(n), 10)) }
	for _, s := range all {
		width[0] = max(width[0], utf8.RuneCountInString(s.Task))
		width[1] = max(width[1], utf8.RuneCountInString(phase(s)))
		width[2] = max(width[2], digits(s.Records))
		width[3] = max(width[3], digits(s.Reviews))
		width[4] = max(width[4], utf8.RuneCountInString(s.Updated))
	}
	var line []byte
	pad := func(i, from int) { // the cell from line[from:] padded to column i's width
		for n := utf8.RuneCount(line[from:]); n < width[i]+2; n++ {
			line = append(line, ' ')
		}
	}
	cell := func(i int, text string) { from := len(line); line = append(line, text...); pad(i, from) }
	number := func(i, n int) { from := len(line); line = strconv.AppendInt(line, int64(n), 10); pad(i, from) }
	write := func(last string) error {
		line = append(append(line, last...), '\n')
		_, err := w.Write(line)
		line = line[:0]
		return err
	}
	for i, c := range head {
		cell(i, c)
	}
	if err := write("SUBJECT"); err != nil {
		return err
	}
	for _, s := range all {
		cell(0, s.Task)
		cell(1, phase(s))
		number(2, s.Records)
		number(3, s.Reviews)
		cell(4, s.Updated)
		if err := write(record.Printable(s.Subject)); err != nil {
			return err
		}
	}
	for _, s := range all {
		if s.NotVerified != "" {
			fmt.Fprintf(w, "%s: %s\n", s.Task, s.NotVerified)
		}
		if s.Signatures != "" {
			fmt.Fprintf(w, "%s: signatures: %s\n", s.Task, record.Printable(s.Signatures))
		}
	}
	return nil
}
