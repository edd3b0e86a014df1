package gitstore

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Storage returns a go-git object and reference storage on r.CommonDir that
// also reads the loose-<hash>.pack packs `git maintenance` writes (go-git v5
// reads only pack-<hash>.pack) and follows objects/info/alternates. New
// objects are written as loose objects (temp file then rename).
//
// go-git indexes the packs once per Storage: take a fresh Storage for each
// operation, so that packs written meanwhile by `git gc` are seen. Never
// call RepackObjects on it: it deletes objects git still needs.
func (r *Repo) Storage() *filesystem.Storage {
	objects := filepath.Join(r.CommonDir, "objects")
	fsys := &packFS{Filesystem: osfs.New(r.CommonDir), objectsDir: objects}
	return filesystem.NewStorageWithOptions(fsys, cache.NewObjectLRUDefault(), filesystem.Options{
		AlternatesFS: &packFS{Filesystem: osfs.New("/")},
	})
}

// packFS presents objects/pack/loose-<h>.<ext> as pack-<h>.<ext> to go-git.
// Everything else passes through to the wrapped filesystem.
type packFS struct {
	billy.Filesystem
	objectsDir string // when set, relative alternates are made absolute
}

const (
	packDir     = "objects/pack/"
	alternates  = "objects/info/alternates"
	packPrefix  = "pack-"
	loosePrefix = "loose-"
	writeFlags  = os.O_WRONLY | os.O_RDWR | os.O_CREATE | os.O_TRUNC | os.O_APPEND
)

// looseName returns the loose- name standing in for a pack- file name.
func looseName(name string) (string, bool) {
	clean := strings.TrimPrefix(path.Clean(filepath.ToSlash(name)), "/")
	base, ok := strings.CutPrefix(clean, packDir+packPrefix)
	if !ok || strings.Contains(base, "/") {
		return "", false
	}
	return packDir + loosePrefix + base, true
}

func (p *packFS) Open(name string) (billy.File, error) {
	if p.objectsDir != "" && path.Clean(filepath.ToSlash(name)) == alternates {
		return p.openAlternates(name)
	}
	f, err := p.Filesystem.Open(name)
	if alt, ok := looseName(name); ok && errors.Is(err, fs.ErrNotExist) {
		if f2, err2 := p.Filesystem.Open(alt); err2 == nil {
			return f2, nil
		}
	}
	return f, err
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
	if alt, ok := looseName(name); ok && errors.Is(err, fs.ErrNotExist) {
		if fi2, err2 := stat(alt); err2 == nil {
			return renamedInfo{fi2, path.Base(name)}, nil
		}
	}
	return fi, err
}

// ReadDir lists objects/pack with each loose-<h>.<ext> shown as
// pack-<h>.<ext>, unless that pack- file exists too.
func (p *packFS) ReadDir(name string) ([]os.FileInfo, error) {
	infos, err := p.Filesystem.ReadDir(name)
	if err != nil || strings.TrimPrefix(path.Clean(filepath.ToSlash(name)), "/")+"/" != packDir {
		return infos, err
	}
	have := make(map[string]bool, len(infos))
	for _, fi := range infos {
		have[fi.Name()] = true
	}
	out := infos[:0]
	for _, fi := range infos {
		if rest, ok := strings.CutPrefix(fi.Name(), loosePrefix); ok {
			if have[packPrefix+rest] {
				continue
			}
			fi = renamedInfo{fi, packPrefix + rest}
		}
		out = append(out, fi)
	}
	return out, nil
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
// absolute: git resolves them against the objects directory, go-git
// against the filesystem root.
func (p *packFS) openAlternates(name string) (billy.File, error) {
	f, err := p.Filesystem.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out bytes.Buffer
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
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return &memFile{name: name, Reader: bytes.NewReader(out.Bytes())}, nil
}

type renamedInfo struct {
	os.FileInfo
	name string
}

func (i renamedInfo) Name() string { return i.name }

// memFile is a read-only billy.File over a byte slice.
type memFile struct {
	name string
	*bytes.Reader
}

func (m *memFile) Name() string              { return m.name }
func (m *memFile) Write([]byte) (int, error) { return 0, billy.ErrReadOnly }
func (m *memFile) Truncate(int64) error      { return billy.ErrReadOnly }
func (m *memFile) Close() error              { return nil }
func (m *memFile) Lock() error               { return nil }
func (m *memFile) Unlock() error             { return nil }
