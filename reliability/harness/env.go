package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Long reports whether the long form of the suites was asked for
// (GIT_REASON_LONG=1).
func Long() bool {
	v := os.Getenv("GIT_REASON_LONG")
	return v != "" && v != "0"
}

// Form returns quick or, in the long form, full; and the form's name, for
// the test's log.
func Form(quick, full int) (int, string) {
	if Long() {
		return full, "long form"
	}
	return quick, "quick form (GIT_REASON_LONG=1 for the long one)"
}

// GitConfig is the global git configuration of every test home: an
// identity, main as the first branch, and no background gc or maintenance
// racing what a test runs itself (nor a git gc --auto that every push
// would start only to find gc.auto 0).
const GitConfig = "[user]\n\tname = Rel Tester\n\temail = rel@example.invalid\n" +
	"[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n[receive]\n\tautogc = false\n"

// WriteHome makes home, with GitConfig and extra (more git configuration
// text) as its .gitconfig.
func WriteHome(home, extra string) error {
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(GitConfig+extra), 0o644)
}

// UseHome makes home (WriteHome, with GitConfig) this process's HOME, with
// no system git configuration and none of the caller's GIT_ variables or
// XDG_CONFIG_HOME but GIT_REASON_LONG (the suites' own, Long), so that
// neither this process nor the git it starts reads anything of the
// machine's git or git reason setup. A TestMain
// calls it once for the process (not t.Setenv per test, so that the tests
// can run in parallel); a test that needs a variable of its own sets it
// with t.Setenv and runs alone.
func UseHome(home string) error {
	if err := WriteHome(home, ""); err != nil {
		return err
	}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); (strings.HasPrefix(k, "GIT_") || k == "XDG_CONFIG_HOME") && k != "GIT_REASON_LONG" {
			os.Unsetenv(k)
		}
	}
	os.Setenv("HOME", home)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	return nil
}

// InTempHome runs run (a TestMain's m.Run) with a new temporary directory
// named after prefix as the process's HOME (UseHome), removes the
// directory and returns run's exit code; when the home cannot be made it
// says why on stderr and returns 1 without running run.
func InTempHome(prefix string, run func() int) int {
	home, err := os.MkdirTemp("", prefix)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(home)
	if err := UseHome(home); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return run()
}

// Env is the whole environment of a process under test: PATH with dirs
// first, home as HOME, repository discovery stopped at ceiling, a fixed
// locale and time zone, no system git configuration, then extra. Nothing
// else of the caller's environment is passed on, so that no git setting,
// git reason setting or advisor credential of this machine changes what
// the test sees; but for a binary with the race detector, GORACE sends
// its race reports to CheckRaces.
func Env(home, ceiling string, dirs []string, extra ...string) []string {
	path := strings.Join(append(append([]string(nil), dirs...), os.Getenv("PATH")), string(os.PathListSeparator))
	env := []string{
		"PATH=" + path,
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CEILING_DIRECTORIES=" + ceiling,
		"LC_ALL=C",
		"TZ=UTC",
	}
	if tmp := os.Getenv("TMPDIR"); tmp != "" {
		env = append(env, "TMPDIR="+tmp)
	}
	return append(append(env, RaceEnv()...), extra...)
}

// Sandbox is a benchmark's work directory (WorkDir) with this process
// readied to run the real binary as a user would: git-reason installed in
// root/bin first on PATH, a home of its own in root/home, no system git
// configuration, and none of the caller's git, CI or profile settings.
func Sandbox(keep, prefix string) (root string, remove func(), err error) {
	if root, remove, err = WorkDir(keep, prefix); err != nil {
		return "", nil, err
	}
	if err := useSandbox(root); err != nil {
		remove()
		return "", nil, err
	}
	return root, remove, nil
}

func useSandbox(root string) error {
	bin := filepath.Join(root, "bin")
	if err := Install(bin); err != nil {
		return err
	}
	if err := UseHome(filepath.Join(root, "home")); err != nil {
		return err
	}
	os.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	os.Unsetenv("CI")
	return nil
}

// DispatchEnv is env with what git's subcommand dispatch adds before it
// starts git-reason: git's exec path (git --exec-path, asked once) first
// on PATH, and GIT_EXEC_PATH. A test that runs git-reason itself in it
// sees what "git reason" would, without the git process the dispatch
// costs each command (about a sixth of a command's CPU time, bench/tests
// percmd); the dispatch itself is proven where a test says "git reason".
func DispatchEnv(env []string) ([]string, error) {
	execPath, err := GitExecPath()
	if err != nil {
		return nil, err
	}
	out := append(make([]string, 0, len(env)+1), "GIT_EXEC_PATH="+execPath)
	for _, kv := range env {
		if path, ok := strings.CutPrefix(kv, "PATH="); ok {
			kv = "PATH=" + execPath + string(os.PathListSeparator) + path
		}
		out = append(out, kv)
	}
	return out, nil
}

// GitExecPath is git --exec-path, asked once per process.
var GitExecPath = sync.OnceValues(func() (string, error) {
	out, err := GitTry("", "--exec-path")
	if err != nil {
		return "", fmt.Errorf("git --exec-path: %w: %s", err, out)
	}
	return out, nil
})
