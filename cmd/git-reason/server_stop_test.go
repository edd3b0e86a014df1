package main

// The servers stop on SIGTERM as they stop on Ctrl-C: systemctl stop,
// docker stop and kill send SIGTERM, and a server killed by it at once
// (exit 143) could leave a write's lock behind and skipped what it writes
// on a clean stop. Each server is run directly, not through git's
// dispatch, so that its own exit status is seen (git dies of the signal
// it passed on), once stopped with Ctrl-C and once with SIGTERM.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"git-reason/reliability/harness"
)

func TestServersStopOnSIGTERM(t *testing.T) {
	t.Parallel()
	sandboxPossible(t)
	servers := []struct {
		name string
		// serve starts the server in s, makes it serve, and sends it sig
		// while it does; it returns the running command.
		serve func(t *testing.T, s *sandbox, sig os.Signal) *exec.Cmd
	}{
		{"web", stopWeb},
		{"serve", stopServe},
		{"mcp --http", stopMCPHTTP},
		{"mcp", stopMCPStdio},
		{"mcp, a call under way", stopMCPStdioCalling},
	}
	for _, srv := range servers {
		for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
			t.Run(srv.name+"/"+sig.String(), func(t *testing.T) {
				t.Parallel()
				s := newMCPSandbox(t)
				cmd := srv.serve(t, s, sig)
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				select {
				case err := <-done:
					if err != nil {
						t.Errorf("after %v: %v, want exit 0 as after Ctrl-C", sig, err)
					}
				case <-time.After(20 * time.Second):
					t.Fatalf("%s did not stop within 20 seconds of %v", srv.name, sig)
				}
				if locks := locksUnder(t, filepath.Join(s.dir, ".git")); len(locks) > 0 {
					t.Errorf("after %v, locks are left: %s", sig, strings.Join(locks, " "))
				}
			})
		}
	}
}

// stopWeb serves a page of 'git-reason web', then sends sig.
func stopWeb(t *testing.T, s *sandbox, sig os.Signal) *exec.Cmd {
	cmd := exec.Command("git-reason", "web", "--listen", "127.0.0.1:0")
	cmd.Dir, cmd.Env = s.dir, s.env
	start := startListening(t, cmd, &syncBuffer{}, `the Reasoning page is at (\S+)$`)
	getPage(t, webClient(), start)
	sendSignal(t, cmd, sig)
	return cmd
}

// stopServe answers a request of 'git-reason serve' (refused: it has no
// token), then sends sig.
func stopServe(t *testing.T, s *sandbox, sig os.Signal) *exec.Cmd {
	cmd := exec.Command("git-reason", "serve", "--listen", "127.0.0.1:0")
	cmd.Dir, cmd.Env = s.dir, s.env
	u := startListening(t, cmd, &syncBuffer{}, `serving reviews on (\S+)`)
	if code, _, _ := postHTTP(t, &http.Client{Timeout: 30 * time.Second}, u, map[string]string{"Content-Type": "application/json"}, `{}`); code != http.StatusUnauthorized {
		t.Errorf("a request without the token: %d, want 401", code)
	}
	sendSignal(t, cmd, sig)
	return cmd
}

