package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Error is a git command that failed: its arguments, exit status and what
// it said on stderr.
type Error struct {
	Args   []string
	Code   int            // -1 when a signal ended it
	Signal syscall.Signal // the signal that ended it, if one did
	Stderr string
}

func (e *Error) Error() string {
	status := fmt.Sprintf("exit status %d", e.Code)
	if e.Signal != 0 {
		status = "killed by signal " + e.Signal.String()
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), LastLine(e.Stderr, status))
}

// Interrupted reports whether err is a git command that SIGINT ended: a
// terminal's Ctrl-C reaches the git processes of a command as it reaches
// the command, and one may die of it before the command sees it.
func Interrupted(err error) bool { return KilledBy(err) == syscall.SIGINT }

// KilledBy is the signal that ended the git command err is, if a signal
// did (0 otherwise).
func KilledBy(err error) syscall.Signal {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Signal
	}
	return 0
}

// LastLine returns the last non-empty line of s (git puts its verdict
// there), or def when there is none.
func LastLine(s, def string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return def
}

// FirstLine returns the first non-empty line of s that is not one of
// git's hints or warnings, with git's "fatal: " or "error: " taken off, or
// def when there is none. A fetch or push that cannot reach its remote
// says why first (the path is no repository, the host does not resolve)
// and ends with the same advice whatever went wrong ("and the repository
// exists."), so its first line is the one that says what to fix.
func FirstLine(s, def string) string {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "hint: ") || strings.HasPrefix(l, "warning: ") {
			continue
		}
		return strings.TrimPrefix(strings.TrimPrefix(l, "fatal: "), "error: ")
	}
	return def
}

