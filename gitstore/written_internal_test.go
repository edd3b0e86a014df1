package gitstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"git-reason/record"
	"git-reason/reliability/harness"
)

// TestWrittenPerTask: what this clone wrote is asked of the task's own
// list, whose lines carry MACs under the repository's key. The list of
// every write that clones of older releases kept, without MACs, confirms
// nothing and is not read: a line written there by hand would make a
// commit count as this clone's. A line moved to another task's list, or
// a list kept under another repository's key, confirms nothing.
func TestWrittenPerTask(t *testing.T) {
	ctx := context.Background()
	s := openT(t, initRepo(t))
	w := &record.Writer{Store: s, Actor: "Written Test <written@example.com>", Origin: "origin-written"}
	commits := map[string][]string{}
	for i := range 3 {
		for _, task := range []string{"T", "U", "L"} {
			res, err := w.Append(ctx, task, record.KindAssessment, []byte(fmt.Sprintf(
				`{"subject":"s%d","question":"q","materiality":"trivial","reversibility":"reversible"}`, i)))
			if err != nil {
				t.Fatal(err)
			}
			commits[task] = append(commits[task], res.Commit)
		}
	}
	reason := filepath.Join(s.Repo.CommonDir, "reason")
	// L's commits are in the old list alone, among 2,000 others.
	var legacy strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&legacy, "%040x\n", i)
	}
	for _, c := range commits["L"] {
		legacy.WriteString(c + "\n")
	}
	if err := os.WriteFile(filepath.Join(reason, "written"), []byte(legacy.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(s.writtenPath("L")); err != nil {
		t.Fatal(err)
	}
	// lookup returns how many of commits task's lookup confirms, and the
	// bytes it read of files holding every task's writes.
	lookup := func(task string, commits []string) (int, int64) {
		t.Helper()
		before := costs.sharedBytes.Load()
		got := s.WrittenHere(task, commits)
		n := 0
		for _, c := range commits {
			if got[c] {
				n++
			}
		}
		return n, costs.sharedBytes.Load() - before
	}
	if n, read := lookup("T", commits["T"]); n != 3 || read != 0 {
		t.Errorf("T, written here: %d of 3 commits confirmed, %d bytes of the old list read; want 3 and 0", n, read)
	}
	if n, _ := lookup("T", commits["U"]); n != 0 {
		t.Errorf("U's commits asked of T's list: %d confirmed, want 0", n)
	}
	if n, read := lookup("L", commits["L"]); n != 0 || read != 0 {
		t.Errorf("L, listed in the old list alone: %d of 3 commits confirmed, %d bytes of the old list read; want 0 and 0", n, read)
	}
	// T's lines in U's list: their MACs name T.
	tList := harness.ReadFile(t, s.writtenPath("T"))
	f, err := os.OpenFile(s.writtenPath("U"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(tList)
	f.Close()
	if n, _ := lookup("U", commits["T"]); n != 0 {
		t.Errorf("T's lines moved to U's list: %d of T's commits confirmed as U's, want 0", n)
	}
	// Another repository's key: nothing this list holds matches it.
	other := make([]byte, 32)
	copy(other, "another repository's key........")
	if err := os.WriteFile(filepath.Join(reason, "verified.key"), other, 0o600); err != nil {
		t.Fatal(err)
	}
	if n, _ := lookup("T", commits["T"]); n != 0 {
		t.Errorf("under another key, %d of T's commits confirmed, want 0", n)
	}
}
