package gitstore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// gitView is what git itself says about the repository seen from dir:
// one git rev-parse for the git directories and whether the repository
// is bare (printed one a line, in the order asked), one more for the
// work tree of one that is not.
func gitView(t *testing.T, dir string) Repo {
	t.Helper()
	f := strings.Split(gitIn(t, dir, "rev-parse", "--absolute-git-dir",
		"--path-format=absolute", "--git-common-dir", "--is-bare-repository", "--is-inside-git-dir"), "\n")
	if len(f) != 4 {
		t.Fatalf("git rev-parse in %s printed %q, want four lines", dir, f)
	}
	r := Repo{GitDir: f[0], CommonDir: f[1], Bare: f[2] == "true"}
	if f[3] == "false" {
		r.WorkTree = gitIn(t, dir, "rev-parse", "--show-toplevel")
	}
	return r
}

func assertDiscover(t *testing.T, dir string, want Repo) {
	t.Helper()
	got, err := Discover(dir)
	if err != nil {
		t.Fatalf("Discover(%s): %v", dir, err)
	}
	for _, p := range []string{got.GitDir, got.CommonDir, got.WorkTree} {
		if p != "" && (!filepath.IsAbs(p) || filepath.Clean(p) != p) {
			t.Errorf("path %q is not absolute and clean", p)
		}
	}
	if !sameRepo(t, *got, want) {
		t.Errorf("Discover(%s)\n got %+v\nwant %+v", dir, *got, want)
	}
}

// sameRepo compares two Repos path by path after resolving symlinks.
func sameRepo(t *testing.T, a, b Repo) bool {
	norm := func(p string) string {
		if p == "" {
			return ""
		}
		return evalPath(t, p)
	}
	return norm(a.GitDir) == norm(b.GitDir) && norm(a.CommonDir) == norm(b.CommonDir) && norm(a.WorkTree) == norm(b.WorkTree) && a.Bare == b.Bare
}

func TestDiscover(t *testing.T) {
	t.Parallel()
	repo := newTestRepo(t)
	sub := filepath.Join(repo, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(evalPath(t, t.TempDir()), "wt")
	gitIn(t, repo, "worktree", "add", "-q", wt)
	wtSub := filepath.Join(wt, "x")
	if err := os.MkdirAll(wtSub, 0o755); err != nil {
		t.Fatal(err)
	}
	bare := filepath.Join(evalPath(t, t.TempDir()), "b.git")
	gitIn(t, repo, "clone", "-q", "--bare", repo, bare)

	// A gitfile with a relative path, resolved against the gitfile's dir.
	rel := evalPath(t, t.TempDir())
	gitIn(t, rel, "init", "-q", "--separate-git-dir", filepath.Join(rel, "store.git"), "work")
	writeTestFile(t, filepath.Join(rel, "work", ".git"), "gitdir: ../store.git\n")

	for _, tc := range []struct {
		name, dir string
		want      Repo
	}{
		{"top", repo, Repo{filepath.Join(repo, ".git"), filepath.Join(repo, ".git"), repo, "", "", nil, false, nil}},
		{"subdir", sub, Repo{filepath.Join(repo, ".git"), filepath.Join(repo, ".git"), repo, "", "", nil, false, nil}},
		{"linked worktree", wtSub, Repo{filepath.Join(repo, ".git", "worktrees", "wt"), filepath.Join(repo, ".git"), wt, "", "", nil, false, nil}},
		{"bare", bare, Repo{bare, bare, "", "", "", nil, true, nil}},
		{"inside bare", filepath.Join(bare, "refs", "heads"), Repo{bare, bare, "", "", "", nil, true, nil}},
		// Inside the git directory of a repository with a work tree: no
		// work tree there, as git sees it, and not bare.
		{"inside the git dir", filepath.Join(repo, ".git", "refs"), Repo{filepath.Join(repo, ".git"), filepath.Join(repo, ".git"), "", "", "", nil, false, nil}},
		{"relative gitfile", filepath.Join(rel, "work"), Repo{filepath.Join(rel, "store.git"), filepath.Join(rel, "store.git"), filepath.Join(rel, "work"), "", "", nil, false, nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if g := gitView(t, tc.dir); !sameRepo(t, g, tc.want) {
				t.Fatalf("test expectation disagrees with git: git says %+v", g)
			}
			assertDiscover(t, tc.dir, tc.want)
		})
	}
}

// TestDiscoverLineBreak: a repository whose path holds a line break,
// where git works, was no repository to git reason ("git rev-parse
// printed ..."): the one answer's lines were split as values.
func TestDiscoverLineBreak(t *testing.T) {
	t.Parallel()
	top := filepath.Join(evalPath(t, t.TempDir()), "line\nbreak")
	sub := filepath.Join(top, "sub\ndir")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, top, "init", "-q")
	bare := filepath.Join(evalPath(t, t.TempDir()), "b\n.git")
	gitIn(t, filepath.Dir(bare), "init", "-q", "--bare", bare)
	git := filepath.Join(top, ".git")
	for _, tc := range []struct {
		name, dir string
		want      Repo
	}{
		{"top", top, Repo{GitDir: git, CommonDir: git, WorkTree: top}},
		{"subdir", sub, Repo{GitDir: git, CommonDir: git, WorkTree: top}},
		{"bare", bare, Repo{GitDir: bare, CommonDir: bare, Bare: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assertDiscover(t, tc.dir, tc.want)
			if r, _ := Discover(tc.dir); r != nil && (r.ObjectFormat != "sha1" || evalPath(t, r.ObjectDir) != evalPath(t, filepath.Join(tc.want.CommonDir, "objects"))) {
				t.Errorf("object format %q, object directory %q", r.ObjectFormat, r.ObjectDir)
			}
		})
	}
}

