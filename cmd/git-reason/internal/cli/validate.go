package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

type validateOptions struct {
	writeOptions
	Run        string // a command to run and observe
	Manual     string // pass or fail, a claim
	Evidence   []string
	Conclusion string // default: the task's latest
	Dir        string // where --run runs (default: the top of the worktree)
}

func validateCommand() *cli.Command {
	o := &validateOptions{}
	return &cli.Command{
		Description: "--run runs CMD with /bin/sh at the top of the worktree, as git runs hooks, whatever directory\n" +
			"you are in; --dir DIR runs it in DIR instead, a directory inside the worktree. The record names\n" +
			"it, relative to the top of the worktree. A bare repository has no worktree: record a manual\n" +
			"validation there.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "run", Usage: "run `CMD` with the shell and record its exit status, duration and output digest", Destination: &o.Run},
			&cli.StringFlag{Name: "dir", Usage: "run --run's command in `DIR` (default: the top of the worktree)", Destination: &o.Dir},
			&cli.StringFlag{Name: "manual", Usage: "record a manual `RESULT`: pass or fail (needs --evidence)", Destination: &o.Manual},
			&cli.StringSliceFlag{Name: "evidence", Usage: "`EVIDENCE` as KIND:REF:SUMMARY (repeatable)"},
			latestFlag("conclusion", &o.Conclusion),
			o.fileFlag(), o.jsonFlag(),
		},
		Action: func(c *cli.Context) error {
			if _, err := o.parse(c, 0); err != nil {
				return err
			}
			o.Evidence = c.StringSlice("evidence")
			return runValidate(c.Context, o)
		},
	}
}

func runValidate(ctx context.Context, o *validateOptions) error {
	// A flag given empty is named as given: "exactly one of" would say it
	// was missing, and a command of blanks would run and record a pass.
	if o.given != nil && isSet(o.given, "run") && strings.TrimSpace(o.Run) == "" {
		return ops.Usage("--run %s: the command is empty: give the command to run, as the shell takes it", typed(o.Run))
	}
	if o.given != nil && isSet(o.given, "manual") && o.Manual == "" {
		return ops.Usage("--manual \"\": give the result, pass or fail")
	}
	if o.File == "" && o.Run == "" && o.Manual == "" && o.given != nil {
		// Neither: a missing flag, said as every verb's missing flag is.
		return ops.Usage("missing --run or --manual: usage: git reason %s %s", verbPath(o.given), o.given.Command.ArgsUsage)
	}
	if o.File == "" && (o.Run == "") == (o.Manual == "") {
		return ops.Usage("give exactly one of --run CMD or --manual pass|fail")
	}
	if o.File != "" && o.Run != "" {
		return ops.Usage("--run CMD builds the body itself: give --run or --file, not both")
	}
	if o.Manual != "" && o.File == "" && len(o.Evidence) == 0 {
		return ops.Usage("--manual %s is a claim: give --evidence KIND:REF:SUMMARY saying what it rests on", o.Manual)
	}
	if o.Dir != "" && o.Run == "" {
		return ops.Usage("--dir is where --run's command runs: give it with --run")
	}
	sess, err := o.Open()
	if err != nil {
		return err
	}
	raw, err := o.body(func() (any, error) {
		id, err := orLatest(ctx, sess, o.Task, o.Conclusion, record.KindConclusion)
		if err != nil {
			return nil, err
		}
		ev, err := parseEvidenceList(sess, o.Evidence)
		v := &record.Validation{Conclusion: id, Evidence: ev, Method: "manual", Result: o.Manual}
		if o.Run != "" {
			v.Method, v.Command, v.Result = "command", o.Run, ""
		}
		return v, err
	})
	if err != nil {
		return err
	}
	// Only a command typed on this command line is run: a body read from
	// --file goes to the writer, which refuses a command validation it did
	// not observe, so a file can never make this process run what it holds.
	var res *record.Result
	if o.Run != "" {
		dir, derr := runDir(sess, o.Dir)
		if derr != nil {
			return derr
		}
		// The command's own output passes as it printed it.
		res, err = sess.RunValidation(ctx, o.Task, raw, dir, unfiltered(o.Err))
	} else {
		res, err = sess.Append(ctx, o.Task, record.KindValidation, raw)
	}
	if err != nil {
		return o.refused(sess, record.KindValidation, err)
	}
	if err := o.printRecord(res, nil); err != nil {
		return err
	}
	o.printNextAfter(ctx, sess, res)
	if d, ok := res.Derived.(*record.ValidationDerived); ok && d.ExitCode != nil && *d.ExitCode != 0 {
		return failure(fmt.Sprintf("validation failed: %q exited with status %d (recorded as validation %s)", o.Run, *d.ExitCode, record.ShortID(res.ID)))
	}
	return nil
}

// runDir is where validate --run runs its command: the directory given
// (relative to the current one), else the top of the worktree, as git runs
// hooks, so that the README's commands work from any subdirectory; in a
// bare repository, the current directory.
func runDir(sess *ops.Session, dir string) (string, error) {
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", ops.Usage("--dir %s: %v", dir, err)
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return "", ops.Usage("--dir %s is not a directory", dir)
		}
		// The record names this worktree's commit and the directory
		// in it: a directory elsewhere is checked against neither.
		if _, in := sess.InWorkTree(abs); !in && sess.Repo.WorkTree != "" {
			return "", ops.Usage("--dir %s is outside the worktree at %s: the validation records its commit, so give a directory inside it", dir, sess.Repo.WorkTree)
		}
		return abs, nil
	}
	if top := sess.Repo.WorkTree; top != "" {
		return top, nil
	}
	return os.Getwd()
}
