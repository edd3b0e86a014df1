package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/gitstore"
)

// syncOptions are what pull, push and sync are given: REMOTE (optional)
// and, for pull and push, TASK names.
type syncOptions struct {
	sess *ops.Session
	req  ops.SyncRequest
	json bool
}

func newSyncOptions(c *cli.Context, tasks bool) (*syncOptions, error) {
	if !tasks {
		if err := noMoreArgs(c, 1); err != nil {
			return nil, err
		}
	}
	sess, err := open(c)
	if err != nil {
		return nil, err
	}
	remote, rest, err := sess.Remote(c.Args().Slice())
	if err != nil {
		return nil, err
	}
	if !tasks && len(rest) > 0 {
		return nil, ops.Usage("no remote %q: see 'git remote -v'", rest[0])
	}
	return &syncOptions{sess: sess, req: ops.SyncRequest{Remote: remote, Tasks: rest}, json: c.Bool("json")}, nil
}

func pullCommand() *cli.Command {
	return &cli.Command{
		Name:      "pull",
		Usage:     "fetch a remote's tasks, verify them by replay and create, fast-forward or merge the local ones",
		ArgsUsage: "[REMOTE] [TASK...]",
		Flags:     []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			o, err := newSyncOptions(c, true)
			if err != nil {
				return err
			}
			res, err := o.sess.Pull(c.Context, o.req)
			if err != nil {
				return err
			}
			if o.json {
				if err := printJSON(c.App.Writer, res); err != nil {
					return err
				}
			} else {
				printPull(c.App.Writer, res)
				if len(res.Tasks) == 0 {
					fmt.Fprintf(c.App.ErrWriter, "up to date with %s\n", res.Remote)
				}
			}
			return quarantineError(res.Remote, res.Quarantined, 0)
		},
	}
}

func pushCommand() *cli.Command {
	return &cli.Command{
		Name:      "push",
		Usage:     "verify and push the local tasks a remote lacks (never forced; pulls and retries when the remote moved)",
		ArgsUsage: "[REMOTE] [TASK...]",
		Flags:     []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			o, err := newSyncOptions(c, true)
			if err != nil {
				return err
			}
			res, err := o.sess.Push(c.Context, o.req, nil)
			if err != nil {
				return err
			}
			if o.json {
				if err := printJSON(c.App.Writer, res); err != nil {
					return err
				}
			} else {
				printPush(c.App.Writer, res)
				if len(res.Tasks) == 0 && len(res.Pulled) == 0 {
					fmt.Fprintf(c.App.ErrWriter, "%s has every task already\n", res.Remote)
				}
			}
			return pushError(res)
		},
	}
}

func syncCommand() *cli.Command {
	return &cli.Command{
		Name:      "sync",
		Usage:     "pull, then push: share every task with a remote",
		ArgsUsage: "[REMOTE]",
		Flags:     []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			o, err := newSyncOptions(c, false)
			if err != nil {
				return err
			}
			res, err := o.sess.Sync(c.Context, o.req)
			if err != nil {
				if res != nil && res.Pull != nil && !o.json {
					printPull(c.App.Writer, res.Pull)
				}
				return err
			}
			if o.json {
				if err := printJSON(c.App.Writer, res); err != nil {
					return err
				}
			} else {
				printPull(c.App.Writer, res.Pull)
				printPush(c.App.Writer, res.Push)
				if len(res.Pull.Tasks) == 0 && len(res.Push.Tasks) == 0 && len(res.Push.Pulled) == 0 {
					fmt.Fprintf(c.App.ErrWriter, "in sync with %s\n", res.Remote())
				}
			}
			if err := pushError(res.Push); err != nil {
				return err
			}
			return quarantineError(res.Pull.Remote, res.Pull.Quarantined, 0)
		},
	}
}

