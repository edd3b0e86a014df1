package ops

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"git-reason/gitstore"
	"git-reason/gitstore/git"
	"git-reason/gitstore/integration"
	"git-reason/record"
)

// SyncRequest names a remote ("" for the default one) and the tasks a
// pull or push is about (none: every task).
type SyncRequest struct {
	Remote string
	// PushRemote is where sync pushes when it is not Remote: with no
	// REMOTE named, git pull fetches from the branch's upstream and git
	// push sends to branch.<name>.pushRemote or remote.pushDefault, and
	// sync, a pull then a push, does both as git does ("" is Remote).
	PushRemote string
	Tasks      []string
	// Defaulted is set when no REMOTE was named, so that Remote is the
	// default one and Tasks[0] may have been meant as a remote's name:
	// an error about that task says it is neither.
	Defaulted bool
}

// mayBeRemote reports whether task stood where REMOTE may stand and
// names no remote (Defaulted): an error about it says that this reading
// failed too.
func (r SyncRequest) mayBeRemote(task string) bool {
	return r.Defaulted && len(r.Tasks) > 0 && r.Tasks[0] == task
}

// PullResult is what a pull did: one entry per task whose local ref moved
// or that was quarantined, and the records merges made inadmissible that
// need a person's record.
type PullResult struct {
	Remote      string        `json:"remote"`
	Tasks       []*PulledTask `json:"tasks"`
	Quarantined int           `json:"quarantined"`
	Needs       []Need        `json:"needs"`
	// Signatures are the signature checks of the fetched commits that
	// were new here, per task (see checkFetched).
	Signatures []TaskSignatures `json:"signatures"`
	// Examined counts the fetched tasks whose head differed from the
	// local one: the only histories a pull reads. A pull with nothing to
	// do examines none.
	Examined int `json:"examined"`
}

// What pull did with a task (PulledTask.Outcome).
const (
	PullCreated     = integration.OutcomeCreated     // no local ref: created at the fetched head
	PullFastForward = integration.OutcomeFastForward // the local ref was behind
	PullMerged      = integration.OutcomeMerged      // both had records: a merge commit joins them
	PullQuarantined = integration.OutcomeQuarantined // nothing changed: see Codes
)

// PulledTask is what pull did with one fetched task whose local ref moved
// or that was quarantined: the integration itself (a merge's Refusals
// are settled by a person's record, see Need).
type PulledTask = integration.Integration

// TrackingRef is the ref a pull from remote leaves task's fetched history
// on, for a person to inspect what was quarantined.
func TrackingRef(remote, task string) string { return gitstore.RemoteRef(remote, task) }

// Need is a record a merge made inadmissible, not yet settled: a person
// settles it by writing the record Command says.
type Need struct {
	Task    string `json:"task"`
	Record  string `json:"record"`
	Merge   string `json:"merge"` // the merge commit that refused it
	Message string `json:"message"`
	Command string `json:"command"`
	// Tools is Command as the MCP tools take it; set by the MCP server
	// alone (record.ToolCall).
	Tools []record.ToolCall `json:"tools,omitempty"`
}

// maxPushRounds bounds how often a push rejected because the remote moved
// pulls and tries again.
const maxPushRounds = 5

// ErrNoRemote is what Remote's error wraps when no remote is named and
// neither the current branch's upstream nor origin is one.
var ErrNoRemote = errors.New("no remote")

// Remote resolves the optional REMOTE of pull, push and sync: args[0] when
// it names a configured remote (the rest are tasks), else the remote git
// fetches from: the current branch's upstream remote, else the only
// remote when there is one, else origin.
func (e *Session) Remote(args []string) (string, []string, error) {
	return e.remote(args, false)
}

// PushRemote is Remote as git push chooses: the current branch's
// branch.<name>.pushRemote, then remote.pushDefault, before the remote
// git fetches from.
func (e *Session) PushRemote(args []string) (string, []string, error) {
	return e.remote(args, true)
}

