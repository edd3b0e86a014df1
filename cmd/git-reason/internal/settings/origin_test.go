package settings

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"git-reason/reliability/harness"
)

func TestSetOrigin(t *testing.T) {
	_, repo := sandboxRepo(t)
	gitDir := filepath.Join(repo, ".git")
	harness.Git(t, repo, "config", "reason.keep", "kept")
	ctx := context.Background()
	got, err := SetOrigin(ctx, gitDir, gitDir, "first")
	if err != nil || got != "first" {
		t.Fatalf("first SetOrigin = %q, %v", got, err)
	}
	if got, err := SetOrigin(ctx, gitDir, gitDir, "second"); err != nil || got != "first" {
		t.Errorf("second SetOrigin = %q, %v; want the first value", got, err)
	}
	if v := harness.Git(t, repo, "config", "--local", "--get-all", "reason.origin"); v != "first" {
		t.Errorf("git config --local reason.origin = %q", v)
	}
	if v := harness.Git(t, repo, "config", "reason.keep"); v != "kept" {
		t.Errorf("another key was lost: %q", v)
	}
	if s := load(t, gitDir); s.Origin != "first" {
		t.Errorf("Load after SetOrigin: origin %q", s.Origin)
	}
	if _, err := os.Stat(filepath.Join(gitDir, "reason", "origin.lock")); err == nil {
		t.Error("origin.lock left behind")
	}
}

// TestSetOriginLeftLock: a lock left by a process that died, however old,
// is not taken over (git's lockfile rule): SetOrigin says which file to
// remove, and once it is removed, records the origin.
func TestSetOriginLeftLock(t *testing.T) {
	sandbox(t)
	defer func(d time.Duration) { lockWait = d }(lockWait)
	lockWait = 50 * time.Millisecond
	repo := newRepo(t)
	gitDir := filepath.Join(repo, ".git")
	lockPath := filepath.Join(gitDir, "reason", "origin.lock")
	write(t, lockPath, "")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(lockPath, old, old); err != nil {
		t.Fatal(err)
	}
	if got, err := SetOrigin(context.Background(), gitDir, gitDir, "after-crash"); err == nil || !strings.Contains(err.Error(), lockPath) {
		t.Fatalf("SetOrigin past a left lock = %q, %v; want an error naming %s", got, err, lockPath)
	}
	if out, _ := exec.Command("git", "-C", repo, "config", "reason.origin").Output(); len(out) > 0 {
		t.Fatalf("the origin was written past the lock: %q", out)
	}
	if err := os.Remove(lockPath); err != nil {
		t.Fatal(err)
	}
	if got, err := SetOrigin(context.Background(), gitDir, gitDir, "after-crash"); err != nil || got != "after-crash" {
		t.Fatalf("SetOrigin once the lock is removed = %q, %v", got, err)
	}
}

// TestSetOriginConcurrent races git reason writers of the origin against
// each other and against git's own writers of the same config file: one
// origin is written, every caller gets it, and no write of git's is lost.
func TestSetOriginConcurrent(t *testing.T) {
	_, repo := sandboxRepo(t)
	gitDir := filepath.Join(repo, ".git")
	const n = 8
	results := make([]string, n)
	var wg sync.WaitGroup
	var gitWrites sync.Map
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			v, err := SetOrigin(context.Background(), gitDir, gitDir, fmt.Sprintf("origin-%d", i))
			if err != nil {
				t.Error(err)
			}
			results[i] = v
		}()
		go func() {
			defer wg.Done()
			v := fmt.Sprintf("noise-%d", i)
			for try := 0; ; try++ { // git config does not wait for config.lock
				out, err := exec.Command("git", "-C", repo, "config", "--add", "reason.noise", v).CombinedOutput()
				if err == nil {
					gitWrites.Store(v, true)
					return
				}
				if !strings.Contains(string(out), "could not lock") || try == 500 {
					t.Errorf("git config --add: %v: %s", err, out)
					return
				}
				time.Sleep(time.Millisecond)
			}
		}()
	}
	wg.Wait()
	final := harness.Git(t, repo, "config", "--get-all", "reason.origin")
	if strings.Contains(final, "\n") {
		t.Fatalf("several origins written: %q", final)
	}
	for i, v := range results {
		if v != final {
			t.Errorf("caller %d got %q, config holds %q", i, v, final)
		}
	}
	noise := harness.Git(t, repo, "config", "--get-all", "reason.noise") + "\n"
	written := 0
	gitWrites.Range(func(k, _ any) bool {
		written++
		if !strings.Contains(noise, k.(string)+"\n") {
			t.Errorf("git's write of %s was lost", k)
		}
		return true
	})
	if written != n {
		t.Errorf("%d of %d git config writes went through", written, n)
	}
}
