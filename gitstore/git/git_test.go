package git

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunEnvironment: every git gets prompts off and the C locale, the
// variables Unset names are gone, and the rest of the caller's
// environment (GIT_DIR) still reaches git.
func TestRunEnvironment(t *testing.T) {
	dir := t.TempDir()
	if _, err := Run(context.Background(), dir, "init", "-q", "--bare", "r.git"); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_DIR", filepath.Join(dir, "r.git"))
	t.Setenv("LC_ALL", "de_DE.UTF-8")
	t.Setenv("GIT_TERMINAL_PROMPT", "1")
	t.Setenv("GIT_CONFIG", "/nonexistent")
	out, err := Cmd{Dir: dir, Args: []string{"var", "GIT_EDITOR"}, Env: []string{"GIT_EDITOR=ed"}}.Run(context.Background())
	if err != nil || strings.TrimSpace(string(out)) != "ed" {
		t.Fatalf("git var GIT_EDITOR = %q, %v", out, err)
	}
	cmd := Cmd{Dir: dir, Args: []string{"rev-parse", "--git-dir"}, Unset: []string{"GIT_CONFIG"}}.Exec(context.Background())
	// Later entries win (os/exec keeps the last of a name).
	if last(cmd.Env, "GIT_TERMINAL_PROMPT=") != "0" || last(cmd.Env, "LC_ALL=") != "C" || last(cmd.Env, "GIT_CONFIG=") != "" {
		t.Errorf("environment: GIT_TERMINAL_PROMPT=%q LC_ALL=%q GIT_CONFIG=%q", last(cmd.Env, "GIT_TERMINAL_PROMPT="),
			last(cmd.Env, "LC_ALL="), last(cmd.Env, "GIT_CONFIG="))
	}
	out, err = Run(context.Background(), dir, "rev-parse", "--git-dir")
	if err != nil || strings.TrimSpace(string(out)) != filepath.Join(dir, "r.git") {
		t.Errorf("GIT_DIR did not reach git: %q, %v", out, err)
	}
}

func last(env []string, prefix string) string {
	v := ""
	for _, kv := range env {
		if s, ok := strings.CutPrefix(kv, prefix); ok {
			v = s
		}
	}
	return v
}

// TestRunMaxOutput: past MaxOutput git is killed and the error says so,
// holding none of its output, even when what writes to the pipe is a
// process git started (an alias's command) that would write for ever;
// below it the output is whole.
func TestRunMaxOutput(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	flood := Cmd{Dir: dir, Global: []string{"-c", "alias.flood=!yes"}, Args: []string{"flood"}, MaxOutput: 1 << 20}
	out, err := flood.Run(ctx)
	if !errors.Is(err, ErrOutputLimit) || out != nil || ctx.Err() != nil {
		t.Fatalf("an endless output under MaxOutput: %d bytes, %v (context: %v)", len(out), err, ctx.Err())
	}
	out, err = Cmd{Dir: dir, Args: []string{"version"}, MaxOutput: 1 << 20}.Run(ctx)
	if err != nil || !strings.HasPrefix(string(out), "git version ") {
		t.Errorf("git version under MaxOutput: %q, %v", out, err)
	}
}

