package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

// syncOptions are what pull, push, sync and remote setup are given:
// REMOTE (optional) and, for pull and push, TASK names.
type syncOptions struct {
	base
	Verb  string   // pull, push or sync
	Args  []string // [REMOTE] [TASK...]
	Tasks bool     // TASK names are allowed after REMOTE
}

// parse binds the dependencies and reads the arguments.
func (o *syncOptions) parse(c *cli.Context) error {
	o.bind(c)
	o.Verb, o.Args = c.Command.Name, c.Args().Slice()
	if !o.Tasks {
		return noMoreArgs(c, 1)
	}
	return nil
}

// open opens the repository and resolves REMOTE (the default remote when
// none is named) and the TASK names.
func (o *syncOptions) open() (*ops.Session, ops.SyncRequest, error) {
	sess, err := o.Open()
	if err != nil {
		return nil, ops.SyncRequest{}, err
	}
	verb := o.Verb
	if verb == "setup" {
		verb = "remote setup"
	}
	resolve := sess.Remote
	if o.Verb == "push" {
		resolve = sess.PushRemote
	}
	remote, rest, err := resolve(o.Args)
	none := errors.Is(err, ops.ErrNoRemote)
	if none {
		rest = o.Args // none configured: every argument is what it was given as
	} else if err != nil {
		return nil, ops.SyncRequest{}, err
	}
	if len(rest) > 0 && len(rest) == len(o.Args) && urlOrPath(rest[0]) {
		// Not a remote's name, and no task's name either: a URL or path
		// given as REMOTE, which git takes but a tracking namespace
		// cannot be named after.
		return nil, ops.SyncRequest{}, ops.Usage("%q is not a remote's name: tasks travel through a named remote; add it with 'git remote add NAME %s', then run 'git reason %s NAME'",
			rest[0], rest[0], verb)
	}
	if (!o.Tasks || none) && len(rest) > 0 {
		// A name where REMOTE goes, and no remote of that name: with
		// none configured a first TASK has no remote to come from either.
		return nil, ops.SyncRequest{}, ops.Usage("no remote %q: see 'git remote -v'", rest[0])
	}
	if none {
		return nil, ops.SyncRequest{}, ops.Usage("%s", ops.NoRemote(verb))
	}
	req := ops.SyncRequest{Remote: remote, Tasks: rest, Defaulted: len(rest) > 0 && len(rest) == len(o.Args)}
	if o.Verb == "sync" && len(o.Args) == 0 {
		// No REMOTE: sync pulls as git pull and pushes as git push, each
		// from and to the remote git would choose.
		if req.PushRemote, _, err = sess.PushRemote(nil); err != nil {
			return nil, ops.SyncRequest{}, err
		}
	}
	return sess, req, nil
}

// urlOrPath reports whether arg is written as a URL or a path (git's
// forms: scheme://, host:path, /abs, ./rel, ../rel, ~user) and so cannot
// be a task's name, which starts with a letter or digit and holds no ':'.
func urlOrPath(arg string) bool {
	return strings.ContainsRune(arg, ':') || strings.HasPrefix(arg, "/") || strings.HasPrefix(arg, ".") || strings.HasPrefix(arg, "~")
}

// syncVerb is the constructor every sharing verb uses.
func syncVerb(tasks bool, run func(context.Context, *syncOptions) error) *cli.Command {
	o := &syncOptions{Tasks: tasks}
	cmd := &cli.Command{Flags: []cli.Flag{o.jsonFlag()}}
	cmd.Action = func(c *cli.Context) error {
		if err := o.parse(c); err != nil {
			return err
		}
		return run(c.Context, o)
	}
	return cmd
}

func pullCommand() *cli.Command { return syncVerb(true, runPull) }

func runPull(ctx context.Context, o *syncOptions) error {
	sess, req, err := o.open()
	if err != nil {
		return err
	}
	res, err := sess.Pull(ctx, req)
	if err != nil {
		return err
	}
	sess.SettleFetched()
	err = moved(o.render(res, func(w io.Writer) error {
		printPull(w, res)
		printSignatures(o.Err, res.Signatures)
		if len(res.Tasks) == 0 {
			fmt.Fprintf(o.Err, "up to date with %s\n", res.Remote)
		}
		return nil
	}), pulled(res))
	if err != nil {
		return err
	}
	return quarantineError(res.Remote, res.Quarantined, 0)
}

