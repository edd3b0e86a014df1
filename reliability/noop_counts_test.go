package reliability

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"git-reason/reliability/harness"
)

// looseWorld is scaleWorld with every task ref and remote-tracking ref a
// loose file, as git fetch and git reason's own appends and catch-up
// leave the refs they move until git packs refs (git gc, git
// maintenance): a clone's first command after `remote setup` creates
// every task ref it integrates loose.
func looseWorld(t *testing.T, n int) *sandbox {
	t.Helper()
	c := scaleWorld(t, n)
	for _, l := range strings.Split(strings.TrimSpace(c.git("for-each-ref", "--format=%(objectname) %(refname)", "refs/reasoning/")), "\n") {
		hash, ref, _ := strings.Cut(l, " ")
		path := filepath.Join(c.gitDir(), filepath.FromSlash(ref))
		if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(hash+"\n"), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// TestNoOpReadsCounts: a command that reads a few tasks, run when no ref
// moved since the command before it, reads as much at 300 tasks as at 10,
// every task ref loose: the read system calls the process made (whatever
// file or pipe they read: a listing of the loose refs, a file of every
// task) and the bytes of files holding every task it read (gitstore's
// count), within a small allowance for the pipes of its git processes.
// log -n 5 and search used to list every loose task ref to know that
// none moved (2 read calls a ref); they now compare the stamp of the task
// refs' directories that .git/reason/latest.now keeps. show ID listed
// every task ref to bring the id index up to them; it now reads the
// index's shard alone while the refs are where the index last saw them.
func TestNoOpReadsCounts(t *testing.T) {
	t.Parallel()
	sizes := []int{10, 300}
	type key struct {
		n    int
		args string
	}
	costs := map[key]cost{}
	commands := [][]string{{"log", "-n", "5"}, {"search", "nowhere-said"}, {"status", "T-000001"}, {"log", "T-000001"}, {"show", "ID"}, {"version"}}
	for _, n := range sizes {
		c := looseWorld(t, n)
		// show takes the id of T-000001's first record (ids differ
		// between worlds).
		var lines []struct{ ID string }
		if err := json.Unmarshal([]byte(c.mustReason("log", "T-000001", "--json")), &lines); err != nil || len(lines) == 0 {
			t.Fatalf("log T-000001 --json: %v", err)
		}
		for _, args := range commands {
			name := strings.Join(args, " ")
			if args[0] == "show" {
				args = []string{"show", lines[0].ID}
			}
			// The first run makes what the command keeps; the second
			// finds it, past git's racy window (the stamps trust a
			// change 100 ms old).
			c.mustReason(args...)
			time.Sleep(150 * time.Millisecond)
			c.mustReason(args...)
			time.Sleep(150 * time.Millisecond)
			costs[key{n, name}] = c.costed(args...)
		}
	}
	for _, args := range commands {
		name := strings.Join(args, " ")
		small, large := costs[key{sizes[0], name}], costs[key{sizes[1], name}]
		t.Logf("%s: %d read calls, %d bytes read, %d bytes of files of every task at %d tasks; %d, %d, %d at %d",
			name, small.ReadCalls, small.ReadBytes, small.SharedBytes, sizes[0], large.ReadCalls, large.ReadBytes, large.SharedBytes, sizes[1])
		if small.ReadCalls == 0 {
			harness.MissingTool(t, "no read counts here (/proc/self/io)")
		}
		if large.ReadCalls > small.ReadCalls+40 || large.SharedBytes > small.SharedBytes+1024 || large.RefsListed != 0 {
			t.Errorf("%s with nothing moved: %d read calls, %d bytes of files of every task and %d refs listed at %d tasks, against %d, %d and %d at %d: it reads what grows with the tasks",
				name, large.ReadCalls, large.SharedBytes, large.RefsListed, sizes[1], small.ReadCalls, small.SharedBytes, small.RefsListed, sizes[0])
		}
	}
}

// TestGrepSignsWhatItKeeps: log --grep reads its lines from the search
// index and looks up the signatures of the lines it prints only. With a
// pattern every task's subject matches and -n 1, it read each matching
// task's signatures first (1,240 read calls at 300 tasks against 80 at
// 10), then kept one line: the read calls at 300 tasks are now those at
// 10, within the allowance of TestNoOpReadsCounts.
func TestGrepSignsWhatItKeeps(t *testing.T) {
	t.Parallel()
	sizes := []int{10, 300}
	var counts [2]cost
	args := []string{"log", "--grep", "bulk subject", "-n", "1"}
	for i, n := range sizes {
		c := scaleWorld(t, n)
		for range 2 { // the first makes the search index and the verdicts
			c.mustReason(args...)
			time.Sleep(150 * time.Millisecond) // past git's racy window
		}
		counts[i] = c.costed(args...)
	}
	small, large := counts[0], counts[1]
	t.Logf("%d read calls at %d tasks, %d at %d", small.ReadCalls, sizes[0], large.ReadCalls, sizes[1])
	if small.ReadCalls == 0 {
		harness.MissingTool(t, "no read counts here (/proc/self/io)")
	}
	if large.ReadCalls > small.ReadCalls+40 {
		t.Errorf("log --grep PATTERN -n 1 matching every task: %d read calls at %d tasks against %d at %d: it reads what grows with the tasks it does not print",
			large.ReadCalls, sizes[1], small.ReadCalls, sizes[0])
	}
}
