package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"git-reason/gitstore"
	"git-reason/reliability/harness"
)

const counterRef = "refs/reasoning/tasks/counter"

// The helper processes of TestUpdateRefConcurrentIncrements are this test
// binary started again with these variables set (TestMain sees them).
const (
	helperDirEnv   = "GIT_REASON_STORAGE_INCREMENT_DIR"
	helperCountEnv = "GIT_REASON_STORAGE_INCREMENT_COUNT"
)

// helperIncrements is the body of a helper process: it makes its share of
// increments in the repository at dir and prints each counter it wrote.
func helperIncrements(dir string) int {
	r, err := gitstore.Discover(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	count, err := strconv.Atoi(os.Getenv(helperCountEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for range count {
		n, err := increment(r, fmt.Sprintf("proc%d", os.Getpid()))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("wrote %d\n", n)
	}
	return 0
}

// increment appends one commit to counterRef whose message is the parent's
// counter plus one, retrying on ErrStale. It returns the counter it wrote.
func increment(r *gitstore.Repo, who string) (int, error) {
	for {
		s := r.Storage() // fresh: another process may have written objects
		cur, err := r.ReadRef(counterRef)
		if err != nil {
			return 0, err
		}
		if cur == "" {
			return 0, errors.New("counter ref vanished")
		}
		parent, err := object.GetCommit(s, plumbing.NewHash(cur))
		if err != nil {
			return 0, fmt.Errorf("read %s: %w", cur, err)
		}
		n, err := strconv.Atoi(strings.Fields(parent.Message)[0])
		if err != nil {
			return 0, err
		}
		next, err := writeCounterCommit(s, parent, n+1, who)
		if err != nil {
			return 0, err
		}
		err = r.UpdateRef(counterRef, cur, next.String())
		if errors.Is(err, gitstore.ErrStale) {
			continue
		}
		return n + 1, err
	}
}

func writeCounterCommit(s *filesystem.Storage, parent *object.Commit, n int, who string) (plumbing.Hash, error) {
	sig := object.Signature{Name: who, Email: who + "@example.com", When: time.Unix(1700000000, 0)}
	c := &object.Commit{
		Author: sig, Committer: sig,
		Message:      fmt.Sprintf("%d by %s\n", n, who),
		TreeHash:     parent.TreeHash,
		ParentHashes: []plumbing.Hash{parent.Hash},
	}
	return storeObject(s, c)
}

// TestUpdateRefConcurrentIncrements races goroutines and processes doing
// read-then-UpdateRef increments on one ref against `git pack-refs --all`
// loops and readers. Every acknowledged increment must be on the final
// chain (no lost update) and the ref must always resolve.
func TestUpdateRefConcurrentIncrements(t *testing.T) {
	skipUnlessStress(t)
	perWorker, form := harness.Form(15, 100)
	const goroutines, procs = 6, 3
	t.Logf("%s: %d increments by each of %d goroutines and %d processes", form, perWorker, goroutines, procs)
	r := newRepo(t)
	dir := r.WorkTree
	head := gitIn(t, dir, "rev-parse", "HEAD")
	base, err := object.GetCommit(r.Storage(), plumbing.NewHash(head))
	if err != nil {
		t.Fatal(err)
	}
	zero, err := writeCounterCommit(r.Storage(), base, 0, "init")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.UpdateRef(counterRef, "", zero.String()); err != nil {
		t.Fatal(err)
	}

	ctx, stop := context.WithCancel(context.Background())
	var background sync.WaitGroup
	var packRuns, packFails, reads atomic.Int64
	var readErr atomic.Value
	for range 2 { // git pack-refs loops
		background.Add(1)
		go func() {
			defer background.Done()
			for ctx.Err() == nil {
				if _, err := gitTryIn(dir, "pack-refs", "--all"); err != nil {
					packFails.Add(1) // two pack-refs may contend for packed-refs.lock
				}
				packRuns.Add(1)
			}
		}()
	}
	background.Add(2)
	go func() { // git must always resolve the ref
		defer background.Done()
		for ctx.Err() == nil {
			if out, err := gitTryIn(dir, "rev-parse", "--verify", counterRef); err != nil {
				readErr.Store(fmt.Errorf("git rev-parse failed mid-run: %v: %s", err, out))
			}
			reads.Add(1)
		}
	}()
	go func() { // and so must ReadRef
		defer background.Done()
		for ctx.Err() == nil {
			if h, err := r.ReadRef(counterRef); err != nil || h == "" {
				readErr.Store(fmt.Errorf("ReadRef mid-run = %q, %v", h, err))
			}
			reads.Add(1)
		}
	}()

	var mu sync.Mutex
	written := map[int]int{} // counter value → times acknowledged
	var workers sync.WaitGroup
	errs := make(chan error, goroutines+procs)
	for g := range goroutines {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for range perWorker {
				n, err := increment(r, fmt.Sprintf("g%d", g))
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				written[n]++
				mu.Unlock()
			}
		}()
	}
	for range procs {
		workers.Add(1)
		go func() {
			defer workers.Done()
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), helperDirEnv+"="+dir, fmt.Sprintf("%s=%d", helperCountEnv, perWorker))
			out, err := cmd.CombinedOutput()
			if err != nil {
				errs <- fmt.Errorf("helper process: %v\n%s", err, out)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, line := range strings.Split(string(out), "\n") {
				if v, ok := strings.CutPrefix(line, "wrote "); ok {
					n, _ := strconv.Atoi(v)
					written[n]++
				}
			}
		}()
	}
	workers.Wait()
	stop()
	background.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err, _ := readErr.Load().(error); err != nil {
		t.Error(err)
	}

	total := (goroutines + procs) * perWorker
	for n := 1; n <= total; n++ {
		if written[n] != 1 {
			t.Errorf("counter %d acknowledged %d times, want once", n, written[n])
		}
	}
	if len(written) != total {
		t.Errorf("%d distinct counters acknowledged, want %d", len(written), total)
	}
	final := gitIn(t, dir, "log", "-1", "--format=%s", counterRef)
	if !strings.HasPrefix(final, strconv.Itoa(total)+" ") {
		t.Errorf("final counter commit %q, want %d", final, total)
	}
	if got := gitIn(t, dir, "rev-list", "--count", zero.String()+".."+counterRef); got != strconv.Itoa(total) {
		t.Errorf("chain has %s commits after the start, want %d", got, total)
	}
	gitIn(t, dir, "fsck", "--strict", "--no-dangling")
	t.Logf("%d increments, %d pack-refs runs (%d failed), %d reads", total, packRuns.Load(), packFails.Load(), reads.Load())
}