func pushCommand() *cli.Command { return syncVerb(true, runPush) }

func runPush(ctx context.Context, o *syncOptions) error {
	sess, req, err := o.open()
	if err != nil {
		return err
	}
	res, err := sess.Push(ctx, req, nil)
	if err != nil {
		return err
	}
	sess.SettleFetched()
	err = moved(o.render(res, func(w io.Writer) error {
		printPush(w, res)
		if len(res.Tasks) == 0 && len(res.Pulled) == 0 {
			fmt.Fprintf(o.Err, "%s has every task already\n", res.Remote)
		}
		return nil
	}), pushed(res))
	if err != nil {
		return err
	}
	return pushError(res)
}

func syncCommand() *cli.Command { return syncVerb(false, runSync) }

func runSync(ctx context.Context, o *syncOptions) error {
	sess, req, err := o.open()
	if err != nil {
		return err
	}
	res, err := sess.Sync(ctx, req)
	if err == nil {
		sess.SettleFetched()
	}
	if err != nil {
		if res != nil && res.Pull != nil && !o.JSON {
			printPull(o.Out, res.Pull)
		}
		return err
	}
	err = moved(o.render(res, func(w io.Writer) error {
		printPull(w, res.Pull)
		printSignatures(o.Err, res.Pull.Signatures)
		printPush(w, res.Push)
		if len(res.Pull.Tasks) == 0 && len(res.Push.Tasks) == 0 && len(res.Push.Pulled) == 0 {
			fmt.Fprintf(o.Err, "in sync with %s\n", res.Remote())
		}
		return nil
	}), cond(pulled(res.Pull)+pushed(res.Push) != "", "synced with "+res.Remote()))
	if err != nil {
		return err
	}
	if err := pushError(res.Push); err != nil {
		return err
	}
	return quarantineError(res.Pull.Remote, res.Pull.Quarantined, 0)
}

// moved is err, a sync verb's output failing, unless a --jq expression
// failed on the output of refs already moved (done says how; "" when it
// moved none): exit 2 said nothing was changed.
func moved(err error, done string) error {
	return doneAnyway(err, done, "its refs are moved (see 'git reason tasks')")
}

// pulled and pushed say what a pull or push moved, "" when nothing.
func pulled(res *ops.PullResult) string {
	return cond(len(res.Tasks) > 0, "pulled from "+res.Remote)
}

func pushed(res *ops.PushResult) string {
	return cond(len(res.Tasks)+len(res.Pulled) > 0, "pushed to "+res.Remote)
}

// cond is s when ok, else "".
func cond(ok bool, s string) string {
	if ok {
		return s
	}
	return ""
}

func remoteCommand() *cli.Command {
	setup := syncVerb(false, runRemoteSetup)
	setup.Name = "setup"
	setup.Usage = "make a plain 'git fetch' also fetch the remote's tasks (into refs/reasoning/remotes/REMOTE/)"
	setup.ArgsUsage = "[REMOTE]"
	return &cli.Command{
		Subcommands: []*cli.Command{setup},
	}
}

func runRemoteSetup(ctx context.Context, o *syncOptions) error {
	sess, req, err := o.open()
	if err != nil {
		return err
	}
	changed, err := sess.RemoteSetup(ctx, req.Remote)
	if err != nil {
		return err
	}
	out := struct {
		Remote  string   `json:"remote"`
		Changed []string `json:"changed"`
	}{req.Remote, changed}
	return doneAnyway(o.render(out, func(w io.Writer) error {
		if len(changed) == 0 {
			fmt.Fprintf(o.Err, "%s already fetches reasoning: nothing changed\n", req.Remote)
			return nil
		}
		fmt.Fprintf(w, "%s\n", strings.Join(changed, "\n"))
		fmt.Fprintf(o.Err, "'git fetch %s' now also fetches its tasks; 'git reason pull' verifies and merges them\n", req.Remote)
		return nil
	}), cond(len(changed) > 0, req.Remote+" set up"), "its configuration is written (see 'git config --get-all remote."+req.Remote+".fetch')")
}