func remoteCommand() *cli.Command {
	return &cli.Command{
		Name:  "remote",
		Usage: "configure how reasoning travels with a remote",
		Subcommands: []*cli.Command{{
			Name:         "setup",
			Usage:        "make a plain 'git fetch' also fetch the remote's tasks (into refs/reasoning/remotes/REMOTE/)",
			ArgsUsage:    "[REMOTE]",
			Flags:        []cli.Flag{jsonFlag},
			OnUsageError: usageError,
			Action: func(c *cli.Context) error {
				o, err := newSyncOptions(c, false)
				if err != nil {
					return err
				}
				changed, err := o.sess.RemoteSetup(c.Context, o.req.Remote)
				if err != nil {
					return err
				}
				if o.json {
					out := struct {
						Remote  string   `json:"remote"`
						Changed []string `json:"changed"`
					}{o.req.Remote, []string{}}
					if changed != "" {
						out.Changed = append(out.Changed, changed)
					}
					return printJSON(c.App.Writer, out)
				}
				if changed == "" {
					fmt.Fprintf(c.App.ErrWriter, "%s already fetches reasoning: nothing changed\n", o.req.Remote)
					return nil
				}
				fmt.Fprintf(c.App.Writer, "%s\n", changed)
				fmt.Fprintf(c.App.ErrWriter, "'git fetch %s' now also fetches its tasks; 'git reason pull' verifies and merges them\n", o.req.Remote)
				return nil
			},
		}},
	}
}

func printPull(w io.Writer, res *ops.PullResult) {
	printIntegrations(w, res.Remote, res.Tasks)
	printNeeds(w, res.Needs)
}

func printIntegrations(w io.Writer, remote string, tasks []*gitstore.Integration) {
	for _, in := range tasks {
		switch in.Outcome {
		case gitstore.OutcomeCreated:
			fmt.Fprintf(w, "%s: created %s\n", in.Task, shortHash(in.To))
		case gitstore.OutcomeQuarantined:
			fmt.Fprintf(w, "%s: quarantined: %s (local ref untouched; inspect %s)\n", in.Task, strings.Join(in.Codes, ", "),
				gitstore.RemoteRef(remote, in.Task))
			for _, f := range in.Findings {
				fmt.Fprintf(w, "  %s\n", f.String())
			}
		default:
			fmt.Fprintf(w, "%s: %s %s..%s\n", in.Task, in.Outcome, shortHash(in.From), shortHash(in.To))
		}
	}
}

func printPush(w io.Writer, res *ops.PushResult) {
	printIntegrations(w, res.Remote, res.Pulled)
	printNeeds(w, res.Needs)
	for _, t := range res.Tasks {
		switch t.Outcome {
		case ops.PushCreated:
			fmt.Fprintf(w, "%s: created on %s at %s\n", t.Task, res.Remote, shortHash(t.To))
		case ops.PushPushed:
			fmt.Fprintf(w, "%s: pushed %s..%s\n", t.Task, shortHash(t.From), shortHash(t.To))
		case ops.PushRefused, ops.PushQuarantined:
			fmt.Fprintf(w, "%s: %s: %s (not pushed)\n", t.Task, t.Outcome, strings.Join(t.Codes, ", "))
			for _, f := range t.Findings {
				fmt.Fprintf(w, "  %s\n", f.String())
			}
		default:
			fmt.Fprintf(w, "%s: %s: %s\n", t.Task, t.Outcome, t.Message)
		}
	}
}

// quarantineError exits 3 when anything was quarantined or refused.
func quarantineError(remote string, quarantined, refused int) error {
	if quarantined+refused == 0 {
		return nil
	}
	return refusedf("%d task(s) from %s quarantined: their local refs are untouched; inspect refs/reasoning/remotes/%s/", quarantined, remote, remote)
}

// pushError exits 1 when the remote rejected a task, 3 when verification
// refused one.
func pushError(res *ops.PushResult) error {
	if n := res.Rejected(); n > 0 {
		return fmt.Errorf("%s rejected %d task(s): see the lines above", res.Remote, n)
	}
	if n := res.Refused(); n > 0 {
		return refusedf("%d task(s) not pushed: verification refused them (see 'git reason verify')", n)
	}
	return nil
}
