package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/hooks"
	"git-reason/record"
)

type hooksOptions struct {
	base
	Force  bool // replace a modified shim, change a tracked hooks directory
	Server bool // the hosted repository's hook (pre-receive) instead
	// act installs, removes or checks the hooks and says where they are;
	// server acts on the hosted repository's.
	act, server func(sess *ops.Session, ctx context.Context, force bool) (string, []hooks.Status, error)
	// done says what act changed ("" for status): a --jq failing on its
	// output then exits 1, saying so, not 2 (nothing written).
	done string
}

func hooksCommand() *cli.Command {
	type act = func(*ops.Session, context.Context, bool) (string, []hooks.Status, error)
	sub := func(name, usage string, force bool, client, server act) *cli.Command {
		o := &hooksOptions{act: client, server: server}
		if force {
			o.done = "hooks " + name + "ed"
		}
		flags := []cli.Flag{o.jsonFlag(), &cli.BoolFlag{Name: "server", Destination: &o.Server,
			Usage: "a hosted (bare) repository's pre-receive hook, which refuses reasoning refs that break the rules"}}
		if force {
			flags = append(flags, &cli.BoolFlag{Name: "force", Destination: &o.Force,
				Usage: "replace a modified shim (keeping a copy of it) and change a hooks directory git tracks"})
		}
		return &cli.Command{
			Name: name, Usage: usage, Flags: flags,
			Action: noArgs(&o.base, func(c *cli.Context) error {
				return runHooks(c.Context, o)
			}),
		}
	}
	return &cli.Command{
		Subcommands: []*cli.Command{
			sub("install", "install the hooks, keeping any existing hook and running it first, and make 'git fetch' bring every remote's tasks (as 'remote setup')", true,
				installHooks, (*ops.Session).InstallServerHooks),
			sub("uninstall", "remove the hooks (only git reason's exact shims) and restore the ones they replaced", true,
				(*ops.Session).UninstallHooks, (*ops.Session).UninstallServerHooks),
			sub("status", "show whether the hooks are installed", false, hooksStatus(hooks.Names), hooksStatus(hooks.ServerNames)),
		},
	}
}

// hooksStatus reports the named hooks; in a bare repository, where git
// runs no client hook, the server's (as --server).
func hooksStatus(names []string) func(*ops.Session, context.Context, bool) (string, []hooks.Status, error) {
	return func(sess *ops.Session, _ context.Context, _ bool) (string, []hooks.Status, error) {
		dir, err := sess.HooksDir()
		if err != nil {
			return "", nil, err
		}
		if sess.Repo.Bare {
			names = hooks.ServerNames
		}
		return dir, hooks.CheckNames(dir, names), nil
	}
}

// installHooks installs the hooks, then sets every remote up so that a
// plain git fetch brings its tasks: with the pre-push hook carrying
// reasoning out, one command sets a clone up for reasoning to ride on git.
func installHooks(sess *ops.Session, ctx context.Context, force bool) (string, []hooks.Status, error) {
	dir, st, err := sess.InstallHooks(ctx, force)
	if err != nil {
		return dir, st, err
	}
	return dir, st, sess.SetupRemotes(ctx)
}

func runHooks(ctx context.Context, o *hooksOptions) error {
	sess, err := o.Open()
	if err != nil {
		return err
	}
	act := o.act
	if o.Server {
		act = o.server
	}
	dir, st, err := act(sess, ctx, o.Force)
	if err != nil {
		return err
	}
	out := struct {
		Dir   string         `json:"dir"`
		Hooks []hooks.Status `json:"hooks"`
		// Configured is the configuration install added: fetch refspecs
		// (remote setup), receive.fsckObjects on a server.
		Configured []string `json:"configured"`
	}{dir, st, sess.RemotesSetUp}
	return doneAnyway(o.render(out, func(w io.Writer) error {
		for _, f := range out.Configured {
			fmt.Fprintf(w, "%s\n", f)
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
			fmt.Fprintf(w, "%s\t%s\t%s\n", s.Hook, state, record.Printable(s.Path))
		}
		return nil
	}), o.done, "see 'git reason hooks status'")
}

// hookCommand is what the installed shims run; it is not for people.
func hookCommand() *cli.Command {
	sub := func(name string, run func(context.Context, *base) error) *cli.Command {
		o := &base{}
		return &cli.Command{Name: name, Action: func(c *cli.Context) error {
			o.bind(c)
			return hookError(o, run(c.Context, o))
		}}
	}
	return &cli.Command{
		Hidden: true,
		Subcommands: []*cli.Command{sub("pre-commit", runPreCommit), sub("pre-merge-commit", runPreCommit), prePushHook(), sub("pre-receive", runPreReceive),
			msgHook("prepare-commit-msg", runPrepareCommitMsg), msgHook("commit-msg", runCommitMsg)},
	}
}

// msgHook is a hook git hands the commit message file (and, for
// prepare-commit-msg, the message's source and commit).
func msgHook(name string, run func(context.Context, *base, []string) error) *cli.Command {
	o := &base{}
	return &cli.Command{Name: name, Action: func(c *cli.Context) error {
		o.bind(c)
		if !c.Args().Present() {
			return hookError(o, ops.Usage("%s: git hands the hook the commit message file", name))
		}
		return hookError(o, run(c.Context, o, c.Args().Slice()))
	}}
}

