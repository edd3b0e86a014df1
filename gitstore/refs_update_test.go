package gitstore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// refTestRepo returns a repository with two distinct commits to point refs at.
func refTestRepo(t *testing.T) (r *Repo, c1, c2 string) {
	t.Helper()
	dir := newTestRepo(t)
	r = discoverT(t, dir)
	c1 = testRepo.head
	c2 = gitIn(t, dir, "commit-tree", "-p", c1, "-m", "second", testRepo.tree)
	return r, c1, c2
}

func assertRef(t *testing.T, r *Repo, name, want string) {
	t.Helper()
	got, err := r.ReadRef(name)
	if err != nil {
		t.Fatalf("ReadRef(%s): %v", name, err)
	}
	if got != want {
		t.Fatalf("ReadRef(%s) = %q, want %q", name, got, want)
	}
	gitSays, _ := gitTryIn(r.WorkTree, "rev-parse", "-q", "--verify", name)
	if gitSays != want {
		t.Fatalf("git rev-parse %s = %q, want %q", name, gitSays, want)
	}
	if _, err := os.Stat(r.refPath(name) + ".lock"); err == nil {
		t.Fatalf("lock file of %s left behind", name)
	}
}

// assertStaleRefused holds UpdateRef's compare-and-swap on name, which
// points at at: a create over it and an update naming wrong as its old
// value are both refused with ErrStale, and leave it at at.
func assertStaleRefused(t *testing.T, r *Repo, name, at, wrong string) {
	t.Helper()
	assertRef(t, r, name, at)
	if err := r.UpdateRef(name, "", wrong); !errors.Is(err, ErrStale) {
		t.Fatalf("create over %s: got %v, want ErrStale", name, err)
	}
	if err := r.UpdateRef(name, wrong, wrong); !errors.Is(err, ErrStale) {
		t.Fatalf("wrong old value for %s: got %v, want ErrStale", name, err)
	}
	assertRef(t, r, name, at)
}

func TestUpdateRefCompareAndSwap(t *testing.T) {
	t.Parallel()
	r, c1, c2 := refTestRepo(t)
	const name = "refs/reasoning/tasks/T-42"
	assertRef(t, r, name, "")
	if err := r.UpdateRef(name, c1, c2); !errors.Is(err, ErrStale) {
		t.Fatalf("update of a missing ref with an old value: got %v, want ErrStale", err)
	}
	assertRef(t, r, name, "")
	if err := r.UpdateRef(name, "", c1); err != nil {
		t.Fatal(err)
	}
	assertStaleRefused(t, r, name, c1, c2)
	if err := r.UpdateRef(name, strings.ToUpper(c1), c2); err != nil {
		t.Fatalf("update with the right old value: %v", err)
	}
	assertRef(t, r, name, c2)
	data, err := os.ReadFile(filepath.Join(r.CommonDir, name))
	if err != nil || string(data) != c2+"\n" {
		t.Fatalf("loose ref file = %q, %v; want %q", data, err, c2+"\n")
	}
}

func TestUpdateRefPackedOnly(t *testing.T) {
	t.Parallel()
	r, c1, c2 := refTestRepo(t)
	const name = "refs/reasoning/tasks/packed"
	if err := r.UpdateRef(name, "", c1); err != nil {
		t.Fatal(err)
	}
	gitIn(t, r.WorkTree, "pack-refs", "--all")
	if _, err := os.Stat(filepath.Join(r.CommonDir, name)); !os.IsNotExist(err) {
		t.Fatalf("pack-refs left the loose ref (%v); the test proves nothing", err)
	}
	assertStaleRefused(t, r, name, c1, c2)
	if err := r.UpdateRef(name, c1, c2); err != nil {
		t.Fatal(err)
	}
	assertRef(t, r, name, c2)
	// The stale packed value must not shadow the new loose one.
	gitIn(t, r.WorkTree, "pack-refs", "--all")
	assertRef(t, r, name, c2)
}

