package storage

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"git-reason/gitstore"
	"git-reason/reliability/harness"
)

// TestMain gives every test and every git it starts a HOME of its own
// with an identity and no background gc, and removes every variable
// through which this machine's git setup could leak in; a helper process
// (see TestUpdateRefConcurrentIncrements) runs its part instead. The
// repositories are made on a memory file system where there is one
// (harness.MemoryTemp).
func TestMain(m *testing.M) {
	if dir := os.Getenv(helperDirEnv); dir != "" {
		os.Exit(helperIncrements(dir))
	}
	harness.MemoryTemp()
	os.Exit(harness.InTempHome("git-reason-storage-home-", m.Run))
}

// skipUnlessStress skips with -short and where git is missing.
func skipUnlessStress(t *testing.T) {
	t.Helper()
	harness.SkipShort(t, "a stress test")
	harness.NeedGit(t)
}

// newRepo makes a non-bare repository with one commit and opens it.
func newRepo(t *testing.T) *gitstore.Repo {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "add", "README")
	gitIn(t, dir, "commit", "-q", "-m", "initial")
	r, err := gitstore.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// gitIn runs git in dir and returns its trimmed stdout; it fails the test
// when git fails.
func gitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return harness.Git(t, dir, args...)
}

func gitTryIn(dir string, args ...string) (string, error) { return harness.GitTry(dir, args...) }

// storeBlob writes content as a blob through s.
func storeBlob(s *filesystem.Storage, content string) (plumbing.Hash, error) {
	o := s.NewEncodedObject()
	o.SetType(plumbing.BlobObject)
	w, err := o.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := io.WriteString(w, content); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(o)
}

// storeObject encodes o (a tree, a commit) and writes it through s.
func storeObject(s *filesystem.Storage, o object.Object) (plumbing.Hash, error) {
	eo := s.NewEncodedObject()
	if err := o.Encode(eo); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(eo)
}
