package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

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
	return mustRun(t, "", append(os.Environ(), "GODEBUG=inittrace=1"), builtBinary(t), "--version")
}

// git-reason links nothing of the network: those packages' initialisation
// alone cost more than the rest of a command's start, and only the verbs
// git-reason--net runs need them. A new import that drags one back in
// fails here, naming the chain.
func TestGitReasonLinksNoNetwork(t *testing.T) {
	t.Parallel()
	forbidden := []string{"net/http", "crypto/tls", "html/template", "github.com/modelcontextprotocol/go-sdk/mcp"}
	out, err := exec.Command("go", "list", "-deps", "-tags", harness.InstallTags,
		"-f", "{{.ImportPath}}: {{join .Imports \" \"}}", "git-reason/cmd/git-reason").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	importers := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ": ")
		for _, imp := range strings.Fields(imports) {
			importers[imp] = append(importers[imp], pkg)
		}
	}
	for _, pkg := range forbidden {
		if by, ok := importers[pkg]; ok {
			t.Errorf("git-reason links %s (imported by %s): only git-reason--net may", pkg, strings.Join(by, ", "))
		}
	}
	// The check can fail: git-reason--net links them all.
	out, err = exec.Command("go", "list", "-deps", "-tags", harness.InstallTags, "git-reason/cmd/git-reason--net").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range forbidden {
		if !strings.Contains("\n"+string(out), "\n"+pkg+"\n") {
			t.Errorf("git-reason--net does not link %s: is the list above still what the network verbs need?", pkg)
		}
	}
}

// runIn runs bin with args in dir with env and returns stdout, stderr
// and the exit status.
func runIn(t *testing.T, dir, bin string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, env
	return harness.Run(t, cmd)
}

// builtBinary is the git-reason the tests run (harness.Binary); the test
// fails when it could not be built.
func builtBinary(t *testing.T) string {
	t.Helper()
	bin, err := harness.Binary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// A network verb run by git-reason is git-reason--net's run: the same
// output on each stream and the same exit status as running it directly,
// for a refusal, a usage error and JSON errors alike, and nothing added by
// git-reason.
func TestNetworkVerbsRunInNetProgram(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	net := filepath.Join(filepath.Dir(bin), harness.NetProgram)
	repo := t.TempDir()
	harness.Git(t, "", "init", "-q", repo)
	env := append(os.Environ(), "GIT_CEILING_DIRECTORIES="+filepath.Dir(repo))
	for _, args := range [][]string{
		{"consult", "no-such-task"},
		{"consult", "--json", "no-such-task"},
		{"consult", "--timeout", "soon", "t"},
		{"serve", "--max-inflight", "0"},
		{"mcp", "--repo", filepath.Join(repo, "missing")},
		{"web", "extra-argument"},
		{"consult", "-h"},
	} {
		gotOut, gotErr, gotCode := runIn(t, repo, bin, env, args...)
		wantOut, wantErr, wantCode := runIn(t, repo, net, env, args...)
		if gotOut != wantOut || gotErr != wantErr || gotCode != wantCode {
			t.Errorf("git-reason %v: exit %d, stdout %q, stderr %q\nwant as git-reason--net: exit %d, stdout %q, stderr %q",
				args, gotCode, gotOut, gotErr, wantCode, wantOut, wantErr)
		}
		if wantCode == 0 && !strings.Contains(wantOut, "USAGE") {
			t.Errorf("git-reason--net %v: exit 0 without its help: the case proves nothing", args)
		}
	}
}

// git-reason runs git-reason--net in its own place, not as a child: a host
// that stops the process it started (git reason mcp) stops the server.
func TestNetProgramReplacesGitReason(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	t.Parallel()
	bin := builtBinary(t)
	repo := t.TempDir()
	harness.Git(t, "", "init", "-q", repo)
	cmd := exec.Command(bin, "mcp", "--repo", repo)
	stdin, err := cmd.StdinPipe() // held open: the server waits on it
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	}()
	exe := ""
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if exe, _ = os.Readlink("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/exe"); filepath.Base(exe) == harness.NetProgram {
			break
		}
	}
	if filepath.Base(exe) != harness.NetProgram {
		t.Fatalf("the process git reason mcp started runs %q, want %s in its place", exe, harness.NetProgram)
	}
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("git reason mcp after its host closed stdin: %v, want exit 0", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("git reason mcp still runs 30 s after its host closed stdin")
	}
}

// Without git-reason--net beside it or on PATH, a network verb fails with
// one line that says how to install it, and writes nothing; the other
// verbs still work.
func TestNetProgramMissing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	alone := filepath.Join(dir, "git-reason")
	if err := harness.PlaceBinary(alone); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+filepath.Dir(gitPath(t)))
	stdout, stderr, code := runIn(t, dir, alone, env, "consult", "t")
	if code != 1 || stdout != "" || strings.Count(stderr, "\n") != 1 ||
		!strings.Contains(stderr, harness.NetProgram) || !strings.Contains(stderr, "go install -tags "+harness.InstallTags+" ./cmd/...") {
		t.Errorf("consult without %s: exit %d, stdout %q, stderr %q; want exit 1 and one line saying how to install it", harness.NetProgram, code, stdout, stderr)
	}
	if out, _, code := runIn(t, dir, alone, env, "--version"); code != 0 || !strings.HasPrefix(out, "git reason version") {
		t.Errorf("--version without %s: exit %d, %q", harness.NetProgram, code, out)
	}
}

func gitPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	return p
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

// mustRun runs name args in dir with env (runIn) and
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
