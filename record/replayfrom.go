package record

import (
	"context"
	"fmt"
	"maps"
	"slices"
)

// Base is a commit whose history is known to replay with no finding at
// all (a remembered verification), given as what a replay needs to go on
// from it: its records/ tree and its records, each as read from that
// tree. A replay from a base replays only the commits after it.
type Base struct {
	Files   map[string]string // records/ entry name -> blob hash
	Records []*Record         // the records Files names, in any order
	// Lazy: the records are decoded when a rule or a surface first reads
	// them (State.Decoded decodes the rest), not all before the replay,
	// so a replay from a base costs the records after it and the few
	// the rules read. Only for records that decoded when they were
	// first replayed (a saved state's: gitstore's saved.go).
	Lazy bool
	// Links are the links of Records by id (State.Links, as the records'
	// decoding gave them when they were first replayed), for a Lazy base:
	// a record whose links are given is decoded only when a question
	// selects it (links.go).
	Links map[string][]string
	// Facts are the facts of Records by id (State.Facts, facts.go), for a
	// Lazy base: the standing conclusions read them instead of decoding
	// the records.
	Facts map[string][]string
}

// baseEntries checks that recs are exactly the records files names (each
// under its own name) and returns them decoded, in (clock, id) order:
// the state a replay of a history with no finding reaches at its head.
// In such a history every commit adds the record one clock above all
// before it, and a merge orders the union by (clock, id), so the replay's
// state is the head's records in that order, which this computes without
// replaying the history again.
func baseEntries(b *Base) ([]*Entry, error) {
	named, err := baseNamed(b)
	if err != nil {
		return nil, err
	}
	out := make([]*Entry, len(named))
	for i, n := range named {
		out[i] = n.e
	}
	return out, nil
}

// namedEntry is an entry of a base with its records/ entry name.
type namedEntry struct {
	e    *Entry
	name string
}

// baseNamed is baseEntries with each entry's name, made once.
func baseNamed(b *Base) ([]namedEntry, error) {
	files, recs, lazy := b.Files, b.Records, b.Lazy
	if len(recs) != len(files) {
		return nil, fmt.Errorf("base holds %d records, its tree %d", len(recs), len(files))
	}
	out := make([]namedEntry, 0, len(recs))
	for _, r := range recs {
		name := r.FileName()
		if _, ok := files[name]; !ok {
			return nil, fmt.Errorf("base record %s is not its tree's %s", r.ID, name)
		}
		if lazy {
			l, ok := b.Links[r.ID]
			out = append(out, namedEntry{&Entry{Record: r, refs: l, linked: ok || b.Links != nil && linksOf(newBody(r.Kind)) == nil,
				known: b.Facts[r.ID]}, name})
			continue
		}
		e, err := Decode(r)
		if err != nil {
			return nil, err
		}
		out = append(out, namedEntry{e, name})
	}
	// A saved state's records come in their tree's order, which is
	// (clock, kind, id): in order already unless two share a clock.
	byClock := func(a, b namedEntry) int { return Compare(a.e.Record, b.e.Record) }
	if !slices.IsSortedFunc(out, byClock) {
		slices.SortStableFunc(out, byClock)
	}
	// A name is the record's clock, kind and id, which lead the order:
	// two records under one name are next to each other.
	for i := 1; i < len(out); i++ {
		if out[i].name == out[i-1].name {
			return nil, fmt.Errorf("base records %s and %s are both its tree's %s", out[i-1].e.ID, out[i].e.ID, out[i].name)
		}
	}
	return out, nil
}

// ReplayFrom is Replay for the commits of a history after bases:
// every parent of commits is either one of commits, earlier in the list,
// or a key of bases. Its findings are those a replay of the whole history
// gives, provided each base's history has none (the caller remembers
// that): the replay goes on from each base's state as a replay of its
// history would have left it. A base whose records do not match its tree
// is an error, not a finding: the caller replays the whole history. It
// returns what Replay returns.
func (k *Checked) ReplayFrom(ctx context.Context, task string, bases map[string]*Base, commits []*Commit, blob func(hash string) (*Record, error)) ([]Finding, []*Record, *State, error) {
	v := newVerifier(task, blob)
	v.shared = k
	size := 0
	for _, b := range bases {
		size += len(b.Records)
	}
	v.entries = make(map[entryKey]checked, size+len(commits))
	for h, b := range bases {
		entries, err := baseNamed(b)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("base %s: %w", h, err)
		}
		st := &State{Task: task, byID: make(map[string]*Entry, len(entries)+1)}
		for _, n := range entries {
			st.add(n.e)
			v.entries[entryKey{n.name, b.Files[n.name]}] = checked{e: n.e, ok: true}
		}
		v.states[h], v.files[h] = st, maps.Clone(b.Files)
	}
	earlier := make(map[string]bool, len(commits))
	for _, c := range commits {
		for _, p := range distinctParents(c) {
			if bases[p] == nil && !earlier[p] {
				return nil, nil, nil, fmt.Errorf("commit %s has parent %s, neither replayed nor a base", c.Hash, p)
			}
			v.kids[p]++
		}
		earlier[c.Hash] = true
	}
	recs := v.replay(ctx, commits)
	if recs == nil {
		return v.findings(), nil, nil, ctx.Err()
	}
	return v.findings(), recs, v.last, nil
}

// BaseState is the state a replay of base's history reaches at base (see
// baseEntries): what a read surface shows of a saved state's own head.
func BaseState(task string, b *Base) (*State, error) {
	entries, err := baseEntries(b)
	if err != nil {
		return nil, err
	}
	st := &State{Task: task, byID: make(map[string]*Entry, len(entries)+1)}
	for _, e := range entries {
		st.add(e)
	}
	return st, nil
}

// Decoded decodes every entry of the state not decoded yet (see Base.Lazy),
// for a surface that reads Entries directly rather than through the
// state's methods; the error of the first that does not decode.
func (s *State) Decoded() error {
	for _, e := range s.Entries {
		s.ready(e)
	}
	return s.undecodable
}