// stopMCPHTTP sends sig to 'git-reason mcp --http' while an assess is
// in flight: the test holds the lock of the task's ref, which the write
// waits for, and lets it go once the stop has begun. Stopped as by Ctrl-C,
// the server leaves no lock of its own; the token file stays for the next
// start either way.
func stopMCPHTTP(t *testing.T, s *sandbox, sig os.Signal) *exec.Cmd {
	m, h := startMCPSession(t, s)
	held := holdRefLock(t, s)
	// The assess asks to continue (Expect: 100-continue): the server's
	// "100 Continue" says its handler is reading the request, which is
	// then under way; a fixed sleep before the signal let a loaded
	// machine's server still hold the request unread, closed as idle.
	answered, reading := make(chan string, 1), make(chan struct{})
	go func() {
		req, _ := http.NewRequest(http.MethodPost, m.url, strings.NewReader(httpAssess))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Expect", "100-continue")
		for k, v := range h {
			req.Header.Set(k, v)
		}
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{Got100Continue: func() { close(reading) }}))
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.ExpectContinueTimeout = time.Minute
		resp, err := (&http.Client{Transport: tr, Timeout: time.Minute}).Do(req)
		if err != nil {
			answered <- err.Error()
			return
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		answered <- fmt.Sprintf("%d %s %v", resp.StatusCode, body, err)
	}()
	select {
	case <-reading:
	case got := <-answered:
		answered <- got // for the cleanup below
		t.Fatalf("the assess was answered before it was read: %s", got)
	case <-time.After(time.Minute):
		t.Fatal("the server did not read the assess within a minute")
	}
	sendSignal(t, m.cmd, sig)
	// The lock is let go once the stop has begun, which closes the
	// listener: the write waiting for it ends during the stop.
	u, err := url.Parse(m.url)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.Dial("tcp", u.Host)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatalf("the server still listens a minute after %v", sig)
		}
	}
	if err := os.Remove(held); err != nil {
		t.Fatal(err)
	}
	// The assess under way is answered and stored before the server
	// ends: net/http's Serve returns as its shutdown begins, and the
	// process ended then, the write cut.
	t.Cleanup(func() {
		if got := <-answered; !strings.HasPrefix(got, "200 ") || strings.Contains(got, `"isError":true`) {
			t.Errorf("the assess under way when %v came: %s, want 200 and a result", sig, got)
		}
		if ref := s.git("for-each-ref", "refs/reasoning/tasks/Planted"); ref == "" {
			t.Errorf("the assess under way when %v came stored nothing", sig)
		}
	})
	if _, err := os.Stat(filepath.Join(s.dir, ".git", "reason", "mcp-token")); err != nil {
		t.Errorf("the token file: %v", err)
	}
	return m.cmd
}

// stopMCPStdio has 'git-reason mcp' answer an assess on stdio, then sends
// sig with its input still open (a host that stops it).
func stopMCPStdio(t *testing.T, s *sandbox, sig os.Signal) *exec.Cmd {
	cmd, _, lines := startMCPStdio(t, s, httpInitialize, httpInitialized, httpAssess)
	answerTo(lines, 2)
	go answerTo(lines, 0) // the rest
	sendSignal(t, cmd, sig)
	return cmd
}

