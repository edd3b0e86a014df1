// Package integration is sync's orchestration: it brings fetched task
// histories into the local task refs, or quarantines them, and holds no
// rule of its own. For each fetched task it reads (gitstore: the replay
// of the fetched history, the same as `git reason verify`), asks record
// (record.CheckReuses for the reuses of other tasks' conclusions,
// record.Blocking for which findings keep a history out) and moves refs
// (the local ref is created, fast-forwarded or joined to the fetched one
// by a merge commit, always with UpdateRef's compare-and-swap; a
// concurrent append makes it decide again from the new head).
//
// A task is quarantined, its local ref untouched, when its fetched
// history does not verify, a record path differs between the two sides,
// its name makes no task ref, git refused its objects (Refused), or the
// caller holds it back (Quarantined: signatures the configuration
// refuses). Records the union of two honest histories makes inadmissible
// (merge_refused) are merged all the same and returned as Refusals, for a
// person to settle.
//
// An Integrator remembers what it verified (Memo), so a head verified by
// pull is not replayed again by the push that follows; Integrators that
// share a Memo (IntegrateAll's workers, each with a Store of its own)
// never replay a head twice. Reuses of another task's conclusion are
// checked at each verification against that task's local ref, never
// remembered: a task quarantined for its reuses alone is integrated again
// once a task it reuses has moved. Fetched tasks that reuse each other's
// conclusions (a cycle: none can be in place before another) are
// integrated together (IntegrateTogether): a reuse within the set is
// checked against the head the reused task's ref is about to get, under
// the same terms (that history replays clean and holds the conclusion as
// named); a task that fails, or reuses one that failed, leaves the set,
// and the refs move only once the rest all hold.
package integration
