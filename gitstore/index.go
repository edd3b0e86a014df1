package gitstore

import (
	"context"
	"encoding/json"

	"git-reason/gitstore/git"
	"git-reason/record"
)

// indexVersion changes whenever the cache's shape or meaning changes; a
// cache of another version is rebuilt. 6: a failed attempt keeps a task
// open only while it is at the latest conclusion, and the next step after
// failed advisors or a merge changed (3e3b40d, 5559684). 8: a status
// entry keeps its reuses' check (IndexEntry.Reuse). 9: the next step to
// conclude names each consultation to weigh.
const indexVersion = 9

// Index caches, per task, what reads across every task need, in journals
// under .git/reason/ (journal.go: appended to, compacted rarely):
// status.journal holds each task's status (with its reuses' check,
// IndexEntry.Reuse), handover.journal its handover, mentions.journal the commits and files its records name; the
// standing conclusions every assessment looks up are in the subject index
// (subjects.go). The refs are the only truth:
// every entry is keyed by its task's head, an entry whose head differs
// from the ref (a new record, a ref fetched by plain git), or whose
// reuses were checked against a head another task's ref no longer has,
// is rebuilt from the ref before use and appended, and a missing or damaged file is
// rebuilt whole. The journals are sealed (Sealed): an entry whose MAC
// does not hold (a stranger edited it to say a task was reviewed) is
// derived again from the ref, never served. Index implements
// record.Index.
type Index struct {
	Store *Store
	// Quiet leaves a task whose history does not read out without
	// reporting it to Store.Skip: for a reader that reports such tasks
	// itself (doctor's broken_ref), without changing the store's OnSkip
	// under the other requests of a resident session.
	Quiet bool
}

// IndexEntry is what the cache knows of one task at one head.
type IndexEntry struct {
	Head   string        `json:"head"`
	Status record.Status `json:"status"`
	// Needs: a merge in the task's history made a record inadmissible
	// that no record settles yet (Store.MergeRefusals at Head).
	Needs bool `json:"needs,omitempty"`
	// Reuse is what the check of the reuses of the task's latest
	// assessment (ReuseCheck) found at Head, for a status that shows a
	// reuse (Status.Reuses) and no finding of replay; nil for any other,
	// and for one whose check failed (the reader checks it again and
	// reports why). Status is not marked with it: each reader says what
	// it shows of a reuse.
	Reuse *ReuseChecked `json:"reuse,omitempty"`
}

// ReuseChecked is what a reuse check (ReuseCheck) found: its first
// finding, nil when none, and the head each reused task's ref had then
// ("" for a ref missing). The entry holding it is derived again once one
// of those refs is listed at another head (refresh), so a read of every
// task checks again the reuses of the tasks that reuse a moved task, and
// no other's.
type ReuseChecked struct {
	Finding *record.Finding   `json:"finding,omitempty"`
	Reused  map[string]string `json:"reused,omitempty"`
}

// reusedMoved reports whether e's status shows a reuse whose check it
// lacks, or a task its check read has its ref listed (at) at another head
// now.
func (e *IndexEntry) reusedMoved(at func(task string) string) bool {
	if e.Reuse == nil {
		return e.Status.Reuses != "" && e.Status.DoesNotVerify == nil
	}
	return MovedFrom(e.Reuse.Reused, at)
}

// handoverEntry is a task's handover at one head: the handover of every
// task reads one file instead of every task's records. A change to what
// record.Handover holds must change indexVersion.
type handoverEntry struct {
	Head     string          `json:"head"`
	Handover record.Handover `json:"handover"`
}

// mentionEntry is what a task's records name at one head (commits of
// attempts and validations, files evidence cites): context links a range's
// commits to tasks through one file instead of every task's records.
type mentionEntry struct {
	Head     string           `json:"head"`
	Mentions []record.Mention `json:"mentions,omitempty"`
}

func (e *mentionEntry) head() string { return e.Head }

func (e *IndexEntry) head() string    { return e.Head }
func (e *handoverEntry) head() string { return e.Head }

// A handover or a task's mentions show no reuse check.
func (e *handoverEntry) reusedMoved(func(string) string) bool { return false }
func (e *mentionEntry) reusedMoved(func(string) string) bool  { return false }

