package ops

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"git-reason/gitstore"
	"git-reason/gitstore/signing"
	"git-reason/record"
)

// SignatureCheck is one record commit's signature status, as Signatures
// reports it: the read surfaces name it through ops, not storage.
type SignatureCheck = signing.Check

// TaskHead is the commit task's ref points to ("" when it has none).
func (e *Session) TaskHead(task string) (string, error) {
	return e.Repo.ReadRef(gitstore.TaskRef(task))
}

// TasksDigest is a digest of every task ref's name and head: it moves
// whenever any task does, and costs one listing of the refs.
func (e *Session) TasksDigest() (string, error) {
	refs, err := e.Repo.ListRefs(gitstore.TaskPrefix)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, ref := range refs {
		h.Write([]byte(ref.Name + " " + ref.Hash + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
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
