package gitstore

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"git-reason/record"
)

// truth is what read surfaces know of replays: the heads remembered
// clean (the Remembered sync keeps, shared with it) and, for this
// process, each head's verdict.
type truth struct {
	once       sync.Once
	remembered *Remembered
	verdicts   sync.Map // task "\x00" head -> *record.Finding (nil: clean)
	refusals   sync.Map // task "\x00" head -> []record.Finding, the merge refusals a replay found
}

// readRemembered is the Remembered read surfaces replay from: sync's,
// when this store shares one, else the repository's, opened once.
func (s *Store) readRemembered() *Remembered {
	if s.remembered != nil {
		return s.remembered
	}
	s.truth.once.Do(func() { s.truth.remembered = OpenRemembered(s.Repo) })
	return s.truth.remembered
}

// Verdict replays the history of task at head and returns its first
// finding, nil when it replays clean or its only findings are records a
// merge made inadmissible (those are needs, see record.State.Settled). The replay goes on from the
// latest head remembered clean, so a head remembered costs nothing and a
// head a few records past one costs those records; a clean head is
// remembered (SaveVerdicts writes what was). Reuses of other tasks'
// conclusions, which depend on those tasks' refs as they are now, are not
// checked here: verify and pull check them all, and read surfaces check
// a task's (every assessment's) apart when its latest assessment reuses a
// conclusion (ReuseCheck), keeping the reused tasks' heads with what they
// show.
func (s *Store) Verdict(ctx context.Context, task, head string) (*record.Finding, error) {
	f, _, err := s.verdict(ctx, task, head)
	return f, err
}

// verdict is Verdict with, when this call replayed the history and found
// it clean, the state the replay reached at head: the state Derive
// builds from head's records, its entries decoded once, by the replay.
func (s *Store) verdict(ctx context.Context, task, head string) (*record.Finding, *record.State, error) {
	key := task + "\x00" + head
	if v, ok := s.truth.verdicts.Load(key); ok {
		return v.(*record.Finding), nil, nil
	}
	m := s.readRemembered()
	var first *record.Finding
	var st *record.State
	var refused []record.Finding
	if kept, ok := s.keptVerdict(task, head); ok && !m.Has(task, head) {
		first, refused = kept.First, kept.Refused
	} else if !m.Has(task, head) {
		var found []record.Finding
		found, _, st, _ = s.replayWithState(ctx, m, task, head, false, nil)
		if err := ctx.Err(); err != nil {
			return nil, nil, err // a cancelled replay says nothing of the history
		}
		if len(found) > 0 {
			st = nil
		}
		first, refused = s.keepVerdict(task, head, found)
	}
	s.truth.verdicts.Store(key, first)
	s.truth.refusals.Store(key, refused)
	return first, st, nil
}

// verdictMemo is what a replay of a task's history at a head found, when
// it found something, kept from one process to the next (Memo, kind
// verdictKind): the first finding that is no merge refusal, and the merge
// refusals. A head that replays clean is remembered clean instead. It
// spares a history that does not verify a replay at every command that
// reads its task: a fetched chain of 100,000 commits that add nothing
// cost each 'git reason status T' or 'log T' 6-9 s of CPU and 220-260 MB.
type verdictMemo struct {
	First   *record.Finding  `json:"first,omitempty"`
	Refused []record.Finding `json:"refused,omitempty"`
}

const verdictKind = "verdict"

// keptVerdict is the verdictMemo kept for task at head, if any.
func (s *Store) keptVerdict(task, head string) (verdictMemo, bool) {
	var v verdictMemo
	data := s.Memo(verdictKind, task, head)
	return v, data != nil && json.Unmarshal(data, &v) == nil
}

// keepVerdict is the first finding of found (what a replay of task's
// history at head found) that is no merge refusal, and its merge
// refusals, kept as head's verdictMemo when found holds anything. A
// history that did not read (an object missing, past a size limit) may
// read another time: what its replay found is not kept.
func (s *Store) keepVerdict(task, head string, found []record.Finding) (*record.Finding, []record.Finding) {
	var v verdictMemo
	v.Refused = record.MergeRefusals(found)
	for i := range found {
		// What a merge of two honest histories made inadmissible
		// waits for a person's record (status lists it as a need):
		// every record of it is still as its writer computed it.
		if found[i].Code != record.FindMergeRule {
			v.First = &found[i]
			break
		}
	}
	unread := slices.ContainsFunc(found, func(f record.Finding) bool { return f.Code == record.FindUnreadable })
	if len(found) > 0 && !unread {
		if data, err := json.Marshal(v); err == nil {
			s.SaveMemo(verdictKind, task, head, data)
		}
	}
	return v.First, v.Refused
}

