package hooks_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"

	"git-reason/gitstore"
	"git-reason/hooks"
	"git-reason/reliability/harness"
)

// file is one entry of a hooks directory as a test compares it.
type file struct {
	Data string
	Mode fs.FileMode
}

// snapshot reads every file of dir (nil when dir does not exist).
func snapshot(t *testing.T, dir string) map[string]file {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]file{}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		data := harness.ReadFile(t, p)
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = file{string(data), fi.Mode().Perm()}
	}
	return out
}

func write(t *testing.T, path, data string, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // umask must not decide
		t.Fatal(err)
	}
}

// diff describes how two snapshots differ, "" when they are equal.
func diff(want, got map[string]file) string {
	var names []string
	for n := range want {
		names = append(names, n)
	}
	for n := range got {
		if _, ok := want[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		w, inW := want[n]
		g, inG := got[n]
		switch {
		case !inG:
			fmt.Fprintf(&b, "-%s %v %q\n", n, w.Mode, w.Data)
		case !inW:
			fmt.Fprintf(&b, "+%s %v %q\n", n, g.Mode, g.Data)
		case w != g:
			fmt.Fprintf(&b, "-%s %v %q\n+%s %v %q\n", n, w.Mode, w.Data, n, g.Mode, g.Data)
		}
	}
	return b.String()
}

// shims is the directory content a fresh install produces.
func shims() map[string]file {
	out := map[string]file{}
	for _, n := range hooks.Names {
		out[n] = file{string(hooks.Shim(n)), 0o755}
	}
	return out
}

// userHook is a hook a person wrote, with a line no shim has.
const userHook = "#!/bin/sh\n# the team's own checks\nexit 0\n"

func statusOf(st []hooks.Status, name string) hooks.Status {
	for _, s := range st {
		if s.Hook == name {
			return s
		}
	}
	return hooks.Status{}
}

func TestHooksShimsAreMarkedAndDistinct(t *testing.T) {
	for _, n := range hooks.Names {
		s := hooks.Shim(n)
		if !bytes.Contains(s, []byte(hooks.Marker)) {
			t.Errorf("shim %s does not carry the marker %q", n, hooks.Marker)
		}
		if !bytes.HasPrefix(s, []byte("#!/bin/sh\n")) {
			t.Errorf("shim %s does not start with #!/bin/sh", n)
		}
		if !bytes.Contains(s, []byte("git reason hook "+n)) {
			t.Errorf("shim %s does not hand over to 'git reason hook %s'", n, n)
		}
	}
}

func TestHooksInstallFresh(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not", "yet", "hooks")
	st, err := hooks.Install(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := diff(shims(), snapshot(t, dir)); diff != "" {
		t.Errorf("hooks directory after a fresh install (-want +got):\n%s", diff)
	}
	for _, n := range hooks.Names {
		want := hooks.Status{Hook: n, Path: filepath.Join(dir, n), Installed: true, Current: true}
		if got := statusOf(st, n); got != want {
			t.Errorf("Install status of %s = %+v, want %+v", n, got, want)
		}
		if got := statusOf(hooks.Check(dir), n); got != want {
			t.Errorf("Check of %s = %+v, want %+v", n, got, want)
		}
	}
}

func TestHooksCheckEmptyDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	for _, s := range hooks.Check(dir) {
		if s.Installed || s.Current || s.Chained || s.Foreign {
			t.Errorf("Check of a missing directory: %+v, want nothing set", s)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("Check created %s", dir)
	}
}

// TestHooksInstallIdempotent installs twice, with and without a hook of the
// user's: the second install changes no byte and chains nothing twice
// (the shim must never end up as the chained hook).
func TestHooksInstallIdempotent(t *testing.T) {
	for _, foreign := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "chained"}[foreign], func(t *testing.T) {
			dir := t.TempDir()
			if foreign {
				write(t, filepath.Join(dir, "pre-commit"), userHook, 0o755)
			}
			if _, err := hooks.Install(dir, false); err != nil {
				t.Fatal(err)
			}
			first := snapshot(t, dir)
			mtimes := map[string]int64{}
			for name := range first {
				fi, _ := os.Stat(filepath.Join(dir, name))
				mtimes[name] = fi.ModTime().UnixNano()
			}
			for i := 0; i < 2; i++ {
				st, err := hooks.Install(dir, false)
				if err != nil {
					t.Fatalf("install again: %v", err)
				}
				if s := statusOf(st, "pre-commit"); !s.Installed || !s.Current || s.Chained != foreign || s.Foreign {
					t.Errorf("status after reinstall = %+v", s)
				}
			}
			if diff := diff(first, snapshot(t, dir)); diff != "" {
				t.Errorf("reinstalling changed the directory (-first +now):\n%s", diff)
			}
			again := map[string]int64{}
			for name := range first {
				fi, _ := os.Stat(filepath.Join(dir, name))
				again[name] = fi.ModTime().UnixNano()
			}
			if !reflect.DeepEqual(mtimes, again) {
				t.Errorf("reinstalling rewrote files: modification times %v then %v", mtimes, again)
			}
			if foreign {
				chained := first["pre-commit"+hooks.ChainedSuffix]
				if chained.Data != userHook {
					t.Errorf("chained hook = %q, want the user's hook", chained.Data)
				}
			}
			for name := range first {
				if strings.HasSuffix(name, hooks.ChainedSuffix+hooks.ChainedSuffix) {
					t.Errorf("chained twice: %s", name)
				}
			}
		})
	}
}

