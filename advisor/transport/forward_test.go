//go:build unix

package transport

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"git-reason/reliability/harness"
)

// TestForwardReachesEveryStarted: a signal forwarded while advisors are
// being started, asked and reaped, again and again on several
// goroutines, reaches the group of every one that started (its pid
// written): none is left running. ForwardToGroups takes its gate for
// good, so the asking runs in a process of its own (this test's binary,
// run again).
func TestForwardReachesEveryStarted(t *testing.T) {
	if pids := os.Getenv("GIT_REASON_TEST_FORWARD"); pids != "" {
		forwardWhileAsking(pids)
		return
	}
	pids := forwardedPids(t, "TestForwardReachesEveryStarted", "GIT_REASON_TEST_FORWARD")
	for _, pid := range pids {
		if harness.Alive(pid, 2*time.Second) {
			t.Errorf("advisor %d (of %d started) outlived the forwarded signal", pid, len(pids))
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
	}
}

// forwardedPids runs this test binary again for the test name, with env
// naming a file, expects it to say "forwarded", and returns the pids it
// wrote to the file (at least one).
func forwardedPids(t *testing.T, name, env string) []int {
	t.Helper()
	file := filepath.Join(t.TempDir(), "pids")
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$")
	cmd.Env = append(os.Environ(), env+"="+file)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "forwarded") {
		t.Fatalf("%v: %s", err, out)
	}
	raw, _ := os.ReadFile(file)
	var pids []int
	for _, l := range strings.Fields(string(raw)) {
		pid, err := strconv.Atoi(l)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	if len(pids) == 0 {
		t.Fatal("no advisor started")
	}
	return pids
}

// forwardWhileAsking asks on eight goroutines, each command writing its
// pid to the file pids and either answering at once or sleeping, then
// forwards SIGTERM and says "forwarded".
func forwardWhileAsking(pids string) {
	a, _ := For("exec")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := "cat >/dev/null; echo $$ >> " + pids + "; echo '{}'"
			if i%2 == 0 {
				body = "cat >/dev/null; echo $$ >> " + pids + "; exec sleep 30"
			}
			for range 40 {
				_, _ = a.Ask(context.Background(), Target{ID: "f", Adapter: "exec", Command: []string{"/bin/sh", "-c", body}}, Request{})
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	ForwardToGroups(syscall.SIGTERM)
	// A second forward (the signal's handler and the command's own path
	// both ending the process) returns as well.
	again := make(chan struct{})
	go func() { ForwardToGroups(syscall.SIGTERM); close(again) }()
	select {
	case <-again:
	case <-time.After(5 * time.Second):
		os.Stdout.WriteString("a second ForwardToGroups blocked\n")
		os.Exit(1)
	}
	os.Stdout.WriteString("forwarded\n")
	time.Sleep(200 * time.Millisecond) // the groups die of it
}

// TestForwardAfterLeaderExit: a signal forwarded once the advisor's
// command has exited and been reaped, but before Ask has killed what it
// left in its group, still reaches what it left: the process dies of the
// signal right after forwarding it (it is the hook that exits here), and
// Ask's own cleanup never runs. The command leaves a sleep in its group.
func TestForwardAfterLeaderExit(t *testing.T) {
	if pidFile := os.Getenv("GIT_REASON_TEST_FORWARD_LEFT"); pidFile != "" {
		reapedHook = func() {
			ForwardToGroups(syscall.SIGTERM)
			os.Stdout.WriteString("forwarded\n")
			os.Exit(0)
		}
		a, _ := For("exec")
		body := "cat >/dev/null; sleep 60 >/dev/null 2>&1 & echo $! > " + pidFile + "; echo '{}'"
		_, _ = a.Ask(context.Background(), Target{ID: "f", Adapter: "exec", Command: []string{"/bin/sh", "-c", body}}, Request{})
		os.Stdout.WriteString("not reaped\n")
		return
	}
	pid := forwardedPids(t, "TestForwardAfterLeaderExit", "GIT_REASON_TEST_FORWARD_LEFT")[0]
	if harness.Alive(pid, 2*time.Second) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the advisor's child %d outlived the signal forwarded after the advisor exited", pid)
	}
}
