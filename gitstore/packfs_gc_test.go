package gitstore

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// commitBlobs makes blobs reachable from refs/reasoning/tasks/<name> so
// that git repack packs them.
func commitBlobs(t *testing.T, r *Repo, name string, blobs map[plumbing.Hash]string) {
	t.Helper()
	var list []string
	for h := range blobs {
		list = append(list, h.String())
	}
	tree := gitInStdin(t, r.WorkTree, blobTree(list), "mktree")
	commit := gitIn(t, r.WorkTree, "commit-tree", "-m", name, tree)
	gitIn(t, r.WorkTree, "update-ref", "refs/reasoning/tasks/"+name, commit)
}

func packNames(t *testing.T, r *Repo) []string {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(r.CommonDir, "objects", "pack", "*.pack"))
	return names
}

// A Storage whose pack index is already loaded still finds objects that a
// later git run moved from loose files into a new pack.
func TestStorageSeesPacksWrittenAfterIndexLoad(t *testing.T) {
	sandboxGit(t)
	r := discoverT(t, newTestRepo(t))
	gitIn(t, r.WorkTree, "gc", "-q")
	s := r.Storage()
	head, _ := r.ReadRef("HEAD")
	if _, err := object.GetCommit(s, plumbing.NewHash(head)); err != nil { // loads the index
		t.Fatal(err)
	}
	blobs := writeBlobs(t, r, 10)
	for range 2 {
		gitIn(t, r.WorkTree, "maintenance", "run", "--task=loose-objects")
	}
	for h := range blobs {
		if looseObjectExists(r, h) {
			t.Fatal("objects still loose; the test proves nothing")
		}
	}
	if err := readBlobs(t, s, blobs); err != nil {
		t.Fatalf("same Storage after a new pack appeared: %v", err)
	}
	if n := s.Filesystem().(*packFS).misses.Load(); n != 1 {
		t.Errorf("%d lookups went the slow way; after the first the index is fresh", n)
	}
}

// A Storage whose pack index is loaded keeps reading objects of a pack that
// git repack -a -d consolidated away.
func TestStorageSurvivesDeletedPack(t *testing.T) {
	sandboxGit(t)
	r := discoverT(t, newTestRepo(t))
	blobs := writeBlobs(t, r, 10)
	commitBlobs(t, r, "first", blobs)
	gitIn(t, r.WorkTree, "repack", "-q", "-a", "-d")
	before := packNames(t, r)
	s := r.Storage()
	var first plumbing.Hash
	for h := range blobs {
		first = h
		break
	}
	if err := readBlobs(t, s, map[plumbing.Hash]string{first: blobs[first]}); err != nil {
		t.Fatal(err)
	}
	delete(blobs, first) // the rest are not in the object cache
	commitBlobs(t, r, "second", writeBlobs(t, r, 2))
	gitIn(t, r.WorkTree, "repack", "-q", "-a", "-d")
	for _, p := range before {
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("repack kept %s; the test proves nothing", p)
		}
	}
	if err := readBlobs(t, s, blobs); err != nil {
		t.Fatalf("same Storage after its pack was deleted: %v", err)
	}
}

func TestPackFSHidesHalfWrittenAndVanishedPacks(t *testing.T) {
	dir := t.TempDir()
	h := strings.Repeat("12", 20)
	writeTestFile(t, filepath.Join(dir, "objects", "pack", "pack-"+h+".pack"), "PACK")
	fsys := &packFS{Filesystem: osfs.New(dir)}
	infos, err := fsys.ReadDir("objects/pack")
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 0 {
		t.Fatalf("a pack without its .idx was listed: %v", infos[0].Name())
	}
	// An index whose pack is gone reads as an empty, valid index.
	gone := strings.Repeat("34", 20)
	f, err := fsys.Open("objects/pack/pack-" + gone + ".idx")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	idx := idxfile.NewMemoryIndex()
	if err := idxfile.NewDecoder(f).Decode(idx); err != nil {
		t.Fatalf("synthetic index does not decode: %v", err)
	}
	if n, _ := idx.Count(); n != 0 || plumbing.Hash(idx.PackfileChecksum).String() != gone {
		t.Fatalf("synthetic index: %d objects, pack %x", n, idx.PackfileChecksum)
	}
}