// TestRunError: a git that fails is one *Error naming the command (not
// the global options) and git's last line on stderr, in English.
func TestRunError(t *testing.T) {
	t.Setenv("LANGUAGE", "de")
	dir := t.TempDir()
	_, err := Cmd{Dir: dir, Global: []string{"--git-dir=" + filepath.Join(dir, "none")}, Args: []string{"rev-parse", "HEAD"}}.Run(context.Background())
	var ge *Error
	if !errors.As(err, &ge) || ge.Code == 0 {
		t.Fatalf("error %v (%T), want an *Error", err, err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "git rev-parse HEAD: fatal: not a git repository") || strings.Contains(msg, "--git-dir") || strings.Contains(msg, "\n") {
		t.Errorf("error %q", msg)
	}
}

// TestRunErrorTraced: with GIT_TRACE=1, git writes its trace of the
// command to stderr before its message; the *Error's Stderr is git's
// message alone, so that its first line and its last are git's verdict.
func TestRunErrorTraced(t *testing.T) {
	t.Setenv("GIT_TRACE", "1")
	t.Setenv("GIT_TRACE_SETUP", "1")
	dir := t.TempDir()
	_, err := Cmd{Dir: dir, Global: []string{"--git-dir=" + filepath.Join(dir, "none")}, Args: []string{"rev-parse", "HEAD"}}.Run(context.Background())
	var ge *Error
	if !errors.As(err, &ge) {
		t.Fatalf("error %v (%T), want an *Error", err, err)
	}
	if !strings.HasPrefix(ge.Stderr, "fatal: not a git repository") || strings.Contains(ge.Stderr, "trace") {
		t.Errorf("stderr %q, want git's message alone", ge.Stderr)
	}
	for _, l := range []string{"fatal: not a git repository", "remote: 12:34:56.789012 git.c:460 x", "12:34:56 git.c:460 x", "12:34:56.789012 gitc x"} {
		if traceLine(l) {
			t.Errorf("%q taken for a trace line", l)
		}
	}
}

// TestLock: WriteFile replaces the file with the mode asked for and
// leaves no lock; a lock another holds is waited for up to the wait and
// never taken over, however old; a failed commit leaves the old content.
func TestLock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "f")
	for _, c := range []struct {
		data string
		mode os.FileMode
		sync bool
	}{{"new", 0o600, false}, {"newer", 0o644, true}} {
		if err := WriteFile(path, []byte(c.data), c.mode, 0, c.sync); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		fi, serr := os.Stat(path)
		if err != nil || serr != nil || string(got) != c.data || fi.Mode().Perm() != c.mode {
			t.Fatalf("after WriteFile(%q, %o): %q %v, mode %v", c.data, c.mode, got, err, fi.Mode())
		}
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("left %d files, want only the target", len(entries))
	}

	held, err := TakeLock(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-24 * time.Hour)
	os.Chtimes(path+".lock", old, old)
	start := time.Now()
	err = WriteFile(path, []byte("late"), 0o600, 100*time.Millisecond, false)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), path+".lock") || time.Since(start) < 100*time.Millisecond {
		t.Errorf("write past a held lock: %v after %v", err, time.Since(start))
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		held.Commit([]byte("holder"), 0)
	}()
	if err := WriteFile(path, []byte("after"), 0o600, 5*time.Second, false); err != nil {
		t.Fatalf("write after the holder let go: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "after" {
		t.Errorf("content %q, want the second writer's", got)
	}

	target := filepath.Join(dir, "d")
	if err := os.MkdirAll(filepath.Join(target, "child"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(target, []byte("x"), 0o600, 0, false); err == nil {
		t.Fatal("WriteFile over a non-empty directory succeeded")
	}
	if _, err := os.Stat(target + ".lock"); err == nil {
		t.Error("a failed write left its lock")
	}
}

// TestRemoveLeft: a server that returns removes the locks its calls
// still hold (RemoveLeft). After a clean stop it holds none, and locks
// are taken as before; a call inside a lock's create (a file system that
// does not answer, here the gate held) delays it by its wait alone.
// ForwardLeft, running no git, leaves gits to start as before.
func TestRemoveLeft(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if RemoveLeft(time.Second) {
		t.Error("RemoveLeft with no lock held says it removed one")
	}
	if !held.gate.TryRLock() {
		t.Fatal("after RemoveLeft held nothing, no lock is taken any more")
	}
	start := time.Now()
	RemoveLeft(100 * time.Millisecond)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("RemoveLeft waited %v for a lock's create under way, want its wait", took)
	}
	held.gate.RUnlock()
	afterLeft(t, "a write after RemoveLeft held nothing", "no lock is taken any more", func() error {
		return WriteFile(path, []byte("after"), 0o600, 0, false)
	})
	// ForwardLeft likewise: no git running (a clean stop), it signals
	// none and gits start as before.
	if ForwardLeft(syscall.SIGTERM, time.Second) {
		t.Error("ForwardLeft with no git running says it signalled one")
	}
	dir := t.TempDir()
	afterLeft(t, "a git after ForwardLeft ran none", "no git is started any more", func() error {
		_, err := Run(context.Background(), dir, "version")
		return err
	})
}

// afterLeft runs what, which must succeed within 10 s: else it waits for
// a gate RemoveLeft or ForwardLeft kept, and says why.
func afterLeft(t *testing.T, what, why string, f func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s waits: %s", what, why)
	}
}