// MergeRefusals returns the records the merges in task's history at head
// made inadmissible that no record after them settles yet (replay's
// merge_refused findings, record.State.Settled): what status shows as
// needing a person's record. It is the refs' word, never a file's: none
// for a head remembered clean (its replay found nothing at all), else
// what this process's replay of it found (Verdict's, which a read surface
// has run already), else what an earlier process's replay of it found
// (verdictMemo, under the repository key), else a replay, which goes on
// from the latest head remembered clean.
func (s *Store) MergeRefusals(ctx context.Context, task, head string) ([]record.Finding, error) {
	key := task + "\x00" + head
	if v, ok := s.truth.refusals.Load(key); ok {
		return v.([]record.Finding), nil
	}
	m := s.readRemembered()
	if m.Has(task, head) {
		return nil, nil
	}
	if kept, ok := s.keptVerdict(task, head); ok {
		s.truth.refusals.Store(key, kept.Refused)
		return kept.Refused, nil
	}
	found, _, _, _ := s.replayWithState(ctx, m, task, head, false, nil)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	_, refused := s.keepVerdict(task, head, found)
	s.truth.refusals.Store(key, refused)
	return refused, nil
}

// CheckBase is record.BaseChecker: nil when task's head may be appended
// to, else replay's first finding. This process's verdict when it has
// one; else a head this clone's writer made lately is one (the writer
// appends only on a head that replays clean, so what it made replays
// clean: the end of the list of its commits, written.go, under the
// repository key, is read, not replayed); else Verdict, which replays
// from the latest head remembered clean. An append on the writer's own
// last head, the common case, replays nothing and reads a file's end.
func (s *Store) CheckBase(ctx context.Context, task, head string) (*record.Finding, error) {
	if v, ok := s.truth.verdicts.Load(task + "\x00" + head); ok {
		return v.(*record.Finding), nil
	}
	if s.writtenLately(task, head) {
		return nil, nil
	}
	return s.Verdict(ctx, task, head)
}

// NoteClean tells the store, for this process, that task's history at
// head replays clean, as a replay would have found: for a head its own
// writer has just made on a history that replays clean.
func (s *Store) NoteClean(task, head string) {
	s.truth.verdicts.Store(task+"\x00"+head, (*record.Finding)(nil))
}

// SaveVerdicts writes the heads replays found clean since the store
// opened. A memo not saved costs a replay next time, nothing else.
func (s *Store) SaveVerdicts() { _ = s.readRemembered().Save() }

// DeriveVerified is the state of task at head as read surfaces show it:
// derived from recs (head's records) when the history replays clean, and
// otherwise recomputed by replay (record.Recompute) and marked with the
// first finding, so that no stored claim of a forged or broken history
// reaches a person.
func (s *Store) DeriveVerified(ctx context.Context, task, head string, recs []*record.Record) (*record.State, error) {
	f, replayed, err := s.verdict(ctx, task, head)
	if err != nil {
		return nil, err
	}
	if f == nil {
		// The replay that found the history clean derived the state at
		// head from head's records, as Derive does: taken as it is, its
		// records are not decoded a second time.
		if sameRecords(replayed, recs) {
			return replayed, nil
		}
		return record.Derive(task, recs)
	}
	return record.Recompute(ctx, task, recs, *f)
}

// sameRecords reports whether st holds exactly the records of recs (by
// id), in any order.
func sameRecords(st *record.State, recs []*record.Record) bool {
	if st == nil || len(st.Entries) != len(recs) {
		return false
	}
	ids := make(map[string]bool, len(recs))
	for _, r := range recs {
		ids[r.ID] = true
	}
	for _, e := range st.Entries {
		if !ids[e.ID] {
			return false
		}
		delete(ids, e.ID)
	}
	return len(ids) == 0
}

// KnownClean reports whether task's history at head is known to replay
// clean without replaying it: a verdict of this process (Verdict,
// DeriveSaved, NoteClean) or a head remembered clean.
func (s *Store) KnownClean(task, head string) bool {
	if v, ok := s.truth.verdicts.Load(task + "\x00" + head); ok {
		return v.(*record.Finding) == nil
	}
	return s.readRemembered().Has(task, head)
}
