package gitstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"git-reason/gitstore/git"
)

// Packed objects are read by go-git once a repository's stores have read
// enough of them to pay for what go-git does first: the first object it
// reads from a pack decodes that pack's whole index (every name, offset
// and checksum, hashed as it is read) and builds a map of every offset.
// At 20,000 tasks a pack holds some 160,000 objects; a command after a
// fetch reads a few of them (the moved task's old head, its records), and
// decoding the index was most of what it cost beyond the moved task. So,
// while the packs' indexes are larger than smallPackIndexes, the first
// packedByGit packed objects (sizes or contents) are asked of the one
// batch reader (git cat-file), which looks an object up in the mapped
// index as git does, and only a process that reads more (a verification
// of every task) lets go-git decode the indexes, once per Store. The
// budget grows with the indexes (one read per packIndexBytesPerRead bytes
// of them, at least packedByGit): decoding an index costs in proportion
// to its size, a read through git a constant, and a pull or a catch-up
// decodes it once per Store (one per integrating worker and the
// session's), so at 20,000 tasks 100 moved tasks' reads cost less
// through git than four decodings of a 4.5 MB index. Loose
// objects (what a fetch of a few tasks or a write brings) are read by
// go-git, which finds them without an index.
const (
	smallPackIndexes      = 64 << 10
	packedByGit           = 512
	packIndexBytesPerRead = 256
)

// packReader is one repository's batch reader of packed objects, shared
// by every Store of the process on that repository and started on first
// use; it ends with the process (git cat-file ends when its input does).
type packReader struct {
	mu     sync.Mutex
	cf     *git.CatFile
	reads  int // objects asked for, up to budget
	budget int // packedByGit, or more for large indexes
	// last is the object info answered last: a read checks an object's
	// size and then reads it, and the second asks git for its header
	// once only.
	last     plumbing.Hash
	lastInfo git.ObjectInfo
}

// packReaders holds each repository's packReader, by objects directory.
var packReaders sync.Map

// packIndexBytes is the size of the .idx files in objects/pack.
func packIndexBytes(objects string) int64 {
	entries, err := os.ReadDir(filepath.Join(objects, "pack"))
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".idx") {
			if fi, err := e.Info(); err == nil {
				n += fi.Size()
			}
		}
	}
	return n
}

// viaGit reports whether object h is to be read by git cat-file (packed,
// in large packs, within the budget) and, when it is, returns the reader,
// locked: the caller unlocks it. Once the budget is spent, the Store reads
// through go-git for good.
func (s *Store) viaGit(h plumbing.Hash) *packReader {
	if s.goGitPacks.Load() {
		return nil
	}
	objects := filepath.Join(s.Repo.CommonDir, "objects")
	hex := h.String()
	if _, err := os.Stat(filepath.Join(objects, hex[:2], hex[2:])); err == nil {
		return nil // loose: go-git reads it without an index
	}
	if !s.bigPackIndexes() || s.goGitPacks.Load() {
		return nil
	}
	p := s.packReader(true)
	if p == nil {
		return nil
	}
	if p.last != h {
		p.reads++ // the size, then the object: one read of the budget
	}
	return p
}

// bigPackIndexes reports whether the packs' indexes are large enough
// (or packsViaGit) for packed objects to be read by git; it is decided
// once per Store, and small packs send every read to go-git.
func (s *Store) bigPackIndexes() bool {
	s.bigPacks.Do(func() {
		if s.packIndexes = packIndexBytes(filepath.Join(s.Repo.CommonDir, "objects")); !s.packsViaGit && s.packIndexes <= smallPackIndexes {
			s.goGitPacks.Store(true)
		}
	})
	return s.packsViaGit || s.packIndexes > smallPackIndexes
}

// packReader returns the repository's packReader, locked (the caller
// unlocks it), its process started; nil when git cannot be started, and
// for a read counted against the budget (budgeted) once it is spent:
// the Store then reads through go-git for good. bigPackIndexes decided
// the packs' size first.
func (s *Store) packReader(budgeted bool) *packReader {
	objects := filepath.Join(s.Repo.CommonDir, "objects")
	v, _ := packReaders.LoadOrStore(objects, &packReader{budget: max(packedByGit, int(s.packIndexes/packIndexBytesPerRead))})
	p := v.(*packReader)
	p.mu.Lock()
	if budgeted && p.reads >= p.budget {
		p.mu.Unlock()
		s.goGitPacks.Store(true)
		return nil
	}
	if p.cf == nil {
		cf, err := s.Repo.catFile(context.Background())
		if err != nil {
			p.mu.Unlock()
			s.goGitPacks.Store(true)
			return nil
		}
		p.cf = cf
	}
	return p
}

// batchSource is what a read of many objects at once asks (headsWithout):
// the repository's one cat-file reader (packReader, locked until done),
// which answers a request for any number of objects in one round trip,
// when the packs are large; go-git (storeSource) when they are small,
// where no process is started and their index costs little to decode.
// done is told whether the source failed, so that a broken process is
// not asked again. It is not counted against the budget of single
// reads: a batch costs its few round trips whatever its size, where
// go-git would decode the packs' whole index before its first object.
func (s *Store) batchSource() (src objectSource, done func(failed bool)) {
	if s.bigPackIndexes() {
		if p := s.packReader(false); p != nil {
			return p.cf, func(failed bool) {
				if failed {
					p.broken()
				}
				p.mu.Unlock()
			}
		}
	}
	return newStoreSource(s), func(bool) {}
}