func (e *Session) remote(args []string, push bool) (string, []string, error) {
	st, err := e.Settings()
	if err != nil {
		return "", nil, err
	}
	isRemote := func(name string) bool { return st.Remotes[name].URL != "" }
	if len(args) > 0 && isRemote(args[0]) {
		return args[0], args[1:], e.checkRemote(args[0])
	}
	branch := e.Repo.Branch()
	var choices []string
	if push {
		choices = append(choices, st.PushRemotes[branch], st.PushDefault)
	}
	choices = append(choices, st.Upstreams[branch])
	var configured []string
	for name := range st.Remotes {
		if isRemote(name) {
			configured = append(configured, name)
		}
	}
	if len(configured) == 1 {
		choices = append(choices, configured[0])
	}
	for _, r := range append(choices, "origin") {
		if r != "" && r != "." && isRemote(r) {
			return r, args, e.checkRemote(r)
		}
	}
	return "", nil, noRemote{}
}

// pullHint says how to get a remote's tasks when there are none here and
// a remote is configured (none otherwise). It reads configuration only:
// no network. No tool fetches: the tools are told it is the person's step.
func (e *Session) pullHint(ctx context.Context) (record.Advice, bool) {
	tasks, err := e.Store.Tasks(ctx)
	if err != nil || len(tasks) > 0 {
		return record.Advice{}, false
	}
	remote, _, err := e.Remote(nil)
	if err != nil {
		return record.Advice{}, false
	}
	if e.cloneHinted {
		// This command's catch-up has just said how (cloneHint), on
		// stderr: once is enough.
		return record.Advice{CLI: "no tasks here yet"}, true
	}
	// The same advice as a fresh clone's first command (cloneHint): one
	// command sets a clone up, and once it is, any git fetch brings them.
	if st, err := e.Settings(); err == nil && (fetchesTasks(st, remote) || mirrorsTasks(st, remote)) {
		return record.Advice{CLI: fmt.Sprintf("no tasks here yet; tasks shared on %s come with 'git reason pull' or any git fetch", remote),
			Tools: fmt.Sprintf("no tasks here yet; tasks shared on %s come with any git fetch, or 'git reason pull', which the person runs (no tool fetches)", remote)}, true
	}
	setup := "hooks install"
	if e.Repo.WorkTree == "" {
		setup = "remote setup" // a bare repository runs no client hook (cloneHint)
	}
	return record.Advice{CLI: fmt.Sprintf("no tasks here yet; tasks shared on %s come with 'git reason pull' (or 'git reason %s' once, then any git fetch)", remote, setup),
		Tools: fmt.Sprintf("no tasks here yet; tasks shared on %s come with 'git reason pull' (or 'git reason %s' once, then any git fetch), which the person runs (no tool fetches)", remote, setup)}, true
}

// NoTasks is what every surface's status, log and tasks of every task
// say when they have no task to show: how to fetch a remote's, when one
// is configured, else how to start one; or, where task refs exist but
// none reads (each was warned about as it was skipped), where to look.
func (e *Session) NoTasks(ctx context.Context) record.Advice {
	// Task refs first: pullHint says nothing where there are some.
	if tasks, err := e.Store.Tasks(ctx); err == nil && len(tasks) > 0 {
		return record.Advice{CLI: fmt.Sprintf("no task to show: every task here (%d) has a history that does not read; see 'git reason verify'", len(tasks)),
			Tools: fmt.Sprintf("no task to show: every task here (%d) has a history that does not read; the verify tool says why", len(tasks))}
	}
	if hint, ok := e.pullHint(ctx); ok {
		return hint
	}
	return record.Advice{CLI: "no tasks yet: start one with 'git reason assess TASK ...'", Tools: "no tasks yet: start one with the assess tool"}
}

