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

	"git-reason/gitstore/git"
	"git-reason/record"
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

// TestFirstSubjectIndexReadsInBatches: the first subject index of a
// clone (no .git/reason yet) reads every task's commit, root tree and
// records/ tree to find the tasks that concluded; it asks the one
// cat-file reader for them level by level, every task at once, so the
// requests it sends do not grow with the tasks. Read one task at a time
// (two requests an object, three objects a task) the index of 61 tasks
// sent some 250 more requests than that of 21, and once the budget of
// single reads was spent go-git decoded the packs' whole index. The
// concluded task's standing is indexed either way.
func TestFirstSubjectIndexReadsInBatches(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "repo")
	gitIn(t, "", "init", "-q", "--bare", dir)
	r := &Repo{GitDir: dir, CommonDir: dir}
	s := NewStore(r)
	w := &record.Writer{Store: s, Index: Index{Store: s}, Actor: "Batch Test <batch@example.com>", Origin: "origin-batch"}
	a, err := w.Append(ctx, "X", record.KindAssessment, []byte(`{"subject":"Logging format","question":"json?","materiality":"trivial","reversibility":"reversible"}`))
	if err == nil {
		_, err = w.Append(ctx, "X", record.KindPlan, []byte(`{"assessment":"`+a.ID+`"}`))
	}
	if err == nil {
		_, err = w.Append(ctx, "X", record.KindConclusion, []byte(`{"assessment":"`+a.ID+`","decision":"json"}`))
	}
	if err != nil {
		t.Fatal(err)
	}
	// requests indexes every task of a clone of the repository as packed,
	// through git, and returns the requests sent to git cat-file.
	requests := func(tasks int) int64 {
		t.Helper()
		gitIn(t, dir, "repack", "-adq")
		removeReasonDir(t, dir)
		s := NewStore(r)
		s.packsViaGit = true
		before, index := git.Rounds(), costs.packIndex.Load()
		if err := s.indexAllSubjects(ctx); err != nil {
			t.Fatal(err)
		}
		n := git.Rounds() - before
		t.Logf("the first subject index of %d tasks sent %d requests to git cat-file", tasks, n)
		if d := costs.packIndex.Load() - index; d != 0 {
			t.Errorf("the first subject index of %d tasks decoded %d bytes of pack indexes", tasks, d)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "reason", "subjects", "*.json"))
		indexed := false
		for _, f := range files {
			data, _ := os.ReadFile(f)
			indexed = indexed || strings.Contains(string(data), `"X"`)
		}
		if !indexed {
			t.Errorf("the first subject index of %d tasks does not hold X's standing conclusion (files %v)", tasks, files)
		}
		return n
	}
	if err := harness.BulkTasks(ctx, dir, "T-", 20); err != nil {
		t.Fatal(err)
	}
	few := requests(21)
	if err := harness.BulkTasks(ctx, dir, "U-", 40); err != nil {
		t.Fatal(err)
	}
	if many := requests(61); many != few {
		t.Errorf("the first subject index sent %d requests to git cat-file at 21 tasks and %d at 61: it reads task by task", few, many)
	}
}