// stopMCPStdioCalling sends sig to 'git-reason mcp' while an assess is
// under way on stdio, its input still open, holding the ref's lock as
// stopMCPHTTP does. The SDK closed the session at once, refused to write
// the answer, and the server waited for it forever: it never stopped.
func stopMCPStdioCalling(t *testing.T, s *sandbox, sig os.Signal) *exec.Cmd {
	held := holdRefLock(t, s)
	cmd, in, lines := startMCPStdio(t, s, httpInitialize, httpInitialized)
	answerTo(lines, 1)
	// A ping after the assess: the server answers it while the assess
	// waits for the lock, so its answer says the assess was read and is
	// under way (a fixed sleep let a loaded machine's server take the
	// signal before it had read the assess, which it then never answered).
	if _, err := io.WriteString(in, httpAssess+"\n"+`{"jsonrpc":"2.0","id":3,"method":"ping"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if answerTo(lines, 3) == "" {
		t.Fatal("the ping after the assess was not answered")
	}
	answered := make(chan string, 1)
	go func() {
		if got := answerTo(lines, 2); got != "" {
			answered <- got
		}
	}()
	sendSignal(t, cmd, sig)
	time.Sleep(300 * time.Millisecond)
	if err := os.Remove(held); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		got := "no answer"
		select {
		case got = <-answered:
		case <-time.After(time.Second):
		}
		if !strings.Contains(got, `"result"`) || strings.Contains(got, `"isError":true`) {
			t.Errorf("the assess under way when %v came: %s, want a result", sig, got)
		}
		if ref := s.git("for-each-ref", "refs/reasoning/tasks/Planted"); ref == "" {
			t.Errorf("the assess under way when %v came stored nothing", sig)
		}
	})
	return cmd
}

// startMCPStdio starts 'git-reason mcp' in s and writes it msgs, one a
// line; it returns the command, its input (open) and its output's lines.
func startMCPStdio(t *testing.T, s *sandbox, msgs ...string) (*exec.Cmd, io.Writer, *bufio.Scanner) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, "git-reason", "mcp")
	cmd.Dir, cmd.Env = s.dir, s.env
	in, out := harness.StartPiped(t, cmd)
	t.Cleanup(func() { in.Close() })
	lines := bufio.NewScanner(out)
	lines.Buffer(nil, 1<<20)
	for _, msg := range msgs {
		if _, err := io.WriteString(in, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	return cmd, in, lines
}

// answerTo reads lines up to the answer to request id and returns it; ""
// at the end of the output.
func answerTo(lines *bufio.Scanner, id int) string {
	want := fmt.Sprintf(`"id":%d,`, id)
	for lines.Scan() {
		if strings.Contains(lines.Text(), want) {
			return lines.Text()
		}
	}
	return ""
}

// holdRefLock holds the lock of the task Planted's ref, as another
// writer would, and returns its path.
func holdRefLock(t *testing.T, s *sandbox) string {
	t.Helper()
	held := filepath.Join(s.dir, ".git", "refs", "reasoning", "tasks", "Planted.lock")
	if err := os.MkdirAll(filepath.Dir(held), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(held, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return held
}

// sendSignal sends sig to cmd's process.
func sendSignal(t *testing.T, cmd *exec.Cmd, sig os.Signal) {
	t.Helper()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatalf("send %v: %v", sig, err)
	}
}

// locksUnder lists the lock files (*.lock) under dir.
func locksUnder(t *testing.T, dir string) []string {
	t.Helper()
	var locks []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lock") {
			locks = append(locks, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return locks
}

// TestServerGivingUpRemovesTheLocksItsCallsHold: a stopped server gives
// up on a call that does not end (at most twice its grace after the stop)
// and returns, and the process ends; a lock that call held stayed on disk,
// and every later write of its file waited 10 s and failed, "remove it",
// until a person did, and the git process the call waited for outlived
// the server, orphaned. The call here is a clone's first write, whose git
// config, run under the origin's lock (.git/reason/origin.lock), hangs as
// on a file system that does not answer: it ignores the stop, and the
// server has no context to end it with. Once 'git-reason mcp' (on stdio,
// and over HTTP, which guard stops) has stopped no lock is left, that git
// is gone, and the next write takes the origin's lock at once.
func TestServerGivingUpRemovesTheLocksItsCallsHold(t *testing.T) {
	t.Parallel()
	sandboxPossible(t)
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	for _, srv := range []struct {
		name string
		// assess starts the server in s and sends it an assess; it returns
		// the running command.
		assess func(t *testing.T, s *sandbox) *exec.Cmd
	}{
		{"mcp", func(t *testing.T, s *sandbox) *exec.Cmd {
			cmd, _, lines := startMCPStdio(t, s, httpInitialize, httpInitialized, httpAssess)
			answerTo(lines, 1)
			go answerTo(lines, 0) // the rest
			return cmd
		}},
		{"mcp --http", func(t *testing.T, s *sandbox) *exec.Cmd {
			m, h := startMCPSession(t, s)
			go func() { // never answered: the server gives up on it
				req, _ := http.NewRequest(http.MethodPost, m.url, strings.NewReader(httpAssess))
				req.Header.Set("Accept", "application/json, text/event-stream")
				for k, v := range h {
					req.Header.Set(k, v)
				}
				if resp, err := (&http.Client{Timeout: time.Minute}).Do(req); err == nil {
					resp.Body.Close()
				}
			}()
			return m.cmd
		}},
	} {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			hold, waiting := filepath.Join(root, "hold"), filepath.Join(root, "waiting")
			s := newSandboxAt(t, root, mcpOverlay, map[string]string{"fake-advisor": fakeAdvisor, "git": `case "$*" in
*"config --local --get reason.origin"*)
	if [ -e '` + hold + `' ]; then
		echo $$ > '` + waiting + `.tmp' && mv '` + waiting + `.tmp' '` + waiting + `'
		i=0; while [ -e '` + hold + `' ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done
	fi ;;
esac
exec "` + realGit + `" "$@"
`})
			if err := os.WriteFile(hold, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Remove(hold) }) // the hung git ends
			cmd := srv.assess(t, s)
			var pid []byte
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
				if pid, err = os.ReadFile(waiting); err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the assess's git config never ran")
				}
			}
			hung, err := strconv.Atoi(strings.TrimSpace(string(pid)))
			if err != nil {
				t.Fatalf("the hung git's pid: %q", pid)
			}
			if locks := locksUnder(t, filepath.Join(s.dir, ".git")); len(locks) == 0 {
				t.Fatal("the assess under way holds no lock")
			}
			sendSignal(t, cmd, syscall.SIGTERM)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(40 * time.Second):
				t.Fatalf("git-reason %s did not stop within 40 seconds of SIGTERM", srv.name)
			}
			if locks := locksUnder(t, filepath.Join(s.dir, ".git")); len(locks) > 0 {
				t.Errorf("after the server gave up on the call, locks are left: %s", strings.Join(locks, " "))
			}
			// Sent SIGTERM before the server exited, the git is gone at
			// once; a second is ample for its end to be seen.
			if harness.Alive(hung, time.Second) {
				t.Errorf("the git the call waited for (pid %d) still runs after the server exited", hung)
			}
			if err := os.Remove(hold); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			if _, errs, code := s.run("reason", "assess", "Next", "--subject", "s", "--question", "q?", "--materiality", "minor", "--reversibility", "reversible"); code != 0 {
				t.Errorf("the next write: exit %d, want 0\n%s", code, errs)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("the next write took %v: it waited for a lock", took)
			}
		})
	}
}

// TestMCPStdioFloodIsBounded: a client writes 8,000 status calls to
// 'git reason mcp' while an assess waits for its ref's lock (every call
// after it waits its turn). The server read every line at once, each a
// goroutine of its own waiting, and grew by some 28 KB a call (8,000
// took it to 190 MB); it now reads no more while 32 are unanswered, so
// that the client's writes wait. Every call is still answered.
func TestMCPStdioFloodIsBounded(t *testing.T) {
	t.Parallel()
	sandboxPossible(t)
	s := newMCPSandbox(t)
	held := holdRefLock(t, s)
	cmd, in, lines := startMCPStdio(t, s, httpInitialize, httpInitialized)
	answerTo(lines, 1)
	const calls = 8000
	var flood strings.Builder
	flood.WriteString(httpAssess + "\n")
	for id := 10; id < 10+calls; id++ {
		fmt.Fprintf(&flood, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"status","arguments":{"task":"T-7"}}}`+"\n", id)
	}
	// Written a line at a time, so that the test sees when the server
	// stops reading.
	var sent atomic.Int64
	written := make(chan error, 1)
	go func() {
		for l := range strings.Lines(flood.String()) {
			if _, err := io.WriteString(in, l); err != nil {
				written <- err
				return
			}
			sent.Add(1)
		}
		written <- nil
	}()
	// The lock goes once the server has read every call, or has read
	// none for a second: the assess then goes on, and the rest.
	for last, still := int64(-1), 0; still < 10; still++ {
		select {
		case err := <-written:
			if err != nil {
				t.Fatal(err)
			}
			written <- nil
			still = 10
		case <-time.After(100 * time.Millisecond):
			if n := sent.Load(); n != last {
				last, still = n, 0
			}
		}
	}
	if err := os.Remove(held); err != nil {
		t.Fatal(err)
	}
	answered := 0
	for answered < calls+1 && lines.Scan() {
		answered++
	}
	if answered < calls+1 {
		t.Fatalf("%d answers, want %d", answered, calls+1)
	}
	if err := <-written; err != nil {
		t.Fatal(err)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err != nil {
		t.Skipf("no peak to read: %v", err)
	}
	for l := range strings.Lines(string(status)) {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "VmHWM:" {
			kb, _ := strconv.Atoi(f[1])
			t.Logf("peak RSS %d MB for %d calls", kb>>10, calls)
			if kb > 80<<10 {
				t.Errorf("the server's peak RSS is %d MB for %d calls written at once, want at most 80 MB", kb>>10, calls)
			}
		}
	}
}
