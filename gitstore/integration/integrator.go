package integration

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"git-reason/gitstore"
	"git-reason/record"
)

// Integrator brings fetched task histories into the local task refs: it
// verifies each by replay (gitstore.Store.Replay, the one read path verification
// has, and record.CheckReuses) and then creates, fast-forwards or merges the local ref with the
// same compare-and-swap as an append. It remembers what it verified, so a
// head verified by pull is not replayed again by the push that follows.
type Integrator struct {
	Store *gitstore.Store
	// Merger signs merge commits: the user's identity, now.
	Merger func() (gitstore.Signature, error)
	// MaxAttempts bounds the retries when a concurrent append moves a
	// local ref during the integration (0: 100).
	MaxAttempts int
	// Memo remembers what was verified; Integrators that share one (each
	// with a Store of its own, to integrate tasks concurrently) never
	// replay a head twice. nil: the Integrator keeps its own.
	Memo *Memo
	// Fatal, when set, says which errors of one task's integration stop
	// IntegrateAll instead of quarantining that task (the context's end
	// and gitstore.ErrLocked always do).
	Fatal func(error) bool
	// NoLockWait: a local ref whose lock another process holds is not
	// waited for (gitstore.ErrLocked at once), for an integration that
	// is tried again by the next command anyway.
	NoLockWait bool
}

// Memo remembers verification results by task and head. It is safe for
// concurrent use. Its Shared part is what the Integrators' Stores share
// (gitstore.Store.Share): set its Remembered to replay from the heads
// verified clean before.
type Memo struct {
	gitstore.Shared
	mu       sync.Mutex
	verified map[string]verification
	// kept bounds the blocking findings of all the run's tasks.
	kept record.RunBound
	// checked holds the records verified clean, so that the fetched and
	// the local history and their merge read and check each record once.
	checked record.Checked
	// moved counts the local refs moved, for what a stopped IntegrateAll
	// says it left behind.
	moved atomic.Int64
}

func (m *Memo) get(key string) (verification, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.verified[key]
	return v, ok
}

func (m *Memo) put(key string, v verification) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.verified == nil {
		m.verified = map[string]verification{}
	}
	m.verified[key] = v
}

func (g *Integrator) memo() *Memo {
	if g.Memo == nil {
		g.Memo = &Memo{}
	}
	return g.Memo
}

// verification is what a replay of one head found, and the head's
// records as it read them (nil when any failed a check) with their blobs. Reuse checks,
// which read other tasks' refs as they are now, are not part of it.
type verification struct {
	findings []record.Finding
	recs     []*record.Record
	blobs    []string // the blob of each of recs in head's tree, when it was read
}

// Verify replays the history at head and returns its findings: the
// replay once per head for the Integrator's lifetime (and, with a
// Remembered, from the latest head remembered clean), the reuses of other
// tasks' conclusions checked against those tasks' refs at each call, since
// a pull may have just brought the task a reuse names.
func (g *Integrator) Verify(ctx context.Context, task, head string) ([]record.Finding, error) {
	return g.verify(ctx, task, head, nil)
}

// VerifyAt is Verify with the reused tasks that at names read at the
// heads it gives (see reusedAt), not at their refs: for the server's
// pre-receive hook, where at is what the push gives each task ref it
// moves. A push is taken whole or not at all, so a reuse of a task the
// same push carries holds once its ref has that head, and the ref may
// not exist yet.
func (g *Integrator) VerifyAt(ctx context.Context, task, head string, at map[string]string) ([]record.Finding, error) {
	return g.verify(ctx, task, head, at)
}

// verify is Verify with the reused tasks of at read at the heads it gives
// (see reusedAt).
func (g *Integrator) verify(ctx context.Context, task, head string, at map[string]string) ([]record.Finding, error) {
	v, err := g.replay(ctx, task, head)
	if err != nil {
		return nil, err
	}
	return g.withReuses(ctx, task, head, v, at), ctx.Err()
}

