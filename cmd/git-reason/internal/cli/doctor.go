package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"git-reason/record"
)

func doctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "check declarations, profiles and the reasoning refs; exits 3 on findings (contacts nothing)",
		Flags: []cli.Flag{&cli.StringFlag{Name: "profile", Usage: "execution profile"}, jsonFlag},
		Action: func(c *cli.Context) error {
			if err := noMoreArgs(c, 0); err != nil {
				return err
			}
			sess, err := open(c)
			if err != nil {
				return err
			}
			d, err := sess.RunDoctor(c.Context)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				if err := printJSON(c.App.Writer, d); err != nil {
					return err
				}
			} else {
				w := c.App.Writer
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
				fmt.Fprintf(w, "refs: %d tasks, %d records, %d broken\n", d.Refs.Tasks, d.Refs.Records, d.Refs.Broken)
				if d.Errors == 0 {
					fmt.Fprintln(w, "no errors found")
				}
			}
			if d.Errors > 0 {
				return refusedf("doctor found %d error(s): fix them and run 'git reason doctor' again", d.Errors)
			}
			return nil
		},
	}
}

// refusedf is an error that exits 3: a guard or a rule refused.
func refusedf(format string, args ...any) error {
	return ruleError(fmt.Sprintf(format, args...))
}

type ruleError string

func (e ruleError) Error() string        { return string(e) }
func (e ruleError) Is(target error) bool { return target == record.ErrRefused }
