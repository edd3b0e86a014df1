package ops

import (
	"context"

	"git-reason/gitstore"
	"git-reason/gitstore/signing"
	"git-reason/record"
)

// TaskHead is the commit task's ref points to ("" when it has none).
func (e *Session) TaskHead(task string) (string, error) {
	return e.Repo.ReadRef(gitstore.TaskRef(task))
}

// WriteCost records what this process read for tests that count it
// (gitstore.WriteCost: nothing unless gitstore.CostEnv names a file).
func WriteCost(args []string) { gitstore.WriteCost(args) }

// SearchHit is one task a search found, as Search returns it.
type SearchHit = gitstore.SearchHit

// Unsigned is the status of a record commit that carries no signature.
const Unsigned = signing.Unsigned

// TaskHeads lists every task with its head, sorted by task: one listing
// of the refs.
func (e *Session) TaskHeads(ctx context.Context) ([]record.TaskHead, error) {
	return e.Store.Tasks(ctx)
}