// TestAppend: AppendFile and AppendAt add data at the end of a file that
// is still the length the caller read (any length for AppendFile with a
// negative size), and leave a file of another length as it is
// (ErrMoved); AppendFile makes a missing file only when told to create
// it, and AppendAt never does.
func TestAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	for _, c := range []struct {
		name string
		add  func() error
		want string // the file after
		err  error  // errors.Is of the error, nil for none
	}{
		{"AppendAt of a missing file", func() error { return AppendAt(path, []byte("x"), 0) }, "", os.ErrNotExist},
		{"AppendFile of a missing file", func() error { return AppendFile(path, []byte("x"), 0o600, 0, false, -1) }, "", os.ErrNotExist},
		{"AppendFile creating", func() error { return AppendFile(path, []byte("ab"), 0o600, 0, true, 0) }, "ab", nil},
		{"AppendAt at its length", func() error { return AppendAt(path, []byte("cd"), 2) }, "abcd", nil},
		{"AppendAt at another length", func() error { return AppendAt(path, []byte("ef"), 2) }, "abcd", ErrMoved},
		{"AppendFile at another length", func() error { return AppendFile(path, []byte("ef"), 0o600, 0, false, 3) }, "abcd", ErrMoved},
		{"AppendFile at its length", func() error { return AppendFile(path, []byte("ef"), 0o600, 0, false, 4) }, "abcdef", nil},
		{"AppendFile at any length", func() error { return AppendFile(path, []byte("g"), 0o600, 0, false, -1) }, "abcdefg", nil},
	} {
		err := c.add()
		if (c.err == nil && err != nil) || (c.err != nil && !errors.Is(err, c.err)) {
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
		}
		if got, _ := os.ReadFile(path); string(got) != c.want {
			t.Errorf("%s: the file holds %q, want %q", c.name, got, c.want)
		}
	}
	if _, err := os.Stat(path + ".lock"); err == nil {
		t.Error("an append left its lock")
	}
}

// TestMakeKey: a missing key, and a file holding none (empty, as a crash
// between creating the file and writing it left it before MakeKey, or cut
// short), is made: 32 bytes, mode 0600, no lock left; a whole key is read
// and kept; processes racing for a missing key all get the one the first
// made; a file that cannot be read is an error and stays.
func TestMakeKey(t *testing.T) {
	dir := t.TempDir()
	for _, before := range []string{"", "short"} {
		path := filepath.Join(dir, "key-"+before)
		if before != "" {
			if err := os.WriteFile(path, []byte(before), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "empty"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{path, filepath.Join(dir, "empty")} {
			key, made, err := MakeKey(p, 32, 0)
			got, rerr := os.ReadFile(p)
			fi, serr := os.Stat(p)
			if err != nil || rerr != nil || serr != nil || !made || len(key) != 32 || string(got) != string(key) || fi.Mode().Perm() != 0o600 {
				t.Fatalf("MakeKey(%s) = %x, %v, %v; file %x (%v), mode %v", filepath.Base(p), key, made, err, got, rerr, fi.Mode())
			}
			again, made, err := MakeKey(p, 32, 0)
			if err != nil || made || string(again) != string(key) {
				t.Fatalf("MakeKey(%s) again = %x, %v, %v: want the key kept", filepath.Base(p), again, made, err)
			}
			if _, err := os.Stat(p + ".lock"); err == nil {
				t.Fatal("MakeKey left its lock")
			}
		}
	}

	path := filepath.Join(dir, "raced")
	keys := make(chan []byte, 8)
	for range cap(keys) {
		go func() {
			key, _, err := MakeKey(path, 32, 5*time.Second)
			if err != nil {
				t.Error(err)
			}
			keys <- key
		}()
	}
	first := <-keys
	for range cap(keys) - 1 {
		if k := <-keys; string(k) != string(first) || len(k) != 32 {
			t.Fatalf("racing MakeKey gave %x and %x", first, k)
		}
	}

	unreadable := filepath.Join(dir, "dir")
	if err := os.Mkdir(unreadable, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, _, err := MakeKey(unreadable, 32, 0); err == nil {
		t.Fatal("MakeKey over a directory succeeded")
	}
	if fi, err := os.Stat(unreadable); err != nil || !fi.IsDir() {
		t.Fatalf("the directory is gone: %v", err)
	}
}