func TestDiscoverRelativeDot(t *testing.T) {
	// t.Chdir: not in parallel.
	repo := newTestRepo(t)
	sub := filepath.Join(repo, "deep", "er")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	assertDiscover(t, ".", gitView(t, sub))
}

func TestDiscoverEnvironment(t *testing.T) {
	repo := newTestRepo(t)
	elsewhere := evalPath(t, t.TempDir())
	rel, err := filepath.Rel(elsewhere, filepath.Join(repo, ".git"))
	if err != nil {
		t.Fatal(err)
	}

	t.Run("GIT_DIR relative, work tree is the cwd", func(t *testing.T) {
		t.Setenv("GIT_DIR", rel)
		want := gitView(t, elsewhere)
		if want.WorkTree != elsewhere {
			t.Fatalf("git says work tree %q", want.WorkTree)
		}
		assertDiscover(t, elsewhere, want)
	})
	t.Run("GIT_DIR and GIT_WORK_TREE", func(t *testing.T) {
		t.Setenv("GIT_DIR", filepath.Join(repo, ".git"))
		t.Setenv("GIT_WORK_TREE", repo)
		assertDiscover(t, elsewhere, Repo{filepath.Join(repo, ".git"), filepath.Join(repo, ".git"), repo, "", "", nil, false, nil})
	})
	t.Run("GIT_DIR not a repository", func(t *testing.T) {
		t.Setenv("GIT_DIR", elsewhere)
		if _, err := Discover(repo); !errors.Is(err, ErrNotRepository) {
			t.Fatalf("got %v, want ErrNotRepository", err)
		}
	})
	t.Run("core.worktree", func(t *testing.T) {
		other := evalPath(t, t.TempDir())
		gitIn(t, repo, "config", "core.worktree", other)
		defer gitIn(t, repo, "config", "--unset", "core.worktree")
		t.Setenv("GIT_DIR", filepath.Join(repo, ".git"))
		assertDiscover(t, elsewhere, gitView(t, elsewhere))
	})
}

func TestDiscoverNotARepository(t *testing.T) {
	root := evalPath(t, t.TempDir())
	dir := filepath.Join(root, "x", "y")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CEILING_DIRECTORIES", root)
	_, err := Discover(dir)
	if !errors.Is(err, ErrNotRepository) {
		t.Fatalf("got %v, want ErrNotRepository", err)
	}
	if _, gerr := gitTryIn(dir, "rev-parse", "--git-dir"); gerr == nil {
		t.Fatal("git finds a repository here; the test setup is wrong")
	}
}

func TestDiscoverCeiling(t *testing.T) {
	repo := newTestRepo(t)
	ceiling := filepath.Join(repo, "sub")
	deep := filepath.Join(ceiling, "deep")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CEILING_DIRECTORIES", "/nonexistent:"+ceiling)
	if _, err := Discover(deep); !errors.Is(err, ErrNotRepository) {
		t.Fatalf("Discover below a ceiling: got %v, want ErrNotRepository", err)
	}
	if _, err := gitTryIn(deep, "rev-parse", "--git-dir"); err == nil {
		t.Fatal("git crosses the ceiling; expectation wrong")
	}
	// The ceiling stops the walk only above the starting directory.
	assertDiscover(t, repo, gitView(t, repo))
}

func TestDiscoverSparseCheckout(t *testing.T) {
	t.Parallel()
	repo := newTestRepo(t)
	gitIn(t, repo, "sparse-checkout", "init", "--cone")
	if v := gitIn(t, repo, "config", "extensions.worktreeConfig"); v != "true" {
		t.Fatalf("sparse-checkout did not set extensions.worktreeConfig (%q)", v)
	}
	assertDiscover(t, repo, gitView(t, repo))
	r, err := Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	head, err := r.ReadRef("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Storage().EncodedObject(plumbing.AnyObject, plumbing.NewHash(head)); err != nil {
		t.Fatalf("read HEAD commit through Storage: %v", err)
	}
	// core.worktree in config.worktree is honoured as git honours it.
	other := evalPath(t, t.TempDir())
	gitIn(t, repo, "config", "--worktree", "core.worktree", other)
	assertDiscover(t, repo, gitView(t, repo))
}