// checkRemote refuses a remote whose name cannot be part of a ref name.
func (e *Session) checkRemote(name string) error {
	if err := gitstore.CheckRefName(gitstore.RemoteRef(name, "t")); err != nil || strings.Contains(name, "/") {
		return Usage("remote %q cannot name a remote-tracking namespace: rename it with 'git remote rename'", name)
	}
	return nil
}

// integrator returns the Integrator pull and push share, so that a head
// pull verified is not replayed again by the push after it.
func (e *Session) integrator() *integration.Integrator {
	if e.integ == nil {
		memo := &integration.Memo{}
		memo.Remembered = gitstore.OpenRemembered(e.Repo)
		e.Store.Share(&memo.Shared)
		e.integ = &integration.Integrator{Store: e.Store, Merger: e.mergeSignature, Memo: memo,
			Fatal: func(err error) bool { return errors.Is(err, ErrUsage) }}
	}
	return e.integ
}

// mergeSignature signs a merge commit: the user's identity, now.
func (e *Session) mergeSignature() (gitstore.Signature, error) {
	if err := e.Identify(); err != nil {
		return gitstore.Signature{}, err
	}
	return gitstore.ParseActor(e.Writer.Actor, time.Now()), nil
}

// Pull fetches the remote's tasks with the user's git into
// refs/reasoning/remotes/<remote>/ and brings each into its local ref:
// verified by replay first, then created, fast-forwarded or merged, or
// quarantined (local ref untouched) when it does not verify or conflicts.
func (e *Session) Pull(ctx context.Context, req SyncRequest) (*PullResult, error) {
	for _, t := range req.Tasks {
		if err := record.CheckTask(t); err != nil {
			return nil, err
		}
	}
	refused, err := e.Repo.Fetch(ctx, req.Remote, req.Tasks)
	if err != nil {
		return nil, fetchError(req, err)
	}
	return e.integrate(ctx, req.Remote, req.Tasks, refused)
}

// fetchError turns a failed git fetch into one line saying what to do.
func fetchError(req SyncRequest, err error) error {
	remote := req.Remote
	var ge *gitstore.GitError
	if errors.As(err, &ge) {
		line := remoteLine(ge)
		if strings.Contains(ge.Stderr, "couldn't find remote ref") {
			if len(req.Tasks) > 0 && req.mayBeRemote(req.Tasks[0]) && strings.HasSuffix(line, "couldn't find remote ref "+gitstore.TaskRef(req.Tasks[0])) {
				return Usage("remote %s has no such task (%s), and no remote is named %q either: name a task of %s (see 'git ls-remote %s refs/reasoning/tasks/*') or a remote (see 'git remote -v')",
					remote, line, req.Tasks[0], remote, remote)
			}
			return Usage("remote %s has no such task: %s (see 'git ls-remote %s refs/reasoning/tasks/*')", remote, line, remote)
		}
		return fmt.Errorf("fetch from %s failed: git fetch: %s%s", remote, line, urlAdvice(remote, ge.Stderr))
	}
	return fmt.Errorf("fetch from %s: %w", remote, err)
}

// remoteLine is git's first line of a failed fetch or push, and when it
// ends in a colon (git's "unable to connect to HOST:", its reason on the
// next line as "errno=Connection refused"), that reason after it.
func remoteLine(ge *gitstore.GitError) string {
	line := git.FirstLine(ge.Stderr, fmt.Sprintf("exit status %d", ge.Code))
	if strings.HasSuffix(line, ":") {
		if _, why, ok := strings.Cut(ge.Stderr, "errno="); ok {
			why, _, _ = strings.Cut(why, "\n")
			line += " " + strings.TrimSpace(why)
		}
	}
	return record.Printable(line)
}

// unreachable are git's words, from its own transports, curl and ssh, for
// a remote it could not reach.
var unreachable = []string{"unable to connect", "Could not resolve host", "Could not resolve hostname", "Connection refused",
	"Couldn't connect to server", "Connection timed out", "Network is unreachable", "No route to host", "Could not read from remote repository"}

