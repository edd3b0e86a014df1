package harness

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// StopAtCleanup stops cmd, started, when tb ends as a user stops a server:
// an interrupt, then a kill after 10 seconds; it returns once the process
// has exited. Cleanups registered before it run after the process is gone.
func StopAtCleanup(tb testing.TB, cmd *exec.Cmd) {
	tb.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
}

// StartPipes starts cmd with a pipe to its standard input and one from
// its standard output, the way a test speaks to a server or a batch git
// process line by line.
func StartPipes(cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	return in, out, nil
}

// StartPiped is StartPipes for a test: a failure to start fails tb.
func StartPiped(tb testing.TB, cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser) {
	tb.Helper()
	in, out, err := StartPipes(cmd)
	if err != nil {
		tb.Fatalf("start %s: %v", strings.Join(cmd.Args, " "), err)
	}
	return in, out
}

// PageClient is a browser's client of the Reasoning page: it keeps the
// cookie that the address with the token (or a one-time code) sets, and
// gives up on a request after timeout.
func PageClient(timeout time.Duration) *http.Client {
	jar, _ := cookiejar.New(nil) // fails only for options given
	return &http.Client{Jar: jar, Timeout: timeout}
}

// GetPage fetches u with c and returns the body; a failed request or a
// status other than 200 fails tb.
func GetPage(tb testing.TB, c *http.Client, u string) string {
	tb.Helper()
	res, err := c.Get(u)
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		tb.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		tb.Fatalf("GET %s: %d %s", u, res.StatusCode, b)
	}
	return string(b)
}

// Run runs cmd, whose Stdout and Stderr it sets, and returns what the
// program wrote to each and its exit status; a program that cannot start
// or wait fails the test.
func Run(tb testing.TB, cmd *exec.Cmd) (stdout, stderr string, code int) {
	tb.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		tb.Fatalf("%s: %v", strings.Join(cmd.Args, " "), err)
	}
	return out.String(), errb.String(), code
}

// SyncBuffer is a buffer that goroutines may write while a test reads it:
// a process's stderr, a server's output.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Close does nothing: a SyncBuffer is an io.WriteCloser for what closes
// its output when done.
func (s *SyncBuffer) Close() error { return nil }
