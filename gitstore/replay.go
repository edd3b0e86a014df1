package gitstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"

	"git-reason/record"
)

// replay replays the history at head as a history of task and returns its
// findings and, when they read clean, the records of head's tree (for
// the reuse checks; only when recs is set, for a remembered head).
//
// With s.remembered set, a history that contains a remembered head
// (Remembered) is replayed from it: only the commits after it are read
// and replayed, from the state its own records make. A head whose replay
// finds nothing is remembered. Whatever goes wrong with a remembered head
// (gone, unreadable, records not matching its tree) costs a whole replay,
// never a finding the whole replay would not give.
func (s *Store) replay(ctx context.Context, task, head string, recs bool, k *record.Checked) ([]record.Finding, []*record.Record) {
	return s.replayWith(ctx, s.remembered, task, head, recs, k)
}

// replayWith is replay going on from what m (nil: nothing) remembers.
func (s *Store) replayWith(ctx context.Context, m *Remembered, task, head string, recs bool, k *record.Checked) ([]record.Finding, []*record.Record) {
	found, out, _, _ := s.replayWithState(ctx, m, task, head, recs, k)
	return found, out
}

// replayWithState is replayWith that also returns the state the replay
// reached at head (record.Checked.Replay), nil when no replay
// ran to its end (a remembered head is not replayed), and, with head's
// records, head's records/ tree (entry name -> blob), when it was read
// (nil for a replay another task's held, blindReplays).
func (s *Store) replayWithState(ctx context.Context, m *Remembered, task, head string, recs bool, k *record.Checked) ([]record.Finding, []*record.Record, *record.State, map[string]string) {
	defer s.replayed(head)
	// A remembered head whose history is past the limits now (lowered
	// since it was remembered) is not gone on from: the history is read
	// whole, and refused as any other past them.
	stop := map[string]Totals{}
	if m != nil && isHex(head) && len(head) == 40 {
		for h, t := range m.Bases(task) {
			if s.within(t) == nil && s.HasObject(h) {
				stop[h] = t
			}
		}
	}
	if _, ok := stop[head]; ok {
		if !recs {
			return nil, nil, nil, nil
		}
		if out, files, err := s.rememberedRecords(head); err == nil {
			return nil, out, nil, files
		}
		delete(stop, head)
	}
	var st *record.State
	var files map[string]string
	// Only a head other tasks are to be replayed at is held.
	many := len(stop) == 0 && s.shared.many(head)
	found, out, totals, held, done := s.blind.as(ctx, task, head, many)
	if !held {
		var blind bool
		found, out, st, files, totals, blind = s.replayRead(ctx, task, head, stop, k)
		if blind && many && ctx.Err() == nil {
			s.blind.put(head, found, out, totals)
		}
		done()
	}
	if len(found) == 0 && ctx.Err() == nil && m != nil {
		m.Add(task, head, totals)
	}
	if out == nil {
		files = nil
	}
	return found, out, st, files
}

// replayed drops what the run held for head once the last replay the run
// expected at it is over (Shared.Expect).
func (s *Store) replayed(head string) {
	if s.shared.over(head) {
		if s.blind != nil {
			s.blind.held.drop(head)
		}
		if s.histories != nil {
			s.histories.held.drop(head)
		}
	}
}

// replayRead is replayFrom, from no remembered head when one of stop
// does not read or the history read from them is past a limit (their
// totals bound it: what they share counts twice), with a history that
// does not read as its finding (nothing when ctx ended), head's records/
// tree when head's records read (history.headFiles), and what the
// history counts for against the limits (Totals; none when it did not
// read). blind: no decoded record took part (record.Checked.ReplayBlind),
// or the history did not read, which depends on its objects alone.
func (s *Store) replayRead(ctx context.Context, task, head string, stop map[string]Totals, k *record.Checked) ([]record.Finding, []*record.Record, *record.State, map[string]string, Totals, bool) {
	found, out, st, h, blind, err := s.replayFrom(ctx, task, head, stop, k)
	if err != nil && len(stop) > 0 && ctx.Err() == nil {
		found, out, st, h, blind, err = s.replayFrom(ctx, task, head, nil, k)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, nil, nil, Totals{}, false
		}
		return []record.Finding{{Task: task, Commit: head, Code: record.FindUnreadable,
			Message: record.Printable(err.Error())}}, nil, nil, nil, Totals{}, true
	}
	var files map[string]string
	if out != nil {
		files = h.headFiles()
	}
	return found, out, st, files, h.totals, blind
}

// errBase is a remembered head that cannot serve as one.
var errBase = errors.New("a remembered head does not read")