// enoentOnce fails the first Rename with ENOENT, as when git prune-packed
// removes an empty fan-out directory between go-git's mkdir and rename.
type enoentOnce struct {
	billy.Filesystem
	failed bool
}

func (e *enoentOnce) Rename(from, to string) error {
	if !e.failed {
		e.failed = true
		os.RemoveAll(filepath.Join(e.Root(), filepath.Dir(to)))
		return &os.PathError{Op: "rename", Path: to, Err: syscall.ENOENT}
	}
	return e.Filesystem.Rename(from, to)
}

func TestPackFSRenameRetriesVanishedDirectory(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "objects", "pack", "tmp_obj_1"), "x")
	fsys := &packFS{Filesystem: &enoentOnce{Filesystem: osfs.New(dir)}}
	if err := fsys.Rename("objects/pack/tmp_obj_1", "objects/ab/cdef"); err != nil {
		t.Fatalf("rename: %v", err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "objects", "ab", "cdef")); err != nil || string(data) != "x" {
		t.Fatalf("renamed file: %q, %v", data, err)
	}
}

// vanishOnce fails the first ReadDir as osfs does when an entry is deleted
// between reading the directory and stat-ing the entry.
type vanishOnce struct {
	billy.Filesystem
	failed bool
}

func (v *vanishOnce) ReadDir(name string) ([]os.FileInfo, error) {
	if !v.failed {
		v.failed = true
		return nil, &os.PathError{Op: "lstat", Path: name + "/tmp_pack_x", Err: syscall.ENOENT}
	}
	return v.Filesystem.ReadDir(name)
}

// go-git takes a "not exist" listing of objects/pack for "no packs": the
// listing must be retried while the directory exists.
func TestPackFSReadDirRetriesVanishedEntry(t *testing.T) {
	dir := t.TempDir()
	h := strings.Repeat("56", 20)
	for _, ext := range []string{".pack", ".idx"} {
		writeTestFile(t, filepath.Join(dir, "objects", "pack", "pack-"+h+ext), "x")
	}
	fsys := &packFS{Filesystem: &vanishOnce{Filesystem: osfs.New(dir)}}
	infos, err := fsys.ReadDir("objects/pack")
	if err != nil || len(infos) != 2 {
		t.Fatalf("ReadDir = %d entries, %v; want the 2 pack files", len(infos), err)
	}
	missing := &packFS{Filesystem: &vanishOnce{Filesystem: osfs.New(dir)}}
	if _, err := missing.ReadDir("objects/nothing"); !os.IsNotExist(err) {
		t.Fatalf("ReadDir of a missing directory: %v, want not-exist", err)
	}
}

