// Package gitstore keeps records on git refs: one ref per task,
// refs/reasoning/tasks/<task>, one commit per record, each commit's tree
// holding every record of the task so far under records/.
//
// Commits are encoded and decoded, and trees encoded, by go-git's object
// package (objects.go); a commit's tree and parents are the ones git's own
// parser reads (gitFrame). Trees are read by one reader (tree.go) for
// every reader of a task, over the raw entries: go-git's tree decoder
// normalises modes the reader must refuse. That reader refuses what git's
// fsck refuses and what the writer never writes, so that no two readers
// (load, replay, the indexes, reuse, verify, and the surfaces above them)
// see one history differently; and what a history's records total, and
// its commits, are bounded before any is read (ReadLimits:
// reason.maxTaskBytes, reason.maxPullBytes). A commit is signed when
// Store.Sign is set: the signer gets the unsigned commit's content and its
// signature goes into the gpgsig header (go-git's PGPSignature), as git
// commit -S writes it; package signing runs the user's own signing
// program. Objects are read through go-git's object storage, or, while
// the packs' indexes are large, packed ones through the one cat-file
// reader until a budget of reads is spent (packreads.go); they are
// written as loose objects the way git writes them (a temporary file renamed into objects/xx/,
// read-only, not synced), in stored deflate blocks as core.looseCompression
// 0 does; git gc compresses them when it packs. Refs are updated with
// git's own lockfile protocol, the new value synced before it is renamed
// into place (the directory is not synced, as git does not sync it), so
// that real git (update-ref, pack-refs, gc) and any number of git reason
// processes never lose an update; the files .git/reason/ keeps are replaced through the same
// lockfile (a cache's write gives way to a writer holding it). What
// .git/reason/ caches (each task's records at its head, the
// indexes across tasks, a read surface's memo of one task at one head)
// is keyed by ref heads and rebuilt from the refs
// when stale or damaged. What this clone's writer did is noted per task
// under the repository's key (written.go, checked.go: the commits it
// wrote, the record blobs it validated, which a replay need not validate
// again), and so are the parts of --json outputs seen valid
// (outputs.go: .git/reason/outputs.d); a line that does not match its MAC
// vouches for nothing. Git processes, the batch reader of objects and
// the lockfile live in package gitstore/git, the one place git is spoken.
// Git locates the repository
// (Discover: one git rev-parse, which also applies git's ownership check,
// safe.directory); the package reads no git configuration itself.
// A long history (verification's, a replay's) is read through git's own
// rev-list (the commit graph) and one cat-file process (every object, its
// size asked for before it is read), each distinct tree once; a short one,
// or a few commits after a head already read, in this process with go-git
// (history.go). The package does
// no network I/O of its own: push and fetch run the user's git
// (Repo.Fetch, Repo.Push), which reaches the remote with the user's
// credentials and configuration; a fetch runs with git's object checks
// on, and a task whose objects git refuses is quarantined alone. In a
// partial clone, objects go-git finds missing are fetched from the
// promisor remote by the user's git as git's own lazy fetch does, every
// object the tasks' histories lack in one fetch (promisor.go).
//
// Sync's storage: fetched tasks land on refs/reasoning/remotes/<remote>/<task>
// (Repo.Fetch); Store.Replay and Store.ReplayMerge replay what a pull
// brings, Store.MergeHistories writes the merge commit of two histories
// (its records/ tree the union of both parents', a record path or id
// whose content differs on the two sides a conflict), and Remembered
// (.git/reason/verified.d/, a file per task whose every head carries an
// HMAC under a local key, and verified.pack, the entries of a save of
// many tasks at once in one file; tasks.pack is the same for the task
// caches a read across many tasks writes) keeps the heads verified clean, so that a replay goes on
// from one, from the state that head's own records make; an entry that
// does not match its MAC is ignored, so the memo only ever saves work.
// Package integration decides what a fetched history does to a local ref;
// the rules it asks (reuse matching, which findings block) are record's.
package gitstore
