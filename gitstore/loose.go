package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"hash/adler32"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"

	"git-reason/gitstore/git"
	"git-reason/record"
)

// storeZlib appends to buf the zlib stream (RFC 1950) of header and data
// (never empty: it holds the header) in stored deflate blocks, which git reads as it reads any other level
// (core.looseCompression 0 writes them): compressing a small object at
// any level costs a compressor of about 1 MB, and in a short process that
// is a garbage collection.
func storeZlib(buf *bytes.Buffer, header, data []byte) {
	buf.Write([]byte{0x78, 0x01})
	sum := adler32.New()
	parts := [2][]byte{header, data}
	total := len(header) + len(data)
	for total > 0 {
		n := min(total, 0xffff)
		total -= n
		final := byte(0)
		if total == 0 {
			final = 1
		}
		buf.Write([]byte{final, byte(n), byte(n >> 8), ^byte(n), ^byte(n >> 8)})
		for n > 0 {
			for len(parts[0]) == 0 {
				parts[0], parts[1] = parts[1], nil
			}
			k := min(n, len(parts[0]))
			buf.Write(parts[0][:k])
			sum.Write(parts[0][:k])
			parts[0], n = parts[0][k:], n-k
		}
	}
	buf.Write(sum.Sum(nil))
}

// objectToWrite is an object encoded and hashed, not yet written (writeObject).
type objectToWrite struct {
	typ  plumbing.ObjectType
	hash plumbing.Hash
	data []byte
}

// newObject hashes data as an object of type t.
func newObject(t plumbing.ObjectType, data []byte) objectToWrite {
	return objectToWrite{typ: t, hash: plumbing.ComputeHash(t, data), data: data}
}

// putObject writes one object (its content encoded by go-git) and returns
// its id (writeObject).
func (s *Store) putObject(t plumbing.ObjectType, data []byte) (plumbing.Hash, error) {
	o := newObject(t, data)
	return o.hash, s.writeObject(o)
}

// writeObjects writes objs in order, stopping at the first error.
func (s *Store) writeObjects(objs []objectToWrite) error {
	for _, o := range objs {
		if err := s.writeObject(o); err != nil {
			return err
		}
	}
	return nil
}

// writeObject writes one object as a loose object, as git writes one with
// core.looseCompression 0: in stored deflate blocks (storeZlib), in a
// single write to a read-only temporary file under objects/pack/ (where
// git prune clears what a crash leaves), then renamed to
// objects/xx/<rest>. git gc compresses it when it packs it. Like git's,
// and go-git's, loose objects are not synced: the ref that names them is.
// An object that exists already is replaced by the same bytes, which also
// renews its mtime, so a concurrent git gc does not prune it as old and
// unreachable before the ref names it. o.data is kept as it is
// (Store.read): the caller changes it no more. Objects may be written
// from several goroutines at once.
func (s *Store) writeObject(o objectToWrite) error {
	t, h, data := o.typ, o.hash, o.data
	var hdr [32]byte
	head := strconv.AppendInt(append(append(hdr[:0], t.Bytes()...), ' '), int64(len(data)), 10)
	var buf bytes.Buffer
	buf.Grow(len(data) + len(data)/0xffff*5 + 48)
	storeZlib(&buf, append(head, 0), data)
	objects := filepath.Join(s.Repo.CommonDir, "objects")
	if od := s.Repo.ObjectDir; od != "" && filepath.Clean(od) != objects {
		// Written here, the object would be one git does not find, and
		// the ref naming it broken to git.
		return fmt.Errorf("write object %s: GIT_OBJECT_DIRECTORY names %s, not the repository's objects: git reason writes only there; run it without GIT_OBJECT_DIRECTORY", h, od)
	}
	tmp, err := createObjectTemp(filepath.Join(objects, "pack"))
	if err != nil {
		return fmt.Errorf("write object %s: %w", h, err)
	}
	_, err = tmp.Write(buf.Bytes())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = git.AdjustCreated(tmp.Name())
	}
	if err == nil {
		err = renameObject(tmp.Name(), filepath.Join(objects, h.String()[:2], h.String()[2:]))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write object %s: %w", h, err)
	}
	if s.read != nil && int64(len(data)) <= record.MaxRecordBytes {
		// What is written is read back next (the new head's commit and
		// trees, the record): from memory, as go-git keeps what it read.
		s.read.Put(&writtenObject{typ: t, hash: h, data: data})
	}
	return nil
}

// createObjectTemp creates a read-only tmp_obj_ file in dir (made when
// missing), open for writing.
func createObjectTemp(dir string) (*os.File, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, "tmp_obj_"+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
		switch {
		case err == nil:
			return f, nil
		case try >= 10:
			return nil, err
		case errors.Is(err, fs.ErrNotExist):
			if err := git.MkdirAll(dir, 0o777); err != nil {
				return nil, err
			}
		case !errors.Is(err, fs.ErrExist):
			return nil, err
		}
	}
}

// renameObject moves a written object into place, making its fan-out
// directory when it is missing: git prune-packed removes empty ones, and
// may do so between the mkdir and the rename, so that is retried.
func renameObject(tmp, final string) error {
	err := os.Rename(tmp, final)
	for try := 0; try < 10 && errors.Is(err, fs.ErrNotExist); try++ {
		if _, serr := os.Lstat(tmp); serr != nil {
			break
		}
		if merr := git.MkdirAll(filepath.Dir(final), 0o777); merr != nil {
			return merr
		}
		err = os.Rename(tmp, final)
	}
	return err
}
