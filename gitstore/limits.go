package gitstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"git-reason/gitstore/git"
)

// ReadLimits bound what reading histories may read, in record bytes (the
// sizes git gives before anything is read): a fetched history of 1,500
// records of almost 1 MiB each packs into a few hundred KiB by deltas.
type ReadLimits struct {
	// TaskBytes is the most the records of one task's history (every
	// distinct record blob replay reads; the head's records for a load)
	// may hold: reason.maxTaskBytes.
	TaskBytes int64
	// PullBytes is the most one pull (or push, or sync) may read of the
	// histories it verifies: reason.maxPullBytes.
	PullBytes int64
}

// The limits when nothing is configured, and the smallest a setting may
// give (one record may be that large).
const (
	DefaultMaxTaskBytes int64 = 32 << 20
	DefaultMaxPullBytes int64 = 128 << 20
	MinReadLimit        int64 = 1 << 20
)

// DefaultReadLimits are the limits when nothing is configured.
var DefaultReadLimits = ReadLimits{TaskBytes: DefaultMaxTaskBytes, PullBytes: DefaultMaxPullBytes}

// ErrTooLarge is a history whose records are more than a limit allows.
var ErrTooLarge = errors.New("too large to read")

// taskLimit is the most one task's records may hold. The configured
// limits are asked for (Store.Limits) only for a read above MinReadLimit,
// so a command reading small tasks never reads configuration for them.
func (s *Store) taskLimit(total int64) error {
	if total <= MinReadLimit {
		return nil
	}
	l := s.limits()
	if total <= l.TaskBytes {
		return nil
	}
	return git.ConfigErrorf("%w: its records total %d bytes, more than reason.maxTaskBytes (%d); if you trust where it came from, raise it: git config reason.maxTaskBytes %dm",
		ErrTooLarge, total, l.TaskBytes, total>>20+1)
}

// entryBytes is what one records/ entry a history's commits change (a
// record added, changed or dropped; a root's or a base's child's whole
// tree) counts for against reason.maxTaskBytes. The record bytes alone
// miss a tree that names one small blob 200,000 times: each such commit
// cost replay about 95 MB, whatever its bytes. An honest history changes
// one entry per record it adds, and a merge the entries the other side
// brings; no record is under 64 bytes.
const entryBytes = 64

// entryLimit is taskLimit for the entries a history's commits change.
func (s *Store) entryLimit(entries int64) error {
	if entries*entryBytes <= MinReadLimit {
		return nil
	}
	l := s.limits()
	if entries*entryBytes <= l.TaskBytes {
		return nil
	}
	return git.ConfigErrorf("%w: its commits change %d records/ entries, more than reason.maxTaskBytes (%d) allows at %d bytes an entry; if you trust where it came from, raise it: git config reason.maxTaskBytes %dm",
		ErrTooLarge, entries, l.TaskBytes, entryBytes, entries*entryBytes>>20+1)
}

// commitBytes is what one commit of a history counts for against
// reason.maxTaskBytes: a history may hold one commit per commitBytes of
// it (32 MiB: 262,144 commits), counted as git walks the commit graph
// (commitGraph), before any tree or record is read. The record and entry
// bytes miss a commit that changes nothing: 100,000 empty commits, a few
// MiB packed, cost verify 38 s and 320 MB each time, a longer chain
// more without bound. An honest history has one commit per record, each
// record a few hundred bytes (an assessment of one-word fields is 457),
// and a merge where two clones' histories joined: even with two merges
// for every record, its records pass reason.maxTaskBytes before its
// commits pass one per 128 bytes of it.
const commitBytes = 128

// maxCommits is the most commits a history may hold (commitBytes), never
// fewer than MinReadLimit allows, as the other limits.
func (s *Store) maxCommits() int64 {
	return max(s.limits().TaskBytes, MinReadLimit) / commitBytes
}

