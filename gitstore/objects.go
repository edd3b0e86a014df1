package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"io"

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
	obj := newEncoding(512 + len(c.Message) + len(c.PGPSignature))
	if err := c.Encode(obj); err != nil {
		return nil, err
	}
	return obj.buf.Bytes(), nil
}

// encodeTree is a tree's content as go-git writes it; go-git refuses
// entries out of git's order and names holding NUL.
func encodeTree(entries []TreeEntry) ([]byte, error) {
	size := 0
	for _, e := range entries {
		size += len("100644 \x00") + len(e.Name) + len(e.Hash)
	}
	obj := newEncoding(size)
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		return nil, err
	}
	return obj.buf.Bytes(), nil
}

// encoding is the plumbing.EncodedObject go-git's encoders write an
// object's content into, made at the size the content will about have:
// the content is then taken as written, where a plumbing.MemoryObject
// grows by doubling and its content is copied out again (content). For a
// task's records/ tree, written anew by each append, that was five times
// the tree's size in garbage a write.
type encoding struct {
	typ plumbing.ObjectType
	buf bytes.Buffer
}

func newEncoding(size int) *encoding {
	o := &encoding{}
	o.buf.Grow(size)
	return o
}

func (o *encoding) Hash() plumbing.Hash           { return plumbing.ComputeHash(o.typ, o.buf.Bytes()) }
func (o *encoding) Type() plumbing.ObjectType     { return o.typ }
func (o *encoding) SetType(t plumbing.ObjectType) { o.typ = t }
func (o *encoding) Size() int64                   { return int64(o.buf.Len()) }
func (o *encoding) SetSize(int64)                 {}
func (o *encoding) Reader() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(o.buf.Bytes())), nil
}
func (o *encoding) Writer() (io.WriteCloser, error) {
	return nopCloser{&o.buf}, nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// writtenObject is an object this store wrote, kept in its cache of objects
// (Store.read) as the content it wrote, which is not copied: nothing
// changes a content once it is written.
type writtenObject struct {
	typ  plumbing.ObjectType
	hash plumbing.Hash
	data []byte
}

func (o *writtenObject) Hash() plumbing.Hash         { return o.hash }
func (o *writtenObject) Type() plumbing.ObjectType   { return o.typ }
func (o *writtenObject) SetType(plumbing.ObjectType) {}
func (o *writtenObject) Size() int64                 { return int64(len(o.data)) }
func (o *writtenObject) SetSize(int64)               {}
func (o *writtenObject) Reader() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(o.data)), nil
}
func (o *writtenObject) Writer() (io.WriteCloser, error) {
	return nil, errors.New("a written object does not change")
}

// recordsEntry is the root tree's one entry, naming the records/ tree.
func recordsEntry(h plumbing.Hash) []TreeEntry {
	return []TreeEntry{{Name: RecordsDir, Mode: filemode.Dir, Hash: h}}
}

// inMemory reports whether an object's content is in memory (as go-git
// read it, or as this store wrote it), so that keeping it costs no read.
func inMemory(obj plumbing.EncodedObject) bool {
	switch obj.(type) {
	case *plumbing.MemoryObject, *writtenObject:
		return true
	}
	return false
}