// TestHooksInstallChainsAndUninstallRestores keeps the user's hooks beside the
// shims, byte for byte and mode for mode, and puts them back on
// uninstall.
func TestHooksInstallChainsAndUninstallRestores(t *testing.T) {
	dir := t.TempDir()
	// Not valid UTF-8, no trailing newline, a CRLF: restored exactly.
	commitHook := "#!/bin/sh\r\necho \xff\xfe marker >> marker\r\nexit 0"
	pushHook := userHook
	write(t, filepath.Join(dir, "pre-commit"), commitHook, 0o750)
	write(t, filepath.Join(dir, "pre-push"), pushHook, 0o644) // not executable: kept as is
	write(t, filepath.Join(dir, "post-merge"), userHook, 0o755)
	for _, n := range hooks.Names[2:] { // every hook of the user's is kept
		write(t, filepath.Join(dir, n), userHook, 0o755)
	}
	before := snapshot(t, dir)

	st, err := hooks.Install(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	want := shims()
	want["pre-commit"+hooks.ChainedSuffix] = file{commitHook, 0o750}
	want["pre-push"+hooks.ChainedSuffix] = file{pushHook, 0o644}
	for _, n := range hooks.Names[2:] {
		want[n+hooks.ChainedSuffix] = file{userHook, 0o755}
	}
	want["post-merge"] = file{userHook, 0o755}
	if diff := diff(want, snapshot(t, dir)); diff != "" {
		t.Errorf("after install (-want +got):\n%s", diff)
	}
	for _, n := range hooks.Names {
		if s := statusOf(st, n); !s.Installed || !s.Current || !s.Chained || s.Foreign {
			t.Errorf("status of %s after install = %+v, want installed, current and chained", n, s)
		}
	}

	st, err = hooks.Uninstall(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := diff(before, snapshot(t, dir)); diff != "" {
		t.Errorf("uninstall did not restore the directory (-before +after):\n%s", diff)
	}
	for _, n := range hooks.Names {
		if s := statusOf(st, n); s.Installed || s.Chained || !s.Foreign {
			t.Errorf("status of %s after uninstall = %+v, want only foreign", n, s)
		}
	}
}

func TestHooksUninstallFresh(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "post-checkout"), userHook, 0o755)
	before := snapshot(t, dir)
	if _, err := hooks.Install(dir, false); err != nil {
		t.Fatal(err)
	}
	if _, err := hooks.Uninstall(dir); err != nil {
		t.Fatal(err)
	}
	if diff := diff(before, snapshot(t, dir)); diff != "" {
		t.Errorf("install then uninstall left (-before +after):\n%s", diff)
	}
	// Uninstalling again, or where nothing was installed, changes nothing.
	if _, err := hooks.Uninstall(dir); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "missing")
	if _, err := hooks.Uninstall(missing); err != nil {
		t.Errorf("uninstall from a missing directory: %v", err)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("uninstall created %s", missing)
	}
}