// replayFrom reads the history at head, stopping at the commits of stop,
// and replays it, from the states of the stops it reached. An error is a
// history that does not read, or errBase.
// It returns the history it read too, and says whether the replay was blind to task
// (record.Checked.ReplayBlind).
func (s *Store) replayFrom(ctx context.Context, task, head string, stop map[string]Totals, k *record.Checked) ([]record.Finding, []*record.Record, *record.State, *history, bool, error) {
	var known map[string]*record.Record
	if len(stop) > 0 {
		known = s.knownRecords(task)
	}
	var h *history
	var err error
	// Only a head other tasks are to be replayed at is held, its history
	// and what reading its blobs gave (k's probes).
	many := len(stop) == 0 && s.shared.many(head)
	if many {
		var kept func(*record.Checked)
		if h, kept, err = s.histories.read(ctx, s, head); err == nil {
			// The blobs k (the caller's, which the run's replays share)
			// checked are not held.
			defer kept(k)
		}
	} else {
		h, err = s.readHistory(ctx, head, stop, known, nil, nil)
	}
	if err != nil {
		return nil, nil, nil, nil, false, err
	}
	if k == nil {
		// Records this build's writer validated are taken as it checked
		// them (checked.go), as a replay from a saved state takes them.
		k = s.checkedWritten(task, head, h)
	}
	if len(h.bases) == 0 {
		found, recs, st, blind := k.ReplayBlind(ctx, task, h.commits, h.blob(s), many)
		return found, recs, st, h, blind, nil
	}
	bases := make(map[string]*record.Base, len(h.bases))
	for c, files := range h.bases {
		b := &record.Base{Files: files, Records: make([]*record.Record, 0, len(files))}
		for _, blob := range files {
			if r := known[blob]; r != nil {
				rec := *r // the cache's own is never changed
				b.Records = append(b.Records, &rec)
				continue
			}
			r, ok := h.blobs[blob]
			if !ok || r.err != nil {
				return nil, nil, nil, nil, false, errBase
			}
			var rec record.Record
			if err := json.Unmarshal(r.data, &rec); err != nil {
				return nil, nil, nil, nil, false, errBase
			}
			b.Records = append(b.Records, &rec)
		}
		bases[c] = b
	}
	found, recs, st, err := k.ReplayFrom(ctx, task, bases, h.commits, h.blob(s))
	if err != nil && ctx.Err() == nil {
		return nil, nil, nil, nil, false, fmt.Errorf("%w: %v", errBase, err)
	}
	return found, recs, st, h, false, nil
}

// baseFiles is a remembered head's records/ tree.
func (s *Store) baseFiles(head string) (map[string]string, error) {
	tree, err := s.recordsTree(plumbing.NewHash(head))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBase, err)
	}
	files := make(map[string]string, len(tree.Entries))
	for _, e := range tree.Entries {
		files[e.Name] = e.Hash.String()
	}
	return files, nil
}

// rememberedRecords reads the records of a remembered head, in tree order,
// and its records/ tree (entry name -> blob). Its replay, by this release
// (Remembered's MAC names it), checked every one of them strictly; the
// blobs are the same.
func (s *Store) rememberedRecords(head string) ([]*record.Record, map[string]string, error) {
	tree, err := s.recordsTree(plumbing.NewHash(head))
	if err != nil {
		return nil, nil, err
	}
	out := make([]*record.Record, 0, len(tree.Entries))
	files := make(map[string]string, len(tree.Entries))
	for _, e := range tree.Entries {
		data, err := s.recordBlob(e)
		if err != nil {
			return nil, nil, err
		}
		var rec record.Record
		if err := json.Unmarshal(data, &rec); err != nil {
			return nil, nil, err
		}
		out = append(out, &rec)
		files[e.Name] = e.Hash.String()
	}
	countTask(len(out))
	return out, files, nil
}

// knownRecords is every record of task's cache (the one in memory, else
// the file), whatever its head, by blob hash: the records a replay from a
// base takes instead of reading the base's blobs from git again. Every
// one passed record.ReadStored when it was read from git under that blob
// hash, or was written by this store as that blob, as a read of the blob
// would give it; nil when there is no cache.
func (s *Store) knownRecords(task string) map[string]*record.Record {
	c := s.mem.latest(task)
	if c == nil {
		c = s.readTaskCache(task)
	}
	if c == nil {
		return nil
	}
	out := make(map[string]*record.Record, len(c.Entries))
	for _, e := range c.Entries {
		out[e.Blob] = e.Rec
	}
	return out
}