// runPrepareCommitMsg appends the branch's Reason-Task trailer. It never
// stops a commit for its own sake: what goes wrong is a warning.
func runPrepareCommitMsg(ctx context.Context, o *base, args []string) error {
	source := ""
	if len(args) > 1 {
		source = args[1]
	}
	sess, err := o.Open()
	if err == nil {
		_, _, err = sess.PrepareCommitMsg(ctx, args[0], source)
	}
	if err != nil {
		fmt.Fprintf(o.Err, "git-reason: warning: no Reason-Task trailer added: %s\n", err)
	}
	return nil
}

// runCommitMsg aborts a commit whose message holds nothing but the
// trailer, as git aborts one whose message is empty.
func runCommitMsg(ctx context.Context, o *base, args []string) error {
	sess, err := o.Open()
	if err != nil {
		return err
	}
	empty, err := sess.CommitMsgEmpty(ctx, args[0])
	if err != nil {
		return err
	}
	if empty {
		return errors.New("aborting commit due to empty commit message (it holds only the Reason-Task trailer)")
	}
	return nil
}

// runPreCommit refuses a commit whose staged files break neutrality.
func runPreCommit(ctx context.Context, o *base) error {
	sess, err := o.Open()
	if err != nil {
		return err
	}
	res, err := sess.CheckNeutrality(ctx, ops.NeutralityRequest{Staged: true, Dir: sess.Repo.WorkTree})
	if err != nil {
		return err
	}
	for _, v := range res.Violations {
		fmt.Fprintf(o.Err, "git-reason: %s\n", ops.ViolationLine(v))
	}
	// A file not read (one too large) is said, as 'check neutrality'
	// says it: the commit passed without a word once, so a name in such a
	// file went through unseen.
	for _, s := range res.Skipped {
		fmt.Fprintf(o.Err, "git-reason: warning: %s\n", ops.NotChecked(s))
	}
	if n := len(res.Violations); n > 0 {
		return refusedf("commit refused: %s in staged files; see 'git reason check neutrality --staged'", record.Plural(n, "neutrality violation"))
	}
	return nil
}

// prePushHook is the pre-push hook: git hands it the remote's name and
// URL, and the refs being pushed on stdin.
func prePushHook() *cli.Command {
	o := &base{}
	return &cli.Command{Name: "pre-push", Action: func(c *cli.Context) error {
		o.bind(c)
		return hookError(o, runPrePush(c.Context, o, c.Args().First()))
	}}
}

// runPrePush refuses a push (refs on stdin, as git gives them) that
// carries unverifiable reasoning or a neutrality violation; else it
// pushes the reasoning the pushed commits name to the same remote
// (reason.pushWithCode), and what does not travel is one line each, never
// a refusal of the code push.
func runPrePush(ctx context.Context, o *base, remote string) error {
	sess, err := o.Open()
	if err != nil {
		return err
	}
	lines, err := ops.ReadPushLines(o.In)
	if err != nil {
		return err
	}
	found, err := sess.PrePush(ctx, lines)
	if err != nil {
		return err
	}
	refused := 0
	for _, f := range found {
		if f.Warning {
			fmt.Fprintf(o.Err, "git-reason: warning: %s: %s\n", f.Ref, f.Message)
			continue
		}
		refused++
		fmt.Fprintf(o.Err, "git-reason: %s: %s\n", f.Ref, f.Message)
	}
	if n := refused; n > 0 {
		return refusedf("push refused: %s; see each with 'git reason verify' and 'git reason check neutrality', fix each with new records or renames, then push again", record.Plural(n, "finding"))
	}
	if remote == "" {
		return nil // not run by git: nothing to carry
	}
	carried, err := sess.CarryReasoning(ctx, remote, lines)
	if err != nil {
		// Reasoning never holds back the code.
		fmt.Fprintf(o.Err, "git-reason: warning: reasoning not pushed: %s: run 'git reason push %s'\n", record.Printable(err.Error()), record.Printable(remote))
		return nil
	}
	for _, l := range carried.Lines {
		fmt.Fprintf(o.Err, "git-reason: %s\n", l)
	}
	return nil
}

// runPreReceive is a hosted repository's pre-receive hook: it refuses
// the whole push when a reasoning ref breaks a rule, one line per ref
// naming the rule (exit 3).
func runPreReceive(ctx context.Context, o *base) error {
	sess, err := o.Open()
	if err != nil {
		return err
	}
	lines, err := ops.ReadReceiveLines(o.In)
	if err != nil {
		return err
	}
	refused, err := sess.PreReceive(ctx, lines)
	if err != nil {
		return err
	}
	for _, r := range refused {
		fmt.Fprintf(o.Err, "git-reason: %s: refused (%s): %s\n", r.Ref, r.Rule, r.Message)
	}
	if n := len(refused); n > 0 {
		return refusedf("push refused: the hosted repository's rules refuse %s; nothing of this push was taken", record.Plural(n, "reasoning ref"))
	}
	return nil
}

// hookError prints a hook's error as one "git-reason:" line, the prefix
// every hook line carries, and keeps its exit status.
func hookError(o *base, err error) error {
	if err == nil {
		return nil
	}
	fmt.Fprintf(o.Err, "git-reason: %s\n", err)
	return quietExit(exitCode(err))
}

// quietExit is an exit status whose message was already printed.
type quietExit int

func (quietExit) Error() string     { return "" }
func (q quietExit) exitStatus() int { return int(q) }
