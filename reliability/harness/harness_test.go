package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBinaryRunsThroughGit: the built binary is what `git reason` runs
// with the harness's environment, and a second build of the same source
// is the cached one, not a new build.
func TestBinaryRunsThroughGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	dir := BinDir(t)
	bin := filepath.Join(dir, "git-reason")
	before, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	home := filepath.Join(root, "home")
	if err := WriteHome(home, ""); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "reason", "help")
	cmd.Dir, cmd.Env = root, Env(home, root, []string{dir})
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "git reason - ") {
		t.Fatalf("git reason help: %v: %q", err, out)
	}
	again, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(again)
	if err != nil {
		t.Fatal(err)
	}
	if again != bin || !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("a second build of the same source made %s (%v), want the cached %s (%v)", again, after.ModTime(), bin, before.ModTime())
	}
	// It is the program README's install command builds: its tags, unless
	// GOFLAGS names others.
	if buildTags() != nil {
		info, err := exec.Command(goTool(), "version", "-m", bin).Output()
		if err != nil {
			t.Fatalf("go version -m: %v", err)
		}
		if want := "\tbuild\t-tags=" + InstallTags + "\n"; !strings.Contains(string(info), want) {
			t.Errorf("the build's settings lack %q:\n%s", want, info)
		}
	}
}

// TestEnvKeepsNothingOfTheCaller: no variable of the caller but PATH (and
// TMPDIR) reaches a process under test.
func TestEnvKeepsNothingOfTheCaller(t *testing.T) {
	t.Setenv("GIT_DIR", "/nowhere")
	t.Setenv("HARNESS_SECRET_TOKEN", "leak")
	for _, kv := range Env("/h", "/c", []string{"/bin-first"}, "EXTRA=1") {
		name, value, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_DIR", "HARNESS_SECRET_TOKEN":
			t.Errorf("%s reached the environment under test", kv)
		case "PATH":
			if !strings.HasPrefix(value, "/bin-first"+string(os.PathListSeparator)) {
				t.Errorf("PATH = %q, want /bin-first first", value)
			}
		case "HOME":
			if value != "/h" {
				t.Errorf("HOME = %q", value)
			}
		}
	}
}

// TestFsckConfigOnlyWithoutGraphs: FsckConfig leaves fsck's graph checks
// out only where no object directory holds a commit-graph or a
// multi-pack-index, its own or an alternate's, and where it cannot tell.
func TestFsckConfigOnlyWithoutGraphs(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	root := t.TempDir()
	home := filepath.Join(root, "home")
	if err := WriteHome(home, ""); err != nil {
		t.Fatal(err)
	}
	env := Env(home, root, nil)
	run := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	off := func(dir string) bool { return FsckConfig(dir) != nil }
	repo, other, bare := filepath.Join(root, "repo"), filepath.Join(root, "other"), filepath.Join(root, "bare.git")
	run(root, "init", "-q", repo)
	run(repo, "commit", "-q", "--allow-empty", "-m", "one")
	run(root, "init", "-q", other)
	if err := os.WriteFile(filepath.Join(other, ".git", "objects", "info", "alternates"), []byte(filepath.Join(repo, ".git", "objects")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(root, "clone", "-q", "--bare", repo, bare)
	sub := filepath.Join(repo, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]bool{repo: true, other: true, bare: true, sub: false, root: false} {
		if off(dir) != want {
			t.Errorf("no graph anywhere: FsckConfig(%s) leaves the checks out: %v, want %v", dir, !want, want)
		}
	}
	run(repo, "commit-graph", "write", "--reachable")
	if off(repo) || off(other) {
		t.Errorf("a commit-graph in repo: FsckConfig leaves the checks out (repo %v, its alternate's user %v)", off(repo), off(other))
	}
	if err := os.RemoveAll(filepath.Join(repo, ".git", "objects", "info", "commit-graph")); err != nil {
		t.Fatal(err)
	}
	if !off(repo) {
		t.Fatalf("the commit-graph removed: FsckConfig still keeps the checks")
	}
	run(repo, "repack", "-q", "-a", "-d")
	run(repo, "multi-pack-index", "write")
	if off(repo) || off(other) {
		t.Errorf("a multi-pack-index in repo: FsckConfig leaves the checks out (repo %v, its alternate's user %v)", off(repo), off(other))
	}
}