// TestHooksUninstallLeavesForeignHooks: a hook git reason did not write stays,
// even when a file named like a chained hook sits beside it.
func TestHooksUninstallLeavesForeignHooks(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "pre-commit"), userHook, 0o755)
	write(t, filepath.Join(dir, "pre-push"), userHook, 0o755)
	write(t, filepath.Join(dir, "pre-push"+hooks.ChainedSuffix), "#!/bin/sh\nexit 1\n", 0o755)
	before := snapshot(t, dir)
	st, err := hooks.Uninstall(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := diff(before, snapshot(t, dir)); diff != "" {
		t.Errorf("uninstall touched foreign hooks (-before +after):\n%s", diff)
	}
	if s := statusOf(st, "pre-commit"); !s.Foreign || s.Installed {
		t.Errorf("status = %+v, want foreign", s)
	}
}

// TestHooksInstallRefusesWhenChainedExists: a foreign hook and a chained hook
// both present cannot be merged by a program. Install must say so and
// change nothing at all, whichever hook is in that state.
func TestHooksInstallRefusesWhenChainedExists(t *testing.T) {
	for _, blocked := range hooks.Names {
		t.Run(blocked, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, blocked), userHook, 0o755)
			write(t, filepath.Join(dir, blocked+hooks.ChainedSuffix), "#!/bin/sh\necho older\n", 0o755)
			before := snapshot(t, dir)
			_, err := hooks.Install(dir, false)
			if err == nil {
				t.Fatal("install over a foreign hook with a chained one beside it succeeded")
			}
			for _, frag := range []string{filepath.Join(dir, blocked), blocked + hooks.ChainedSuffix, "by hand"} {
				if !strings.Contains(err.Error(), frag) {
					t.Errorf("error %q does not mention %q", err, frag)
				}
			}
			if diff := diff(before, snapshot(t, dir)); diff != "" {
				t.Errorf("a refused install changed the directory (-before +after):\n%s", diff)
			}
		})
	}
}

// TestHooksInstallRefusesModifiedShim: a file that carries the marker but
// is not the shim byte for byte (an older or edited shim, another tool's
// hook quoting the marker) is refused and left exactly as it was; with
// force it is kept as a backup, and the hook it chains stays chained.
func TestHooksInstallRefusesModifiedShim(t *testing.T) {
	dir := t.TempDir()
	old := "#!/bin/sh\n# " + hooks.Marker + ": pre-commit\n# an older version\nexec git reason hook pre-commit\n"
	write(t, filepath.Join(dir, "pre-commit"), old, 0o755)
	write(t, filepath.Join(dir, "pre-commit"+hooks.ChainedSuffix), userHook, 0o700)
	s := statusOf(hooks.Check(dir), "pre-commit")
	if s.Installed || s.Current || !s.Modified || !s.Chained || s.Foreign {
		t.Fatalf("status of a modified shim = %+v, want modified, chained", s)
	}
	before := snapshot(t, dir)
	if _, err := hooks.Install(dir, false); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("install over a modified shim: %v, want a refusal naming --force", err)
	}
	if d := diff(before, snapshot(t, dir)); d != "" {
		t.Fatalf("a refused install changed the directory (-before +after):\n%s", d)
	}
	if _, err := hooks.Uninstall(dir); err != nil {
		t.Fatal(err)
	}
	if d := diff(before, snapshot(t, dir)); d != "" {
		t.Fatalf("uninstall changed a modified shim (-before +after):\n%s", d)
	}
	if _, err := hooks.Install(dir, true); err != nil {
		t.Fatal(err)
	}
	want := shims()
	want["pre-commit"+hooks.ChainedSuffix] = file{userHook, 0o700}
	want["pre-commit"+hooks.BackupSuffix] = file{old, 0o755}
	if diff := diff(want, snapshot(t, dir)); diff != "" {
		t.Errorf("after a forced install over a modified shim (-want +got):\n%s", diff)
	}
	// An old shim without execute permission is made executable again.
	write(t, filepath.Join(dir, "pre-push"), string(hooks.Shim("pre-push")), 0o644)
	if s := statusOf(hooks.Check(dir), "pre-push"); !s.Installed || s.Current {
		t.Fatalf("status of a shim git cannot run = %+v, want installed but not current", s)
	}
	if _, err := hooks.Install(dir, false); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "pre-push")); err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Errorf("a shim without execute permission is left so (mode %v, %v)", fi.Mode(), err)
	}
}

