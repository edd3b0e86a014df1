package gitstore

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"

	"git-reason/record"
)

// Storage returns a go-git object and reference storage on r.CommonDir
// that holds up while git maintains the repository underneath it:
//
//   - it reads the loose-<hash>.pack packs `git maintenance` writes (go-git
//     v5 reads only pack-<hash>.pack);
//   - a pack is held open from the moment its index is read, so objects stay
//     readable after `git repack -d` or `git gc` deletes the pack;
//   - an object missing from the packs indexed so far is looked up again
//     with a fresh index (packs written since), through go-git's alternates,
//     and the Storage re-indexes before its next lookup;
//   - a loose-object write whose fan-out directory `git prune-packed` just
//     removed is retried;
//   - objects/info/alternates is followed, relative entries as git does.
//
// New objects are written as loose objects (temp file, then rename). Never
// call RepackObjects on it: it deletes objects git still needs.
// HasEncodedObject does not take the fresh-index path: use EncodedObject.
// The packs a Storage has indexed stay open (deleted or not) until it is
// garbage collected: a long-running process should take a Storage per
// operation rather than keep one.
func (r *Repo) Storage() *filesystem.Storage { return r.storage(cache.NewObjectLRUDefault()) }

// storage is Storage with objects kept in objs once read.
func (r *Repo) storage(objs cache.Object) *filesystem.Storage {
	objects := filepath.Join(r.CommonDir, "objects")
	fsys := &packFS{Filesystem: osfs.New(r.CommonDir), objectsDir: objects}
	st := filesystem.NewStorageWithOptions(fsys, objs, filesystem.Options{
		AlternatesFS: &packFS{Filesystem: osfs.New("/")},
		// An object larger than any record is never inflated into memory
		// whole: readers check sizes first, and this keeps a read that
		// slips past them lazy.
		LargeObjectThreshold: record.MaxRecordBytes,
	})
	fsys.reindex = st.ObjectStorage.Reindex
	return st
}

// incomingObjects is a go-git object storage of r.ObjectDir when it is
// not r's objects directory (GIT_OBJECT_DIRECTORY: git's quarantine of a
// push's objects while the pre-receive hook runs), read only; nil
// otherwise. Without it every history a push brings was read by git
// processes, two a task, as go-git saw none of its objects.
func (r *Repo) incomingObjects() *filesystem.ObjectStorage {
	if r.ObjectDir == "" || filepath.Clean(r.ObjectDir) == filepath.Join(r.CommonDir, "objects") {
		return nil
	}
	return filesystem.NewObjectStorageWithOptions(dotgit.New(objectsIn{osfs.New(r.ObjectDir)}), cache.NewObjectLRUDefault(),
		filesystem.Options{LargeObjectThreshold: record.MaxRecordBytes})
}

// objectsIn presents an objects directory of its own (incomingObjects)
// as the objects/ of a git directory, for go-git's object storage, which
// reads nothing else: every other name is one that is not there.
type objectsIn struct{ billy.Filesystem }

func (o objectsIn) at(name string) string {
	rest, ok := strings.CutPrefix(filepath.ToSlash(name), "objects")
	switch {
	case ok && rest == "":
		return "."
	case ok && rest[0] == '/':
		return rest[1:]
	}
	return ".git-reason-not-objects/" + name
}

func (o objectsIn) Open(name string) (billy.File, error) { return o.Filesystem.Open(o.at(name)) }
func (o objectsIn) OpenFile(name string, flag int, perm os.FileMode) (billy.File, error) {
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE) != 0 {
		return nil, fs.ErrPermission // read only: git reason writes no object there
	}
	return o.Filesystem.OpenFile(o.at(name), flag, perm)
}
func (o objectsIn) Stat(name string) (os.FileInfo, error)  { return o.Filesystem.Stat(o.at(name)) }
func (o objectsIn) Lstat(name string) (os.FileInfo, error) { return o.Filesystem.Lstat(o.at(name)) }
func (o objectsIn) ReadDir(name string) ([]os.FileInfo, error) {
	return o.Filesystem.ReadDir(o.at(name))
}

// packFS is the billy.Filesystem under Storage. It presents
// objects/pack/loose-<h>.<ext> as pack-<h>.<ext>, holds packs open once
// indexed, and adds the fresh-index alternate. Everything else passes
// through to the wrapped filesystem.
type packFS struct {
	billy.Filesystem
	objectsDir string // set on the top-level one only: see openAlternates
	reindex    func() // drops the Storage's pack index after a miss
	misses     atomic.Int64

	mu   sync.Mutex
	held map[string]billy.File // pack hash → the pack, open since its index was read
}

