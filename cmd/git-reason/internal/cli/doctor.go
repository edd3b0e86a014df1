package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

type doctorOptions struct{ base }

func doctorCommand() *cli.Command {
	o := &doctorOptions{}
	return &cli.Command{
		Flags: []cli.Flag{profileFlag(), o.jsonFlag()},
		Action: noArgs(&o.base, func(c *cli.Context) error {
			return runDoctor(c.Context, o)
		}),
	}
}

func runDoctor(ctx context.Context, o *doctorOptions) error {
	sess, err := o.Open()
	if err != nil {
		return err
	}
	d, err := sess.RunDoctor(ctx)
	if err != nil {
		return err
	}
	if !o.JSON && !sess.InRepository() {
		fmt.Fprintln(o.Err, "outside a repository: the shipped declarations and yours, this machine's settings and advisors; no refs, hooks or neutrality")
	}
	if err := o.render(d, func(w io.Writer) error { printDoctor(w, d); return nil }); err != nil {
		return err
	}
	if d.Errors > 0 {
		return refusedf("doctor found %s: fix each and run 'git reason doctor' again", record.Plural(d.Errors, "error"))
	}
	return nil
}

func printDoctor(w io.Writer, d *ops.Doctor) {
	for _, f := range d.Findings {
		where := ""
		if f.Where != "" {
			where = f.Where + ": "
		}
		fmt.Fprintf(w, "%s%s: %s [%s] %s\n", where, f.Severity, f.Subject, f.Code, f.Message)
	}
	for _, p := range d.Profiles {
		mark := " "
		if p.InForce {
			mark = "*"
		}
		fmt.Fprintf(w, "profile %s %s (mode %s)", mark, p.ID, p.Mode)
		if p.InForce {
			fmt.Fprintf(w, ", chosen by %s", p.ChosenBy)
		}
		fmt.Fprintln(w)
	}
	for _, a := range d.Advisors {
		fmt.Fprintf(w, "advisor %s: %s", a.ID, a.Status)
		if a.Reason != "" {
			fmt.Fprintf(w, " (%s)", a.Reason)
		}
		if a.Until != "" {
			fmt.Fprintf(w, " until %s", a.Until)
		}
		fmt.Fprintf(w, "; capabilities: %s\n", strings.Join(a.Capabilities, ", "))
	}
	if d.Operational != "" {
		fmt.Fprintln(w, d.Operational)
	}
	if d.Refs != nil {
		fmt.Fprintf(w, "refs: %s, %s, %d broken", record.Plural(d.Refs.Tasks, "task"), record.Plural(d.Refs.Records, "record"), d.Refs.Broken)
		if d.Refs.Unverified > 0 {
			fmt.Fprintf(w, ", %d not verifying", d.Refs.Unverified)
		}
		fmt.Fprintln(w)
	}
	if d.Errors == 0 {
		fmt.Fprintln(w, "no errors found")
	}
}

// refusedf is an error that exits 3: a guard or a rule refused.
func refusedf(format string, args ...any) error {
	return ruleError(fmt.Sprintf(format, args...))
}

type ruleError string

func (e ruleError) Error() string        { return string(e) }
func (e ruleError) Is(target error) bool { return target == record.ErrRefused }