// TestHooksShimsRunChainedFirst runs the shims with sh against a stand-in
// git that records how it was called.
func TestHooksShimsRunChainedFirst(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the shims are sh scripts")
	}
	harness.NeedTools(t, "sh")
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	// The stand-in git appends its arguments and stdin to $LOG and exits
	// with $GIT_STATUS.
	write(t, filepath.Join(bin, "git"), "#!/bin/sh\necho \"git $*\" >> \"$LOG\"\ncat >> \"$LOG\"\nexit ${GIT_STATUS:-0}\n", 0o755)
	write(t, filepath.Join(bin, "git-reason"), "#!/bin/sh\nexit 99\n", 0o755)

	cases := []struct {
		name        string
		hook        string
		chained     string // "" for none
		gitStatus   string
		path        string // PATH; "" for bin and sh's directory
		stdin       string
		wantCode    int
		wantLog     string
		wantStderr  string
		wantNoStdin bool
	}{
		{name: "commit alone", hook: "pre-commit", wantLog: "git reason hook pre-commit\n"},
		{name: "commit refused", hook: "pre-commit", gitStatus: "3", wantCode: 3, wantLog: "git reason hook pre-commit\n"},
		{name: "commit chained first", hook: "pre-commit", chained: "#!/bin/sh\necho \"chained $*\" >> \"$LOG\"\n",
			wantLog: "chained a b\ngit reason hook pre-commit a b\n"},
		{name: "commit chained fails", hook: "pre-commit", chained: "#!/bin/sh\necho chained >> \"$LOG\"\nexit 7\n",
			wantCode: 7, wantLog: "chained\n"},
		{name: "commit without git-reason", hook: "pre-commit", path: "nobin",
			wantStderr: "git-reason: git-reason is not on PATH"},
		{name: "push stdin to both", hook: "pre-push", stdin: "refs/heads/main 1111 refs/heads/main 2222\n",
			chained: "#!/bin/sh\necho \"chained $*\" >> \"$LOG\"\ncat >> \"$LOG\"\n",
			wantLog: "chained a b\nrefs/heads/main 1111 refs/heads/main 2222\ngit reason hook pre-push a b\nrefs/heads/main 1111 refs/heads/main 2222\n"},
		{name: "push chained fails", hook: "pre-push", stdin: "x\n", chained: "#!/bin/sh\ncat >/dev/null\nexit 5\n",
			wantCode: 5, wantLog: ""},
		{name: "push refused", hook: "pre-push", stdin: "x\n", gitStatus: "3", wantCode: 3,
			wantLog: "git reason hook pre-push\nx\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			log := filepath.Join(dir, "log")
			write(t, log, "", 0o644)
			if _, err := hooks.Install(filepath.Join(dir, "hooks"), false); err != nil {
				t.Fatal(err)
			}
			if c.chained != "" {
				write(t, filepath.Join(dir, "hooks", c.hook+hooks.ChainedSuffix), c.chained, 0o755)
			}
			args := []string{filepath.Join(dir, "hooks", c.hook)}
			if strings.Contains(c.wantLog, " a b\n") {
				args = append(args, "a", "b")
			}
			cmd := exec.Command(sh, args...)
			path := bin + string(os.PathListSeparator) + filepath.Dir(sh)
			if c.path == "nobin" {
				// Only sh's directory: the real git-reason must not be there.
				path = filepath.Dir(sh)
				if p, err := exec.LookPath(filepath.Join(path, "git-reason")); err == nil {
					t.Skipf("%s is installed next to sh", p)
				}
			}
			cmd.Env = []string{"PATH=" + path, "LOG=" + log, "GIT_STATUS=" + c.gitStatus}
			cmd.Stdin = strings.NewReader(c.stdin)
			_, stderr, code := harness.Run(t, cmd)
			if code != c.wantCode {
				t.Errorf("exit status %d, want %d (stderr %q)", code, c.wantCode, stderr)
			}
			got, _ := os.ReadFile(log)
			if string(got) != c.wantLog {
				t.Errorf("calls:\n%s\nwant:\n%s", got, c.wantLog)
			}
			if c.wantStderr != "" && !strings.Contains(stderr, c.wantStderr) {
				t.Errorf("stderr %q does not contain %q", stderr, c.wantStderr)
			}
			for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
				if line != "" && !strings.HasPrefix(line, "git-reason:") {
					t.Errorf("shim line without the git-reason: prefix: %q", line)
				}
			}
		})
	}
}

func sandbox(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	for _, k := range []string{"GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "XDG_CONFIG_HOME"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	write(t, filepath.Join(home, ".gitconfig"),
		"[user]\n\tname = Hook Tester\n\temail = hooks@example.invalid\n[init]\n\tdefaultBranch = main\n", 0o644)
	return home
}