// TestStorageUnderGitGC writes and reads objects through long-lived and
// fresh Storages while git gc, repack -a -d and maintenance loop. The
// workers keep going until the loop has run its whole cycle once (three
// times with GIT_REASON_LONG=1): on a loaded machine a cycle takes long, and
// each further one only repeats the first.
func TestStorageUnderGitGC(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	wantCycles := int64(1)
	if v := os.Getenv("GIT_REASON_LONG"); v != "" && v != "0" {
		wantCycles = 3
	}
	sandboxGit(t)
	r := discoverT(t, newTestRepo(t))
	// One maintenance command at a time, as gc.pid and maintenance.lock
	// arrange in real life: git's own commands run concurrently with each
	// other (say prune-packed during repack -A -d) can lose objects.
	ctx, stop := context.WithCancel(context.Background())
	var loops sync.WaitGroup
	runs := map[string]int{}
	var cycles atomic.Int64
	loops.Add(1)
	go func() {
		defer loops.Done()
		for ctx.Err() == nil {
			for _, args := range [][]string{
				{"gc", "-q"},
				{"repack", "-q", "-A", "-d"},
				{"maintenance", "run", "--task=loose-objects"},
				{"repack", "-q", "-d"},
				{"prune-packed"},
			} {
				gitTryIn(r.WorkTree, args...)
				runs[strings.Join(args, " ")]++
			}
			cycles.Add(1)
		}
	}()
	var workers sync.WaitGroup
	errs := make(chan error, 100)
	for w := range 4 {
		workers.Add(1)
		go func() {
			defer workers.Done()
			long := r.Storage()
			for i := 0; i < 20 || cycles.Load() < wantCycles && i < 2000; i++ {
				blobs := map[plumbing.Hash]string{}
				s := r.Storage()
				for j := range 3 {
					content := fmt.Sprintf("worker %d round %d blob %d\n", w, i, j)
					h, err := storeBlob(s, content)
					if err != nil {
						errs <- err
						return
					}
					blobs[h] = content
				}
				name := fmt.Sprintf("w%d-%d", w, i)
				if err := keepReachable(r, name, blobs); err != nil {
					errs <- err
					return
				}
				if err := readBlobs(t, long, blobs); err != nil {
					errs <- fmt.Errorf("long-lived Storage: %w", err)
					return
				}
				if err := readBlobs(t, r.Storage(), blobs); err != nil {
					errs <- fmt.Errorf("fresh Storage: %w", err)
					return
				}
			}
		}()
	}
	workers.Wait()
	stop()
	loops.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("git runs: %v", runs)
	gitIn(t, r.WorkTree, "fsck", "--strict", "--no-dangling")
}

func storeBlob(s interface {
	NewEncodedObject() plumbing.EncodedObject
	SetEncodedObject(plumbing.EncodedObject) (plumbing.Hash, error)
}, content string) (plumbing.Hash, error) {
	o := s.NewEncodedObject()
	o.SetType(plumbing.BlobObject)
	w, _ := o.Writer()
	io.WriteString(w, content)
	w.Close()
	return s.SetEncodedObject(o)
}

// keepReachable points a ref at a commit of blobs, so gc must keep them.
func keepReachable(r *Repo, name string, blobs map[plumbing.Hash]string) error {
	s := r.Storage()
	var entries []object.TreeEntry
	i := 0
	for h := range blobs {
		entries = append(entries, object.TreeEntry{Name: fmt.Sprintf("b%02d", i), Mode: 0o100644, Hash: h})
		i++
	}
	sortEntries(entries)
	tree := &object.Tree{Entries: entries}
	to := s.NewEncodedObject()
	if err := tree.Encode(to); err != nil {
		return err
	}
	th, err := s.SetEncodedObject(to)
	if err != nil {
		return err
	}
	sig := object.Signature{Name: "t", Email: "t@example.com"}
	c := &object.Commit{Author: sig, Committer: sig, Message: name, TreeHash: th}
	co := s.NewEncodedObject()
	if err := c.Encode(co); err != nil {
		return err
	}
	ch, err := s.SetEncodedObject(co)
	if err != nil {
		return err
	}
	return r.UpdateRef("refs/reasoning/tasks/"+name, "", ch.String())
}

func sortEntries(e []object.TreeEntry) {
	for i := range e {
		for j := i + 1; j < len(e); j++ {
			if bytes.Compare([]byte(e[j].Name), []byte(e[i].Name)) < 0 {
				e[i], e[j] = e[j], e[i]
			}
		}
	}
}

// The repository's own objects directory is listed twice, spelled apart so
// that go-git does not skip the repeat, and both resolve to the git dir
// (go-git opens the parent of each entry as a .git directory).
func TestPackFSSelfAlternates(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "objects", "info", "alternates"), "/elsewhere/objects\n")
	fsys := &packFS{Filesystem: osfs.New(dir), objectsDir: filepath.Join(dir, "objects")}
	f, err := fsys.Open("objects/info/alternates")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(f)
	lines := strings.Fields(string(data))
	if len(lines) != 3 || lines[0] != "/elsewhere/objects" || lines[1] == lines[2] {
		t.Fatalf("alternates = %q", lines)
	}
	for _, l := range lines[1:] {
		if filepath.Dir(l) != dir || filepath.Clean(l) != filepath.Join(dir, "objects") {
			t.Errorf("alternate %q does not name %s/objects", l, dir)
		}
	}
}