// A configuration git refuses is refused with git's message, on one line.
func TestDiscoverBrokenConfig(t *testing.T) {
	t.Parallel()
	repo := newTestRepo(t)
	writeTestFile(t, filepath.Join(repo, ".git", "config"), "[core\n")
	_, err := Discover(repo)
	if err == nil || !strings.Contains(err.Error(), "bad config line 1") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a broken repository config: %v", err)
	}
}

func TestDiscoverBareWorktreeMain(t *testing.T) {
	// A bare clone with a linked worktree: core.bare=true in the common
	// config must not make the linked worktree bare.
	t.Parallel()
	repo := newTestRepo(t)
	bare := filepath.Join(evalPath(t, t.TempDir()), "b.git")
	gitIn(t, repo, "clone", "-q", "--bare", repo, bare)
	wt := filepath.Join(evalPath(t, t.TempDir()), "wt")
	gitIn(t, bare, "worktree", "add", "-q", wt, "main")
	want := gitView(t, wt)
	if want.WorkTree == "" || !strings.HasPrefix(want.GitDir, bare) {
		t.Fatalf("unexpected git view %+v", want)
	}
	assertDiscover(t, wt, want)
}

// Discovery starts from the physical directory, as git's getcwd() does:
// through a symbolic link into a repository's subdirectory it finds that
// repository (walking up the link's own path would find none), and the
// paths it returns are the physical ones git prints.
func TestDiscoverThroughSymlink(t *testing.T) {
	t.Parallel()
	repo := newTestRepo(t)
	sub := filepath.Join(repo, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(evalPath(t, t.TempDir()), "link")
	if err := os.Symlink(sub, link); err != nil {
		t.Fatal(err)
	}
	want := gitView(t, link)
	if want.WorkTree != evalPath(t, repo) {
		t.Fatalf("git through the link: %+v; expectation wrong", want)
	}
	got, err := Discover(link)
	if err != nil {
		t.Fatalf("Discover(%s): %v", link, err)
	}
	if want.ObjectDir, want.ObjectFormat = filepath.Join(want.CommonDir, "objects"), "sha1"; *got != want {
		t.Errorf("Discover(%s)\n got %+v\nwant %+v, git's own paths", link, *got, want)
	}
}

// Git's ownership check decides: a repository owned by another user is
// refused with git's own message on one line (naming safe.directory),
// until safe.directory in the user's configuration names it. Giving the
// repository another owner needs root (chown); without root the test
// skips and says why.
func TestDiscoverRefusesForeignOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the repository another owner (chown)")
	}
	repo := newTestRepo(t) // before HOME changes: the template needs the identity
	home := evalPath(t, t.TempDir())
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("SUDO_UID", "") // git compares with SUDO_UID when root
	sub := filepath.Join(repo, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, 4242, 4242)
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Discover(sub)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "safe.directory") ||
		!strings.Contains(err.Error(), repo) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("another user's repository: got %v, want ErrRefused with git's message on one line", err)
	}
	gitIn(t, home, "config", "--global", "--add", "safe.directory", repo)
	assertDiscover(t, sub, Repo{filepath.Join(repo, ".git"), filepath.Join(repo, ".git"), repo, "", "", nil, false, nil})
}

// Branch is the branch HEAD names in the worktree asked about: unborn,
// after a checkout, in a linked worktree, and none when detached.
func TestBranch(t *testing.T) {
	t.Parallel()
	repo := newTestRepo(t)
	wt := filepath.Join(evalPath(t, t.TempDir()), "wt")
	gitIn(t, repo, "worktree", "add", "-q", "-b", "side/x", wt)
	unborn := evalPath(t, t.TempDir())
	gitIn(t, unborn, "init", "-q", "-b", "fresh")
	detached := filepath.Join(evalPath(t, t.TempDir()), "d")
	gitIn(t, repo, "worktree", "add", "-q", "--detach", detached)
	for dir, want := range map[string]string{
		repo: gitIn(t, repo, "symbolic-ref", "--short", "HEAD"), wt: "side/x", unborn: "fresh", detached: "",
	} {
		r, err := Discover(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Branch(); got != want {
			t.Errorf("Branch() in %s = %q, want %q", dir, got, want)
		}
	}
}

// BenchmarkDiscover is what locating the repository costs every command
// that opens one, from a subdirectory of a work tree:
//
//	go test -run '^$' -bench Discover -count 5 ./gitstore
func BenchmarkDiscover(b *testing.B) {
	dir := b.TempDir()
	if out, err := gitTryIn(dir, "init", "-q"); err != nil {
		b.Fatalf("git init: %v\n%s", err, out)
	}
	sub := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Discover(sub); err != nil {
			b.Fatal(err)
		}
	}
}