// info asks git for an object's type and size; a missing object is
// plumbing.ErrObjectNotFound. p is locked.
func (p *packReader) info(h plumbing.Hash) (git.ObjectInfo, error) {
	if p.last == h {
		return p.lastInfo, nil
	}
	infos, err := p.cf.Infos([]string{h.String()})
	if err != nil {
		p.broken()
		return git.ObjectInfo{}, err
	}
	if infos[0].Missing {
		return git.ObjectInfo{}, plumbing.ErrObjectNotFound
	}
	p.last, p.lastInfo = h, infos[0]
	return infos[0], nil
}

// object reads an object of type t (any type: plumbing.AnyObject) whole,
// when it is no larger than maxTreeBytes, the largest object anything
// here reads; an object of another type is not found, as with go-git. p
// is locked.
func (p *packReader) object(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	info, err := p.info(h)
	if err != nil {
		return nil, err
	}
	typ, err := plumbing.ParseObjectType(info.Type)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", h, err)
	}
	if t != plumbing.AnyObject && typ != t {
		return nil, plumbing.ErrObjectNotFound
	}
	if info.Size > maxTreeBytes {
		return nil, fmt.Errorf("object %s is %d bytes, larger than anything read here (%d)", h, info.Size, maxTreeBytes)
	}
	obj := &plumbing.MemoryObject{}
	obj.SetType(typ)
	err = p.cf.Contents([]string{h.String()}, func(_ int, _ string, data []byte) error {
		_, err := obj.Write(data)
		p.cf.Release(data)
		return err
	})
	if err != nil {
		p.broken()
		return nil, err
	}
	return obj, nil
}

// broken drops a reader whose process failed: the next request starts
// another. p is locked.
func (p *packReader) broken() {
	p.cf.Close()
	p.cf = nil
	p.last = plumbing.ZeroHash
}

// encodedObject reads an object through git (viaGit) or go-git.
func (s *Store) encodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	obj, err := s.anyObject(t, h)
	if err == plumbing.ErrObjectNotFound && t != plumbing.AnyObject {
		return nil, s.notFound(t, h)
	}
	return obj, err
}

// anyObject is encodedObject's read as go-git answers it: an object of
// another type than t is plumbing.ErrObjectNotFound.
func (s *Store) anyObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if obj, ok := s.cachedObject(h); ok {
		if t != plumbing.AnyObject && obj.Type() != t {
			return nil, plumbing.ErrObjectNotFound // as go-git's EncodedObject answers
		}
		return obj, nil
	}
	if p := s.viaGit(h); p != nil {
		defer p.mu.Unlock()
		return p.object(t, h)
	}
	return s.goGitObject(t, h)
}

// goGitObject is an object as go-git reads it; one missing from a
// partial clone is fetched from its promisor remote and read again
// (fetchMissing).
func (s *Store) goGitObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if s.incoming != nil {
		// The objects of a push under way first: a miss there costs a
		// stat and a look at its small pack's index; one in the
		// repository's objects looks again with a fresh index of every
		// pack (packFS.openAlternates).
		if obj, err := s.incoming.EncodedObject(t, h); err == nil {
			return obj, nil
		}
	}
	obj, err := s.objs.EncodedObject(t, h)
	if err != plumbing.ErrObjectNotFound {
		return obj, err
	}
	if t != plumbing.AnyObject {
		if _, err := s.objs.EncodedObject(plumbing.AnyObject, h); err != plumbing.ErrObjectNotFound {
			return nil, plumbing.ErrObjectNotFound // there, of another type
		}
	}
	if err = s.fetchMissing(h, ""); err == plumbing.ErrObjectNotFound {
		return nil, s.notHere()
	} else if err != nil {
		return nil, err
	}
	return s.objs.EncodedObject(t, h)
}

// notFound is why h cannot be read as an object of type t: it is another
// type's (a task ref a stranger pointed at a blob or a tree reads "it is
// a blob, not a commit", where a bare "object not found" sends a person
// to git cat-file to find the object there), or there is no such object.
// Either way it is plumbing.ErrObjectNotFound to errors.Is.
func (s *Store) notFound(t plumbing.ObjectType, h plumbing.Hash) error {
	if obj, err := s.anyObject(plumbing.AnyObject, h); err == nil && obj.Type() != t {
		return &wrongType{want: t, got: obj.Type()}
	}
	return s.notHere()
}

// notHere is why an object is not in this repository:
// plumbing.ErrObjectNotFound, or errShallowMissing in a shallow one.
func (s *Store) notHere() error {
	if _, err := os.Lstat(filepath.Join(s.Repo.CommonDir, "shallow")); err == nil {
		return errShallowMissing
	}
	return plumbing.ErrObjectNotFound
}

// errShallowMissing is an object missing from a shallow repository: a
// fetch with --depth of the tasks (a plain git fetch --depth 1 with
// reasoning's refspec) keeps their last commits alone, and the history
// reaching them reads "object not found" with nothing to run; a fetch
// of the task refs without a depth does not deepen them.
var errShallowMissing = &shallowMissing{}

type shallowMissing struct{}

func (*shallowMissing) Error() string {
	return "object not found: this repository is shallow (.git/shallow), and a fetch with --depth cuts a history short: 'git fetch --unshallow' fetches it whole"
}
func (*shallowMissing) Is(target error) bool { return target == plumbing.ErrObjectNotFound }

// wrongType is an object read as one type that the repository holds as
// another.
type wrongType struct{ want, got plumbing.ObjectType }

func (e *wrongType) Error() string        { return fmt.Sprintf("it is a %s, not a %s", e.got, e.want) }
func (e *wrongType) Is(target error) bool { return target == plumbing.ErrObjectNotFound }
