package cli

import (
	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

// The verbs of a task's life after its reasoning: close, reopen and
// withdraw each write one record through the writer, like every write
// verb; they name TASK always (closing the current branch's task by
// accident would be a mistake of its own).

type closeOptions struct {
	writeOptions
	Outcome string
	By      string
	Reason  string
}

func closeCommand() *cli.Command {
	o := &closeOptions{}
	return &cli.Command{
		Description: "A closed task leaves handover's open list and shows as closed everywhere; it can still be\n" +
			"read, searched and verified. No record but a reopening ('git reason reopen') is admitted after it.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "outcome", Usage: "the `OUTCOME`: done, abandoned or superseded", Destination: &o.Outcome},
			&cli.StringFlag{Name: "by", Usage: "the `TASK` that replaces this one (--outcome superseded, which it implies)", Destination: &o.By},
			&cli.StringFlag{Name: "reason", Usage: "why the task is closed, as `TEXT`", Destination: &o.Reason},
			o.fileFlag(), o.jsonFlag(),
		},
		Action: func(c *cli.Context) error {
			if err := o.named(c, 1); err != nil {
				return err
			}
			if o.File == "" && o.Outcome == "" && isSet(c, "by") {
				// Only a superseded task names the one that replaces it:
				// close OLD --by NEW (a rename) says superseded already.
				o.Outcome = "superseded"
			}
			if o.File == "" && o.Outcome == "" {
				if err := requireFlags(c, "outcome"); err != nil {
					return err
				}
			}
			if o.File == "" && o.By != "" {
				// Said by the task-name rule that failed, as for TASK,
				// not by the closure schema's pattern.
				if err := record.CheckTask(o.By); err != nil {
					return ops.Usage("--by: %s", err)
				}
			}
			return o.write(c.Context, record.KindClosure, func(*ops.Session) (any, error) {
				return &record.Closure{Outcome: o.Outcome, By: o.By, Reason: o.Reason}, nil
			})
		},
	}
}

type reopenOptions struct {
	writeOptions
	Reason string
}

func reopenCommand() *cli.Command {
	o := &reopenOptions{}
	return &cli.Command{
		Description: "Writes a reopening that cites the task's latest closure: the task is open again, back in\n" +
			"handover's open list with the next step its records give, and admits records again.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "reason", Usage: "why the task is reopened, as `TEXT`", Destination: &o.Reason},
			o.fileFlag(), o.jsonFlag(),
		},
		Action: func(c *cli.Context) error {
			if err := o.named(c, 1); err != nil {
				return err
			}
			return o.write(c.Context, record.KindReopening, func(sess *ops.Session) (any, error) {
				id, err := latest(c.Context, sess, o.Task, record.KindClosure)
				if err != nil {
					return nil, err
				}
				return &record.Reopening{Closure: id, Reason: o.Reason}, nil
			})
		},
	}
}

type withdrawOptions struct {
	writeOptions
	Record string
	Reason string
}

func withdrawCommand() *cli.Command {
	o := &withdrawOptions{}
	return &cli.Command{
		Description: "RECORD is a validation or an attempt of TASK (its id or a unique prefix). Consultations,\n" +
			"local-review answers and conclusions cannot be withdrawn: a review never disappears, and a\n" +
			"conclusion is replaced by concluding again with --supersedes.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "reason", Usage: "why it is withdrawn, as `TEXT` (required)", Destination: &o.Reason},
			o.fileFlag(), o.jsonFlag(),
		},
		Action: func(c *cli.Context) error {
			if err := o.named(c, 2); err != nil {
				return err
			}
			if o.File == "" {
				// Both named at once when both are missing, not one a try.
				if c.Args().Len() < 2 {
					missing := "RECORD"
					if !isSet(c, "reason") {
						missing += " and --reason"
					}
					return ops.Usage("missing %s: usage: git reason withdraw %s", missing, c.Command.ArgsUsage)
				}
				if err := requireFlags(c, "reason"); err != nil {
					return err
				}
			}
			o.Record = c.Args().Get(1)
			return o.write(c.Context, record.KindWithdrawal, func(*ops.Session) (any, error) {
				return &record.Withdrawal{Record: o.Record, Reason: o.Reason}, nil
			})
		},
	}
}

// named binds the options and reads TASK, which these verbs require,
// refusing more than n arguments in all.
func (o *writeOptions) named(c *cli.Context, n int) error {
	o.bind(c)
	o.given = c
	if err := noMoreArgs(c, n); err != nil {
		return err
	}
	task, err := taskArg(c)
	o.Task = task
	return err
}