func (g *Integrator) replay(ctx context.Context, task, head string) (verification, error) {
	key := task + "\x00" + head
	if v, ok := g.memo().get(key); ok {
		return v, nil
	}
	var v verification
	v.findings, v.recs, v.blobs = g.Store.ReplayTree(ctx, task, head, &g.memo().checked)
	if err := ctx.Err(); err != nil {
		return verification{}, err // a cancelled replay says nothing about the history
	}
	v.findings = g.memo().kept.Keep(v.findings)
	g.memo().put(key, v)
	return v, nil
}

func (g *Integrator) withReuses(ctx context.Context, task, head string, v verification, at map[string]string) []record.Finding {
	found := v.findings
	if v.recs != nil && ctx.Err() == nil {
		var more []record.Finding
		if at == nil {
			// Checked against the local refs, as a verification of
			// the clone checks them: what is found clean is
			// remembered for it (the pre-push hook of this push),
			// in the one write of the file of a task whose head the
			// integration remembers, none more
			// (reliability.TestScaleCounts).
			more = g.Store.CheckReusesRemembered(ctx, task, head, v.recs, len(v.findings) == 0, g.memo().Remembered.AddReusesWithHeads)
		} else {
			more = record.CheckReuses(ctx, task, head, v.recs, g.reusedAt(at))
		}
		if len(more) > 0 {
			found = append(append([]record.Finding(nil), found...), more...)
		}
	}
	return found
}

// reusedAt reads a reused task named in at at the head at gives, the head
// its local ref is about to have, under the same terms as a local ref
// (gitstore.Store.ReusedLocal): that head's history replays clean, its own reuses
// not followed, and its records read. A task at names with "" is checked
// later, once its head is known; any other task at its local ref.
func (g *Integrator) reusedAt(at map[string]string) record.ReusedLookup {
	if at == nil {
		return g.Store.ReusedLocal
	}
	return func(ctx context.Context, u string) record.Reused {
		head, ok := at[u]
		switch {
		case !ok:
			return g.Store.ReusedLocal(ctx, u)
		case head == "":
			return record.Reused{Later: true}
		}
		v, err := g.replay(ctx, u, head)
		if err != nil {
			return record.Reused{Unread: err}
		}
		if len(v.findings) > 0 {
			return record.Reused{Untrusted: fmt.Errorf("task %s does not replay clean at %s: %s", u, record.ShortCommit(head), v.findings[0])}
		}
		if v.recs == nil {
			return record.Reused{Unread: fmt.Errorf("task %s at %s: its records do not read", u, record.ShortCommit(head))}
		}
		st, err := record.Derive(u, v.recs)
		if err != nil {
			return record.Reused{Unread: err}
		}
		return record.Reused{State: st}
	}
}

// Records returns the records of task at head as its verification (by
// Verify, Integrate or a merge's) read them, each a copy; nil when that
// head was not verified or a record failed a check. What integrates a
// task asks this rather than read the task again.
func (g *Integrator) Records(task, head string) []*record.Record {
	v, ok := g.memo().get(task + "\x00" + head)
	if !ok || v.recs == nil {
		return nil
	}
	out := make([]*record.Record, len(v.recs))
	all := make([]record.Record, len(v.recs))
	for i, r := range v.recs {
		all[i] = *r
		out[i] = &all[i]
	}
	return out
}

// Blobs returns the blob of each record Records returns in the records/
// tree of task at head, as its verification read it; nil when Records is,
// or the tree was not kept. What integrates a task seeds its cache with
// both (gitstore.Store.SeedTask).
func (g *Integrator) Blobs(task, head string) []string {
	v, _ := g.memo().get(task + "\x00" + head)
	if v.recs == nil {
		return nil
	}
	return v.blobs
}

// ReusedTasks returns the other tasks whose conclusions the records of
// task at head (verified before, by Verify or Integrate) say they reuse.
func (g *Integrator) ReusedTasks(task, head string) []string {
	v, _ := g.memo().get(task + "\x00" + head)
	return record.ReusedTasks(task, v.recs)
}

// Integrate brings the fetched head of task into refs/reasoning/tasks/<task>.
// A fetched history that does not verify, or that has a record path whose
// content differs from the local one, is quarantined: the local ref is
// not touched. The local ref moves only by compare-and-swap; when a
// concurrent append moves it first, the decision is taken again from the
// new local head, so that append is never lost.
func (g *Integrator) Integrate(ctx context.Context, task, fetched string) (*Integration, error) {
	return g.integrate(ctx, task, fetched, nil)
}