// denied are git's words for a remote that was reached and refused the
// user: ssh's, and those of https with prompts off (git.Env).
var denied = []string{"Permission denied", "Authentication failed", "could not read Username", "could not read Password", "returned error: 403"}

// urlAdvice is what to do, after git's own words, when they say that the
// remote's URL leads to no repository (a path that does not exist, or
// holds none): check the URL, and how to correct it; that the remote
// refused the user: check the access; or that the remote could not be
// reached: check that it can be, and its URL; that a lock of this
// repository is there (a git interrupted while it moved refs leaves one,
// and git's own advice follows on lines the one line leaves out): remove
// it if no git is running. "" otherwise.
func urlAdvice(remote, stderr string) string {
	if _, rest, ok := strings.Cut(stderr, "Unable to create '"); ok {
		if lock, _, ok := strings.Cut(rest, ".lock': File exists"); ok {
			return fmt.Sprintf(": another git may be running in this repository; if none is, one that was interrupted left the lock: remove %s, then try again", record.Printable(lock+".lock"))
		}
	}
	if strings.Contains(stderr, "does not appear to be a git repository") {
		return fmt.Sprintf(": check the URL of remote %s (see 'git remote -v') and correct it with 'git remote set-url %s URL'", remote, remote)
	}
	for _, w := range denied {
		if strings.Contains(stderr, w) {
			return fmt.Sprintf(": check your access to remote %s (run 'git ls-remote %s': git asks for no credentials here), then try again", remote, remote)
		}
	}
	for _, w := range unreachable {
		if strings.Contains(stderr, w) {
			return fmt.Sprintf(": check that remote %s can be reached (run 'git ls-remote %s') and its URL (see 'git remote -v'), then try again", remote, remote)
		}
	}
	return ""
}

// integrate brings every fetched task of remote (or the named ones) into
// the local refs; the tasks whose objects git refused are quarantined.
func (e *Session) integrate(ctx context.Context, remote string, tasks []string, refused []gitstore.FetchRefusal) (*PullResult, error) {
	moved, local, err := e.movedHeads(remote, tasks)
	if err != nil {
		return nil, err
	}
	return e.integrateMoved(ctx, remote, moved, local, refused, len(tasks) == 0)
}

// integrateMoved is integrate of the fetched heads moved and the local
// heads local, as localMoved read them: the heads integrated are those
// the caller read (the catch-up checked their objects first); whole when
// the fetch brought every task of remote (rememberQuarantines).
func (e *Session) integrateMoved(ctx context.Context, remote string, moved []integration.Fetched, local map[string]string, refused []gitstore.FetchRefusal, whole bool) (*PullResult, error) {
	out := &PullResult{Remote: remote, Tasks: []*PulledTask{}, Needs: []Need{}, Signatures: []TaskSignatures{}}
	skip := map[string]bool{}
	for _, f := range refused {
		skip[f.Task] = true
	}
	var todo []integration.Fetched
	for _, f := range moved {
		if !skip[f.Task] {
			todo = append(todo, f)
		}
	}
	out.Examined = len(todo)
	todo, held, err := e.checkFetched(ctx, todo, local, out)
	if err != nil {
		return nil, err
	}
	var results []*integration.Integration
	var g *integration.Integrator
	if len(todo) > 0 {
		limits := e.readLimits() // read once, before the workers start
		promisors, perr := e.promisorRemotes()
		newStore := func() *gitstore.Store {
			store := gitstore.NewStore(e.Repo)
			store.Sign = e.signMerge
			store.Limits = func() gitstore.ReadLimits { return limits }
			store.Promisors = func() ([]string, error) { return promisors, perr }
			return store
		}
		g = e.integrator()
		g.NoLockWait = e.noLockWait
		results, err = g.IntegrateAll(ctx, todo, newStore)
		g.NoLockWait = false
		if err != nil {
			return nil, err
		}
	}
	for _, f := range refused {
		results = append(results, integration.Refused(f))
	}
	results = append(results, held...)
	slices.SortStableFunc(results, func(a, b *integration.Integration) int { return strings.Compare(a.Task, b.Task) })
	if err := e.rememberQuarantines(remote, results, whole); err != nil {
		return nil, err
	}
	// The task caches the integrations seed are written at the end, into
	// one pack when they are many (a new clone's first pull seeds every
	// task's).
	defer e.Store.HoldCaches()()
	for _, in := range results {
		if !in.Changed() {
			continue
		}
		out.Tasks = append(out.Tasks, in)
		if in.Outcome == integration.OutcomeQuarantined {
			out.Quarantined++
			continue
		}
		// Its standing conclusions may have changed: the subject index the
		// writer looks reuses up in learns them now, at the cost of this
		// task alone, from the records its verification read (the task is
		// not read again) when it kept them.
		if err := e.noteStanding(ctx, g, in); err != nil {
			e.Store.Skip(in.Task, err)
		}
		// What its verification found the merges refused, as status
		// finds it again from the refs (Store.MergeRefusals).
		needs, err := e.needs(ctx, in.Task, in.Refusals)
		if err != nil {
			return nil, err
		}
		out.Needs = append(out.Needs, needs...)
	}
	return out, nil
}