func TestReadRefPeeledAndSymbolic(t *testing.T) {
	t.Parallel()
	r, c1, _ := refTestRepo(t)
	gitIn(t, r.WorkTree, "tag", "-a", "-m", "annotated", "v1")
	gitIn(t, r.WorkTree, "pack-refs", "--all")
	packed, _ := os.ReadFile(filepath.Join(r.CommonDir, "packed-refs"))
	if !strings.Contains(string(packed), "\n^") {
		t.Fatalf("packed-refs has no peeled line:\n%s", packed)
	}
	assertRef(t, r, "refs/tags/v1", gitIn(t, r.WorkTree, "rev-parse", "refs/tags/v1"))
	assertRef(t, r, "HEAD", c1) // HEAD -> refs/heads/main, which is packed
	gitIn(t, r.WorkTree, "symbolic-ref", "refs/reasoning/alias", "refs/heads/main")
	assertRef(t, r, "refs/reasoning/alias", c1)
	if err := r.UpdateRef("refs/reasoning/alias", c1, c1); err == nil {
		t.Fatal("UpdateRef through a symbolic ref succeeded")
	}
}

func TestCheckRefNameAgreesWithGit(t *testing.T) {
	t.Parallel()
	r, c1, _ := refTestRepo(t)
	names := []string{
		"refs/reasoning/tasks/T-42", "refs/reasoning/tasks/db.migration_2", "refs/a/b@c",
		"refs/reasoning/tasks/a..b", "refs/reasoning/tasks/.hidden", "refs/reasoning/tasks/x.lock",
		"refs/reasoning/tasks/x/", "refs/reasoning/tasks/x.", "refs//x", "/refs/x", "refs/x@{1}",
		"@", "refs/with space", "refs/tilde~1", "refs/caret^", "refs/co:lon", "refs/q?", "refs/star*",
		"refs/br[acket", "refs/back\\slash", "refs/ctl\x01", "refs/del\x7f", "onelevel", "",
		"refs/a.lock/b", "refs/../../etc/passwd",
	}
	for _, name := range names {
		_, gerr := gitTryIn(r.WorkTree, "check-ref-format", name)
		err := CheckRefName(name)
		if (err == nil) != (gerr == nil) {
			t.Errorf("CheckRefName(%q) = %v; git check-ref-format ok=%v", name, err, gerr == nil)
		}
		if err != nil && !errors.Is(err, ErrBadRefName) {
			t.Errorf("CheckRefName(%q) = %v, does not wrap ErrBadRefName", name, err)
		}
		if err == nil {
			continue
		}
		if uerr := r.UpdateRef(name, "", c1); !errors.Is(uerr, ErrBadRefName) {
			t.Errorf("UpdateRef(%q) = %v, want ErrBadRefName", name, uerr)
		}
	}
	// A refused name touches nothing.
	if _, err := os.Stat(filepath.Join(r.CommonDir, "refs", "reasoning", "tasks")); !os.IsNotExist(err) {
		t.Errorf("refused names created refs/reasoning/tasks (%v)", err)
	}
}

