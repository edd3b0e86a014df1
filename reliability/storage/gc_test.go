package storage

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"git-reason/gitstore"
	"git-reason/reliability/harness"
)

// TestStorageUnderGitGC writes and reads objects through long-lived and
// fresh Storages while git gc, repack -A -d and maintenance loop. The
// workers keep going until the loop has run its whole cycle once (three
// times in the long form): on a loaded machine a cycle takes long, and
// each further one only repeats the first.
func TestStorageUnderGitGC(t *testing.T) {
	skipUnlessStress(t)
	wantCycles, form := harness.Form(1, 3)
	t.Logf("%s: %d maintenance cycles", form, wantCycles)
	r := newRepo(t)
	// One maintenance command at a time, as gc.pid and maintenance.lock
	// arrange in real life: git's own commands run concurrently with each
	// other (say prune-packed during repack -A -d) can lose objects.
	ctx, stop := context.WithCancel(context.Background())
	var loops sync.WaitGroup
	runs := map[string]int{}
	var cycles atomic.Int64
	loops.Add(1)
	go func() {
		defer loops.Done()
		for ctx.Err() == nil {
			for _, args := range [][]string{
				{"gc", "-q"},
				{"repack", "-q", "-A", "-d"},
				{"maintenance", "run", "--task=loose-objects"},
				{"repack", "-q", "-d"},
				{"prune-packed"},
			} {
				gitTryIn(r.WorkTree, args...)
				runs[strings.Join(args, " ")]++
			}
			cycles.Add(1)
		}
	}()
	var workers sync.WaitGroup
	errs := make(chan error, 100)
	for w := range 4 {
		workers.Add(1)
		go func() {
			defer workers.Done()
			long := r.Storage()
			for i := 0; i < 20 || cycles.Load() < int64(wantCycles) && i < 2000; i++ {
				blobs := map[plumbing.Hash]string{}
				s := r.Storage()
				for j := range 3 {
					content := fmt.Sprintf("worker %d round %d blob %d\n", w, i, j)
					h, err := storeBlob(s, content)
					if err != nil {
						errs <- err
						return
					}
					blobs[h] = content
				}
				name := fmt.Sprintf("w%d-%d", w, i)
				if err := keepReachable(r, name, blobs); err != nil {
					errs <- err
					return
				}
				if err := harness.ReadBlobs(long, blobs); err != nil {
					errs <- fmt.Errorf("long-lived Storage: %w", err)
					return
				}
				if err := harness.ReadBlobs(r.Storage(), blobs); err != nil {
					errs <- fmt.Errorf("fresh Storage: %w", err)
					return
				}
			}
		}()
	}
	workers.Wait()
	stop()
	loops.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("%d whole maintenance cycles; git runs: %v", cycles.Load(), runs)
	gitIn(t, r.WorkTree, "fsck", "--strict", "--no-dangling")
}

// keepReachable points a ref at a commit of blobs, so gc must keep them.
func keepReachable(r *gitstore.Repo, name string, blobs map[plumbing.Hash]string) error {
	s := r.Storage()
	var entries []object.TreeEntry
	for h := range blobs {
		entries = append(entries, object.TreeEntry{Name: fmt.Sprintf("b%02d", len(entries)), Mode: 0o100644, Hash: h})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	th, err := storeObject(s, &object.Tree{Entries: entries})
	if err != nil {
		return err
	}
	sig := object.Signature{Name: "t", Email: "t@example.com"}
	ch, err := storeObject(s, &object.Commit{Author: sig, Committer: sig, Message: name, TreeHash: th})
	if err != nil {
		return err
	}
	return r.UpdateRef(gitstore.TaskRef(name), "", ch.String())
}