// noteStanding has the subject index learn the standing conclusions of
// in's task at the head it integrated, from the records g verified there
// when it has them (which then seed the task's cache, so that the next
// command does not read them from git again), else by reading the task.
func (e *Session) noteStanding(ctx context.Context, g *integration.Integrator, in *integration.Integration) error {
	if g != nil {
		if recs := g.Records(in.Task, in.To); recs != nil {
			e.Store.SeedTask(in.Task, in.To, recs, g.Blobs(in.Task, in.To))
			return e.Store.NoteStandingAt(in.Task, in.To, recs)
		}
	}
	return e.Store.NoteStanding(ctx, in.Task)
}

// namedLookups is how many tasks movedHeads and localMoved look up one by one
// (a loose file, then a binary search of packed-refs, each) rather than
// listing every task's refs.
const namedLookups = 256

// movedHeads returns remote's tracking heads of tasks (of every task
// when none is named) that differ from their local heads, sorted by
// task, and the local heads (localMoved). For a few named tasks (a pull
// of them) each tracking ref is looked up, which costs the same at 50
// tasks and at 50,000; for more, the namespace is listed once.
func (e *Session) movedHeads(remote string, tasks []string) ([]integration.Fetched, map[string]string, error) {
	prefix := gitstore.RemotePrefix + remote + "/"
	var fetched []integration.Fetched
	if len(tasks) == 0 || len(tasks) > namedLookups {
		refs, err := e.Repo.ListRefs(prefix)
		if err != nil {
			return nil, nil, err
		}
		var named map[string]bool
		if len(tasks) > 0 {
			named = make(map[string]bool, len(tasks))
			for _, t := range tasks {
				named[t] = true
			}
		}
		for _, ref := range refs {
			if t := strings.TrimPrefix(ref.Name, prefix); named == nil || named[t] {
				fetched = append(fetched, integration.Fetched{Task: t, Head: ref.Hash})
			}
		}
		return e.localMoved(fetched)
	}
	for _, t := range slices.Compact(slices.Sorted(slices.Values(tasks))) {
		name := gitstore.RemoteRef(remote, t)
		if gitstore.CheckRefName(name) != nil || gitstore.CheckRefName(gitstore.TaskRef(t)) != nil {
			continue // no such ref can exist
		}
		h, err := e.Repo.ReadRef(name)
		if err != nil {
			return nil, nil, err
		}
		if h != "" {
			fetched = append(fetched, integration.Fetched{Task: t, Head: h})
		}
	}
	return e.localMoved(fetched)
}