// TestUpdateRefDirectoryConflict: refs/a and refs/a/b cannot both exist.
// The refusal is a *RefConflictError whose text is git's own, checked
// against what git update-ref says for the same ref, loose and packed.
func TestUpdateRefDirectoryConflict(t *testing.T) {
	t.Parallel()
	r, c1, _ := refTestRepo(t)
	refuse := func(name, existing string) {
		t.Helper()
		err := r.UpdateRef(name, "", c1)
		var conflict *RefConflictError
		if !errors.As(err, &conflict) || conflict.Name != name || conflict.Existing != existing {
			t.Fatalf("creating %s with %s in place: got %v, want a RefConflictError", name, existing, err)
		}
		if err := r.RefConflict(name); err == nil || err.Error() != conflict.Error() {
			t.Fatalf("RefConflict(%s) = %v, want %v", name, err, conflict)
		}
		gitSays, gitErr := gitTryIn(r.WorkTree, "update-ref", name, c1, "")
		if gitErr == nil {
			t.Fatalf("git update-ref %s succeeded with %s in place", name, existing)
		}
		// git update-ref puts "update_ref failed for ref '…': " before it.
		if !strings.HasPrefix(gitSays, "fatal: ") || !strings.HasSuffix(gitSays, ": "+err.Error()+"\n") {
			t.Fatalf("git says %q, we say %q", gitSays, err)
		}
		assertRef(t, r, name, "")
	}
	const a, ab = "refs/reasoning/tasks/a", "refs/reasoning/tasks/a/b"
	if err := r.UpdateRef(a, "", c1); err != nil {
		t.Fatal(err)
	}
	if err := r.RefConflict(a); err != nil {
		t.Fatalf("an existing ref is no conflict of itself: got %v", err)
	}
	if err := r.RefConflict(a + "b"); err != nil {
		t.Fatalf("refs/reasoning/tasks/ab is no conflict of %s: got %v", a, err)
	}
	refuse(ab, a)
	gitIn(t, r.WorkTree, "pack-refs", "--all")
	refuse(ab, a)
	assertRef(t, r, a, c1)

	const x, xy = "refs/reasoning/tasks/x", "refs/reasoning/tasks/x/y"
	if err := r.UpdateRef(xy, "", c1); err != nil {
		t.Fatal(err)
	}
	refuse(x, xy)
	gitIn(t, r.WorkTree, "pack-refs", "--all")
	refuse(x, xy)
	assertRef(t, r, xy, c1)
}

// TestUpdateRefLocked shortens the package's lockTimeout, which every
// lock taken meanwhile reads: it runs alone, not in parallel (go test
// -race saw it race with TestListRefs).
func TestUpdateRefLocked(t *testing.T) {
	r, c1, c2 := refTestRepo(t)
	const name = "refs/reasoning/tasks/locked"
	if err := r.UpdateRef(name, "", c1); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(r.CommonDir, name+".lock")
	writeTestFile(t, lock, "")
	defer func(d time.Duration) { lockTimeout = d }(lockTimeout)
	lockTimeout = 200 * time.Millisecond
	start := time.Now()
	err := r.UpdateRef(name, c1, c2)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), lock) {
		t.Fatalf("got %v, want ErrLocked naming %s", err, lock)
	}
	if d := time.Since(start); d < lockTimeout {
		t.Fatalf("gave up after %v, before the timeout", d)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Fatalf("someone else's lock was removed: %v", err)
	}
	os.Remove(lock)
	// A lock released while we wait is taken.
	writeTestFile(t, lock, "")
	time.AfterFunc(50*time.Millisecond, func() { os.Remove(lock) })
	if err := r.UpdateRef(name, c1, c2); err != nil {
		t.Fatalf("after the lock was released: %v", err)
	}
	assertRef(t, r, name, c2)
}

