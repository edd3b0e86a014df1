package gitstore_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"git-reason/gitstore"
	"git-reason/record"
	"git-reason/reliability/harness"
)

// TestLatestForged: .git/reason/latest, which `log -n` streams, names
// each task's head and newest time. A line edited to another task's head
// would show that commit's records as the task's, and an older time would
// hide the task from `log -n`; each line carries a MAC, so an edited line
// makes the file be made again from the refs, and what Newest gives is
// the refs' truth.
func TestLatestForged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := newRepo(t)
	s := openStore(t, dir)
	w := indexedWriter(s, "Latest")
	for _, task := range []string{"A", "B", "C"} {
		assessTrivially(t, w, task, "s "+task)
	}
	var order []string // the tasks in the order Newest last gave them
	newest := func() map[string]gitstore.TaskLatest {
		t.Helper()
		got := map[string]gitstore.TaskLatest{}
		order = nil
		if err := openStore(t, dir).Newest(ctx, func(l gitstore.TaskLatest) bool {
			if _, dup := got[l.Task]; dup {
				t.Errorf("task %s given twice", l.Task)
			}
			got[l.Task] = l
			order = append(order, l.Task)
			return true
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	truth := newest()
	truthOrder := strings.Join(order, " ")
	if len(truth) != 3 {
		t.Fatalf("Newest gave %v, want the three tasks", truth)
	}
	for task, l := range truth {
		if head := harness.Git(t, dir, "rev-parse", "refs/reasoning/tasks/"+task); l.Head != head {
			t.Fatalf("task %s: head %s, the ref is %s", task, l.Head, head)
		}
	}
	path := filepath.Join(dir, ".git", "reason", "latest")
	honest := harness.ReadFile(t, path)
	lineOf := func(task string) string {
		for _, line := range strings.Split(string(honest), "\n") {
			if strings.HasSuffix(line, " "+task) {
				return line
			}
		}
		t.Fatalf("no line of task %s in\n%s", task, honest)
		return ""
	}
	a := lineOf("A")
	replaced := func(line, forged string) string {
		return strings.Replace(string(honest), line+"\n", forged, 1)
	}
	for _, c := range []struct{ name, file string }{
		// A shown at B's commit: B's records as A's.
		{"another head", replaced(a, strings.Replace(a, truth["A"].Head, truth["B"].Head, 1)+"\n")},
		// A older than every other task: left out of log -n 1.
		{"an older time", replaced(a, strings.Replace(a, truth["A"].Latest, "2000-01-01T00:00:00Z", 1)+"\n")},
		// C's line (its MAC) given to A.
		{"another task's line", replaced(a, strings.TrimSuffix(lineOf("C"), "C")+"A\n")},
		// A line deleted, each line's MAC intact: that task would be
		// left out of log -n (B is between the others, A the oldest).
		{"a line deleted", replaced(lineOf("B"), "")},
		{"the last line deleted", replaced(a, "")},
		// Two lines swapped: B shown as newer than C.
		{"lines swapped", strings.Replace(replaced(lineOf("B"), ""), lineOf("C")+"\n", lineOf("B")+"\n"+lineOf("C")+"\n", 1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.file == string(honest) {
				t.Fatalf("the forgery changed nothing:\n%s", honest)
			}
			if err := os.WriteFile(path, []byte(c.file), 0o666); err != nil {
				t.Fatal(err)
			}
			got := newest()
			for task, l := range truth {
				if got[task] != l {
					t.Errorf("task %s: Newest gave %+v, the refs say %+v", task, got[task], l)
				}
			}
			if len(got) != len(truth) {
				t.Errorf("Newest gave %d tasks, want %d", len(got), len(truth))
			}
			if got := strings.Join(order, " "); got != truthOrder {
				t.Errorf("Newest gave the tasks in the order %s, the refs say %s", got, truthOrder)
			}
			again := harness.ReadFile(t, path)
			if string(again) == c.file {
				t.Errorf("the forged file is still there:\n%s", again)
			}
		})
	}
	// The file as written before a task moved: Newest merges the moved
	// task into it and writes nothing, and checks the lines it reads.
	if err := os.WriteFile(path, honest, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append(ctx, "C", record.KindAssessment, []byte(`{"subject":"s C2","question":"q","materiality":"trivial","reversibility":"reversible"}`)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(honest), a+"\n", strings.Replace(a, truth["A"].Head, truth["B"].Head, 1)+"\n", 1)), 0o666); err != nil {
		t.Fatal(err)
	}
	got := newest()
	if got["A"] != truth["A"] {
		t.Errorf("after C moved, task A: Newest gave %+v, the refs say %+v", got["A"], truth["A"])
	}
	if got["C"].Head == truth["C"].Head || len(got) != 3 {
		t.Errorf("after C moved: Newest gave %+v", got)
	}
	// C moves again: once the refs' stamp is settled (100 ms), latest.now
	// keeps C's new head for the commands after, which merge it without
	// listing the refs. latest.now edited to show C at B's head matches
	// no MAC: the refs are listed again, and C is where its ref is.
	if _, err := w.Append(ctx, "C", record.KindAssessment, []byte(`{"subject":"s C3","question":"q","materiality":"trivial","reversibility":"reversible"}`)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(150 * time.Millisecond)
	got = newest()
	headC := harness.Git(t, dir, "rev-parse", "refs/reasoning/tasks/C")
	nowPath := filepath.Join(dir, ".git", "reason", "latest.now")
	kept := harness.ReadFile(t, nowPath)
	if got["C"].Head != headC || !strings.Contains(string(kept), headC+" ") {
		t.Fatalf("after C moved again: Newest gave %+v (C is at %s), latest.now holds\n%s", got["C"], headC, kept)
	}
	if err := os.WriteFile(nowPath, []byte(strings.Replace(string(kept), headC+" ", truth["B"].Head+" ", 1)), 0o666); err != nil {
		t.Fatal(err)
	}
	if got := newest(); got["C"].Head != headC || got["B"] != truth["B"] || len(got) != 3 {
		t.Errorf("latest.now forged to show C at B's head: Newest gave %+v, C is at %s", got, headC)
	}
}
