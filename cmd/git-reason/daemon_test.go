package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// daemonLife bounds how long a script's git daemon may run, whatever
// happens to the script: it stops by itself.
const daemonLife = 10 * time.Minute

// cmdDaemon is the script command "daemon VAR BASEPATH": it starts
// git daemon on a free loopback port serving the repositories under
// BASEPATH (receive-pack enabled, so clones can push), sets $VAR to its
// git:// URL once it accepts connections, and stops it when the script
// ends (or after daemonLife). The daemon runs with the script's
// environment, so hooks it runs find the git-reason under test on PATH.
func cmdDaemon(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: daemon VAR BASEPATH")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	port := l.Addr().(*net.TCPAddr).Port
	ts.Check(l.Close())
	cmd := exec.Command("git", "daemon", "--reuseaddr", "--timeout=120", "--export-all", "--enable=receive-pack", "--informative-errors",
		"--listen=127.0.0.1", "--port="+strconv.Itoa(port), "--base-path="+ts.MkAbs(args[1]), ts.MkAbs(args[1]))
	for _, k := range []string{"PATH", "HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_NOSYSTEM", "LC_ALL", "TZ", "CI", "GIT_REASON_PROFILE"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	// Its log goes to a file (no pipe for a child it forks to hold
	// open), and it runs in a process group of its own, so that stopping
	// it stops the connections and hooks it started too.
	logf, err := os.Create(ts.MkAbs("daemon.log"))
	ts.Check(err)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	ts.Check(cmd.Start())
	logf.Close()
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	kill := func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	stop := time.AfterFunc(daemonLife, kill)
	ts.Defer(func() {
		stop.Stop()
		kill()
		<-done
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for deadline := time.Now().Add(30 * time.Second); ; {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-done:
			ts.Fatalf("git daemon exited before accepting connections")
		default:
		}
		if time.Now().After(deadline) {
			ts.Fatalf("git daemon did not accept connections on %s: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	ts.Setenv(args[0], fmt.Sprintf("git://%s/", addr))
}
