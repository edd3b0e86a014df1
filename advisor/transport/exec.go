package transport

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// execAdapter runs a declared command non-interactively (transport cli).
//
// The prompt is written to stdin, which is then closed; the answer is
// stdout, read up to Target.MaxOutput (beyond it the group is killed and the
// answer is malformed). The command runs in its own process group with an
// environment of only PATH, HOME, LANG, LC_ALL, TMPDIR, USER and the
// declared credential variable, in Target.Dir when set. When ctx is done
// the whole group gets SIGTERM and, after killGrace, SIGKILL, so a child
// that ignores SIGTERM still dies before Ask returns; members left behind
// by a command that exited are killed too.
//
// Exit status conventions, for whoever writes a command to declare:
//
//   - 0 with text on stdout: the answer. If the output holds a JSON object
//     with a string "model" field, that is the reported model.
//   - 0 with blank stdout: empty.
//   - non-zero, stderr mentioning a rate limit ("rate limit", "too many
//     requests", "quota", "429"): rate_limit, with RetryAfter from "retry
//     after N[ms|s|m]" or "try again in N[ms|s|m]" when stderr says so.
//   - 77 (EX_NOPERM), or stderr mentioning authentication ("unauthorized",
//     "authentication", "not logged in", "api key", "invalid key",
//     "credential", "401", "403"): authentication.
//   - any other non-zero status, or death by a signal: unavailable.
//
// Stderr is read (capped) only to classify; it never reaches a Failure.
type execAdapter struct{}

// killGrace is how long a process group has between SIGTERM and SIGKILL.
const killGrace = 500 * time.Millisecond

// pipeGrace bounds how long Ask waits for stdout and stderr to close after
// the command exited (a leftover child may hold them).
const pipeGrace = time.Second

// stderrLimit caps the stderr kept for classification.
const stderrLimit = 64 << 10

// exitNoPerm is EX_NOPERM from sysexits.h.
const exitNoPerm = 77

var envAllowlist = []string{"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "USER"}

// Ask implements [Adapter].
func (execAdapter) Ask(ctx context.Context, t Target, req Request) (Answer, error) {
	if len(t.Command) == 0 || t.Command[0] == "" {
		return Answer{}, failf(Unavailable, "advisor %s declares no command", t.ID)
	}
	if f := contextFailure(ctx); f != nil {
		return Answer{}, f
	}
	env, f := minimalEnv(t.Credential)
	if f != nil {
		return Answer{}, f
	}
	if t.Dir != "" {
		// A repository's advisor, run in its work tree: Python neither
		// writes its bytecode there, which would change what trust
		// covers at every run, nor reads a pulled __pycache__, which
		// trust does not cover (an unchecked-hash .pyc runs whatever
		// its source says).
		env = append(env, "PYTHONDONTWRITEBYTECODE=1", "PYTHONPYCACHEPREFIX="+os.DevNull)
	}
	limit := t.maxOutput()
	stdout := &capBuffer{limit: limit, overflow: make(chan struct{})}
	stderr := &capBuffer{limit: stderrLimit}
	cmd := exec.Command(t.Command[0], t.Command[1:]...)
	cmd.Stdin = strings.NewReader(Prompt(req))
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.Env = env
	cmd.Dir = t.Dir
	cmd.WaitDelay = pipeGrace
	ownGroup(cmd)
	if err := startTracked(cmd); err != nil {
		return Answer{}, startFailure(t.Command[0], err)
	}
	done := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		// Whatever the command left running is killed before the
		// command leaves groups, so that a signal forwarded at any
		// moment finds either the group or nothing of ours in it: the
		// process forwarding it dies next, and Ask would not get to
		// kill it.
		signalGroup(cmd, syscall.SIGKILL)
		groups.cmds.Delete(cmd)
		if reapedHook != nil {
			reapedHook()
		}
		done <- err
	}()

	select {
	case err := <-done:
		if stdout.overflowed() {
			return Answer{}, failf(Malformed, "output larger than %d bytes", limit)
		}
		if err != nil && !(errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState.Success()) {
			return Answer{}, exitFailure(err, stderr.String())
		}
		out := stdout.String()
		if strings.TrimSpace(out) == "" {
			return Answer{}, failf(Empty, "the command printed nothing")
		}
		return Answer{Output: out, Model: reportedModel(out)}, nil
	case <-ctx.Done():
		stopGroup(cmd, done)
		return Answer{}, contextFailure(ctx)
	case <-stdout.overflow:
		stopGroup(cmd, done)
		return Answer{}, failf(Malformed, "output larger than %d bytes", limit)
	}
}

// stopGroup asks the group to stop, gives it killGrace, then kills it and
// waits for the command to be reaped (members that ignored SIGTERM are
// killed once it is).
func stopGroup(cmd *exec.Cmd, done <-chan error) {
	signalGroup(cmd, syscall.SIGTERM)
	select {
	case <-done:
		return
	case <-time.After(killGrace):
	}
	signalGroup(cmd, syscall.SIGKILL)
	<-done
}

// reapedHook, set by tests, runs in Ask's waiting goroutine once the
// command is reaped, just before Ask hears of it.
var reapedHook func()