func printPull(w io.Writer, res *ops.PullResult) {
	printIntegrations(w, res.Remote, res.Tasks)
	printNeeds(w, res.Needs)
}

// printSignatures says, on stderr, how the fetched commits were signed,
// for each task where any was.
func printSignatures(w io.Writer, sigs []ops.TaskSignatures) {
	for _, ts := range sigs {
		if ts.AnySigned() {
			fmt.Fprintln(w, record.Printable(ts.Summary()))
		}
	}
}

// printIntegrations prints a line per task a pull from remote moved or
// quarantined, each naming remote: sync pulls from one remote and pushes
// to another where git would (remote.pushDefault), and its lines of both
// say which remote each concerns.
func printIntegrations(w io.Writer, remote string, tasks []*ops.PulledTask) {
	for _, in := range tasks {
		switch in.Outcome {
		case ops.PullCreated:
			fmt.Fprintf(w, "%s: created from %s at %s\n", in.Task, remote, record.ShortCommit(in.To))
		case ops.PullQuarantined:
			fmt.Fprintf(w, "%s: quarantined: %s (local ref untouched; inspect %s)\n", in.Task, strings.Join(in.Codes, ", "),
				ops.TrackingRef(remote, in.Task))
			printFindings(w, "  ", in.Findings, syncAll("pull"))
		default:
			fmt.Fprintf(w, "%s: %s %s..%s from %s\n", in.Task, in.Outcome, record.ShortCommit(in.From), record.ShortCommit(in.To), remote)
		}
	}
}

func printPush(w io.Writer, res *ops.PushResult) {
	printIntegrations(w, res.Remote, res.Pulled)
	printNeeds(w, res.Needs)
	for _, t := range res.Tasks {
		switch t.Outcome {
		case ops.PushCreated:
			fmt.Fprintf(w, "%s: created on %s at %s\n", t.Task, res.Remote, record.ShortCommit(t.To))
		case ops.PushPushed:
			fmt.Fprintf(w, "%s: pushed %s..%s to %s\n", t.Task, record.ShortCommit(t.From), record.ShortCommit(t.To), res.Remote)
		case ops.PushRefused:
			fmt.Fprintf(w, "%s: %s: %s (not pushed to %s)\n", t.Task, t.Outcome, strings.Join(t.Codes, ", "), res.Remote)
			printFindings(w, "  ", t.Findings, syncAll("push"))
		case ops.PushQuarantined:
			// Its findings are on the pull's line just above.
			fmt.Fprintf(w, "%s: not pushed: what %s holds was quarantined: %s\n", t.Task, res.Remote, strings.Join(t.Codes, ", "))
		default:
			fmt.Fprintf(w, "%s: %s: %s\n", t.Task, t.Outcome, t.Message) // the message names the remote
		}
	}
}

// quarantineError exits 3 when anything was quarantined or refused.
func quarantineError(remote string, quarantined, refused int) error {
	if quarantined+refused == 0 {
		return nil
	}
	return refusedf("%s from %s quarantined: local refs are untouched; inspect refs/reasoning/remotes/%s/", record.Plural(quarantined, "task"), remote, remote)
}

// pushError exits 1 when the remote rejected a task, 3 when verification
// refused one.
func pushError(res *ops.PushResult) error {
	if n := res.Rejected(); n > 0 {
		return fmt.Errorf("%s rejected %s: see the lines above", res.Remote, record.Plural(n, "task"))
	}
	quarantined := 0
	for _, t := range res.Tasks {
		if t.Outcome == ops.PushQuarantined {
			quarantined++
		}
	}
	if n := res.Refused() - quarantined; n > 0 {
		return refusedf("%s not pushed, refused by verification (see 'git reason verify')", record.Plural(n, "task"))
	}
	if quarantined > 0 {
		// The local history verifies: what the remote holds does not, so
		// 'git reason verify' would find nothing here.
		return refusedf("%s not pushed: what %s holds does not verify and was quarantined; local refs are untouched; inspect refs/reasoning/remotes/%s/",
			record.Plural(quarantined, "task"), res.Remote, res.Remote)
	}
	return nil
}
