package gitstore

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"

	"git-reason/record"
)

// ReadHistoriesAsLong makes s read every history through git's processes,
// as it reads a long one, so that tests hold both readers to one result.
func ReadHistoriesAsLong(s *Store) { s.longReads = true }

// ReadPacksThroughGit makes s read packed objects through git cat-file
// first, as it does in a repository whose packs are large (packreads.go),
// however small they are.
func ReadPacksThroughGit(s *Store) { s.packsViaGit = true }

// ReplayedFrom reads the history of head as a replay with the heads rem
// remembers of task does, and returns how many commits it would replay and
// from how many remembered heads.
func ReplayedFrom(s *Store, rem *Remembered, task, head string) (commits, bases int, err error) {
	h, err := s.readHistory(context.Background(), head, rem.Bases(task), nil, nil, nil)
	if err != nil {
		return 0, 0, err
	}
	return len(h.commits), len(h.bases), nil
}

// HistoryTotals reads the history of head as ReplayedFrom does (with no
// remembered heads when rem is nil) and returns what it counts for
// against the limits and from how many remembered heads it was read.
func HistoryTotals(s *Store, rem *Remembered, task, head string) (Totals, int, error) {
	h, err := s.readHistory(context.Background(), head, rem.Bases(task), nil, nil, nil)
	if err != nil {
		return Totals{}, 0, err
	}
	return h.totals, len(h.bases), nil
}

// ResignSavedState is a saved state file (saved.go) with every "online"
// of its records replaced by to (the same length) and each segment
// signed again under key: what a forger holding another key would write.
func ResignSavedState(file, key []byte, task, to string) []byte {
	return ResignSavedTail(file, 0, key, task, `"decision": "online"`, `"decision": "`+to+`"`)
}

// ResignSavedTail is a saved state file whose segments from byte from on
// (a segment's start) have old replaced by new (the same length) in
// their records and are signed again under key, chained to the MAC of
// the segment before from as the file holds it.
func ResignSavedTail(file []byte, from int, key []byte, task, old, new string) []byte {
	rest, _ := bytes.CutPrefix(file, []byte(savedMagic))
	out, prev := []byte(savedMagic), ""
	for len(rest) > 0 {
		at := len(file) - len(rest)
		head, mac, t, entries, links, facts, next, ok := cutSegment(rest)
		if !ok {
			break
		}
		if at < from {
			out, prev, rest = append(out, rest[:len(rest)-len(next)]...), mac, next
			continue
		}
		body := append(append(bytes.ReplaceAll(entries, []byte(old), []byte(new)), links...), facts...)
		prev = savedMAC(key, task, head, prev, t, body)
		out = append(out, segmentLine(head, prev, t, len(entries), len(links), len(facts))...)
		out = append(out, body...)
		rest = next
	}
	return out
}

// ResignSavedFacts is a saved state file whose segments have old
// replaced by new (the same length) in their facts parts alone and are
// signed again under key.
func ResignSavedFacts(file, key []byte, task, old, new string) []byte {
	rest, _ := bytes.CutPrefix(file, []byte(savedMagic))
	out, prev := []byte(savedMagic), ""
	for len(rest) > 0 {
		head, _, t, entries, links, facts, next, ok := cutSegment(rest)
		if !ok {
			break
		}
		facts = bytes.ReplaceAll(facts, []byte(old), []byte(new))
		body := append(append(append([]byte(nil), entries...), links...), facts...)
		prev = savedMAC(key, task, head, prev, t, body)
		out = append(out, segmentLine(head, prev, t, len(entries), len(links), len(facts))...)
		out = append(out, body...)
		rest = next
	}
	return out
}

// IDLineMAC is the MAC of an id index line (ids.go) under key.
func IDLineMAC(key []byte, a, b string) string { return idsLineMAC(key, a, b) }

// TaskCacheSegments is how many segments of task's cache file read, one
// after another as a read takes them, 0 when it is no cache;
// MaxCacheSegments bounds them.
func TaskCacheSegments(s *Store, task string) int {
	data, err := os.ReadFile(s.taskCachePath(task))
	if err != nil {
		return 0
	}
	seal := s.taskCacheSeal(task, false)
	line, rest, _ := bytes.Cut(data, []byte{'\n'})
	line, found := bytes.CutPrefix(line, []byte(taskCacheMagic))
	_, _, rest, ok := cutCacheSegment(line, rest, seal)
	if !found || !ok {
		return 0
	}
	n := 1
	for len(rest) > 0 {
		line, next, _ := bytes.Cut(rest, []byte{'\n'})
		_, line, ok1 := bytes.Cut(line, []byte{' '})
		_, _, after, ok := cutCacheSegment(line, next, seal)
		if !ok1 || !ok {
			break
		}
		rest = after
		n++
	}
	return n
}

const MaxCacheSegments = maxCacheSegments

// TaskCacheMagic starts a task cache file.
const TaskCacheMagic = taskCacheMagic

// TaskCacheAt is the head and the number of records of task's cache file
// as a read finds them ("" when it is no cache).
func TaskCacheAt(s *Store, task string) (string, int) {
	c := s.readTaskCache(task)
	if c == nil {
		return "", 0
	}
	return c.Head, len(c.Entries)
}

// AsRelease makes this process name itself release name (what the
// journals' first lines and the MACs of the verdicts kept under
// .git/reason/ name), until the returned function restores it: what
// another release of git reason would write. A test calling it must not
// run in parallel.
func AsRelease(name string) (restore func()) {
	was := release
	release = func() string { return name }
	return func() { release = was }
}

// CacheTaskAsRead writes task's cache file at head holding head's
// records as JSON decodes them, without record.ReadStored's checks: what
// another release, whose checks admitted them, would have kept.
func CacheTaskAsRead(s *Store, task, head string) error {
	tree, err := s.recordsTree(plumbing.NewHash(head))
	if err != nil {
		return err
	}
	entries := make([]cacheEntry, 0, len(tree.Entries))
	for _, e := range tree.Entries {
		data, err := s.recordBlob(e)
		if err != nil {
			return err
		}
		var rec record.Record
		if err := json.Unmarshal(data, &rec); err != nil {
			return err
		}
		entries = append(entries, cacheEntry{Name: e.Name, Blob: e.Hash.String(), Rec: &rec})
	}
	s.writeTaskCache(task, &taskCache{Head: head, Entries: entries})
	return nil
}

// NoteWrittenByOlderRelease adds to task's list the line a release before
// the writer's check of its base wrote for commit (version 1, writtenMAC).
func NoteWrittenByOlderRelease(s *Store, task, commit string) error {
	key, err := repoKey(s.reasonDir(), true)
	if err != nil {
		return err
	}
	appendOwnList(s.writtenPath(task), []byte(commit+" "+writtenMAC(key, 1, task, commit)+"\n"))
	return nil
}

// HeldHistories returns the heads whose histories m holds for the run
// (heldHistories), sorted.
func HeldHistories(m *Shared) []string {
	b := &m.histories.held
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Sorted(maps.Keys(b.m))
}
