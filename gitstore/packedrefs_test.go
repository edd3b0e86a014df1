package gitstore

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"git-reason/reliability/harness"
)

// TestPackedRefsAsGitReadsThem holds the binary search in packed-refs to
// git's own reading: a file git wrote (sorted, with peeled lines), the
// same records unsorted and without the trait (as an old git or another
// tool may leave them), and a file replaced while the process holds its
// last reading.
func TestPackedRefsAsGitReadsThem(t *testing.T) {
	t.Parallel()
	r, c1, c2 := refTestRepo(t)
	var stdin strings.Builder
	for i := range 300 {
		fmt.Fprintf(&stdin, "create refs/reasoning/tasks/T-%03d %s\n", i, c1)
	}
	fmt.Fprintf(&stdin, "create refs/reasoning/tasks/a/b %s\n", c2)
	fmt.Fprintf(&stdin, "create refs/reasoning/tasks-x %s\n", c2)
	gitInStdin(t, r.WorkTree, stdin.String(), "update-ref", "--stdin")
	gitIn(t, r.WorkTree, "tag", "-a", "-m", "annotated", "v1")
	gitIn(t, r.WorkTree, "pack-refs", "--all")
	path := filepath.Join(r.CommonDir, "packed-refs")
	agree := func(what string) {
		t.Helper()
		want := gitIn(t, r.WorkTree, "for-each-ref", "--format=%(objectname) %(refname)")
		var got strings.Builder
		for _, prefix := range []string{"refs/heads/", "refs/reasoning/", "refs/tags/"} {
			refs, err := r.ListRefs(prefix)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			for _, ref := range refs {
				fmt.Fprintf(&got, "%s %s\n", ref.Hash, ref.Name)
				if h, err := r.ReadRef(ref.Name); err != nil || h != ref.Hash {
					t.Fatalf("%s: ReadRef(%s) = %q, %v; ListRefs says %s", what, ref.Name, h, err, ref.Hash)
				}
			}
		}
		if strings.TrimSpace(got.String()) != want {
			t.Fatalf("%s: ListRefs disagrees with git for-each-ref:\n%s\nwant\n%s", what, got.String(), want)
		}
		for _, name := range []string{"refs/reasoning/tasks/T-", "refs/reasoning/tasks/a", "refs/reasoning/tasks/T-300", "refs/zzz/none", "refs/aaa/none"} {
			if h, err := r.ReadRef(name); err != nil || h != "" {
				t.Fatalf("%s: ReadRef(%s) = %q, %v; want none", what, name, h, err)
			}
		}
		if err := r.RefConflict("refs/reasoning/tasks/a"); err == nil {
			t.Fatalf("%s: refs/reasoning/tasks/a is no conflict of refs/reasoning/tasks/a/b", what)
		}
		if err := r.RefConflict("refs/reasoning/tasks/a/b/c"); err == nil {
			t.Fatalf("%s: refs/reasoning/tasks/a/b/c is no conflict of refs/reasoning/tasks/a/b", what)
		}
		if err := r.RefConflict("refs/reasoning/tasks/T-1000"); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	agree("as git wrote it")

	// The same records, reversed, without the header: sorted when read.
	data := harness.ReadFile(t, path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")[1:]
	var recs []string
	for _, l := range lines {
		if strings.HasPrefix(l, "^") {
			recs[len(recs)-1] += "\n" + l
			continue
		}
		recs = append(recs, l)
	}
	slices.Reverse(recs)
	writeTestFile(t, path, strings.Join(recs, "\n")+"\n")
	agree("unsorted, no header")

	// Replaced by git while this process holds its reading of it.
	gitIn(t, r.WorkTree, "update-ref", "refs/reasoning/tasks/T-007", c2)
	gitIn(t, r.WorkTree, "pack-refs", "--all")
	agree("rewritten by git")
	assertRef(t, r, "refs/reasoning/tasks/T-007", c2)

	writeTestFile(t, path, "# pack-refs with: peeled fully-peeled sorted \n"+c1+" refs/reasoning/tasks/T-001\nnot a ref line\n")
	if _, err := r.ListRefs("refs/"); err == nil || !strings.Contains(err.Error(), "unexpected line") {
		t.Fatalf("a broken packed-refs listed as %v", err)
	}
	if _, err := r.ReadRef("refs/reasoning/tasks/T-002"); err == nil || !strings.Contains(err.Error(), "unexpected line") {
		t.Fatalf("a broken packed-refs read as %v", err)
	}
}
