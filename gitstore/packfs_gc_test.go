package gitstore

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/object"

	"git-reason/reliability/harness"
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
	t.Parallel()
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
	if err := harness.ReadBlobs(s, blobs); err != nil {
		t.Fatalf("same Storage after a new pack appeared: %v", err)
	}
	if n := s.Filesystem().(*packFS).misses.Load(); n != 1 {
		t.Errorf("%d lookups went the slow way; after the first the index is fresh", n)
	}
}

// A Storage whose pack index is loaded keeps reading objects of a pack that
// git repack -a -d consolidated away.
func TestStorageSurvivesDeletedPack(t *testing.T) {
	t.Parallel()
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
	if err := harness.ReadBlobs(s, map[plumbing.Hash]string{first: blobs[first]}); err != nil {
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
	if err := harness.ReadBlobs(s, blobs); err != nil {
		t.Fatalf("same Storage after its pack was deleted: %v", err)
	}
}

func TestPackFSHidesHalfWrittenAndVanishedPacks(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// The repository's own objects directory is listed twice, spelled apart so
// that go-git does not skip the repeat, and both resolve to the git dir
// (go-git opens the parent of each entry as a .git directory).
func TestPackFSSelfAlternates(t *testing.T) {
	t.Parallel()
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
