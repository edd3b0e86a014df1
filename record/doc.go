// Package record holds the typed records of git reason, the single writer
// that admits them by rules, and the pure derivation of a task's state,
// timeline and report from its records.
//
// A record is one JSON document: an envelope the writer fills (id, kind,
// task, created, actor, origin, clock), a body the caller supplies, checked
// against its kind's schema, and derived fields the writer computes. A body
// a caller writes anew is held to its kind's input rules too (a required
// text that is not blank: schemas' <kind>.input.json); a stored record is
// held to its body schema alone, so a history that predates a rule still
// reads. No
// field a caller can set says that a review happened; the writer computes
// plans, review counts and reuse itself.
//
// A task's life after its reasoning is records too (life.go): a closure
// closes a task (no record but a reopening is admitted after it), a
// reopening opens it again, and a withdrawal marks a mistaken validation
// or attempt, which derivation then ignores. Nothing is ever deleted.
//
// The package stores nothing itself: it appends through a Store, which the
// gitstore package implements on git refs and MemStore implements in memory.
// Before each append the writer derives the task's state; from a store that
// vouches that every record it loads decodes (DecodingStore, as gitstore's
// strict reading does) it decodes only the records the admission rule reads.
//
// Every rule about a history is here, for the writer, verify and sync
// alike: its replay (Replay, ReplayMerge, and Checked, which checks each
// record once however many trees hold it), whether a
// reuse of another task's conclusion is the conclusion it names
// (CheckReuses, against the same Standing the writer reuses from; the
// storage says where the reused task is read, ReusedLookup), and which
// findings keep a fetched history out of a local ref or a push (Blocking:
// all but merge_refused, which a person settles). It does no network I/O.
package record
