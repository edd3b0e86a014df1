package gitstore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"git-reason/record"
)

// What Integrate did with a fetched task.
const (
	OutcomeCreated     = "created"      // no local ref: created at the fetched head
	OutcomeFastForward = "fast-forward" // the local ref was behind
	OutcomeMerged      = "merged"       // both had records: a merge commit joins them
	OutcomeQuarantined = "quarantined"  // nothing changed: see Codes
	OutcomeUpToDate    = "up-to-date"   // the same head on both sides
	OutcomeAhead       = "ahead"        // the local ref already has everything fetched
)

// Codes of a quarantine that are not verification findings.
const (
	CodeConflict   = "conflict"   // one record path (or id) with different content on the two sides
	CodeUnreadable = "unreadable" // the fetched history could not be read
	CodeTaskName   = "task_name"  // the remote ref names no valid task
	CodeObjects    = "objects"    // git's object checks refused the fetched objects (Fetch)
)

// Integration is what pull did with one fetched task.
type Integration struct {
	Task    string `json:"task"`
	Outcome string `json:"outcome"`
	From    string `json:"from"`    // the local head before ("" when there was none)
	To      string `json:"to"`      // the local head after
	Fetched string `json:"fetched"` // the fetched head, left on the remote-tracking ref
	// Codes and Findings say why a task was quarantined.
	Codes    []string         `json:"codes"`
	Findings []record.Finding `json:"findings"`
	// Refusals are the records the union of two histories made
	// inadmissible (merge_refused), in the new head's history. They are
	// merged all the same; a person settles them with a new record.
	Refusals []record.Finding `json:"refusals"`
}

// Changed reports whether the local ref moved, or the task was
// quarantined: the outcomes pull reports.
func (in *Integration) Changed() bool {
	return in.Outcome != OutcomeUpToDate && in.Outcome != OutcomeAhead
}

// Integrator brings fetched task histories into the local task refs: it
// verifies each by replay (Store.Verify, the one read path verification
// has) and then creates, fast-forwards or merges the local ref with the
// same compare-and-swap as an append. It remembers what it verified, so a
// head verified by pull is not replayed again by the push that follows.
type Integrator struct {
	Store *Store
	// Merger signs merge commits: the user's identity, now.
	Merger func() (Signature, error)
	// MaxAttempts bounds the retries when a concurrent append moves a
	// local ref during the integration (0: 100).
	MaxAttempts int
	// Memo remembers what was verified; Integrators that share one (each
	// with a Store of its own, to integrate tasks concurrently) never
	// replay a head twice. nil: the Integrator keeps its own.
	Memo *Memo
}

// Memo remembers verification results by task and head. It is safe for
// concurrent use.
type Memo struct {
	mu       sync.Mutex
	verified map[string]verification
	// checked holds the records verified clean, so that the fetched and
	// the local history and their merge read and check each record once.
	checked record.Checked
	// Remembered, when set, is what verification remembers across runs
	// (see Remembered); the Integrator's Store replays from it.
	Remembered *Remembered
	// graph holds the parents of every commit read so far, so that the
	// ancestry checks and the histories of one pull read each commit's
	// parents once.
	graph commitParents
	// budget counts the record bytes the histories of one pull read,
	// against ReadLimits.PullBytes.
	budget pullBudget
}

// commitParents maps commits to their parents, as read from the commits.
// It is safe for concurrent use; the zero value is ready, and a nil one
// remembers nothing.
type commitParents struct {
	mu sync.Mutex
	m  map[string][]string
}

func (g *commitParents) get(c string) ([]string, bool) {
	if g == nil {
		return nil, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	ps, ok := g.m[c]
	return ps, ok
}

func (g *commitParents) put(c string, ps []string) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m == nil {
		g.m = map[string][]string{}
	}
	g.m[c] = ps
}