func TestListRefs(t *testing.T) {
	t.Parallel()
	r, c1, c2 := refTestRepo(t)
	var stdin strings.Builder
	n := 1200
	if testing.Short() {
		// The same mix of packed, loose-over-packed and loose-only refs
		// with a lock file among them, a quarter as many (each loose
		// update is a durable write).
		n = 300
	}
	for i := range n {
		fmt.Fprintf(&stdin, "create refs/reasoning/tasks/T-%04d %s\n", i, c1)
	}
	fmt.Fprintf(&stdin, "create refs/reasoning/other %s\n", c1)
	fmt.Fprintf(&stdin, "create refs/reasoning/tasks-not/x %s\n", c1)
	gitInStdin(t, r.WorkTree, stdin.String(), "update-ref", "--stdin")
	gitIn(t, r.WorkTree, "pack-refs", "--all")
	// Some refs loose on top of their packed value, some loose only.
	for i := 0; i < n; i += 7 {
		if err := r.UpdateRef(fmt.Sprintf("refs/reasoning/tasks/T-%04d", i), c1, c2); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.UpdateRef("refs/reasoning/tasks/nested/deep", "", c2); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(r.CommonDir, "refs/reasoning/tasks/T-0001.lock"), "")

	start := time.Now()
	refs, err := r.ListRefs("refs/reasoning/tasks/")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ListRefs of %d refs took %v", len(refs), time.Since(start))
	var got strings.Builder
	for _, ref := range refs {
		fmt.Fprintf(&got, "%s %s\n", ref.Hash, ref.Name)
	}
	want := gitIn(t, r.WorkTree, "for-each-ref", "--format=%(objectname) %(refname)", "refs/reasoning/tasks/") + "\n"
	if got.String() != want {
		t.Fatalf("ListRefs disagrees with git for-each-ref (%d refs vs %d lines)", len(refs), strings.Count(want, "\n"))
	}
	if len(refs) != n+1 {
		t.Fatalf("got %d refs, want %d", len(refs), n+1)
	}
	if refs, err := r.ListRefs("refs/nothing/"); err != nil || len(refs) != 0 {
		t.Fatalf("ListRefs of an empty prefix = %v, %v", refs, err)
	}
}