// TestHooksDirMatchesGit compares Dir with where git itself looks for hooks,
// in the shapes a repository takes: core.hooksPath absent, relative or
// absolute; a linked worktree; a bare repository. git's answer is
// `git rev-parse --git-path hooks`, resolved against the directory git
// runs hooks in (the work tree's top, or the git directory when bare).
func TestHooksDirMatchesGit(t *testing.T) {
	harness.NeedGit(t)
	sandbox(t)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	main := filepath.Join(root, "main")
	harness.Git(t, root, "init", "-q", "main")
	harness.Git(t, main, "commit", "-q", "--allow-empty", "-m", "first")
	linked := filepath.Join(root, "linked")
	harness.Git(t, main, "worktree", "add", "-q", linked)
	bare := filepath.Join(root, "bare.git")
	harness.Git(t, root, "init", "-q", "--bare", bare)
	abs := filepath.Join(root, "shared-hooks")

	cases := []struct {
		name      string
		repo      string // where git reason runs
		runsIn    string // where git runs hooks from
		hooksPath string
		want      string // the hooks directory, for a reader of this test
	}{
		{"default", main, main, "", filepath.Join(main, ".git", "hooks")},
		{"relative", main, main, ".githooks", filepath.Join(main, ".githooks")},
		{"relative dot", main, main, "./tools/../hooks-here", filepath.Join(main, "hooks-here")},
		{"absolute", main, main, abs, abs},
		{"linked default", linked, linked, "", filepath.Join(main, ".git", "hooks")},
		{"linked relative", linked, linked, ".githooks", filepath.Join(linked, ".githooks")},
		{"linked absolute", linked, linked, abs, abs},
		{"bare default", bare, bare, "", filepath.Join(bare, "hooks")},
		{"bare relative", bare, bare, "myhooks", filepath.Join(bare, "myhooks")},
		{"bare absolute", bare, bare, abs, abs},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfgDir := c.repo
			if c.hooksPath == "" {
				exec.Command("git", "-C", cfgDir, "config", "--unset", "core.hooksPath").Run()
			} else {
				harness.Git(t, cfgDir, "config", "core.hooksPath", c.hooksPath)
			}
			gitSays := harness.Git(t, c.runsIn, "rev-parse", "--git-path", "hooks")
			if !filepath.IsAbs(gitSays) {
				gitSays = filepath.Join(c.runsIn, gitSays)
			}
			gitSays = filepath.Clean(gitSays)
			if gitSays != c.want {
				t.Fatalf("the test's expectation %s disagrees with git's %s", c.want, gitSays)
			}
			r, err := gitstore.Discover(c.repo)
			if err != nil {
				t.Fatal(err)
			}
			got := filepath.Clean(hooks.Dir(c.hooksPath, r.WorkTree, r.CommonDir))
			if got != gitSays {
				t.Errorf("Dir(%q, %q, %q) = %s, git runs hooks from %s", c.hooksPath, r.WorkTree, r.CommonDir, got, gitSays)
			}
		})
	}
}

// TestHooksRunFromDir installs into Dir and lets git run the hook:
// the proof that Dir is where git looks, not just where rev-parse says.
func TestHooksRunFromDir(t *testing.T) {
	harness.NeedGit(t)
	sandbox(t)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	for _, hooksPath := range []string{"", ".githooks", filepath.Join(root, "abs-hooks")} {
		t.Run("hooksPath="+hooksPath, func(t *testing.T) {
			repo := filepath.Join(t.TempDir(), "r")
			harness.Git(t, filepath.Dir(repo), "init", "-q", repo)
			if hooksPath != "" {
				harness.Git(t, repo, "config", "core.hooksPath", hooksPath)
			}
			r, err := gitstore.Discover(repo)
			if err != nil {
				t.Fatal(err)
			}
			dir := hooks.Dir(hooksPath, r.WorkTree, r.CommonDir)
			marker := filepath.Join(repo, "ran")
			write(t, filepath.Join(dir, "pre-commit"), "#!/bin/sh\necho ran > \""+marker+"\"\n", 0o755)
			sub := filepath.Join(repo, "a", "b")
			os.MkdirAll(sub, 0o755)
			harness.Git(t, sub, "commit", "-q", "--allow-empty", "-m", "x")
			if _, err := os.Stat(marker); err != nil {
				t.Errorf("git did not run the hook written to %s", dir)
			}
		})
	}
}