const (
	packDir     = "objects/pack/"
	alternates  = "objects/info/alternates"
	packPrefix  = "pack-"
	loosePrefix = "loose-"
	writeFlags  = os.O_WRONLY | os.O_RDWR | os.O_CREATE | os.O_TRUNC | os.O_APPEND
)

// packFile splits objects/pack/pack-<h>.<ext> into its hash and extension.
func packFile(name string) (hash, ext string, ok bool) {
	clean := strings.TrimPrefix(path.Clean(filepath.ToSlash(name)), "/")
	base, ok := strings.CutPrefix(clean, packDir+packPrefix)
	if !ok || strings.Contains(base, "/") {
		return "", "", false
	}
	hash, ext, ok = strings.Cut(base, ".")
	return hash, ext, ok && len(hash) == 40 && isHex(hash)
}

func (p *packFS) Open(name string) (billy.File, error) {
	if p.objectsDir != "" && path.Clean(filepath.ToSlash(name)) == alternates {
		return p.openAlternates(name)
	}
	hash, ext, ok := packFile(name)
	switch {
	case !ok:
		return p.Filesystem.Open(name)
	case ext == "idx":
		return p.openIndex(hash)
	case ext == "pack":
		p.mu.Lock()
		f := p.held[hash]
		p.mu.Unlock()
		if f != nil {
			return sharedView(f)
		}
	}
	return p.openPack(hash, ext)
}

// openPack opens pack-<h>.<ext>, else loose-<h>.<ext>.
func (p *packFS) openPack(hash, ext string) (billy.File, error) {
	f, err := p.Filesystem.Open(packDir + packPrefix + hash + "." + ext)
	if errors.Is(err, fs.ErrNotExist) {
		if f2, err2 := p.Filesystem.Open(packDir + loosePrefix + hash + "." + ext); err2 == nil {
			return f2, nil
		}
	}
	return f, err
}

