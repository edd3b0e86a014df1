package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/gitstore/git"
)

// NetProgram is the program that runs the network verbs: consult, serve,
// web and mcp. It is this command line with the network linked in
// (net/http, crypto/tls, html/template, the MCP SDK); git-reason itself
// links none of them, and runs a network verb by running NetProgram with
// the same arguments in its place, as git runs git-remote-https for a
// fetch over HTTPS so that no other command pays for libcurl. Their
// package initialisation alone took longer than the rest of a command's
// start, and every verb paid it, --version included.
const NetProgram = "git-reason--net"

// installCommand is README's install command, which installs git-reason
// and NetProgram side by side.
const installCommand = "go install -tags urfave_cli_no_docs,netgo ./cmd/..."

// networkVerbs are the verbs NetProgram runs.
var networkVerbs = map[string]bool{"consult": true, "serve": true, "web": true, "mcp": true}

// Servers runs the network verbs' servers; only NetProgram has them (see
// [MainNet]).
type Servers struct {
	// Peers serves sess's review endpoint to peers until ctx ends.
	Peers func(ctx context.Context, sess *ops.Session, req ops.ServeRequest) error
	// MCP serves the repository at req.Dir over MCP until ctx ends or the
	// host closes the connection.
	MCP func(ctx context.Context, req MCPRequest) error
	// Web serves the Reasoning page until ctx ends.
	Web func(ctx context.Context, req WebRequest) error
	// Session, when set, is the session every verb runs on instead of
	// locating and opening the repository anew: a program that runs many
	// command lines in one process on one repository (a resident session,
	// ops.Options.Resident) keeps what the session read between them.
	Session *ops.Session
}

// MCPRequest says what git reason mcp serves, and how.
type MCPRequest struct {
	Dir, Version string
	// Profile is the execution profile named by --profile ("": the
	// repository's reason.profile, else the default).
	Profile string
	// In and Out are the host's stdio, when HTTP is nil.
	In  io.Reader
	Out io.Writer
	// HTTP, when not nil, serves streamable HTTP instead, under serve's rules.
	HTTP *ops.ServeRequest
}

// WebRequest says where git reason web serves the Reasoning page.
type WebRequest struct {
	Listen string // a loopback address; port 0 picks a free one
	Open   func() (*ops.Session, error)
	// Ready is called once when the page listens, with its address (which
	// holds the token: for the user's eyes only) and a function minting a
	// one-time address (what a browser is handed on its command line).
	Ready func(url string, oneTime func() (string, error))
}

// untilStopped is ctx, ended by SIGTERM as well, for a verb that serves
// until it is stopped (web, serve, mcp): systemctl stop, docker stop and
// kill send SIGTERM, and a server must stop for them as it does for
// Ctrl-C (run's ctx), finishing the requests in flight and what it
// writes on a clean stop, with Ctrl-C's exit status. A one-shot command
// dies of SIGTERM (exit 143) once it has removed the locks it holds
// (removeLocksOnSignal), as git's own commands do.
//
// The one goroutine that receives SIGTERM (removeLocksOnSignal's) decides
// which: it ends ctx while a verb serves. With a receiver of its own here,
// a SIGTERM both received could stop the server, and the server return,
// before the other looked at serving, which then ended the process with
// the signal in the middle of its clean stop.
//
// Its cancel func is also where every serving verb ends, once its server
// has returned and written what it writes on a clean stop (a task cache,
// under its lock): a server gives up on a call that does not end (twice
// its grace after the stop), and the process ends with that call under
// way. The locks it still holds are removed then (git.RemoveLeft), as a
// signal's death removes them; left, each stopped every later write of
// its file, after 10 s, until a person removed it. The git processes
// those calls still wait for are then sent SIGTERM (git.ForwardLeft), as
// a signal's death passes it on: left, each outlived the process,
// orphaned (one run with no context to end it, on a file system that
// does not answer). A clean stop holds no lock and runs no git, and
// nothing is done.
func untilStopped(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	serving.Store(&cancel)
	return ctx, func() {
		serving.CompareAndSwap(&cancel, nil)
		cancel()
		git.RemoveLeft(leftWait)
		git.ForwardLeft(syscall.SIGTERM, leftWait)
	}
}

// leftWait bounds how long a server that has returned waits to remove
// the locks of the calls it gave up on, and again to end the git
// processes they run: one stuck inside a lock's create or rename, or a
// git's start (a file system that does not answer), must not hold up the
// exit.
const leftWait = time.Second

// serving ends the serving verb's context while a verb serves
// (untilStopped): its SIGTERM stops it as Ctrl-C does, rather than ending
// the process (removeLocksOnSignal).
var serving atomic.Pointer[context.CancelFunc]

// MainNet is [Main] with the network verbs run in this process, by s: it is
// NetProgram's main.
func MainNet(s Servers, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(&s, args, stdin, stdout, stderr)
}

// servers returns the Servers of the program running c, nil in git-reason.
func servers(c *cli.Context) *Servers {
	s, _ := c.App.Metadata["servers"].(*Servers)
	return s
}

// streams are the streams Main was given, before any verb wraps them.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

// forwarded is the exit status of NetProgram, run in this process's place:
// it has said all there is to say.
type forwarded int

func (f forwarded) Error() string   { return "" }
func (f forwarded) exitStatus() int { return int(f) }

// forward runs the command line in NetProgram. With this process's own
// streams it replaces this process (same pid, signals and exit status, so
// that a host stopping git reason mcp stops the server); otherwise (for a
// caller of Main inside a program, or where exec is not supported) it runs
// NetProgram as a child with the given streams and returns its exit status.
func forward(c *cli.Context) error {
	args, _ := c.App.Metadata["args"].([]string)
	path, err := netProgram()
	if err != nil {
		return err
	}
	argv := append([]string{NetProgram}, args[1:]...)
	std, _ := c.App.Metadata["streams"].(streams)
	if std.in == io.Reader(os.Stdin) && std.out == io.Writer(os.Stdout) && std.err == io.Writer(os.Stderr) {
		// A signal this process caught would be lost with the exec:
		// NetProgram never hears of it. An interrupt that came as a
		// server started (testscript stops a failed script's servers so)
		// left it serving until killed. Caught no more, a signal from
		// here on does to this process what it does to any program, and
		// NetProgram catches its own; a Ctrl-C caught before ends the
		// command here (SIGTERM, SIGHUP and SIGQUIT caught before end
		// it in removeLocksOnSignal).
		signal.Reset(append([]os.Signal{os.Interrupt}, endingSignals...)...)
		if c.Context.Err() != nil {
			return interruptedError{}
		}
		// Exec returns only when it failed (always, on Windows): then
		// NetProgram runs as a child, whose failure to start says why.
		_ = execProgram(path, argv, os.Environ())
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = std.in, std.out, std.err
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &exit):
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return forwarded(128 + int(ws.Signal()))
		}
		return forwarded(exit.ExitCode())
	}
	return fmt.Errorf("run %s: %v", path, err)
}

// execProgram is syscall.Exec; a test records the exec in its place.
var execProgram = syscall.Exec

// netProgram finds NetProgram: beside this program's own executable,
// where go install puts both, else on PATH.
func netProgram() (string, error) {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), NetProgram)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath(NetProgram); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%s, which runs this verb, is neither beside git-reason nor on PATH: install both with '%s'", NetProgram, installCommand)
}