// integrate is Integrate with the reused tasks of at read at the heads it
// gives (reusedAt).
func (g *Integrator) integrate(ctx context.Context, task, fetched string, at map[string]string) (*Integration, error) {
	in := newIntegration(task, fetched)
	if err := g.Store.CheckTask(task); err != nil {
		return quarantine(in, CodeTaskName, fmt.Sprintf("%v", err)), nil
	}
	attempts := g.MaxAttempts
	if attempts <= 0 {
		attempts = 100
	}
	verified := false
	for range attempts {
		p, err := g.prepare(ctx, in, at, &verified)
		if err != nil {
			return nil, err
		}
		if p == nil {
			return in, nil
		}
		done, err := g.commit(ctx, in, p)
		if err != nil {
			return nil, err
		}
		if done {
			return in, nil
		}
		// A concurrent append: decide again from its head.
	}
	return nil, fmt.Errorf("task %s kept moving during pull: gave up after %d attempts; pull again", task, attempts)
}

// decide is Integrate up to the move of the ref: what the fetched head
// does to the local ref as it is now, verified, and the move it makes
// (nil: decided with nothing to write, in in). The caller moves the ref
// (commit, or with others: commitAll).
func (g *Integrator) decide(ctx context.Context, task, fetched string) (*Integration, *prepared, error) {
	in := newIntegration(task, fetched)
	if err := g.Store.CheckTask(task); err != nil {
		return quarantine(in, CodeTaskName, fmt.Sprintf("%v", err)), nil, nil
	}
	verified := false
	p, err := g.prepare(ctx, in, nil, &verified)
	if err != nil {
		return nil, nil, err
	}
	return in, p, nil
}

// prepared is where a verified fetched history takes the local ref: from
// local to next (the fetched head or a merge commit of both).
type prepared struct {
	local, next, outcome string
}

// prepare decides, from the local ref as it is now, what in.Fetched does
// to it, and verifies what the ref would get (once: *verified remembers
// that the fetched history was). nil: decided with nothing to write (up to
// date, ahead or quarantined, in in).
func (g *Integrator) prepare(ctx context.Context, in *Integration, at map[string]string, verified *bool) (*prepared, error) {
	task, fetched := in.Task, in.Fetched
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	local, err := g.Store.Repo.ReadRef(gitstore.TaskRef(task))
	if err != nil {
		return nil, err
	}
	in.From, in.To = local, local
	if local == fetched {
		in.Outcome = OutcomeUpToDate
		return nil, nil
	}
	if local != "" {
		ahead, err := g.Store.IsAncestor(ctx, fetched, local)
		if err != nil {
			return nil, err
		}
		if ahead {
			in.Outcome = OutcomeAhead
			return nil, nil
		}
	}
	if !*verified {
		found, err := g.verify(ctx, task, fetched, at)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			quarantine(in, CodeUnreadable, fmt.Sprintf("the fetched history does not read: %v", err))
			return nil, nil
		}
		if bad := record.Blocking(found); len(bad) > 0 {
			in.Outcome, in.Codes, in.Findings = OutcomeQuarantined, record.Codes(bad), bad
			return nil, nil
		}
		in.Refusals = record.MergeRefusals(found)
		*verified = true
	}
	p := &prepared{local: local, next: fetched, outcome: OutcomeCreated}
	if local == "" {
		return p, nil
	}
	behind, err := g.Store.IsAncestor(ctx, local, fetched)
	if err != nil {
		return nil, err
	}
	p.outcome = OutcomeFastForward
	if behind {
		return p, nil
	}
	merge, conflicts, err := g.Store.MergeHistories(task, local, fetched, g.Merger)
	if err != nil {
		return nil, err
	}
	if len(conflicts) > 0 {
		in.Outcome, in.Codes, in.Findings = OutcomeQuarantined, []string{CodeConflict}, conflicts
		return nil, nil
	}
	found, err := g.verifyMerge(ctx, task, local, fetched, merge, at)
	if err != nil {
		return nil, err
	}
	if bad := record.Blocking(found); len(bad) > 0 {
		// The fetched side verified alone: what fails is in the
		// local history, which pull must not spread.
		in.Outcome, in.Codes, in.Findings = OutcomeQuarantined, record.Codes(bad), bad
		return nil, nil
	}
	p.next, p.outcome, in.Refusals = merge, OutcomeMerged, record.MergeRefusals(found)
	return p, nil
}