// Tasks returns the cache entry of every task, brought up to date with the
// refs, sorted by task name.
func (x Index) Tasks(ctx context.Context) ([]record.TaskHead, map[string]*IndexEntry, error) {
	return refresh(ctx, x, "status.journal", "", func(t record.TaskHead, st *record.State, recs []*record.Record) *IndexEntry {
		// The replay that derived st found the refusals: none is replayed
		// again here.
		refused, _ := x.Store.MergeRefusals(ctx, t.Task, t.Head)
		e := &IndexEntry{Head: t.Head, Status: x.indexed(t, st), Needs: len(refused) > 0}
		// A reuse is checked against the reused tasks' refs now, once
		// for this head and again only when one of them moved.
		if e.Status.Reuses != "" && e.Status.DoesNotVerify == nil {
			if f, reused, err := x.Store.reuseCheck(ctx, t.Task, t.Head, recs); err == nil {
				e.Reuse = &ReuseChecked{Finding: f, Reused: reused}
			}
		}
		return e
	})
}

// indexed is the status of task t derived as st: a head a read finds
// moved (by a write, a pull, or plain git) is indexed by subject too.
func (x Index) indexed(t record.TaskHead, st *record.State) record.Status {
	x.Store.noteStanding(t.Task, t.Head, st.Standing())
	return st.Summarize()
}

// StatusAt is task's status at head as Tasks indexes it (the task
// derived as read surfaces show it, DeriveVerified, and indexed), for a
// reader that needs a few moved tasks and not the journal of every task.
// The caller saves the verdicts (Store.SaveVerdicts) once it has asked
// about every task it needs.
func (x Index) StatusAt(ctx context.Context, task, head string) (record.Status, error) {
	st, _, err := x.Store.deriveVerifiedAt(ctx, task, head)
	if err != nil {
		return record.Status{}, err
	}
	return x.indexed(record.TaskHead{Task: task, Head: head}, st), nil
}

// StateAt is task's state at head as read surfaces show it
// (DeriveVerified), for a reader that keeps its own rows of every task
// and derives only the few tasks that moved (the handover's rows). A
// history that does not read is reported to Store.Skip, as a read of
// every task reports it. The caller saves the verdicts
// (Store.SaveVerdicts) once it has asked about every task it needs.
func (x Index) StateAt(ctx context.Context, task, head string) (*record.State, error) {
	st, _, err := x.Store.deriveVerifiedAt(ctx, task, head)
	if err != nil && ctx.Err() == nil {
		x.Store.Skip(task, err)
	}
	return st, err
}

// Standing implements record.Index from the subject index (subjects.go):
// one small file per subject, never a file that grows with the tasks.
// The entry of task skip is not brought up to date: the writer has that
// task in hand already.
func (x Index) Standing(ctx context.Context, key, skip string) ([]record.Standing, error) {
	return x.Store.standingOn(ctx, key, skip)
}

// Handovers returns the handover (record.State.Handover) of every task
// that reads, brought up to date with the refs, in task order: the cache
// journal handover.journal.
func (x Index) Handovers(ctx context.Context) ([]record.Handover, error) {
	tasks, entries, err := refresh(ctx, x, "handover.journal", "", func(t record.TaskHead, st *record.State, _ []*record.Record) *handoverEntry {
		return &handoverEntry{Head: t.Head, Handover: st.Handover()}
	})
	if err != nil {
		return nil, err
	}
	out := make([]record.Handover, 0, len(tasks))
	for _, t := range tasks {
		out = append(out, entries[t.Task].Handover)
	}
	return out, nil
}

// Mentions returns what the records of every task that reads name
// (record.State.Mentions), brought up to date with the refs, by task: the
// journal mentions.journal.
func (x Index) Mentions(ctx context.Context) (map[string][]record.Mention, error) {
	_, entries, err := refresh(ctx, x, "mentions.journal", "", func(t record.TaskHead, st *record.State, _ []*record.Record) *mentionEntry {
		return &mentionEntry{Head: t.Head, Mentions: st.Mentions()}
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string][]record.Mention, len(entries))
	for task, e := range entries {
		out[task] = e.Mentions
	}
	return out, nil
}

