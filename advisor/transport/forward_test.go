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
	pids := filepath.Join(t.TempDir(), "pids")
	cmd := exec.Command(os.Args[0], "-test.run=^TestForwardReachesEveryStarted$")
	cmd.Env = append(os.Environ(), "GIT_REASON_TEST_FORWARD="+pids)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "forwarded") {
		t.Fatalf("%v: %s", err, out)
	}
	raw, _ := os.ReadFile(pids)
	lines := strings.Fields(string(raw))
	if len(lines) == 0 {
		t.Fatal("no advisor started")
	}
	for _, l := range lines {
		pid, err := strconv.Atoi(l)
		if err != nil {
			t.Fatal(err)
		}
		if harness.Alive(pid, 2*time.Second) {
			t.Errorf("advisor %d (of %d started) outlived the forwarded signal", pid, len(lines))
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
	}
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
	os.Stdout.WriteString("forwarded\n")
	time.Sleep(200 * time.Millisecond) // the groups die of it
}