// refLogMessage is the message of the line an integration's move of a
// task ref adds to its log (gitstore.Repo.RefLog).
const refLogMessage = "git reason: integrate"

// commit moves the local ref as p says, by compare-and-swap. false: the
// ref moved since p was decided (a concurrent append), nothing written.
// Once ctx has ended it moves nothing, and a wait for the ref's lock,
// which another process holds, ends with it: the ref is moved whole or
// not at all, and what is not is left for the next integration.
func (g *Integrator) commit(ctx context.Context, in *Integration, p *prepared) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	var err error
	if g.NoLockWait {
		err = g.Store.Repo.UpdateRefWait(ctx, gitstore.TaskRef(in.Task), p.local, p.next, refLogMessage, 0)
	} else {
		err = g.Store.Repo.UpdateRefContext(ctx, gitstore.TaskRef(in.Task), p.local, p.next, refLogMessage)
	}
	if errors.Is(err, gitstore.ErrStale) {
		return false, nil
	}
	if conflict := (*gitstore.RefConflictError)(nil); errors.As(err, &conflict) {
		// A local task is in the way of the fetched one's name (a vs a/b).
		quarantine(in, CodeTaskName, gitstore.TaskConflict(in.Task, err).Error())
		return true, nil
	}
	if err != nil {
		return false, err
	}
	g.memo().moved.Add(1)
	in.Outcome, in.To = p.outcome, p.next
	return true, nil
}

// IntegrateTogether integrates fetched tasks (task -> fetched head) that
// wait on each other: tasks whose records reuse conclusions of other
// tasks among them, in a cycle (A reuses B's, B reuses A's), so that
// Integrate, which checks a reuse against the reused task's local ref,
// quarantines each until another is in place, and none ever is.
//
// Each task is verified as Integrate verifies it, except that a reuse of
// a conclusion of another task of the set is checked against the head
// that task's local ref would get (its fetched head, or the merge of it
// and the local one), under the terms a local ref is held to: that head's
// history replays clean and holds the reused conclusion as the reuse
// names it. A task whose reuses fail, or that reuses a task of the set
// that is quarantined, is quarantined and leaves the set, and the rest are
// checked again without it, until all that remain hold; only then do
// their local refs move, each by compare-and-swap. So the refs end as
// verify will check them: every reuse against a local ref, and no task
// reaches one on the strength of a task that did not. Results are in
// name order of the tasks. An error before the refs move (as Integrate's)
// leaves every local ref as it was; one while they move quarantines its
// task (unreadable), unless it is the context's or ErrLocked.
func (g *Integrator) IntegrateTogether(ctx context.Context, fetched map[string]string) ([]*Integration, error) {
	tasks := slices.Sorted(maps.Keys(fetched))
	ins := make(map[string]*Integration, len(tasks))
	preps := map[string]*prepared{}
	// The reuses within the set wait for the heads the tasks will have.
	later := make(map[string]string, len(tasks))
	for _, t := range tasks {
		later[t] = ""
	}
	for _, t := range tasks {
		in := newIntegration(t, fetched[t])
		ins[t] = in
		if err := g.Store.CheckTask(t); err != nil {
			quarantine(in, CodeTaskName, fmt.Sprintf("%v", err))
			continue
		}
		verified := false
		p, err := g.prepare(ctx, in, later, &verified)
		if err != nil {
			return nil, err
		}
		if p != nil {
			preps[t] = p
		}
	}
	for {
		at := make(map[string]string, len(preps))
		for t, p := range preps {
			at[t] = p.next
		}
		var out []string
		for _, t := range slices.Sorted(maps.Keys(preps)) {
			found, err := g.verify(ctx, t, preps[t].next, at)
			if err != nil {
				return nil, err
			}
			if bad := record.Blocking(found); len(bad) > 0 {
				in := ins[t]
				in.Outcome, in.Codes, in.Findings = OutcomeQuarantined, record.Codes(bad), bad
				in.To, in.Refusals = in.From, []record.Finding{}
				out = append(out, t)
			}
		}
		if len(out) == 0 {
			break
		}
		for _, t := range out {
			delete(preps, t)
		}
	}
	at := make(map[string]string, len(preps))
	for t, p := range preps {
		at[t] = p.next
	}
	for _, t := range slices.Sorted(maps.Keys(preps)) {
		done, err := g.commit(ctx, ins[t], preps[t])
		if err == nil && !done {
			// A concurrent append moved the ref: integrate from its head,
			// the other tasks' reuses read where they are going.
			var in *Integration
			if in, err = g.integrate(ctx, t, fetched[t], at); err == nil {
				ins[t] = in
			}
		}
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, gitstore.ErrLocked) {
				return nil, err
			}
			// Other refs may have moved already: report this task as one
			// that did not integrate, and go on.
			quarantine(ins[t], CodeUnreadable, record.Printable(err.Error()))
		}
	}
	out := make([]*Integration, len(tasks))
	for i, t := range tasks {
		out[i] = ins[t]
	}
	return out, nil
}