// refresh loads the journal name (journal.go), rebuilds (with build)
// the entry of every task whose head moved, or that a reused task's head
// moved under (reusedMoved: compared with the refs listed, no file read),
// except skip, appends what changed, and returns the tasks and their
// entries. A task whose history
// does not read is reported to Store.Skip (unless x is Quiet) and left
// out of both.
func refresh[E interface {
	head() string
	reusedMoved(at func(task string) string) bool
}](ctx context.Context, x Index, name, skip string,
	build func(record.TaskHead, *record.State, []*record.Record) E) ([]record.TaskHead, map[string]E, error) {
	s := x.Store
	tasks, broken, err := s.TasksBroken(ctx)
	if err != nil {
		return nil, nil, err
	}
	if !x.Quiet {
		for _, b := range broken {
			if b.Err != nil {
				s.Skip(b.Task, b.Err)
			}
		}
	}
	// The task caches the read writes are written at its end, into one
	// pack when they are many (a clone's first read writes every task's).
	writeCaches := s.HoldCaches()
	defer writeCaches()
	// Sealed: each entry's MAC is checked before it is used (an entry a
	// stranger edited or moved is derived again from the refs).
	old := OpenSealed(s.Repo, name, "index")
	live := make(map[string]E, len(tasks))
	var changed, order []string
	readable := make([]record.TaskHead, 0, len(tasks))
	at := ListedHeads(tasks)
	// save keeps what was derived: at the end, and when an interrupt
	// stops the read part way (a first read of thousands of tasks is
	// long, and the next command goes on from where it stopped instead
	// of starting again). every, when not nil, is every task there is.
	save := func(every []string) {
		writeCaches()
		if len(changed) > 0 {
			s.SaveVerdicts()
		}
		for _, t := range changed {
			if data, err := json.Marshal(live[t]); err == nil { // not cached: derived again next time
				old.Put(t, live[t].head(), data)
			}
		}
		old.Save(every)
	}
	for i, t := range tasks {
		if err := ctx.Err(); err != nil {
			save(nil)
			return nil, nil, err
		}
		s.Progress("Reading tasks", i, len(tasks))
		var e E
		head, data, ok := old.Entry(t.Task)
		if ok {
			countEntryDecode()
			ok = json.Unmarshal(data, &e) == nil
		}
		if t.Task == skip {
			if ok {
				live[t.Task] = e // stale or not, keyed by its own head
				order = append(order, t.Task)
			}
			readable = append(readable, t)
			continue
		}
		if !ok || head != t.Head || e.head() != t.Head || e.reusedMoved(at) {
			st, recs, err := s.deriveVerifiedAt(ctx, t.Task, t.Head)
			if err != nil && ctx.Err() != nil {
				save(nil)
				return nil, nil, ctx.Err()
			}
			if err != nil {
				// One task that does not read (fetched from elsewhere,
				// say) must not stop every command: it is left out,
				// reported once, and read again next time.
				if !x.Quiet {
					s.Skip(t.Task, err)
				}
				continue
			}
			e = build(t, st, recs)
			changed = append(changed, t.Task)
		}
		live[t.Task] = e
		order = append(order, t.Task)
		readable = append(readable, t)
	}
	s.Progress("Reading tasks", len(tasks), len(tasks))
	save(order)
	return readable, live, nil
}

// writeFileAtomic replaces a file of the store's own (a cache, the
// remembered state) through its lock, creating its directory; readable by
// the user alone. While another process holds the lock, it writes the
// file and this write gives way.
func writeFileAtomic(path string, data []byte) error {
	return git.WriteFile(path, data, 0o600, 0, false)
}

// deriveVerifiedAt is the state of task at head as read surfaces show it
// (DeriveVerified), and its records.
func (s *Store) deriveVerifiedAt(ctx context.Context, task, head string) (*record.State, []*record.Record, error) {
	_, recs, err := s.loadTask(task, head)
	if err != nil {
		return nil, nil, err
	}
	st, err := s.DeriveVerified(ctx, task, head, recs)
	return st, recs, err
}

// deriveAt is the state of task at head, and its records.
func (s *Store) deriveAt(task, head string) (*record.State, []*record.Record, error) {
	_, recs, err := s.loadTask(task, head)
	if err != nil {
		return nil, nil, err
	}
	st, err := record.Derive(task, recs)
	return st, recs, err
}