// localMoved returns the fetched heads (tracking heads the caller read)
// that differ from their tasks' local heads, and the local heads by task
// (a task without one has none): a task whose fetched head is its local
// head has nothing to bring, and its history is not read. Up to
// namedLookups local refs are looked up one by one; past that the task
// refs are listed once (refHeads), as each lookup costs a loose file's
// open and a search of packed-refs.
func (e *Session) localMoved(fetched []integration.Fetched) ([]integration.Fetched, map[string]string, error) {
	local := map[string]string{}
	if len(fetched) > namedLookups {
		var err error
		if local, err = refHeads(e.Repo, gitstore.TaskPrefix); err != nil {
			return nil, nil, err
		}
	} else {
		for _, f := range fetched {
			h, err := e.Repo.ReadRef(gitstore.TaskRef(f.Task))
			if err != nil {
				return nil, nil, err
			}
			local[f.Task] = h
		}
	}
	var moved []integration.Fetched
	for _, f := range fetched {
		if local[f.Task] != f.Head {
			moved = append(moved, f)
		}
	}
	return moved, local, nil
}

// refHeads lists the refs under prefix once (loose and packed), by the
// rest of their name: one pass over the refs instead of a lookup per
// task, which reads packed-refs each time.
func refHeads(r *gitstore.Repo, prefix string) (map[string]string, error) {
	refs, err := r.ListRefs(prefix)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(refs))
	for _, ref := range refs {
		out[strings.TrimPrefix(ref.Name, prefix)] = ref.Hash
	}
	return out, nil
}

// Needs returns, for the tasks of rows (StatusRows'), the records merges
// made inadmissible that no person has settled yet: those of the tasks
// whose row says they have some (StatusRow.Needs, derived from the refs
// with the row), each found again from the refs (TaskNeeds).
func (e *Session) Needs(ctx context.Context, rows []StatusRow) ([]Need, error) {
	out := []Need{}
	for _, r := range rows {
		if !r.Needs {
			continue
		}
		n, err := e.TaskNeeds(ctx, r.Task)
		if err != nil {
			return nil, err
		}
		out = append(out, n...)
	}
	return out, nil
}

// TaskNeeds returns the unsettled refusals of one task ([] when none),
// found from its ref (gitstore.Store.MergeRefusals): no file under
// .git/reason/ can add one or take one away.
func (e *Session) TaskNeeds(ctx context.Context, task string) ([]Need, error) {
	head, err := e.TaskHead(task)
	if err != nil || head == "" {
		return []Need{}, err
	}
	refused, err := e.Store.MergeRefusals(ctx, task, head)
	if err != nil {
		return nil, err
	}
	n, err := e.needs(ctx, task, refused)
	if n == nil {
		n = []Need{}
	}
	return n, err
}

// needs returns the refusals of task that are unsettled: a refusal is
// settled once a conclusion of its record's assessment follows it
// (record.State.Settled), which is also when verify admits the merge.
func (e *Session) needs(ctx context.Context, task string, refusals []record.Finding) ([]Need, error) {
	if len(refusals) == 0 {
		return nil, nil
	}
	st, _, err := e.State(ctx, task)
	if err != nil {
		return nil, err
	}
	var out []Need
	seen := map[string]bool{}
	for _, r := range refusals {
		closed := record.ClosedMessage(r.Message)
		if seen[r.Record] || st.Settled(r.Record) || (closed && st.Reopened(r.Record)) {
			continue
		}
		seen[r.Record] = true
		cmd := settleCommand(st, r.Record)
		if closed {
			// The record came after a closure in the merged order: a
			// reopening written after it settles it.
			cmd = "git reason reopen " + task
		}
		out = append(out, Need{Task: task, Record: r.Record, Merge: r.Commit, Message: r.Message, Command: cmd})
	}
	return out, nil
}

