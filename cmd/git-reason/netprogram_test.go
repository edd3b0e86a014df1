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

// run runs bin with args in dir and returns stdout, stderr and the exit
// status.
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
	bin := builtBinary(t)
	dir := t.TempDir()
	alone := filepath.Join(dir, "git-reason")
	data := harness.ReadFile(t, bin)
	if err := os.WriteFile(alone, data, 0o755); err != nil {
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
