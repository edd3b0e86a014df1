package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"git-reason/reliability/harness"
)

// TestStartupBuildsLittle holds this module's packages to building almost
// nothing at initialisation: every package linked is initialised by every
// command, --version included, so a table, regular expression or schema
// made at package level is paid by all of them. It reads the runtime's
// own trace (GODEBUG=inittrace=1), whose byte counts do not depend on the
// machine's load; anything bigger is made on first use (sync.OnceValue).
func TestStartupBuildsLittle(t *testing.T) {
	t.Parallel()
	const limit = 4096 // bytes allocated by one package's initialisation
	trace := initTrace(t)
	own := 0
	for _, line := range strings.Split(trace, "\n") {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(line)
		if len(f) < 9 || f[0] != "init" || f[8] != "bytes," || !strings.HasPrefix(f[1], "git-reason/") {
			continue
		}
		own++
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", line, err)
		}
		t.Logf("%s: %d bytes at initialisation", f[1], n) // go test -v -run TestStartupBuildsLittle
		if n > limit {
			t.Errorf("%s allocates %d bytes at initialisation (limit %d): make what it builds on first use", f[1], n, limit)
		}
	}
	if own == 0 {
		t.Fatalf("no initialisation of this module's packages in the trace:\n%s", trace)
	}
}

// initTrace is what the runtime traces of git-reason --version's package
// initialisation (GODEBUG=inittrace=1): a line a package, in order.
func initTrace(t *testing.T) string {
	t.Helper()
	bin := builtBinary(t)
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("git-reason --version: %v\n%s", err, stderr.String())
	}
	return stderr.String()
}

// newWriteRepo is a repository with one commit and a task of 100
// records, as bench/write times a write to, and that task's caches built
// by one assess, in an environment of its own (harness.Env, no GOGC),
// for a test that watches one more write.
func newWriteRepo(t *testing.T) (dir string, env []string) {
	t.Helper()
	root := t.TempDir()
	home, dir := filepath.Join(root, "home"), filepath.Join(root, "repo")
	if err := harness.WriteHome(home, ""); err != nil {
		t.Fatal(err)
	}
	env = harness.Env(home, root, nil)
	mustRun(t, root, env, "git", "init", "-q", dir)
	mustRun(t, dir, env, "git", "commit", "-q", "--allow-empty", "-m", "init")
	harness.BulkTaskT(t, dir, "T-1", 100)
	mustRun(t, dir, env, "git", "reason", "assess", "T-1", "--subject", "first", "--question", "q?",
		"--materiality", "trivial", "--reversibility", "reversible")
	return dir, env
}

// mustRun runs name args in dir with env (netprogram_test.go's runIn) and
// returns its stderr; it fails the test when the command fails.
func mustRun(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	_, stderr, code := runIn(t, dir, name, env, args...)
	if code != 0 {
		t.Fatalf("%s %s: exit %d\n%s", name, strings.Join(args, " "), code, stderr)
	}
	return stderr
}

// TestWriteCollectsNoGarbage holds a write to finishing before the
// garbage collector's first cycle (main's collectLate): one assess to a
// task of 100 records allocates about 5 MB, over the runtime's first 4 MB
// target, and the one collection it paid was CPU time for memory the
// process returns at exit.
// Read from the runtime's own trace (GODEBUG=gctrace=1), which depends on
// what the process allocates, not on the machine's load.
func TestWriteCollectsNoGarbage(t *testing.T) {
	t.Parallel()
	dir, env := newWriteRepo(t)
	stderr := mustRun(t, dir, append(env, "GODEBUG=gctrace=1"), "git", "reason", "assess", "T-1", "--subject", "second",
		"--question", "q?", "--materiality", "trivial", "--reversibility", "reversible")
	if strings.Contains(stderr, "gc 1 @") {
		t.Errorf("one assess collected garbage:\n%s", stderr)
	}
}

// TestWriteSyncsOnce holds a write to the flushes git's own lockfile
// makes for a ref (with core.fsync=reference): the ref's lock, synced
// before it is renamed into place, and nothing else (no directory, no
// cache file). Each flush is a journal commit that every write waits for.
// Watched with strace, which counts the system calls themselves.
func TestWriteSyncsOnce(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("strace"); err != nil {
		harness.MissingTool(t, "strace is not installed")
	}
	dir, env := newWriteRepo(t)
	trace := filepath.Join(t.TempDir(), "trace")
	mustRun(t, dir, env, "strace", "-f", "-qq", "-y", "-o", trace, "-e", "signal=none", "-e", "trace=fsync,fdatasync,sync_file_range,syncfs,sync",
		"git", "reason", "assess", "T-1", "--subject", "second", "--question", "q?", "--materiality", "trivial", "--reversibility", "reversible")
	data := harness.ReadFile(t, trace)
	var syncs []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		// A thread that strace lets go as the process exits, inside a
		// call it did not trace, is printed as "PID ???( <detached ...>"
		// (in 3 to 6 of 40 assesses here): no flush.
		if line != "" && !strings.HasSuffix(line, "???( <detached ...>") {
			syncs = append(syncs, line)
		}
	}
	if len(syncs) != 1 || !strings.Contains(syncs[0], "refs/reasoning/tasks/T-1.lock>") {
		t.Errorf("one assess made %d flushes, want one, of the ref's lock:\n%s", len(syncs), data)
	}
}
