package gitstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"git-reason/reliability/harness"
)

// TestPackedObjectsReadThroughGit holds the reads of packed objects
// through git cat-file (packreads.go) to go-git's: tasks written into a
// pack (harness.BulkTasks, then git repack) read, verified and walked
// by a store that asks git for packed objects give what a store reading
// them with go-git gives, and decode no pack index; once the repository's
// budget of such reads is spent, a store reads through go-git.
func TestPackedObjectsReadThroughGit(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "repo")
	gitIn(t, "", "init", "-q", "--bare", dir)
	if err := harness.BulkTasks(ctx, dir, "T-", 12); err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "repack", "-adq")
	if loose := gitIn(t, dir, "count-objects"); !strings.HasPrefix(loose, "0 objects") {
		t.Fatalf("the tasks are not all packed: %s", loose)
	}
	r := &Repo{GitDir: dir, CommonDir: dir}
	viaGit, viaGoGit := NewStore(r), NewStore(r)
	viaGit.packsViaGit = true

	read := func(s *Store) (out []string) {
		for i := range 12 {
			task := fmt.Sprintf("T-%06d", i)
			head, recs, err := s.Load(ctx, task)
			if err != nil {
				t.Fatalf("load %s: %v", task, err)
			}
			found, err := s.Verify(ctx, task, head)
			if err != nil || len(found) != 0 {
				t.Fatalf("verify %s: %v %v", task, found, err)
			}
			first := gitIn(t, dir, "rev-list", "--max-parents=0", head)
			anc, err := s.IsAncestor(ctx, first, head)
			if err != nil || !anc {
				t.Fatalf("%s: %s is not found an ancestor of %s: %v", task, first, head, err)
			}
			line := task + " " + head
			for _, rec := range recs {
				line += " " + rec.ID + ":" + string(rec.Kind) + ":" + rec.Created
			}
			out = append(out, line)
		}
		if s.HasObject(strings.Repeat("1", 40)) {
			t.Error("HasObject found an object that is not there")
		}
		return out
	}
	// An object asked for as another type is not found, through git as
	// through go-git: a tree named where a commit should be reads as no
	// commit.
	tree := plumbing.NewHash(gitIn(t, dir, "rev-parse", "refs/reasoning/tasks/T-000001^{tree}"))
	wrongType := func(s *Store, how string) {
		t.Helper()
		if obj, err := s.encodedObject(plumbing.CommitObject, tree); !errors.Is(err, plumbing.ErrObjectNotFound) {
			t.Errorf("%s: a tree read as a commit gave %v, %v; want not found", how, obj, err)
		}
	}
	before := costs.packIndex.Load()
	wrongType(viaGit, "through git")
	got := read(viaGit)
	if d := costs.packIndex.Load() - before; d != 0 {
		t.Errorf("reading packed objects through git decoded %d bytes of pack indexes", d)
	}
	v, ok := packReaders.Load(filepath.Join(dir, "objects"))
	if !ok || v.(*packReader).reads == 0 {
		t.Fatal("no packed object was read through git")
	}
	p := v.(*packReader)
	removeReasonDir(t, dir)
	want := read(viaGoGit)
	wrongType(viaGoGit, "through go-git")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("through git:\n%s\nthrough go-git:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if costs.packIndex.Load() == before {
		t.Error("go-git decoded no pack index: the count does not see it")
	}

	// The budget spent, a store reads through go-git.
	p.mu.Lock()
	p.reads = p.budget
	p.mu.Unlock()
	removeReasonDir(t, dir)
	late := NewStore(r)
	late.packsViaGit = true
	before = costs.packIndex.Load()
	if _, _, err := late.Load(ctx, "T-000003"); err != nil {
		t.Fatal(err)
	}
	if costs.packIndex.Load() == before {
		t.Error("with the budget spent, the store did not read through go-git")
	}
	if _, err := late.objectSize(plumbing.NewHash(gitIn(t, dir, "rev-parse", "refs/reasoning/tasks/T-000003"))); err != nil {
		t.Fatal(err)
	}
}

// removeReasonDir removes the caches a store wrote under the bare
// repository dir (the records read at a head, written behind), so that
// the next store reads the objects.
func removeReasonDir(t *testing.T, dir string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(dir, "reason")); err != nil {
		t.Fatal(err)
	}
}