// openIndex opens a pack's index after taking hold of the pack itself, so
// that the index go-git reads always has its pack. A pack deleted before
// that reads as an empty index: go-git then misses and looks again.
func (p *packFS) openIndex(hash string) (billy.File, error) {
	pack, err := p.openPack(hash, "pack")
	if errors.Is(err, fs.ErrNotExist) {
		return emptyIndex(hash), nil
	}
	if err != nil {
		return nil, err
	}
	idx, err := p.openPack(hash, "idx")
	if err == nil {
		if fi, serr := p.Stat(packDir + packPrefix + hash + ".idx"); serr == nil {
			countPackIndex(fi.Size()) // go-git decodes it whole
		}
	}
	if err != nil {
		pack.Close()
		if errors.Is(err, fs.ErrNotExist) {
			return emptyIndex(hash), nil
		}
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held == nil {
		p.held = map[string]billy.File{}
	}
	if p.held[hash] == nil {
		p.held[hash] = pack
	} else {
		pack.Close()
	}
	return idx, nil
}

func (p *packFS) OpenFile(name string, flag int, perm os.FileMode) (billy.File, error) {
	if flag&writeFlags != 0 {
		return p.Filesystem.OpenFile(name, flag, perm)
	}
	return p.Open(name)
}

func (p *packFS) Stat(name string) (os.FileInfo, error) {
	return p.statWith(p.Filesystem.Stat, name)
}

func (p *packFS) Lstat(name string) (os.FileInfo, error) {
	return p.statWith(p.Filesystem.Lstat, name)
}

func (p *packFS) statWith(stat func(string) (os.FileInfo, error), name string) (os.FileInfo, error) {
	fi, err := stat(name)
	if hash, ext, ok := packFile(name); ok && errors.Is(err, fs.ErrNotExist) {
		if fi2, err2 := stat(packDir + loosePrefix + hash + "." + ext); err2 == nil {
			return renamedInfo{fi2, path.Base(name)}, nil
		}
	}
	return fi, err
}

// ReadDir lists objects/pack with each loose-<h>.<ext> shown as
// pack-<h>.<ext> (unless that pack- file exists too), and without packs
// whose .idx is not written yet, as git lists packs by their index.
//
// A listing fails as "not exist" when a file vanishes between reading the
// directory and its stat (osfs stats every entry), which go-git takes for
// "no packs at all"; while the directory exists, list it again.
func (p *packFS) ReadDir(name string) ([]os.FileInfo, error) {
	infos, err := p.Filesystem.ReadDir(name)
	for try := 0; try < 100 && errors.Is(err, fs.ErrNotExist); try++ {
		if _, serr := p.Filesystem.Lstat(name); serr != nil {
			break
		}
		infos, err = p.Filesystem.ReadDir(name)
	}
	if err != nil || strings.TrimPrefix(path.Clean(filepath.ToSlash(name)), "/")+"/" != packDir {
		return infos, err
	}
	have := make(map[string]bool, len(infos))
	for _, fi := range infos {
		have[fi.Name()] = true
	}
	out := infos[:0]
	for _, fi := range infos {
		n := fi.Name()
		if rest, ok := strings.CutPrefix(n, loosePrefix); ok {
			if have[packPrefix+rest] {
				continue
			}
			n = packPrefix + rest
			fi = renamedInfo{fi, n}
		}
		if stem, ok := strings.CutSuffix(n, ".pack"); ok && strings.HasPrefix(n, packPrefix) {
			loose := loosePrefix + strings.TrimPrefix(stem, packPrefix)
			if !have[stem+".idx"] && !have[loose+".idx"] {
				continue
			}
		}
		out = append(out, fi)
	}
	return out, nil
}

// Rename retries a loose-object rename whose target directory vanished (git
// prune-packed removes empty fan-out directories), as git itself does.
func (p *packFS) Rename(from, to string) error {
	err := p.Filesystem.Rename(from, to)
	for try := 0; try < 10 && errors.Is(err, fs.ErrNotExist); try++ {
		if _, serr := p.Filesystem.Lstat(from); serr != nil {
			break
		}
		if merr := p.Filesystem.MkdirAll(path.Dir(filepath.ToSlash(to)), 0o777); merr != nil {
			return merr
		}
		err = p.Filesystem.Rename(from, to)
	}
	return err
}

func (p *packFS) Chroot(dir string) (billy.Filesystem, error) {
	sub, err := p.Filesystem.Chroot(dir)
	if err != nil {
		return nil, err
	}
	return &packFS{Filesystem: sub}, nil
}

// Chmod lets go-git make loose objects read-only, as git does.
func (p *packFS) Chmod(name string, mode os.FileMode) error {
	if c, ok := p.Filesystem.(billy.Chmod); ok {
		return c.Chmod(name, mode)
	}
	return billy.ErrNotSupported
}

// openAlternates serves objects/info/alternates with relative entries made
// absolute (git resolves them against the objects directory, go-git against
// the filesystem root) and this repository's own objects directory last:
// go-git consults alternates only after a miss, each with a fresh pack
// index, so objects packed after this Storage indexed its packs are found;
// the Storage's own index is dropped too, so the next lookup is direct.
func (p *packFS) openAlternates(name string) (billy.File, error) {
	p.misses.Add(1)
	if p.reindex != nil {
		p.reindex() // later lookups index the packs written since
	}
	var out bytes.Buffer
	f, err := p.Filesystem.Open(name)
	if err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" || line[0] == '#' {
				continue
			}
			if !filepath.IsAbs(line) {
				line = filepath.Join(p.objectsDir, line)
			}
			out.WriteString(line + "\n")
		}
		err = sc.Err()
		f.Close()
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	// Twice (spelled apart, as go-git skips repeats): the first look may race
	// a repack that turns an object loose again after we checked loose ones.
	dotgit, objects := filepath.Split(p.objectsDir)
	out.WriteString(p.objectsDir + "\n" + filepath.Join(dotgit, ".") + "/./" + objects + "\n")
	return &roFile{name: name, readSeekerAt: bytes.NewReader(out.Bytes())}, nil
}

// emptyIndex is a valid version 2 pack index of no objects for pack hash.
func emptyIndex(hash string) billy.File {
	var b bytes.Buffer
	b.Write([]byte{0xff, 't', 'O', 'c'})
	binary.Write(&b, binary.BigEndian, uint32(2))
	b.Write(make([]byte, 256*4))
	sum, _ := hex.DecodeString(hash)
	b.Write(sum)
	digest := sha1.Sum(b.Bytes())
	b.Write(digest[:])
	return &roFile{name: packDir + packPrefix + hash + ".idx", readSeekerAt: bytes.NewReader(b.Bytes())}
}

// sharedView reads a held pack through its own offset; closing it leaves
// the held file open.
func sharedView(f billy.File) (billy.File, error) {
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, err
	}
	return &roFile{name: f.Name(), readSeekerAt: io.NewSectionReader(f, 0, size)}, nil
}

type renamedInfo struct {
	os.FileInfo
	name string
}

func (i renamedInfo) Name() string { return i.name }

type readSeekerAt interface {
	io.Reader
	io.ReaderAt
	io.Seeker
}

// roFile is a read-only billy.File over a readSeekerAt.
type roFile struct {
	name string
	readSeekerAt
}

func (m *roFile) Name() string              { return m.name }
func (m *roFile) Write([]byte) (int, error) { return 0, billy.ErrReadOnly }
func (m *roFile) Truncate(int64) error      { return billy.ErrReadOnly }
func (m *roFile) Close() error              { return nil }
func (m *roFile) Lock() error               { return nil }
func (m *roFile) Unlock() error             { return nil }
