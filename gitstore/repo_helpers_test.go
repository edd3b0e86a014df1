package gitstore

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"git-reason/reliability/harness"
)

// gitIn runs git in dir and returns its trimmed stdout; it fails the test
// when git fails.
func gitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return harness.Git(t, dir, args...)
}

func gitTryIn(dir string, args ...string) (string, error) { return harness.GitTry(dir, args...) }

// gitInStdin runs git in dir with stdin and returns its trimmed stdout.
func gitInStdin(t testing.TB, dir, stdin string, args ...string) string {
	t.Helper()
	return harness.GitInput(t, dir, stdin, args...)
}

// discoverT is Discover of dir; it fails the test when Discover fails.
func discoverT(t *testing.T, dir string) *Repo {
	t.Helper()
	r, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// openT is Open of dir (the store of the repository discoverT finds);
// it fails the test when the repository is not found.
func openT(t *testing.T, dir string) *Store {
	t.Helper()
	return NewStore(discoverT(t, dir))
}

// initRepo makes an empty repository (NewEmptyRepoIn) in a fresh
// temporary directory and returns its directory.
func initRepo(t *testing.T) string {
	t.Helper()
	return NewEmptyRepoIn(t, t.TempDir())
}

// emptyRepo is one repository made by git init, copied for each test that
// wants an empty one: a copy costs no process. RemoveTestRepo removes it.
var emptyRepo struct {
	once sync.Once
	dir  string
	err  error
}

// NewEmptyRepoIn makes an empty repository in a new directory under
// parent: a copy of one the real git binary made. It is made with no
// template (git init --template=): the sample hooks, description and
// info/exclude a template adds are nothing the store reads, and were most
// of the files each copy copied. (Exported for the package's external
// tests.)
func NewEmptyRepoIn(t *testing.T, parent string) string {
	t.Helper()
	emptyRepo.once.Do(func() {
		emptyRepo.dir, emptyRepo.err = os.MkdirTemp("", "gitstore-empty-")
		if emptyRepo.err != nil {
			return
		}
		if out, err := harness.GitTry("", "init", "-q", "--template=", emptyRepo.dir); err != nil {
			emptyRepo.err = fmt.Errorf("git init: %v\n%s", err, out)
		}
	})
	if emptyRepo.err != nil {
		t.Fatal(emptyRepo.err)
	}
	dir, err := os.MkdirTemp(parent, "repo-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS(emptyRepo.dir)); err != nil {
		t.Fatalf("copy the empty repository: %v", err)
	}
	return dir
}

// testRepo is the repository newTestRepo copies, made once per test
// binary by git (init with no template, as newRepo's, then add and
// commit), with its one commit and that commit's tree; RemoveTestRepo
// removes it.
var testRepo struct {
	once       sync.Once
	dir        string
	head, tree string
	err        error
}

// newTestRepo makes a non-bare repository with one commit: a copy of one
// git made, which costs no process (each test changes only its copy).
func newTestRepo(t *testing.T) string {
	t.Helper()
	testRepo.once.Do(func() { testRepo.err = makeTestRepo() })
	if testRepo.err != nil {
		t.Fatalf("make the test repository: %v", testRepo.err)
	}
	return copyTestRepo(t, testRepo.dir)
}

func makeTestRepo() error {
	dir, err := os.MkdirTemp("", "gitstore-testrepo-")
	if err != nil {
		return err
	}
	testRepo.dir = dir
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("hello\n"), 0o644); err != nil {
		return err
	}
	var out string
	for _, args := range [][]string{{"init", "-q", "--template="}, {"add", "README"}, {"commit", "-q", "-m", "initial"},
		{"rev-parse", "HEAD", "HEAD^{tree}"}} {
		if out, err = gitTryIn(dir, args...); err != nil {
			return fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	f := strings.Fields(out)
	if len(f) != 2 {
		return fmt.Errorf("git rev-parse HEAD HEAD^{tree}: %q", out)
	}
	testRepo.head, testRepo.tree = f[0], f[1]
	return nil
}

// RemoveTestRepo removes the repositories newTestRepo and NewEmptyRepoIn
// copy (TestMain calls it after the run).
func RemoveTestRepo() {
	for _, dir := range []string{testRepo.dir, emptyRepo.dir} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
}

// copyTestRepo copies the repository at src (one newTestRepo made) into a
// directory of the test's own: cheaper than running git again.
func copyTestRepo(t *testing.T, src string) string {
	t.Helper()
	dir := filepath.Join(evalPath(t, t.TempDir()), "repo")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
	return dir
}

func writeTestFile(t testing.TB, path, content string) {
	t.Helper()
	harness.WriteFile(t, path, content)
}

func evalPath(t testing.TB, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// taskRefsT gives each of tasks a ref in the repository at dir, all at
// one commit of an empty tree, written as packed-refs (which it
// replaces): a save of many tasks' caches and a fold write the entries
// of tasks whose ref is there (Store.taskGone). It returns the commit.
func taskRefsT(t *testing.T, dir string, tasks ...string) string {
	t.Helper()
	tree := gitInStdin(t, dir, "", "mktree")
	commit := gitIn(t, dir, "commit-tree", tree, "-m", "tasks")
	names := make([]string, len(tasks))
	for i, task := range tasks {
		names[i] = TaskRef(task)
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteString("# pack-refs with: peeled fully-peeled sorted \n")
	for _, name := range names {
		fmt.Fprintf(&b, "%s %s\n", commit, name)
	}
	writeTestFile(t, filepath.Join(discoverT(t, dir).CommonDir, "packed-refs"), b.String())
	return commit
}