// groups are the commands Ask started and has not yet reaped, for
// ForwardToGroups. gate is read-held while one is started, and taken for
// good by ForwardToGroups.
var groups struct {
	gate    sync.RWMutex
	closing sync.Once // ForwardToGroups takes gate for good, once
	cmds    sync.Map  // *exec.Cmd
}

// startTracked starts cmd and keeps it in groups; Ask's waiting goroutine
// removes it once the command is reaped and its group killed.
func startTracked(cmd *exec.Cmd) error {
	groups.gate.RLock()
	defer groups.gate.RUnlock()
	err := cmd.Start()
	if err == nil {
		groups.cmds.Store(cmd, nil)
	}
	return err
}

// ForwardToGroups sends sig to the process group of every advisor command
// under way, for a process about to die of sig, as git passes a signal
// that ends it on to the commands it runs. Each runs in a group of its
// own, which a signal sent to this process's group does not reach:
// ended by SIGTERM (timeout(1), a CI job cancelled) mid-consult, git
// reason died and left its advisors running, orphans still asking their
// models. Once it has run no advisor is started again (Ask waits for
// ever).
// It may run more than once (the signal's handler and the command's own
// path, git having died of the same signal, both end the process): the
// gate is taken once, and each call signals the groups.
func ForwardToGroups(sig syscall.Signal) {
	groups.closing.Do(groups.gate.Lock)
	groups.cmds.Range(func(c, _ any) bool {
		signalGroup(c.(*exec.Cmd), sig)
		return true
	})
}

// minimalEnv builds the child's environment from the allowlist and the
// declared credential variable, read here, at the moment of the call.
func minimalEnv(credential string) ([]string, *Failure) {
	var env []string
	for _, k := range envAllowlist {
		if v, ok := os.LookupEnv(k); ok && k != credential {
			env = append(env, k+"="+v)
		}
	}
	if credential != "" {
		v := os.Getenv(credential)
		if v == "" {
			return nil, failf(Authentication, "credential variable %s is not set", credential)
		}
		env = append(env, credential+"="+v)
	}
	return env, nil
}

func startFailure(name string, err error) *Failure {
	switch {
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		return failf(Unavailable, "command %s not found", name)
	case errors.Is(err, fs.ErrPermission):
		return failf(Unavailable, "command %s is not executable", name)
	}
	return failf(Unavailable, "command %s could not start", name)
}

var (
	rateWords   = lazyRegexp(`(?i)rate[ _-]?limit|too many requests|quota|\b429\b`)
	execAuth    = lazyRegexp(`(?i)unauthori[sz]ed|authenticat|not logged in|api[ _-]?key|invalid key|credential|\b401\b|\b403\b`)
	retryPhrase = lazyRegexp(`(?i)(?:retry[ _-]?after|try again in)\D{0,10}?(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?)?\b`)
)

// exitFailure classifies a command that exited unsuccessfully.
func exitFailure(err error, stderr string) *Failure {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return failf(Unavailable, "the command failed to run")
	}
	code := ee.ExitCode()
	switch {
	case code < 0:
		return failf(Unavailable, "the command was killed by a signal")
	case rateWords().MatchString(stderr):
		f := failf(RateLimit, "the command exited with status %d and reported a rate limit", code)
		f.RetryAfter = stderrRetryAfter(stderr)
		return f
	case code == exitNoPerm, execAuth().MatchString(stderr):
		return failf(Authentication, "the command exited with status %d and reported an authentication failure", code)
	}
	return failf(Unavailable, "the command exited with status %d", code)
}

// stderrRetryAfter reads "retry after 7s", "retry-after: 7", "try again in
// 500ms" and the like; a bare number is seconds.
func stderrRetryAfter(stderr string) time.Duration {
	m := retryPhrase().FindStringSubmatch(stderr)
	if m == nil {
		return 0
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil || n < 0 || n > 1e9 {
		return 0
	}
	unit := time.Second
	switch u := strings.ToLower(m[2]); {
	case strings.HasPrefix(u, "ms"), strings.HasPrefix(u, "milli"):
		unit = time.Millisecond
	case strings.HasPrefix(u, "m"):
		unit = time.Minute
	}
	return time.Duration(n * float64(unit))
}

// reportedModel returns the "model" string of the first JSON object in out
// that has a non-blank one, or "".
func reportedModel(out string) string {
	model := ""
	eachObject(out, func(obj map[string]json.RawMessage) bool {
		var m string
		if json.Unmarshal(obj["model"], &m) == nil {
			model = strings.TrimSpace(m)
		}
		return model != ""
	})
	return model
}

// capBuffer keeps at most limit bytes and silently drops the rest. With an
// overflow channel it closes it the first time more than limit arrives.
type capBuffer struct {
	mu       sync.Mutex
	buf      []byte
	limit    int64
	over     bool
	overflow chan struct{}
}

func (c *capBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := c.limit - int64(len(c.buf))
	if int64(len(p)) <= room {
		c.buf = append(c.buf, p...)
		return len(p), nil
	}
	if room > 0 {
		c.buf = append(c.buf, p[:room]...)
	}
	if !c.over {
		c.over = true
		if c.overflow != nil {
			close(c.overflow)
		}
	}
	return len(p), nil
}

func (c *capBuffer) overflowed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.over
}

func (c *capBuffer) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.buf)
}

// lazyRegexp compiles expr on first use, so that a command that runs no
// advisor does not pay for it at start-up.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
