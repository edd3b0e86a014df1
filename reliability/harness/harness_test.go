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
