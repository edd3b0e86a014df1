package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/hooks"
)

func hooksCommand() *cli.Command {
	force := &cli.BoolFlag{Name: "force", Usage: "replace a modified shim (keeping a copy of it) and change a hooks directory git tracks"}
	sub := func(name, usage string, act func(c *cli.Context, sess *ops.Session) (string, []hooks.Status, error), flags ...cli.Flag) *cli.Command {
		return &cli.Command{
			Name: name, Usage: usage, Flags: append([]cli.Flag{jsonFlag}, flags...), OnUsageError: usageError,
			Action: func(c *cli.Context) error {
				if err := noMoreArgs(c, 0); err != nil {
					return err
				}
				sess, err := open(c)
				if err != nil {
					return err
				}
				dir, st, err := act(c, sess)
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return printJSON(c.App.Writer, struct {
						Dir   string         `json:"dir"`
						Hooks []hooks.Status `json:"hooks"`
					}{dir, st})
				}
				for _, s := range st {
					state := "not installed"
					switch {
					case s.Installed && !s.Current:
						state = "installed (not executable: run 'git reason hooks install')"
					case s.Modified:
						state = "modified (carries git reason's marker but is not its shim: see 'git reason hooks install --force')"
					case s.Installed:
						state = "installed"
					case s.Foreign:
						state = "another hook (not git reason's)"
					}
					if s.Chained {
						state += ", runs the previous hook first"
					}
					fmt.Fprintf(c.App.Writer, "%s\t%s\t%s\n", s.Hook, state, s.Path)
				}
				return nil
			},
		}
	}
	return &cli.Command{
		Name:  "hooks",
		Usage: "install, remove or show git reason's pre-commit and pre-push hooks",
		Subcommands: []*cli.Command{
			sub("install", "install the hooks, keeping any existing hook and running it first", func(c *cli.Context, sess *ops.Session) (string, []hooks.Status, error) {
				return sess.InstallHooks(c.Context, c.Bool("force"))
			}, force),
			sub("uninstall", "remove the hooks (only git reason's exact shims) and restore the ones they replaced", func(c *cli.Context, sess *ops.Session) (string, []hooks.Status, error) {
				return sess.UninstallHooks(c.Context, c.Bool("force"))
			}, force),
			sub("status", "show whether the hooks are installed", func(c *cli.Context, sess *ops.Session) (string, []hooks.Status, error) {
				dir, err := sess.HooksDir()
				if err != nil {
					return "", nil, err
				}
				return dir, hooks.Check(dir), nil
			}),
		},
	}
}

// hookCommand is what the installed shims run; it is not for people.
func hookCommand() *cli.Command {
	return &cli.Command{
		Name:   "hook",
		Hidden: true,
		Subcommands: []*cli.Command{{
			Name: "pre-commit", OnUsageError: usageError,
			Action: hookAction(func(c *cli.Context) error {
				sess, err := open(c)
				if err != nil {
					return err
				}
				res, err := sess.CheckNeutrality(c.Context, ops.NeutralityRequest{Staged: true, Dir: sess.Repo.WorkTree})
				if err != nil {
					return err
				}
				for _, v := range res.Violations {
					fmt.Fprintf(c.App.ErrWriter, "git-reason: %s:%d:%d: %s (declared as %s)\n", v.Path, v.Line, v.Col, v.Name, v.DeclaredAs)
				}
				if n := len(res.Violations); n > 0 {
					return refusedf("commit refused: %d neutrality violation(s) in staged files; see 'git reason check neutrality --staged'", n)
				}
				return nil
			}),
		}, {
			Name: "pre-push", OnUsageError: usageError,
			Action: hookAction(func(c *cli.Context) error {
				sess, err := open(c)
				if err != nil {
					return err
				}
				found, err := sess.PrePush(c.Context, c.App.Reader)
				if err != nil {
					return err
				}
				for _, f := range found {
					fmt.Fprintf(c.App.ErrWriter, "git-reason: %s: %s\n", f.Ref, f.Message)
				}
				if n := len(found); n > 0 {
					return refusedf("push refused: %d finding(s); see them with 'git reason verify' and 'git reason check neutrality', fix them with new records or renames, then push again", n)
				}
				return nil
			}),
		}},
	}
}

// hookAction prints a hook's error as one "git-reason:" line, the prefix
// every hook line carries, and keeps its exit status.
func hookAction(act cli.ActionFunc) cli.ActionFunc {
	return func(c *cli.Context) error {
		err := act(c)
		if err == nil {
			return nil
		}
		fmt.Fprintf(c.App.ErrWriter, "git-reason: %s\n", err)
		return quietExit(exitCode(err))
	}
}

// quietExit is an exit status whose message was already printed.
type quietExit int

func (quietExit) Error() string     { return "" }
func (q quietExit) exitStatus() int { return int(q) }
