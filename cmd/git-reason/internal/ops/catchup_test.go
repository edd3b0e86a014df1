package ops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"git-reason/gitstore"
	"git-reason/reliability/harness"
)

// A clone's first catch-up remembers every tracking ref as integrated
// (saveCatchUp): fetched.heads and fetched.loose are written, and their
// digest made, without an allocation a ref (fmt.Fprintf allocated two a
// line and the buffer's doublings their copies; the digest converted
// each name and value to bytes and lowered a copy of the value: 10 a
// ref in all).
func TestFirstCatchUpMemoAllocations(t *testing.T) {
	const n = 2000
	sess, _, _ := residentSession(t)
	var refs []gitstore.Ref
	for i := range n {
		refs = append(refs, gitstore.Ref{Name: fmt.Sprintf("%sorigin/T-%06d", gitstore.RemotePrefix, i), Hash: fmt.Sprintf("%040x", i+1)})
	}
	var dirs []string
	for range 3 {
		dirs = append(dirs, t.TempDir())
	}
	i := 0
	allocs := testing.AllocsPerRun(1, func() {
		tr := &tracked{refs: refs, known: map[string]string{}, whole: true, live: n, loose: refs}
		if err := sess.saveCatchUp(dirs[i], []byte("stamp\n"), true, tr); err != nil {
			t.Fatal(err)
		}
		i++
	})
	if data, err := os.ReadFile(filepath.Join(dirs[0], headsFile)); err != nil || strings.Count(string(data), "\n") != n {
		t.Fatalf("fetched.heads of %d refs: %d lines (%v)", n, strings.Count(string(data), "\n"), err)
	}
	t.Logf("saveCatchUp of %d refs: %.0f allocations", n, allocs)
	if allocs > n/10 {
		t.Errorf("a first catch-up's memo of %d tracking refs made %.0f allocations, want at most %d: a line of fetched.heads or fetched.loose, and a ref of their digest, cost none", n, allocs, n/10)
	}
}

// A pull stopped (a server told to stop, a client that cancelled its
// call) while it waits for a task ref's lock, which another process
// holds, ends then, not after the lock's 10 s wait: the ref it moved
// before stays, moved whole, the locked one is left as it was with the
// other process's lock, and the error says so in one line. Before, the
// integration's ref moves took no context and the pull waited out the
// lock.
func TestPullStopsWaitingForAHeldRefLock(t *testing.T) {
	sess, dir, origin, tasks := heldRefLock(t)
	held := filepath.Join(tasks, "T-000001.lock")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := sess.Pull(ctx, SyncRequest{Remote: "origin"})
		done <- err
	}()
	// The refs move in task order, one by one once the transaction of
	// both failed on the lock: T-000000's in place, the pull waits for
	// T-000001's lock.
	var err error
	for moved := false; !moved; {
		select {
		case err = <-done:
			t.Fatalf("the pull ended before it moved T-000000: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
		_, serr := os.Stat(filepath.Join(tasks, "T-000000"))
		moved = serr == nil
	}
	cancel()
	select {
	case err = <-done:
	case <-time.After(5 * time.Second): // the lock's wait is 10 s
		t.Fatal("the pull still waits for the held lock 5 s after its context was cancelled")
	}
	if err == nil || !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "\n") ||
		!strings.Contains(err.Error(), "with 1 task ref(s) moved") || !strings.Contains(err.Error(), "the rest are left for the next pull") {
		t.Fatalf("got %v, want one line: stopped (context canceled), 1 task ref moved, the rest left for the next pull", err)
	}
	if want, got := run(t, origin, "git", "rev-parse", "refs/reasoning/tasks/T-000000"), run(t, dir, "git", "rev-parse", "refs/reasoning/tasks/T-000000"); got != want {
		t.Errorf("T-000000, moved before the stop, is at %s, want %s", got, want)
	}
	if out, err := harness.GitTry(dir, "rev-parse", "--verify", "-q", "refs/reasoning/tasks/T-000001"); err == nil {
		t.Errorf("T-000001, whose lock another process holds, was made: %s", out)
	}
	if _, err := os.Stat(held); err != nil {
		t.Errorf("the other process's lock was removed: %v", err)
	}
}

// A catch-up stopped (an MCP client cancelled its call, the server
// stops) while it waits for a task ref's lock another process holds is
// no failed catch-up: nothing is remembered as failed (status and doctor
// showed "not integrated ... run git reason pull" until a catch-up
// succeeded, and the next catch-up skipped the lock wait), nor as caught
// up. A real failure, the lock held when the catch-up does not wait for
// it, is still remembered.
func TestStoppedCatchUpIsNoFailure(t *testing.T) {
	sess, dir, origin, tasks := heldRefLock(t)
	run(t, dir, "git", "fetch", "-q", origin, "refs/reasoning/tasks/*:"+gitstore.RemotePrefix+"origin/*")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan *CaughtUp, 1)
	go func() { done <- sess.CatchUp(ctx, false) }()
	for moved := false; !moved; { // T-000000 moved, T-000001's lock waited for
		select {
		case got := <-done:
			t.Fatalf("the catch-up ended before it moved T-000000: %q", got.Lines)
		case <-time.After(5 * time.Millisecond):
		}
		_, err := os.Stat(filepath.Join(tasks, "T-000000"))
		moved = err == nil
	}
	cancel()
	var got *CaughtUp
	select {
	case got = <-done:
	case <-time.After(5 * time.Second): // the lock's wait is 10 s
		t.Fatal("the catch-up still waits for the held lock 5 s after its context was cancelled")
	}
	reason := filepath.Join(dir, ".git", "reason")
	if pending := sess.CatchUpPending(); len(pending) > 0 || len(got.Lines) > 0 {
		t.Fatalf("a stopped catch-up was remembered as failed: pending %q, said %q", pending, got.Lines)
	}
	if _, err := os.Stat(filepath.Join(reason, stampFile)); err == nil {
		t.Fatal("a stopped catch-up was remembered as caught up: the next command would not look")
	}
	// A catch-up after a failure does not wait for a held lock: it fails,
	// and that is remembered.
	if err := os.MkdirAll(reason, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(reason, failedFile), []byte("warning: an earlier failure\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got = sess.CatchUp(context.Background(), false)
	pending := sess.CatchUpPending()
	if len(pending) != 1 || !strings.Contains(pending[0], "reasoning fetched from origin not integrated") || len(got.Lines) != 1 {
		t.Fatalf("a catch-up that failed on a held lock: pending %q, said %q, want its failure remembered and said", pending, got.Lines)
	}
}

// heldRefLock is a resident session in dir, an origin repository with
// two tasks, T-000000 and T-000001, configured as dir's remote origin
// (the catch-up integrates from a configured remote only), and in dir's
// task refs (tasks) the lock of T-000001 another process holds.
func heldRefLock(t *testing.T) (sess *Session, dir, origin, tasks string) {
	t.Helper()
	sess, _, dir = residentSession(t)
	origin = t.TempDir()
	run(t, origin, "git", "init", "-q")
	if err := harness.BulkTasks(context.Background(), origin, "T-", 2); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "git", "remote", "add", "origin", origin)
	tasks = filepath.Join(dir, ".git", "refs", "reasoning", "tasks")
	if err := os.MkdirAll(tasks, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tasks, "T-000001.lock"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return sess, dir, origin, tasks
}