// PastCommitBound reports whether the history of heads (of them all
// together, when several) holds more commits than a history may
// (commitBytes), asking git to count no further than one past it: what
// walks a fetched or pushed history whole before it is verified (its
// signatures, its new objects) asks first.
func (s *Store) PastCommitBound(ctx context.Context, heads ...string) (bool, error) {
	most := s.maxCommits()
	args := append([]string{"--no-replace-objects", "rev-list", "--count", fmt.Sprintf("--max-count=%d", most+1)}, heads...)
	out, err := s.Repo.Git(ctx, append(args, "--")...)
	if err != nil {
		return false, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	return n > most, err
}

// CommitBounds is PastCommitBound's refusal for each of heads alone, in
// the order given: ErrTooLarge, in one line naming reason.maxTaskBytes and
// the git config that raises it, for a history past the bound; nil for
// one within it; git's error for one git could not count. The histories are counted
// together first, and past the bound, in halves, into the halves past it
// only, down to the histories past it: a push of many tasks each within
// the bound but together past it (a git push --mirror) costs a few git
// processes, not one a task, and one with a history past it among k
// costs about 2 log2(k). Many histories each past half the bound cost
// at most 2k-1 counts, and no count walks more than one past the bound.
func (s *Store) CommitBounds(ctx context.Context, heads []string) []error {
	errs := make([]error, len(heads))
	var narrow func(lo, hi int)
	narrow = func(lo, hi int) {
		past, err := s.PastCommitBound(ctx, heads[lo:hi]...)
		switch {
		case err != nil:
			for i := lo; i < hi; i++ {
				errs[i] = err
			}
		case !past:
		case hi-lo == 1:
			errs[lo] = s.tooManyCommits(s.maxCommits())
		default:
			mid := lo + (hi-lo)/2
			narrow(lo, mid)
			narrow(mid, hi)
		}
	}
	if len(heads) > 0 {
		narrow(0, len(heads))
	}
	return errs
}

// Totals is what a history counts for against reason.maxTaskBytes, as a
// replay of it reads it whole counts it: the bytes of its distinct record
// blobs, the records/ entries its commits change (entryBytes) and its
// commits (commitBytes). A history remembered verified clean keeps its
// totals with its head, under the head's MAC (Remembered), so that a read
// of the commits after that head starts its counts from them: neither a
// limit lowered since nor a history grown past it a few records at a time
// gets in through what is remembered, and nothing before the head is
// sized again. A history read from several such heads adds theirs (what
// they share counts twice: past a limit, the history is read whole, and
// its own totals counted). Commits is at least 1 for a history.
type Totals struct {
	Bytes   int64 `json:"bytes"`
	Entries int64 `json:"entries"`
	Commits int64 `json:"commits"`
}

// valid reports whether t can be a history's totals.
func (t Totals) valid() bool {
	return t.Commits >= 1 && t.Bytes >= 0 && t.Entries >= 0
}

// plus is t and u together: what a history of both counts for at most.
func (t Totals) plus(u Totals) Totals {
	return Totals{Bytes: t.Bytes + u.Bytes, Entries: t.Entries + u.Entries, Commits: t.Commits + u.Commits}
}

// within is the refusal of a history whose totals are past a limit; nil
// when they are within them all. Below MinReadLimit, nothing is asked of
// the configured limits (taskLimit).
func (s *Store) within(t Totals) error {
	if err := s.taskLimit(t.Bytes); err != nil {
		return err
	}
	if err := s.entryLimit(t.Entries); err != nil {
		return err
	}
	return s.commitLimit(t.Commits)
}

// Within is within for a caller outside the package: the refusal, in one
// line naming the limit, of a history whose totals are past a limit; nil
// when they are within them all.
func (s *Store) Within(t Totals) error { return s.within(t) }

// commitLimit is taskLimit for the commits of a history (commitBytes).
func (s *Store) commitLimit(commits int64) error {
	if commits <= MinReadLimit/commitBytes {
		return nil
	}
	if most := s.maxCommits(); commits > most {
		return s.tooManyCommits(most)
	}
	return nil
}

// tooManyCommits is the refusal of a history past most commits.
func (s *Store) tooManyCommits(most int64) error {
	l := s.limits()
	return git.ConfigErrorf("%w: its history holds more than %d commits, more than reason.maxTaskBytes (%d) allows at %d bytes a commit; if you trust where it came from, raise it: git config reason.maxTaskBytes %dm",
		ErrTooLarge, most, l.TaskBytes, commitBytes, 2*l.TaskBytes>>20)
}

func (s *Store) limits() ReadLimits {
	l := DefaultReadLimits
	if s.Limits != nil {
		l = s.Limits()
	}
	return l
}

// pullBudget is what the histories one pull verifies may still read,
// shared by the Stores of its Integrators (Memo).
type pullBudget struct {
	used atomic.Int64
}

// take counts n bytes against limit, or refuses them (and counts
// nothing) when they would go past it.
func (b *pullBudget) take(n, limit int64) error {
	if b == nil {
		return nil
	}
	for {
		used := b.used.Load()
		if used+n > limit {
			return git.ConfigErrorf("%w: this pull has read %d bytes of records, and this history's %d would pass reason.maxPullBytes (%d): pull again for the rest, or raise it: git config reason.maxPullBytes %dm",
				ErrTooLarge, used, n, limit, (used+n)>>20+1)
		}
		if b.used.CompareAndSwap(used, used+n) {
			return nil
		}
	}
}
