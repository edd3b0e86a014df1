// Package gitstore keeps records on git refs: one ref per task,
// refs/reasoning/tasks/<task>, one commit per record, each commit's tree
// holding every record of the task so far under records/.
//
// Objects are written with go-git; refs are updated with git's own lockfile
// protocol so that real git (update-ref, pack-refs, gc) and any number of
// git reason processes never lose an update. The repository is located the
// way git locates it. The package does no network I/O: push and fetch go
// through the user's git.
package gitstore
