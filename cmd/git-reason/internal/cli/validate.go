package cli

import (
	"os"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

func validateCommand() *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Usage:     "check a conclusion: run a command (a fact) or record a manual result (a claim)",
		ArgsUsage: "TASK (--run CMD | --manual pass|fail --evidence KIND:REF:SUMMARY...) [--conclusion ID]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "run", Usage: "run `CMD` with the shell and record its exit status, duration and output digest"},
			&cli.StringFlag{Name: "manual", Usage: "record a manual result: pass or fail"},
			&cli.StringSliceFlag{Name: "evidence", Usage: "KIND:REF:SUMMARY (repeatable)"},
			&cli.StringFlag{Name: "conclusion", Usage: "the conclusion `ID` (default: the latest)"},
			fileFlag, jsonFlag,
		},
		Action: func(c *cli.Context) error {
			task, err := taskArg(c)
			if err != nil {
				return err
			}
			if err := noMoreArgs(c, 1); err != nil {
				return err
			}
			if c.String("file") == "" && (c.String("run") == "") == (c.String("manual") == "") {
				return ops.Usage("give exactly one of --run CMD or --manual pass|fail")
			}
			if c.String("file") != "" && c.String("run") != "" {
				return ops.Usage("--run CMD builds the body itself: give --run or --file, not both")
			}
			sess, err := open(c)
			if err != nil {
				return err
			}
			raw, err := bodyFrom(c, func() (any, error) {
				id := c.String("conclusion")
				if id == "" {
					var err error
					if id, err = latest(c, sess, task, record.KindConclusion); err != nil {
						return nil, err
					}
				}
				ev, err := parseEvidenceList(c.StringSlice("evidence"))
				v := &record.Validation{Conclusion: id, Evidence: ev, Method: "manual", Result: c.String("manual")}
				if cmd := c.String("run"); cmd != "" {
					v.Method, v.Command, v.Result = "command", cmd, ""
				}
				return v, err
			})
			if err != nil {
				return err
			}
			// Only a command typed on this command line is run: a body read
			// from --file goes to the writer, which refuses a command
			// validation it did not observe, so a file can never make this
			// process run what it holds.
			var res *record.Result
			if c.String("run") != "" {
				dir, _ := os.Getwd()
				res, err = sess.RunValidation(c.Context, task, raw, dir, c.App.ErrWriter)
			} else {
				res, err = sess.Append(c.Context, task, record.KindValidation, raw)
			}
			if err != nil {
				return err
			}
			return printResult(c, res)
		},
	}
}
