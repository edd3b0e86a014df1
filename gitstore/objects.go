package gitstore

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Commits are encoded and decoded, and trees encoded, by go-git's object
// package. Trees are read by the one tree reader (tree.go), which refuses
// forms go-git's decoder accepts or normalises (a mode such as 100664 it
// reads as 100644).

// Signature is a commit's author or committer.
type Signature = object.Signature

// TreeEntry is one entry of a tree.
type TreeEntry = object.TreeEntry

// tree is a records/ tree as the one tree reader read it.
type tree struct {
	Entries []TreeEntry
}

// errMalformedCommit is a commit git itself refuses to read.
var errMalformedCommit = errors.New("malformed commit")

// getCommit reads and decodes a commit; an object of another type is not
// found, as with go-git's object.GetCommit.
func (s *Store) getCommit(h plumbing.Hash) (*object.Commit, error) {
	data, err := s.objectBytes(plumbing.CommitObject, h)
	if err != nil {
		return nil, err
	}
	return decodeCommit(h.String(), data)
}

// objectBytes reads an object's whole content.
func (s *Store) objectBytes(t plumbing.ObjectType, h plumbing.Hash) ([]byte, error) {
	obj, err := s.encodedObject(t, h)
	if err != nil {
		return nil, err
	}
	return content(obj)
}

// content reads an object's whole content.
func content(obj plumbing.EncodedObject) ([]byte, error) {
	rd, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	var b bytes.Buffer
	b.Grow(int(obj.Size()))
	_, err = b.ReadFrom(rd)
	return b.Bytes(), err
}

// decodeCommit decodes a commit with go-git, checking that its content has
// the hash it was asked for. Its tree and parents are the ones git reads
// (gitFrame): where go-git's decoder reads them differently (a last
// "parent" line without a line end), git's reading is the history every
// git walk (log, fetch, gc) sees, so it is the one kept.
func decodeCommit(h string, data []byte) (*object.Commit, error) {
	tree, parents, ok := gitFrame(data)
	if !ok {
		return nil, fmt.Errorf("read commit %s: %w: git refuses its tree or parent lines", h, errMalformedCommit)
	}
	obj := &plumbing.MemoryObject{}
	obj.SetType(plumbing.CommitObject)
	if _, err := obj.Write(data); err != nil {
		return nil, err
	}
	if got := obj.Hash(); got.String() != h {
		return nil, fmt.Errorf("read commit %s: its content hashes to %s", h, got)
	}
	c := &object.Commit{}
	if err := c.Decode(obj); err != nil {
		return nil, fmt.Errorf("read commit %s: %w", h, err)
	}
	c.TreeHash, c.ParentHashes = tree, parents
	return c, nil
}

// gitFrame reads a commit's tree and parents as git's parse_commit_buffer
// does: "tree " and 40 hex digits, a line end and more after it, then
// "parent " lines while one could fit before the end, each with 40 hex
// digits, a line end and more after it. ok is false where git refuses the
// commit ("bogus commit object", "bad parents"). TestCommitFramingAsGit
// holds it to git itself.
func gitFrame(data []byte) (tree plumbing.Hash, parents []plumbing.Hash, ok bool) {
	const treeLen, parentLen = 5 + 40, 7 + 40 // "tree HASH", "parent HASH"
	if len(data) <= treeLen+1 || !bytes.HasPrefix(data, []byte("tree ")) || data[treeLen] != '\n' ||
		!plumbing.IsHash(string(data[5:treeLen])) {
		return tree, nil, false
	}
	tree = plumbing.NewHash(string(data[5:treeLen]))
	for pos := treeLen + 1; pos+parentLen < len(data) && bytes.HasPrefix(data[pos:], []byte("parent ")); pos += parentLen + 1 {
		if len(data) <= pos+parentLen+1 || data[pos+parentLen] != '\n' || !plumbing.IsHash(string(data[pos+7:pos+parentLen])) {
			return tree, nil, false
		}
		parents = append(parents, plumbing.NewHash(string(data[pos+7:pos+parentLen])))
	}
	return tree, parents, true
}

// encodeCommit is a commit's content as go-git writes it (git's form:
// tree, parents, author, committer, gpgsig when signed, an empty line, the
// message).
func encodeCommit(c *object.Commit) ([]byte, error) {
	obj := &plumbing.MemoryObject{}
	if err := c.Encode(obj); err != nil {
		return nil, err
	}
	return content(obj)
}

// encodeTree is a tree's content as go-git writes it; go-git refuses
// entries out of git's order and names holding NUL.
func encodeTree(entries []TreeEntry) ([]byte, error) {
	obj := &plumbing.MemoryObject{}
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		return nil, err
	}
	return content(obj)
}

// recordsEntry is the root tree's one entry, naming the records/ tree.
func recordsEntry(h plumbing.Hash) []TreeEntry {
	return []TreeEntry{{Name: RecordsDir, Mode: filemode.Dir, Hash: h}}
}