// Env is the environment every git process gets: the caller's, which
// carries the user's configuration (GIT_DIR, credential helpers, ssh
// settings), with git's prompts off and a fixed locale.
func Env(extra ...string) []string {
	return append(append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C"), extra...)
}

// Cmd is one git command.
type Cmd struct {
	Dir    string    // its working directory; "" for this process's
	Global []string  // options before the command (--git-dir=…), not named in errors
	Args   []string  // the command and its arguments
	Env    []string  // added to Env()
	Unset  []string  // variables removed from its environment
	Stdin  io.Reader // its standard input, if any
	// Detached runs git in a process group of its own, for a command
	// that must not be killed half-way (a transaction whose locks nothing
	// would take over): a signal sent to this process's group, as a
	// terminal sends Ctrl-C and a job control system its stop, does not
	// reach it, and it finishes after this process has died.
	Detached bool
	// Progress, when set, is given git's progress lines as they come
	// (git's --progress; what the remote says, its "remote:" lines,
	// included), not its errors, which the error of Run carries.
	Progress io.Writer
	// MaxOutput, when positive, is the most bytes of standard output Run
	// and Start keep, for a command that changes nothing and whose output
	// a stranger's objects size (a diff, a commit's message): past it git
	// is killed and the error is ErrOutputLimit, so that no more than it
	// is ever held here.
	MaxOutput int64
}

// ErrOutputLimit is the error of a command whose output passed its
// MaxOutput.
var ErrOutputLimit = errors.New("its output is over the limit")

// cappedOutput keeps at most max bytes written to it; the write that
// passes max calls over (which kills git) and fails, so that the copy
// from git's pipe stops there: the pipe is closed once git has died,
// and a process git started that still writes to it gets SIGPIPE.
type cappedOutput struct {
	buf  bytes.Buffer
	max  int64
	over func()
	hit  bool
}

func (w *cappedOutput) Write(p []byte) (int, error) {
	if int64(w.buf.Len())+int64(len(p)) > w.max {
		w.hit = true
		w.over()
		return 0, ErrOutputLimit
	}
	return w.buf.Write(p)
}

// Exec is the command as an *exec.Cmd, for a caller that streams its
// output or input; it is ended when ctx is.
func (c Cmd) Exec(ctx context.Context) *exec.Cmd {
	processes.Add(1)
	cmd := exec.CommandContext(ctx, "git", append(append([]string(nil), c.Global...), c.Args...)...)
	cmd.Dir = c.Dir
	cmd.Env = Env(c.Env...)
	for _, k := range c.Unset {
		cmd.Env = slices.DeleteFunc(cmd.Env, func(kv string) bool { return strings.HasPrefix(kv, k+"=") })
	}
	cmd.Stdin = c.Stdin
	if c.Detached {
		ownGroup(cmd)
	}
	// Ended as git ends its own children (run-command's cleanup), with a
	// signal git catches: git removes the locks and temporary files it
	// holds, then dies of it. Killed (exec's default, SIGKILL), a git
	// fetch stopped by Ctrl-C left the remote-tracking ref it was moving
	// locked, and every later pull failed until a person removed the
	// lock. One that has not died after killGrace is killed (not by
	// exec's WaitDelay, which would also end the wait for a git that
	// exited well but left its pipes to a child, an ssh control master,
	// with an error).
	cmd.Cancel = func() error {
		err := cmd.Process.Signal(os.Interrupt)
		if err == nil {
			p := cmd.Process
			time.AfterFunc(killGrace, func() { _ = p.Kill() })
		}
		return err
	}
	return cmd
}

// killGrace is how long a git sent SIGINT by a cancelled command has to
// end before it is killed: git removes its locks in milliseconds.
const killGrace = 5 * time.Second

// processes counts the git commands Exec made (Processes).
var processes atomic.Int64

// Processes is how many git processes this process made to start (each
// Exec, which Run and Start call): a cost that should not grow with what
// one command handles, a process a task say.
func Processes() int64 { return processes.Load() }

// Run runs the command and returns its stdout. A git that exits non-zero
// is an *Error (and its stdout is still returned); one that could not
// start is another error.
func (c Cmd) Run(ctx context.Context) ([]byte, error) {
	wait, err := c.Start(ctx)
	if err != nil {
		return nil, err
	}
	return wait()
}

// Start starts the command and returns a function that waits for it to
// end and returns what Run returns, for a caller with other work to do
// while git runs. An error is one starting it (Failed's shape).
func (c Cmd) Start(ctx context.Context) (wait func() ([]byte, error), err error) {
	cmd := c.Exec(ctx)
	var stderr bytes.Buffer
	stdout := &cappedOutput{max: c.MaxOutput, over: func() { _ = cmd.Process.Kill() }}
	if c.MaxOutput <= 0 {
		stdout.max = math.MaxInt64
	}
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	if c.Progress != nil {
		cmd.Stderr = io.MultiWriter(&stderr, &progressLines{w: c.Progress})
	}
	if !c.Detached {
		// Started and known to Forward, or not started once Forward
		// has run (this process is dying of a signal).
		running.gate.RLock()
		defer running.gate.RUnlock()
	}
	if err := cmd.Start(); err != nil {
		return nil, c.Failed(err, "")
	}
	if !c.Detached {
		running.procs.Store(cmd.Process, nil)
	}
	return func() ([]byte, error) {
		err := cmd.Wait()
		running.procs.Delete(cmd.Process)
		switch {
		case stdout.hit:
			return nil, fmt.Errorf("git %s: %w (%d bytes)", strings.Join(c.Args, " "), ErrOutputLimit, c.MaxOutput)
		case err != nil:
			return stdout.buf.Bytes(), c.Failed(err, stderr.String())
		}
		return stdout.buf.Bytes(), nil
	}, nil
}

// running are the git processes Start started and their waits have not
// yet seen end (but Detached ones), for Forward. gate is read-held while
// one is started, and taken for good by Forward.
var running struct {
	gate  sync.RWMutex
	procs sync.Map // *os.Process
}

// Forward sends sig to every git process this process runs (Start's, but
// the Detached), for a process about to die of sig, as git passes on a
// signal that ends it to the commands it runs (run-command's cleanup):
// git then removes its own locks and temporary files and dies of it.
// Sent SIGTERM alone, git reason died and left its git fetch running,
// holding the locks of the refs it moved. Once it has run no git is
// started again (Start waits for ever).
func Forward(sig os.Signal) {
	running.gate.Lock()
	forward(sig)
}

// forward sends sig to every git process running, the gate taken; it
// returns how many.
func forward(sig os.Signal) (n int) {
	running.procs.Range(func(p, _ any) bool {
		_ = p.(*os.Process).Signal(sig)
		n++
		return true
	})
	return n
}

// ForwardLeft is Forward for a process about to exit while calls it gave
// up on may still run (a server stopped with a call that did not end, see
// RemoveLeft): the git processes they wait for are sent sig, as a
// signal's death passes it on, and no git is started again. Left running,
// each outlived the process (a git on a file system that does not answer,
// one run with no context to end it), orphaned, holding its own locks.
// Running none (a clean stop), it changes nothing. It waits at most wait
// for a git being started (a fork that does not return), and then leaves
// them running, so that such a call never holds up the exit. It reports
// whether it sent sig to any.
func ForwardLeft(sig os.Signal, wait time.Duration) bool {
	return takeIfAny(&running.gate, wait, func() int { return forward(sig) })
}

// Failed is the error of the command having ended with err after writing
// stderr: an *Error when git exited non-zero, whose Stderr is what git
// said without its own tracing (see untraced).
func (c Cmd) Failed(err error, stderr string) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		e := &Error{Args: c.Args, Code: ee.ExitCode(), Stderr: untraced(stderr)}
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			e.Signal = ws.Signal()
		}
		return e
	}
	return fmt.Errorf("run git %s: %w", c.name(), err)
}