// verifyMerge returns what verification of the merge commit's whole
// history finds, without replaying the two histories again: the local
// history's findings (replayed once, remembered), the fetched one's
// (remembered from before), and the merge commit's own, from
// record.ReplayMerge, the step Replay takes for a merge. The result is
// remembered for the merge head, so the push after a pull does not replay
// it again.
func (g *Integrator) verifyMerge(ctx context.Context, task, local, fetched, merge string, at map[string]string) ([]record.Finding, error) {
	ours, err := g.replay(ctx, task, local)
	if err != nil {
		return nil, err
	}
	theirs, err := g.replay(ctx, task, fetched)
	if err != nil {
		return nil, err
	}
	own, files, err := g.Store.ReplayMerge(ctx, task, local, fetched, merge, &g.memo().checked)
	if err != nil {
		return nil, err
	}
	// The merged history is bounded as a whole, as a replay of it reads
	// it: its parents' totals added bound it. Unknown (a parent not
	// remembered), or past a limit (what the parents share counts
	// twice), the merge is replayed through the normal path, which reads
	// from the remembered heads and, past a limit, the history whole: it
	// clears the merge on its exact totals or refuses it, with the usual
	// line, before the ref moves. Each side within the limits, their
	// union was admitted unchecked, and the next read of it refused.
	if t, ok := g.memo().Remembered.MergeTotals(task, local, fetched, len(files)); !ok || g.Store.Within(t) != nil {
		return g.verify(ctx, task, merge, at)
	}
	own = g.memo().kept.Keep(own) // the parents' are bounded already
	seen := map[record.Finding]bool{}
	var all []record.Finding
	for _, f := range append(append(append([]record.Finding(nil), ours.findings...), theirs.findings...), own...) {
		if !seen[f] {
			seen[f] = true
			all = append(all, f)
		}
	}
	v := verification{findings: all, recs: unionRecords(files, ours.recs, theirs.recs)}
	v.blobs = gitstore.TreeBlobs(files, v.recs)
	g.memo().put(task+"\x00"+merge, v)
	if len(all) == 0 && g.memo().Remembered != nil {
		// The merge's replay is its parents' replays and its own step;
		// it counts for what its parents' histories do, and its own.
		g.memo().Remembered.AddMerge(task, merge, local, fetched, len(files))
	}
	return g.withReuses(ctx, task, merge, v, at), ctx.Err()
}

// unionRecords returns the records files names, taken from the two
// parents' records: nil when either is nil (a record failed a check) or
// files names one neither has.
func unionRecords(files map[string]string, a, b []*record.Record) []*record.Record {
	if a == nil || b == nil {
		return nil
	}
	byName := make(map[string]*record.Record, len(a)+len(b))
	for _, r := range append(append([]*record.Record(nil), a...), b...) {
		byName[r.FileName()] = r
	}
	out := make([]*record.Record, 0, len(files))
	for _, name := range slices.Sorted(maps.Keys(files)) {
		r := byName[name]
		if r == nil {
			return nil
		}
		out = append(out, r)
	}
	return out
}
