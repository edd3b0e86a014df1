package ops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"git-reason/gitstore"
	"git-reason/gitstore/git"
	"git-reason/gitstore/integration"
	"git-reason/record"
)

// CaughtUp is what a command's catch-up did with the remote-tracking
// heads a plain git fetch moved (CatchUp).
type CaughtUp struct {
	// Pulls are the integrations, one per remote whose tracking heads
	// moved.
	Pulls []*PullResult `json:"pulls"`
	// Lines are what the command says on stderr, once: what arrived,
	// what was quarantined or needs a person, and what to run.
	Lines []string `json:"lines"`
}

// The catch-up state, under .git/reason/: the stamp of the tracking
// namespace (one line per directory and for packed-refs, small: it is
// read by every command) and the tracking heads as last integrated (read
// only when the stamp changed).
const (
	stampFile = "fetched.stamp"
	headsFile = "fetched.heads"
	// failedFile holds what the last catch-up that failed said, a line
	// each: the next commands try again, and say it again only when
	// it changed (CatchUpPending shows it meanwhile).
	failedFile = "fetched.failed"
)

// CatchUp integrates, by the pull rules (replay, signatures under
// reason.requireSigned, quarantine), the remote-tracking heads that moved
// since the last command: what a plain git fetch brought with the fetch
// refspec of 'remote setup'. Nothing moved costs a stat of the tracking
// namespace's directories and packed-refs. It never fails a command:
// what went wrong is a line, said once. A fresh clone's first command
// also says how to get the reasoning, when hint (a verb that gets it says
// nothing of the kind).
func (e *Session) CatchUp(ctx context.Context, hint bool) *CaughtUp {
	out := &CaughtUp{Pulls: []*PullResult{}, Lines: []string{}}
	dir := filepath.Join(e.Repo.CommonDir, "reason")
	old, err := os.ReadFile(filepath.Join(dir, stampFile))
	first := errors.Is(err, fs.ErrNotExist)
	stamp, settled := e.trackingStamp(old)
	if !first && settled && bytes.Equal(old, stamp) {
		e.caughtUp = true
		return out
	}
	if first && hint {
		if line := e.cloneHint(); line != "" {
			out.Lines = append(out.Lines, line)
			e.cloneHinted = true
		}
	}
	tr, err := e.readTracked(dir, old, stamp)
	if err != nil {
		out.Lines = e.failedOnce(dir, out.Lines, []string{fmt.Sprintf("warning: fetched reasoning not integrated: %s: run 'git reason pull'", record.Printable(err.Error()))})
		return out
	}
	// The tracking heads as read here are those checked, integrated and
	// remembered as integrated.
	moved := map[string][]integration.Fetched{}
	var remotes []string
	for _, r := range tr.refs {
		rest := strings.TrimPrefix(r.Name, gitstore.RemotePrefix)
		remote, task, ok := strings.Cut(rest, "/")
		if !ok || tr.known[rest] == r.Hash || record.CheckTask(task) != nil {
			continue
		}
		if _, seen := moved[remote]; !seen {
			remotes = append(remotes, remote)
		}
		moved[remote] = append(moved[remote], integration.Fetched{Task: task, Head: r.Hash})
	}
	slices.Sort(remotes)
	// Only a remote configured here is integrated from: a tracking ref
	// under any other name was planted (a mirror clone of a stranger's
	// repository, a fetch of refs/*:refs/*), and its name, a stranger's,
	// is said once, quoted, with what to do, and left alone. The settings
	// are read only when a tracking head moved (TestCatchUpRecentChange).
	var unconfigured []string
	strays := 0
	if len(remotes) > 0 {
		st, err := e.Settings()
		if err != nil {
			out.Lines = e.failedOnce(dir, out.Lines, []string{fmt.Sprintf("warning: fetched reasoning not integrated: %s: run 'git reason pull'", record.Printable(err.Error()))})
			return out
		}
		renamed := map[string]string{}
		for r := range st.Remotes {
			if n, _ := fetchesUnder(st, r); n != "" {
				renamed[n] = r
			}
		}
		remotes = slices.DeleteFunc(remotes, func(remote string) bool {
			if _, ok := st.Remotes[remote]; ok {
				return false
			}
			if r := renamed[remote]; r != "" {
				out.Lines = append(out.Lines, fmt.Sprintf("warning: remote %s fetches reasoning under the name %s (a fetch refspec 'git remote rename' leaves), not integrated: run 'git reason remote setup %s', then 'git reason pull %s'",
					record.ShellQuote(r), record.ShellQuote(remote), record.ShellQuote(r), record.ShellQuote(r)))
				return true
			}
			unconfigured = append(unconfigured, remote)
			strays += len(moved[remote])
			return true
		})
	}
	var failed []string
	// After a failure said before, the next tries do not wait for a lock
	// another process holds (a stale one would cost every command the
	// wait): what is locked now is tried again by the command after.
	e.noLockWait = e.failedBefore(dir) != nil
	defer func() { e.noLockWait = false }()
	for _, remote := range remotes {
		if e.checkRemote(remote) != nil {
			continue
		}
		slices.SortFunc(moved[remote], func(a, b integration.Fetched) int { return strings.Compare(a.Task, b.Task) })
		heads, local, err := e.localMoved(moved[remote])
		var res *PullResult
		if err == nil {
			res, err = e.integrateMoved(ctx, remote, heads, local, e.refusedObjects(ctx, heads, local), false)
		}
		if err != nil && errors.Is(ctx.Err(), context.Canceled) {
			// Stopped (the client cancelled its call, the server or the
			// command is stopping) is no failure of the catch-up: nothing
			// is said or remembered of it, neither a failure (status and
			// doctor would show it) nor the lock wait the next catch-up
			// would then skip; the next one does the work, as if this one
			// had not started.
			return out
		}
		if err != nil {
			failed = append(failed, fmt.Sprintf("warning: reasoning fetched from %s not integrated: %s: run 'git reason pull %s'", remote, record.Printable(err.Error()), record.ShellQuote(remote)))
			continue
		}
		out.Pulls = append(out.Pulls, res)
		out.Lines = append(out.Lines, caughtUpLines(res)...)
	}
	if tr.whole {
		failed = append(failed, e.forgetGone(tr)...)
	}
	if len(unconfigured) > 0 {
		// Remembered as seen with the rest: said again when they move.
		line := unconfiguredLine(unconfigured, strays)
		if len(failed) > 0 {
			failed = append(failed, line) // said once with the failure
		} else {
			out.Lines = append(out.Lines, line)
		}
	}
	if len(failed) > 0 {
		out.Lines = e.failedOnce(dir, out.Lines, failed)
		return out // tried again by the next command
	}
	e.caughtUp = true
	// The stamp names the namespace as it was before the listing: a fetch
	// meanwhile changes it again, and the next command looks. A memo not
	// written (a lock a killed command left) is said once, as a failed
	// integration is, and the commands after it do not wait for its lock.
	if err := e.saveCatchUp(dir, stamp, settled, tr); err != nil {
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
			// A repository this user may read and not write (a shared
			// one, a read-only mount): it is looked at again, as git's
			// reads do with what they cannot write, and saying so at
			// every command, which it could not remember it said, would
			// only be noise.
			return out
		}
		out.Lines = e.failedOnce(dir, out.Lines, []string{fmt.Sprintf("warning: could not remember the fetched heads (%s): the next command looks again", record.Printable(err.Error()))})
		return out
	}
	_ = os.Remove(filepath.Join(dir, failedFile))
	return out
}