// TestUpdateRefsAllOrNone: UpdateRefs moves every ref, created, moved
// and over packed values, in one transaction; when any one ref's old
// value is not what it is (here the last of three, or a lock another
// process holds), none of them moves.
func TestUpdateRefsAllOrNone(t *testing.T) {
	t.Parallel()
	r, c1, c2 := refTestRepo(t)
	a, b, c := "refs/reasoning/tasks/A", "refs/reasoning/tasks/B", "refs/reasoning/tasks/C"
	for _, name := range []string{a, b} {
		if err := r.UpdateRef(name, "", c1); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, r.WorkTree, "pack-refs", "--all")
	// C does not exist: an update that says it is at c1 fails, and so
	// does the whole transaction.
	err := r.UpdateRefs(context.Background(), []RefUpdate{{a, c1, c2}, {b, c1, c2}, {c, c1, c2}})
	if err == nil {
		t.Fatal("a transaction with one stale old value succeeded")
	}
	assertRef(t, r, a, c1)
	assertRef(t, r, b, c1)
	assertRef(t, r, c, "")
	// A lock another process holds on one ref: none moves either.
	lock, err := os.OpenFile(r.refPath(b)+".lock", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	lock.Close()
	if err := r.UpdateRefs(context.Background(), []RefUpdate{{a, c1, c2}, {b, c1, c2}, {c, "", c2}}); err == nil {
		t.Fatal("a transaction over a held lock succeeded")
	}
	os.Remove(r.refPath(b) + ".lock")
	assertRef(t, r, a, c1)
	assertRef(t, r, b, c1)
	assertRef(t, r, c, "")
	// All old values right: all move, C created.
	if err := r.UpdateRefs(context.Background(), []RefUpdate{{a, c1, c2}, {b, c1, c2}, {c, "", c2}}); err != nil {
		t.Fatal(err)
	}
	assertRef(t, r, a, c2)
	assertRef(t, r, b, c2)
	assertRef(t, r, c, c2)
}

// A push of more task refs than fit git push's command line well goes
// through a namespace of the process's own and one wildcard refspec:
// git's pre-push hook sees the staged refs as the local names, the
// remote gets each commit under its task ref, and no staged ref is left.
// A namespace a process that is gone left is removed; a live one stays.
func TestPushStagesManyTasks(t *testing.T) {
	r, c1, c2 := refTestRepo(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	gitIn(t, r.WorkTree, "init", "-q", "--bare", remote)
	gitIn(t, r.WorkTree, "remote", "add", "origin", remote)
	seen := filepath.Join(t.TempDir(), "pre-push")
	hook := filepath.Join(r.GitDir, "hooks", "pre-push")
	if err := os.MkdirAll(filepath.Dir(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ncat >> '"+seen+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	live := fmt.Sprintf("%s%d-%d/", StagedPrefix, os.Getpid(), now.UnixNano())
	gone := fmt.Sprintf("%s2147483646-%d/", StagedPrefix, now.UnixNano()) // past any pid_max
	// A live pid's namespace of two hours ago: the pid is another
	// process's now.
	reused := fmt.Sprintf("%s%d-%d/", StagedPrefix, os.Getpid(), now.Add(-2*time.Hour).UnixNano())
	// A ref right under the prefix is no namespace: not ours to remove.
	for _, ref := range []string{live + "x", gone + "x", gone + "y/z", reused + "x", StagedPrefix + "mine"} {
		gitIn(t, r.WorkTree, "update-ref", ref, c1)
	}
	left, err := r.LeftStaged(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int{strings.TrimSuffix(strings.TrimPrefix(gone, StagedPrefix), "/"): 2,
		strings.TrimSuffix(strings.TrimPrefix(reused, StagedPrefix), "/"): 1}; !maps.Equal(left, want) {
		t.Fatalf("LeftStaged = %v, want %v", left, want)
	}

	push := func(n int) {
		t.Helper()
		var specs []string
		for i := range n {
			c := c1
			if i%2 == 1 {
				c = c2
			}
			specs = append(specs, fmt.Sprintf("%s:%sT-%d/a", c, TaskPrefix, i))
		}
		res, err := r.Push(context.Background(), "origin", specs)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != n {
			t.Fatalf("push of %d task refs: %d results %v", n, len(res), res)
		}
		for i, p := range res {
			if p.Flag != '*' || !strings.HasPrefix(p.Ref, TaskPrefix+"T-") {
				t.Fatalf("result %d of %d: %+v, want a created task ref", i, n, p)
			}
		}
		for i := range n {
			want := c1
			if i%2 == 1 {
				want = c2
			}
			if got := gitIn(t, remote, "rev-parse", fmt.Sprintf("%sT-%d/a", TaskPrefix, i)); got != want {
				t.Fatalf("remote's T-%d/a = %s, want %s", i, got, want)
			}
		}
	}

	defer func(n int) { pushInline = n }(pushInline)
	pushInline = 4
	push(3) // named on the command line
	b, _ := os.ReadFile(seen)
	if strings.Contains(string(b), StagedPrefix) {
		t.Fatalf("a push of 3 refs, 4 inline, staged them:\n%s", b)
	}
	// Any push removes what pushes that are over left.
	if got := gitIn(t, r.WorkTree, "for-each-ref", "--format=%(refname)", StagedPrefix); got != live+"x\n"+StagedPrefix+"mine" {
		t.Fatalf("refs under %s after a push of 3 refs:\n%s\nwant only the live process's %sx and %smine", StagedPrefix, got, live, StagedPrefix)
	}
	os.Remove(seen)
	for _, ref := range strings.Fields(gitIn(t, remote, "for-each-ref", "--format=%(refname)", TaskPrefix)) {
		gitIn(t, remote, "update-ref", "-d", ref)
	}

	push(9) // staged
	b, _ = os.ReadFile(seen)
	if n := strings.Count(string(b), " "+TaskPrefix); n != 9 {
		t.Fatalf("the pre-push hook saw %d task refs, want 9:\n%s", n, b)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.HasPrefix(line, StagedPrefix) {
			t.Fatalf("a push of 9 refs, 4 inline: the hook saw %q, want a staged local ref", line)
		}
	}
	if got := gitIn(t, r.WorkTree, "for-each-ref", "--format=%(refname)", StagedPrefix); got != live+"x\n"+StagedPrefix+"mine" {
		t.Fatalf("refs under %s after the push:\n%s\nwant only the live process's %sx and %smine", StagedPrefix, got, live, StagedPrefix)
	}
}