// Share makes s use what m remembers: the heads verified clean before
// (Remembered) and the commit graph read so far.
func (s *Store) Share(m *Memo) {
	s.remembered = m.Remembered
	s.graph = &m.graph
	s.budget = &m.budget
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
// records as it read them (nil when any failed a check). Reuse checks,
// which read other tasks' refs as they are now, are not part of it.
type verification struct {
	findings []record.Finding
	recs     []*record.Record
}

// Verify replays the history at head and returns its findings: the
// replay once per head for the Integrator's lifetime (and, with a
// Remembered, from the latest head remembered clean), the reuses of other
// tasks' conclusions checked against those tasks' refs at each call, since
// a pull may have just brought the task a reuse names.
func (g *Integrator) Verify(ctx context.Context, task, head string) ([]record.Finding, error) {
	return g.verify(ctx, task, head, nil)
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
	v.findings, v.recs = g.Store.replay(ctx, task, head, true, &g.memo().checked)
	if err := ctx.Err(); err != nil {
		return verification{}, err // a cancelled replay says nothing about the history
	}
	g.memo().put(key, v)
	return v, nil
}

func (g *Integrator) withReuses(ctx context.Context, task, head string, v verification, at map[string]string) []record.Finding {
	found := v.findings
	if v.recs != nil && ctx.Err() == nil {
		if more := g.Store.checkReuses(ctx, task, head, v.recs, g.reusedAt(at)); len(more) > 0 {
			found = append(append([]record.Finding(nil), found...), more...)
		}
	}
	return found
}

// reusedAt reads a reused task named in at at the head at gives, the head
// its local ref is about to have, under the same terms as a local ref
// (Store.reusedLocal): that head's history replays clean, its own reuses
// not followed, and its records read. A task at names with "" is checked
// later, once its head is known; any other task at its local ref.
func (g *Integrator) reusedAt(at map[string]string) reusedLookup {
	if at == nil {
		return nil
	}
	return func(ctx context.Context, u string) reused {
		head, ok := at[u]
		switch {
		case !ok:
			return g.Store.reusedLocal(ctx, u)
		case head == "":
			return reused{later: true}
		}
		v, err := g.replay(ctx, u, head)
		if err != nil {
			return reused{unread: err}
		}
		if len(v.findings) > 0 {
			return reused{untrusted: fmt.Errorf("task %s does not replay clean at %s: %s", u, shortHash(head), v.findings[0])}
		}
		if v.recs == nil {
			return reused{unread: fmt.Errorf("task %s at %s: its records do not read", u, shortHash(head))}
		}
		st, err := record.Derive(u, v.recs)
		if err != nil {
			return reused{unread: err}
		}
		return reused{st: st}
	}
}

// ReusedTasks returns the other tasks whose conclusions the records of
// task at head (verified before, by Verify or Integrate) say they reuse.
func (g *Integrator) ReusedTasks(task, head string) []string {
	v, _ := g.memo().get(task + "\x00" + head)
	return reusedTasks(task, v.recs)
}

// Blocking returns the findings that forbid a history from reaching a
// local ref: all but merge_refused, which records what the union of two
// honest histories made inadmissible and is settled by a person, never by
// refusing the history.
func Blocking(found []record.Finding) []record.Finding {
	var out []record.Finding
	for _, f := range found {
		if f.Code != record.FindMergeRule {
			out = append(out, f)
		}
	}
	return out
}

// Refusals returns the merge_refused findings.
func Refusals(found []record.Finding) []record.Finding {
	out := []record.Finding{}
	for _, f := range found {
		if f.Code == record.FindMergeRule {
			out = append(out, f)
		}
	}
	return out
}

// Codes returns the distinct codes of findings, sorted.
func Codes(found []record.Finding) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, f := range found {
		if !seen[f.Code] {
			seen[f.Code] = true
			out = append(out, f.Code)
		}
	}
	sort.Strings(out)
	return out
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

func newIntegration(task, fetched string) *Integration {
	return &Integration{Task: task, Fetched: fetched, Codes: []string{}, Findings: []record.Finding{}, Refusals: []record.Finding{}}
}

// integrate is Integrate with the reused tasks of at read at the heads it
// gives (reusedAt).
func (g *Integrator) integrate(ctx context.Context, task, fetched string, at map[string]string) (*Integration, error) {
	in := newIntegration(task, fetched)
	if err := g.Store.checkTask(task); err != nil {
		return g.quarantine(in, CodeTaskName, fmt.Sprintf("%v", err)), nil
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
		done, err := g.commit(in, p)
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
	local, err := g.Store.Repo.ReadRef(TaskRef(task))
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
			g.quarantine(in, CodeUnreadable, fmt.Sprintf("the fetched history does not read: %v", err))
			return nil, nil
		}
		if bad := Blocking(found); len(bad) > 0 {
			in.Outcome, in.Codes, in.Findings = OutcomeQuarantined, Codes(bad), bad
			return nil, nil
		}
		in.Refusals = Refusals(found)
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
	merge, conflicts, err := g.merge(task, local, fetched)
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
	if bad := Blocking(found); len(bad) > 0 {
		// The fetched side verified alone: what fails is in the
		// local history, which pull must not spread.
		in.Outcome, in.Codes, in.Findings = OutcomeQuarantined, Codes(bad), bad
		return nil, nil
	}
	p.next, p.outcome, in.Refusals = merge, OutcomeMerged, Refusals(found)
	return p, nil
}

// commit moves the local ref as p says, by compare-and-swap. false: the
// ref moved since p was decided (a concurrent append), nothing written.
func (g *Integrator) commit(in *Integration, p *prepared) (bool, error) {
	err := g.Store.Repo.UpdateRef(TaskRef(in.Task), p.local, p.next)
	if errors.Is(err, ErrStale) {
		return false, nil
	}
	if conflict := (*RefConflictError)(nil); errors.As(err, &conflict) {
		// A local task is in the way of the fetched one's name (a vs a/b).
		g.quarantine(in, CodeTaskName, taskConflict(in.Task, err).Error())
		return true, nil
	}
	if err != nil {
		return false, err
	}
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
		if err := g.Store.checkTask(t); err != nil {
			g.quarantine(in, CodeTaskName, fmt.Sprintf("%v", err))
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
			if bad := Blocking(found); len(bad) > 0 {
				in := ins[t]
				in.Outcome, in.Codes, in.Findings = OutcomeQuarantined, Codes(bad), bad
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
		done, err := g.commit(ins[t], preps[t])
		if err == nil && !done {
			// A concurrent append moved the ref: integrate from its head,
			// the other tasks' reuses read where they are going.
			var in *Integration
			if in, err = g.integrate(ctx, t, fetched[t], at); err == nil {
				ins[t] = in
			}
		}
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, ErrLocked) {
				return nil, err
			}
			// Other refs may have moved already: report this task as one
			// that did not integrate, and go on.
			g.quarantine(ins[t], CodeUnreadable, record.Printable(err.Error()))
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
	commits := map[string]*record.Commit{}
	for _, h := range []string{local, fetched, merge} {
		c, err := g.Store.getCommit(plumbing.NewHash(h))
		if err != nil {
			return nil, fmt.Errorf("read commit %s: %w", h, err)
		}
		if commits[h], err = g.Store.commitFor(c); err != nil {
			return nil, err
		}
	}
	own := g.memo().checked.ReplayMerge(ctx, task, commits[merge],
		map[string]map[string]string{local: commits[local].Files, fetched: commits[fetched].Files}, g.Store.ReadBlob)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	seen := map[record.Finding]bool{}
	var all []record.Finding
	for _, f := range append(append(append([]record.Finding(nil), ours.findings...), theirs.findings...), own...) {
		if !seen[f] {
			seen[f] = true
			all = append(all, f)
		}
	}
	v := verification{findings: all, recs: unionRecords(commits[merge].Files, ours.recs, theirs.recs)}
	g.memo().put(task+"\x00"+merge, v)
	if len(all) == 0 && g.memo().Remembered != nil {
		// The merge's replay is its parents' replays and its own step.
		g.memo().Remembered.Add(task, merge)
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

// reusedTasks returns the tasks other than task whose conclusions the
// assessments among recs reuse, sorted.
func reusedTasks(task string, recs []*record.Record) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range recs {
		if r.Kind != record.KindAssessment {
			continue
		}
		e, err := record.Decode(r)
		if err != nil {
			continue
		}
		if d := e.Derived.(*record.AssessmentDerived); d.Reuses != "" && d.ReusesTask != task && !seen[d.ReusesTask] {
			seen[d.ReusesTask] = true
			out = append(out, d.ReusesTask)
		}
	}
	sort.Strings(out)
	return out
}

func (g *Integrator) quarantine(in *Integration, code, msg string) *Integration {
	in.Outcome, in.Codes = OutcomeQuarantined, []string{code}
	in.Findings = []record.Finding{{Task: in.Task, Commit: in.Fetched, Code: code, Message: msg}}
	return in
}

// merge writes a commit whose parents are local and fetched and whose
// records/ tree is the union of theirs. A record path, or a record id,
// with different content on the two sides is a conflict: nothing is
// written and the conflicts are returned.
func (g *Integrator) merge(task, local, fetched string) (string, []record.Finding, error) {
	s := g.Store
	ours, err := s.recordsTree(plumbing.NewHash(local))
	if err != nil {
		return "", nil, err
	}
	theirs, err := s.recordsTree(plumbing.NewHash(fetched))
	if err != nil {
		return "", nil, err
	}
	byName := map[string]TreeEntry{}
	byID := map[string]TreeEntry{}
	var conflicts []record.Finding
	conflict := func(id, format string, args ...any) {
		conflicts = append(conflicts, record.Finding{Task: task, Commit: fetched, Record: id, Code: CodeConflict,
			Message: fmt.Sprintf(format, args...)})
	}
	for _, e := range ours.Entries {
		byName[e.Name] = e
		byID[recordID(e.Name)] = e
	}
	entries := append([]TreeEntry(nil), ours.Entries...)
	for _, e := range theirs.Entries {
		id := recordID(e.Name)
		if o, ok := byName[e.Name]; ok {
			if o.Hash != e.Hash {
				conflict(id, "%s/%s differs between the local and the fetched history", RecordsDir, e.Name)
			}
			continue
		}
		if o, ok := byID[id]; ok {
			conflict(id, "record %s is %s/%s locally and %s/%s in the fetched history", id, RecordsDir, o.Name, RecordsDir, e.Name)
			continue
		}
		entries = append(entries, e)
	}
	if len(conflicts) > 0 {
		return "", conflicts, nil
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	for i := range entries {
		entries[i].Mode = filemode.Regular
	}
	recordsTree, err := s.writeTree(entries)
	if err != nil {
		return "", nil, err
	}
	root, err := s.writeTree(recordsEntry(recordsTree))
	if err != nil {
		return "", nil, err
	}
	sig, err := g.Merger()
	if err != nil {
		return "", nil, err
	}
	c := &object.Commit{Author: sig, Committer: sig, TreeHash: root,
		ParentHashes: []plumbing.Hash{plumbing.NewHash(local), plumbing.NewHash(fetched)},
		Message: fmt.Sprintf("merge: %d records of two histories\n\nReason-Task: %s\nReason-Merge: %s\n",
			len(entries), task, fetched)}
	h, err := s.writeCommitObject(c)
	if err != nil {
		return "", nil, err
	}
	return h.String(), nil, nil
}

// recordID is the record id in a records/ entry name
// (<clock>-<kind>-<id>.json).
func recordID(name string) string {
	name = strings.TrimSuffix(name, ".json")
	if i := strings.LastIndexByte(name, '-'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// IsAncestor reports whether commit anc is desc or one of its ancestors.
func (s *Store) IsAncestor(ctx context.Context, anc, desc string) (bool, error) {
	seen := map[string]bool{}
	queue := []string{desc}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		h := queue[0]
		queue = queue[1:]
		if h == anc {
			return true, nil
		}
		if seen[h] {
			continue
		}
		seen[h] = true
		ps, ok := s.graph.get(h)
		if !ok {
			c, err := s.getCommit(plumbing.NewHash(h))
			if err != nil {
				return false, fmt.Errorf("read commit %s: %w", h, err)
			}
			ps = make([]string, len(c.ParentHashes))
			for i, p := range c.ParentHashes {
				ps[i] = p.String()
			}
			s.graph.put(h, ps)
		}
		queue = append(queue, ps...)
	}
	return false, nil
}