// failedOnce adds to lines the lines of a failed catch-up, unless the
// last catch-up that failed said exactly these (the command before it
// reported them: a failure is said once, by the next command, and then
// shown by status and doctor, CatchUpPending), and remembers them.
func (e *Session) failedOnce(dir string, lines, failed []string) []string {
	if slices.Equal(e.failedBefore(dir), failed) {
		return lines
	}
	if err := git.MkdirAll(dir, 0o777); err == nil {
		_ = git.WriteFile(filepath.Join(dir, failedFile), []byte(strings.Join(failed, "\n")+"\n"), 0o600, 0, false)
	}
	return append(lines, failed...)
}

// failedBefore is what the last failed catch-up said, a line each (nil:
// the last catch-up did not fail).
func (e *Session) failedBefore(dir string) []string {
	data, err := os.ReadFile(filepath.Join(dir, failedFile))
	if err != nil || len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// CatchUpPending is what the last automatic catch-up that failed said,
// a line each, while the commands after it have not integrated what it
// could not: status and doctor show it, after the command that said it
// once.
func (e *Session) CatchUpPending() []string {
	var out []string
	for _, l := range e.failedBefore(filepath.Join(e.Repo.CommonDir, "reason")) {
		out = append(out, record.Printable(strings.TrimPrefix(l, "warning: ")))
	}
	return out
}

// CatchUpLive is CatchUp for a session that outlives one command (the MCP
// server, the Reasoning page), called before each request it serves: what
// a plain git fetch brought since the last request is integrated by the
// pull rules before the request reads, as the command line does before
// each command, one catch-up at a time. Nothing moved costs the stamp's
// stats. What it did is said through say (the session's warnings when
// nil), once.
func (e *Session) CatchUpLive(ctx context.Context, say func(string)) {
	e.catchingUp.Lock()
	defer e.catchingUp.Unlock()
	if say == nil {
		say = e.warn
	}
	for _, l := range e.CatchUp(ctx, false).Lines {
		if say != nil {
			say(l)
		}
	}
}

// caughtUpLines say what one remote's integration did: one line for what
// arrived, one per task quarantined or needing a person.
func caughtUpLines(res *PullResult) []string {
	var lines, arrived []string
	quarantined := 0
	for _, in := range res.Tasks {
		if in.Outcome == PullQuarantined {
			// A line each for the first listedArrivals: a remote's
			// thousands of forged tasks are one more line, not thousands.
			if quarantined++; quarantined <= listedArrivals {
				lines = append(lines, fmt.Sprintf("fetched task %s from %s quarantined (%s): local ref untouched; inspect %s, see 'git reason pull %s %s'",
					in.Task, res.Remote, strings.Join(in.Codes, ", "), TrackingRef(res.Remote, in.Task), record.ShellQuote(res.Remote), record.ShellQuote(in.Task)))
			}
			continue
		}
		arrived = append(arrived, in.Task+" "+in.Outcome)
	}
	if more := quarantined - listedArrivals; more > 0 {
		lines = append(lines, fmt.Sprintf("%d more fetched tasks from %s quarantined: local refs untouched; 'git reason pull %s' names every one", more, res.Remote, record.ShellQuote(res.Remote)))
	}
	if len(arrived) > 0 {
		lines = append([]string{fmt.Sprintf("integrated reasoning fetched from %s: %s", res.Remote, arrivals(arrived))}, lines...)
	}
	for _, n := range res.Needs {
		lines = append(lines, fmt.Sprintf("%s: needs a person's record: %s; settle it with: %s", n.Task, n.Message, n.Command))
	}
	return lines
}

// unconfiguredLine is the one line that says the catch-up left alone
// strays tracking refs under the names of remotes (sorted) configured
// nowhere here, and what to do: add the remote and pull, or delete them.
// Each name is a stranger's: printed quoted, so the commands pasted run
// what they say.
func unconfiguredLine(remotes []string, strays int) string {
	const shown = 3
	names, prefixes := make([]string, 0, shown), make([]string, 0, shown)
	for _, r := range remotes[:min(len(remotes), shown)] {
		names = append(names, record.ShellQuote(r))
		prefixes = append(prefixes, record.ShellQuote(gitstore.RemotePrefix+r+"/"))
	}
	which := "remote " + names[0]
	add := fmt.Sprintf("if it is yours, 'git remote add %s URL', then 'git reason pull %s'", names[0], names[0])
	if len(remotes) > 1 {
		which = "remotes " + strings.Join(names, ", ")
		if more := len(remotes) - shown; more > 0 {
			which += fmt.Sprintf(" and %d more ('git for-each-ref %s' lists them)", more, gitstore.RemotePrefix)
		}
		add = "if one is yours, 'git remote add NAME URL', then 'git reason pull NAME'"
	}
	return fmt.Sprintf("warning: %d fetched reasoning refs under %s, configured nowhere here, left alone: %s; else delete them: 'git for-each-ref --format='delete %%(refname)' %s | git update-ref --stdin'",
		strays, which, add, strings.Join(prefixes, " "))
}

// listedArrivals is how many tasks the line of what a catch-up
// integrated names one by one: a fetch that brought a whole team's year
// (thousands of tasks) is said in one line of readable length.
const listedArrivals = 10

// arrivals is the "TASK OUTCOME, ..." of what arrived (each "task
// outcome"); past listedArrivals, the count of each outcome, the first
// few tasks and how many more.
func arrivals(arrived []string) string {
	if len(arrived) <= listedArrivals {
		return strings.Join(arrived, ", ")
	}
	counts := map[string]int{}
	var order []string
	for _, a := range arrived {
		_, outcome, _ := strings.Cut(a, " ")
		if counts[outcome] == 0 {
			order = append(order, outcome)
		}
		counts[outcome]++
	}
	parts := make([]string, len(order))
	for i, o := range order {
		parts[i] = fmt.Sprintf("%d %s", counts[o], o)
	}
	const shown = 3
	return fmt.Sprintf("%d tasks (%s): %s and %d more; see them with 'git reason tasks'",
		len(arrived), strings.Join(parts, ", "), strings.Join(arrived[:shown], ", "), len(arrived)-shown)
}

// cloneHint is the one line a clone's first command says when its
// default remote does not bring reasoning with git fetch yet ("" when it
// does, or there is no remote).
func (e *Session) cloneHint() string {
	remote, _, err := e.Remote(nil)
	if err != nil {
		return ""
	}
	st, err := e.Settings()
	if err != nil || fetchesTasks(st, remote) || mirrorsTasks(st, remote) {
		return ""
	}
	if e.Repo.WorkTree == "" {
		// No commit is made in a bare repository: its hooks would never
		// run, and the fetch refspec is all that install would set.
		return fmt.Sprintf("reasoning shared on %s is not fetched here: run 'git reason remote setup' once (then git fetch brings it), or 'git reason pull' now", remote)
	}
	return fmt.Sprintf("reasoning shared on %s is not fetched here: run 'git reason hooks install' once (then git fetch brings it and git push carries yours), or 'git reason pull' now", remote)
}

// trackingStamp is the stamp of the tracking namespace
// (gitstore.Repo.RefsStamp), the files old names looked at first.
func (e *Session) trackingStamp(old []byte) (stamp []byte, settled bool) {
	return e.Repo.RefsStamp(gitstore.RemotePrefix, old)
}

// SettleFetched remembers the tracking heads as they are now as
// integrated: pull, push and sync call it when they are done, having
// integrated what they fetched, after the command's own CatchUp
// integrated everything before. Then the next command finds nothing
// moved. Without that CatchUp (it failed), nothing is remembered.
func (e *Session) SettleFetched() {
	if !e.caughtUp {
		return
	}
	dir := filepath.Join(e.Repo.CommonDir, "reason")
	old, _ := os.ReadFile(filepath.Join(dir, stampFile))
	stamp, settled := e.trackingStamp(old)
	tr, err := e.readTracked(dir, old, stamp)
	if err != nil {
		return
	}
	_ = e.saveCatchUp(dir, stamp, settled, tr)
}

// SetupRemotes runs RemoteSetup for every configured remote whose name
// can name a tracking namespace, and keeps what it changed in
// RemotesSetUp.
func (e *Session) SetupRemotes(ctx context.Context) error {
	st, err := e.Settings()
	if err != nil {
		return err
	}
	var names []string
	for name, r := range st.Remotes {
		if r.URL != "" && e.checkRemote(name) == nil {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	e.RemotesSetUp = []string{}
	for _, name := range names {
		changed, err := e.RemoteSetup(ctx, name)
		if err != nil {
			return err
		}
		e.RemotesSetUp = append(e.RemotesSetUp, changed...)
	}
	return nil
}

// refusedObjects runs git's object checks, as pull's fetch runs them
// (fetch.fsckObjects), on what each moved tracking head brings that its
// local task lacks (heads and local, as localMoved read them): a plain
// git fetch may have run without them. All at once first; when refused,
// task by task, each refused one returned to be quarantined.
func (e *Session) refusedObjects(ctx context.Context, heads []integration.Fetched, local map[string]string) []gitstore.FetchRefusal {
	if len(heads) == 0 {
		return nil
	}
	revs := make([]string, 0, len(heads))
	var not []string
	for _, h := range heads {
		revs = append(revs, h.Head)
		if l := local[h.Task]; l != "" {
			not = append(not, l)
		}
	}
	if e.strictObjects(ctx, revs, not) == "" {
		return nil
	}
	var out []gitstore.FetchRefusal
	for _, h := range heads {
		var not []string
		if l := local[h.Task]; l != "" {
			not = []string{l}
		}
		if why := e.strictObjects(ctx, []string{h.Head}, not); why != "" {
			out = append(out, gitstore.FetchRefusal{Task: h.Task, Head: h.Head, Reason: why})
		}
	}
	return out
}
