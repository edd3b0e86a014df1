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
	NeedGit(t)
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

// TestRaceReportsReachCheckRaces: with a race detector build (raceLog
// set, as Binary sets it for one), Env sends every process's race
// reports to the log, and CheckRaces fails a run whose log holds one;
// without one, Env sets no GORACE and CheckRaces keeps the run's status.
func TestRaceReportsReachCheckRaces(t *testing.T) {
	saved := raceLog.Load()
	t.Cleanup(func() { raceLog.Store(saved) })
	gorace := func() string {
		for _, kv := range Env("/h", "/c", nil) {
			if v, ok := strings.CutPrefix(kv, "GORACE="); ok {
				return v
			}
		}
		return ""
	}
	var out strings.Builder
	raceLog.Store(nil)
	if g, code := gorace(), checkRaces(&out, 0); g != "" || code != 0 {
		t.Errorf("without the race detector: GORACE=%q, CheckRaces(0) = %d; want none and 0", g, code)
	}
	dir := filepath.Join(t.TempDir(), "races")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	raceLog.Store(&dir)
	if g, want := gorace(), "log_path="+filepath.Join(dir, "race"); g != want {
		t.Errorf("with the race detector: GORACE=%q, want %q", g, want)
	}
	if code := checkRaces(&out, 0); code != 0 || out.Len() != 0 {
		t.Errorf("no report: CheckRaces(0) = %d, said %q; want 0 and nothing", code, out.String())
	}
	if err := os.Mkdir(dir, 0o700); err != nil { // the empty log was removed
		t.Fatal(err)
	}
	WriteFile(t, filepath.Join(dir, "race.4242"), "WARNING: DATA RACE\n")
	if code := checkRaces(&out, 0); code != 1 || !strings.Contains(out.String(), "race.4242:\nWARNING: DATA RACE") {
		t.Errorf("one report: CheckRaces(0) = %d, said %q; want 1 and the report", code, out.String())
	}
}

// TestInputsKeyOfARaceBuild: GOFLAGS=-race, in the environment or in go
// env -w's file (GOENV), changes the key of the build, and both give the
// same one: a binary with the race detector and one without never share
// a cached build.
func TestInputsKeyOfARaceBuild(t *testing.T) {
	t.Setenv("GOFLAGS", "")
	os.Unsetenv("GOFLAGS")
	root := t.TempDir()
	plainEnv, raceEnv := filepath.Join(root, "plain.env"), filepath.Join(root, "race.env")
	WriteFile(t, plainEnv, "")
	WriteFile(t, raceEnv, "GOFLAGS=-race\n")
	key := func(goenv string, env ...string) string {
		t.Helper()
		t.Setenv("GOENV", goenv)
		for i := 0; i+1 < len(env); i += 2 {
			t.Setenv(env[i], env[i+1])
		}
		k, err := inputsKey()
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	plain, inFile, inEnv := key(plainEnv), key(raceEnv), key(plainEnv, "GOFLAGS", "-race")
	if plain == inFile || inFile != inEnv {
		t.Errorf("keys: %s without -race, %s with it in GOENV's file, %s with it in GOFLAGS: want the last two equal and unlike the first", plain, inFile, inEnv)
	}
}

// TestUseHome: after UseHome the git this process starts reads the home's
// identity and nothing the caller set: not a global configuration file
// named by GIT_CONFIG_GLOBAL, not a repository named by GIT_DIR, not a
// configuration given by GIT_CONFIG_COUNT. The suites' own switch,
// GIT_REASON_LONG, is kept: a long run stays long.
func TestUseHome(t *testing.T) {
	NeedGit(t)
	// Every variable UseHome sets or unsets is set here first, so that the
	// test's end gives the process back the environment it had.
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GIT_") || k == "XDG_CONFIG_HOME" || k == "HOME" {
			t.Setenv(k, v)
		}
	}
	root := t.TempDir()
	other := filepath.Join(root, "other.gitconfig")
	WriteFile(t, other, "[user]\n\temail = caller@example.invalid\n")
	for k, v := range map[string]string{"GIT_CONFIG_GLOBAL": other, "GIT_DIR": filepath.Join(root, "nowhere"),
		"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "user.name", "GIT_CONFIG_VALUE_0": "Caller",
		"XDG_CONFIG_HOME": root, "GIT_CONFIG_NOSYSTEM": "0", "GIT_REASON_LONG": "1"} {
		t.Setenv(k, v)
	}
	home := filepath.Join(root, "home")
	if err := UseHome(home); err != nil {
		t.Fatal(err)
	}
	if got := os.Getenv("HOME"); got != home {
		t.Errorf("HOME = %q, want %q", got, home)
	}
	for _, k := range []string{"GIT_CONFIG_GLOBAL", "GIT_DIR", "GIT_CONFIG_COUNT", "XDG_CONFIG_HOME"} {
		if v, ok := os.LookupEnv(k); ok {
			t.Errorf("%s=%s is still set", k, v)
		}
	}
	if !Long() {
		t.Error("GIT_REASON_LONG=1 was unset: the long form of a suite would run short")
	}
	if got := os.Getenv("GIT_CONFIG_NOSYSTEM"); got != "1" {
		t.Errorf("GIT_CONFIG_NOSYSTEM = %q, want 1", got)
	}
	if got := Git(t, root, "config", "user.email") + " " + Git(t, root, "config", "user.name"); got != "rel@example.invalid Rel Tester" {
		t.Errorf("git's identity after UseHome: %q, want the home's (rel@example.invalid Rel Tester)", got)
	}
}

// TestFsckConfigOnlyWithoutGraphs: FsckConfig leaves fsck's graph checks
// out only where no object directory holds a commit-graph or a
// multi-pack-index, its own or an alternate's, and where it cannot tell.
func TestFsckConfigOnlyWithoutGraphs(t *testing.T) {
	NeedGit(t)
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