func (c Cmd) name() string {
	if len(c.Args) == 0 {
		return ""
	}
	return c.Args[0]
}

// Run runs git with args in dir and returns its stdout, as Cmd.Run.
func Run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return Cmd{Dir: dir, Args: args}.Run(ctx)
}

// untraced is s without the lines git's tracing writes to stderr when the
// user sets GIT_TRACE (or another GIT_TRACE_* variable) to 1, 2 or true,
// so that a message read from git's stderr (its first line, its last) is
// git's message, not a trace of the command: each such line begins with
// the time and the source line that wrote it, "12:34:56.789012 git.c:460".
func untraced(s string) string {
	lines := strings.SplitAfter(s, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if !traceLine(l) {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "")
}

// traceLine reports whether l begins as a line of git's tracing does:
// HH:MM:SS.uuuuuu, a space, then FILE:LINE and a space.
func traceLine(l string) bool {
	if len(l) < 16 || l[2] != ':' || l[5] != ':' || l[8] != '.' || l[15] != ' ' {
		return false
	}
	for i, c := range l[:15] {
		if i != 2 && i != 5 && i != 8 && (c < '0' || c > '9') {
			return false
		}
	}
	where, _, ok := strings.Cut(l[16:], " ")
	file, line, ok2 := strings.Cut(where, ":")
	if !ok || !ok2 || file == "" || line == "" {
		return false
	}
	for _, c := range line {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// progressLines passes on git's progress: each line (ended by a carriage
// return, as a count rewritten in place, or a newline) except git's
// errors, warnings and hints, which the caller reports in its own words.
type progressLines struct {
	w    io.Writer
	line []byte
}

func (p *progressLines) Write(b []byte) (int, error) {
	for _, c := range b {
		p.line = append(p.line, c)
		if c != '\r' && c != '\n' {
			continue
		}
		if !gitMessage(p.line) {
			_, _ = p.w.Write(p.line) // a terminal that cannot be written to shows nothing
		}
		p.line = p.line[:0]
	}
	return len(b), nil
}

// gitMessage reports whether line is one of git's own messages, not its
// progress.
func gitMessage(line []byte) bool {
	for _, prefix := range []string{"fatal: ", "error: ", "warning: ", "hint: "} {
		if bytes.HasPrefix(line, []byte(prefix)) {
			return true
		}
	}
	return false
}

// endedEarly reports whether err says a reader met the end of what it
// read before the end it expected: the process writing it has exited.
func endedEarly(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}
