package cli

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

type tasksOptions struct {
	base
	Query ops.TaskQuery
	Now   func() time.Time
}

func tasksCommand() *cli.Command {
	o := &tasksOptions{Now: time.Now}
	var open, closed bool
	var since string
	return &cli.Command{
		Description: "One line per task, read from the refs alone: its phase as replay derives it, open or\n" +
			"closed, its record count, its last activity and its subject. --json adds each open task's\n" +
			"next step and how a closed one was closed ('git reason schema tasks').",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "open", Usage: "only open tasks", Destination: &open},
			&cli.BoolFlag{Name: "closed", Usage: "only closed tasks", Destination: &closed},
			&cli.BoolFlag{Name: "mine", Usage: "only tasks with a record by you (git config user.email)", Destination: &o.Query.Mine},
			sinceFlag("tasks active", &since),
			o.jsonFlag(),
		},
		Action: func(c *cli.Context) error {
			o.bind(c)
			defer o.page(c)()
			if err := noMoreArgs(c, 0); err != nil {
				return err
			}
			switch {
			case open && closed:
				return ops.Usage("--open and --closed exclude each other: give one, or neither for every task")
			case open:
				o.Query.State = "open"
			case closed:
				o.Query.State = "closed"
			}
			sess, err := o.Open()
			if err != nil {
				return err
			}
			if o.Query.Since, err = when(c.Context, sess, "--since", since, o.Now()); err != nil {
				return err
			}
			rows, err := sess.Tasks(c.Context, o.Query)
			if err != nil {
				return err
			}
			none := "no task matches"
			if len(rows) == 0 && o.Query == (ops.TaskQuery{}) {
				// Nothing narrowed the list: there is no task at all,
				// and the advice is status's (a remote's tasks come with
				// pull).
				none = sess.NoTasks(c.Context).String()
			}
			return o.render(rows, func(w io.Writer) error {
				pal, err := o.colours()
				if err != nil {
					return err
				}
				return printTasks(w, pal, rows, none)
			})
		},
	}
}

// printTasks prints a line per task, or none when there is no row.
func printTasks(w io.Writer, pal palette, rows []ops.TaskRow, none string) error {
	if len(rows) == 0 {
		fmt.Fprintln(w, none)
		return nil
	}
	fmt.Fprint(w, record.NotVerifiedFirst(len(rows), func(i int) (string, *record.Finding) { return rows[i].Task, rows[i].DoesNotVerify }).String())
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "TASK\t%s\tSTATE\tRECORDS\tUPDATED\tSUBJECT\n", pal.paint(sgrPlain, "PHASE"))
	for _, r := range rows {
		subject := record.Printable(r.Subject)
		if r.Quarantined != nil {
			// No record here: what waits, and where it is said.
			subject = "see 'git reason status " + r.Task + "'"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", r.Task, pal.phase(r.Phase), record.Printable(r.Said()), r.Records, r.Updated, subject)
	}
	return tw.Flush()
}

func taskCommand() *cli.Command {
	o := &base{}
	return &cli.Command{
		Subcommands: []*cli.Command{{
			Name:      "delete",
			Usage:     "remove a local task created by mistake and never pushed (its ref and its caches); refused once it was pushed or fetched",
			ArgsUsage: "TASK",
			Description: "Removes refs/reasoning/tasks/TASK and what .git/reason/ keeps of it; history elsewhere\n" +
				"is untouched. Refused (exit 3, nothing changed) once the task's ref exists in any other\n" +
				"namespace under refs/reasoning/ (a pull or a push leaves a remote-tracking one): others may\n" +
				"hold it then, and records are never taken back; close it instead ('git reason close').\n" +
				"A task whose history does not read (a ref fetched with plain git at a tag, a tree or a\n" +
				"record that does not decode) is removed the same way, under the same rule.",
			Flags: []cli.Flag{o.jsonFlag()},
			Action: func(c *cli.Context) error {
				o.bind(c)
				if err := noMoreArgs(c, 1); err != nil {
					return err
				}
				task, err := taskArg(c)
				if err != nil {
					return err
				}
				sess, err := o.Open()
				if err != nil {
					return err
				}
				res, err := sess.DeleteTask(c.Context, task)
				if err != nil {
					return err
				}
				deleted := fmt.Sprintf("deleted task %s (its ref named %s)", res.Task, record.ShortCommit(res.Head))
				return doneAnyway(o.render(res, func(w io.Writer) error {
					if res.DoesNotRead {
						_, err := fmt.Fprintf(w, "deleted task %s (its history did not read; its ref named %s)\n", res.Task, record.ShortCommit(res.Head))
						return err
					}
					_, err := fmt.Fprintf(w, "deleted task %s (%s, commit %s)\n", res.Task, record.Plural(res.Records, "record"), record.ShortCommit(res.Head))
					return err
				}), deleted, "the task is deleted, do not delete it again")
			},
		}},
	}
}