// settleCommand says which record settles a refusal: a conclusion of the
// refused record's assessment that supersedes every conclusion of it that
// stands, after resolving any disagreement still open on it.
func settleCommand(st *record.State, id string) string {
	t := st.Task
	a := st.AssessmentOf(st.Get(id))
	if a == "" {
		return fmt.Sprintf("git reason assess %s --subject ... --question ... --new-evidence", t)
	}
	var b strings.Builder
	if open := st.OpenDisagreements(a); len(open) > 0 {
		fmt.Fprintf(&b, "git reason resolve %s %s --decision ... --evidence KIND:REF:SUMMARY, then ", t, record.ShortID(open[0].ID))
	}
	fmt.Fprintf(&b, "git reason conclude %s", t)
	if l := st.LatestAssessment(); l == nil || l.ID != a {
		fmt.Fprintf(&b, " --assessment %s", record.ShortID(a))
	}
	for _, c := range st.Conclusions(a) {
		fmt.Fprintf(&b, " --supersedes %s", record.ShortID(c.ID))
	}
	b.WriteString(" --decision ...")
	if p := st.LatestPlan(a); p != nil {
		// Every completed consultation is weighed; a checklist is answered
		// only when the plan selected no advisor and has one (a plan that
		// needs no review has none: an answer would be refused).
		for _, c := range st.Completed(a) {
			fmt.Fprintf(&b, " --weigh %s=TREATMENT:REASON", record.ShortID(c.ID))
		}
		if pd := p.Derived.(*record.PlanDerived); len(pd.Selected) == 0 && len(pd.LocalReview) > 0 {
			b.WriteString(" --local-review N=ANSWER...")
		}
	}
	return b.String()
}

// noRemote is Remote's usage error when there is no remote; the verb
// that asked says it in its own words (NoRemote).
type noRemote struct{}

func (noRemote) Error() string { return NoRemote("sync") }
func (noRemote) Is(target error) bool {
	return target == ErrNoRemote || target == ErrUsage || target == record.ErrInput
}

// NoRemote is the line pull, push, sync or remote setup (verb) says
// when there is no remote to share with.
func NoRemote(verb string) string {
	with := map[string]string{"pull": "pull from", "push": "push to", "remote setup": "set up"}[verb]
	if with == "" {
		with = verb + " with"
	}
	return fmt.Sprintf("no remote to %s: add one with 'git remote add origin URL', or name it: git reason %s REMOTE", with, verb)
}

// Shared says where task stands on the default remote as last fetched, as
// git status says where a branch stands on its upstream: from the
// remote-tracking ref alone, no network. "" when there is no remote, or
// when git fetch does not bring its tasks (no 'remote setup'), so that
// the tracking namespace says nothing of it.
func (e *Session) Shared(task string) string {
	remote, _, err := e.Remote(nil)
	if err != nil {
		return ""
	}
	st, err := e.Settings()
	if err != nil || !fetchesTasks(st, remote) {
		return ""
	}
	local, err := e.Repo.ReadRef(gitstore.TaskRef(task))
	if err != nil || local == "" {
		return ""
	}
	switch tracking, _ := e.Repo.ReadRef(gitstore.RemoteRef(remote, task)); tracking {
	case "":
		return fmt.Sprintf("not on %s yet: 'git reason push %s %s' shares it", remote, remote, task)
	case local:
		return fmt.Sprintf("up to date with %s (as last fetched)", remote)
	default:
		// A few records written here since: on one line from what was
		// fetched, read in this process.
		if ahead, ok := e.Store.LinearSince(local, tracking, sinceCommits); ok {
			return fmt.Sprintf("ahead of %s by %s: 'git reason push %s %s' shares them", remote, record.Plural(len(ahead), "record"), remote, task)
		}
		if q, held := e.HeldBack(task); held && q.Remote == remote {
			return "differs from " + remote + " (as last fetched): " + q.Said()
		}
		return fmt.Sprintf("differs from %s (as last fetched): 'git reason sync %s' brings both up to date", remote, remote)
	}
}
