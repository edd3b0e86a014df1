package reliability

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"git-reason/gitstore"
	"git-reason/record"
	"git-reason/reliability/harness"
)

// scaleWorld is a bare remote holding n tasks (two records each, made by
// harness.BulkTasks) and a clone that has all of them, on its task refs
// and on its remote-tracking refs, refs packed: the state after a sync.
func scaleWorld(t *testing.T, n int) *sandbox {
	t.Helper()
	seed := newSandbox(t)
	bare := filepath.Join(t.TempDir(), "remote.git")
	seed.git("init", "-q", "--bare", bare)
	seed.git("push", "-q", bare, "main")
	if err := harness.BulkTasks(context.Background(), bare, "T-", n); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "clone")
	seed.git("clone", "-q", bare, dir)
	c := &sandbox{t: t, dir: dir, home: seed.home, env: seed.env}
	c.git("fetch", "-q", "origin", "+refs/reasoning/tasks/*:refs/reasoning/tasks/*", "+refs/reasoning/tasks/*:refs/reasoning/remotes/origin/*")
	c.git("pack-refs", "--all")
	return c
}

// traced runs git reason with git's trace2 events written to a file and
// returns the result and how many git processes git reason started itself
// (trace2 start events of a child of git-reason, which git's dispatch of
// 'git reason' started: their session id is the dispatch's and their own,
// one "/"; their own children have two).
func (s *sandbox) traced(args ...string) (result, int) {
	s.t.Helper()
	r, started := s.children(args...)
	return r, len(started)
}

// children is traced returning the git commands git reason started
// itself, by name (their first argument after git's options).
func (s *sandbox) children(args ...string) (result, []string) {
	s.t.Helper()
	trace := filepath.Join(s.t.TempDir(), "trace2.json")
	withTrace := &sandbox{t: s.t, dir: s.dir, home: s.home, env: append(append([]string(nil), s.env...), "GIT_TRACE2_EVENT="+trace)}
	r := withTrace.viaGit(args...) // trace2 nests git reason's git processes under the dispatch
	data, err := os.ReadFile(trace)
	if err != nil && !os.IsNotExist(err) {
		s.t.Fatal(err)
	}
	var started []string
	for _, line := range strings.Split(string(data), "\n") {
		var ev struct {
			Event, Sid string
			Argv       []string
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Event == "start" && strings.Count(ev.Sid, "/") == 1 {
			name := ""
			for _, a := range ev.Argv[min(1, len(ev.Argv)):] {
				if !strings.HasPrefix(a, "-") {
					name = a
					break
				}
			}
			started = append(started, name)
		}
	}
	return r, started
}

// cost is what one git reason process says it read (through
// GIT_REASON_COST).
type cost = gitstore.Cost

// costed runs git reason, which must exit 0, and returns what it read.
func (s *sandbox) costed(args ...string) cost {
	s.t.Helper()
	c, _ := s.costedTraced(false, args...)
	return c
}

// costedTraced is costed that also counts, when trace, the git processes
// git reason started itself (traced).
func (s *sandbox) costedTraced(trace bool, args ...string) (cost, int) {
	s.t.Helper()
	c, r, gits := s.costedRun(trace, args...)
	if r.code != 0 {
		s.t.Fatalf("git reason %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return c, gits
}

// costedRun is costedTraced that returns what git reason did, whatever
// its exit status, for the caller to check.
func (s *sandbox) costedRun(trace bool, args ...string) (cost, result, int) {
	s.t.Helper()
	file := filepath.Join(s.t.TempDir(), "cost.json")
	withCost := &sandbox{t: s.t, dir: s.dir, home: s.home, env: append(append([]string(nil), s.env...), "GIT_REASON_COST="+file)}
	var r result
	gits := 0
	if trace {
		r, gits = withCost.traced(args...)
	} else {
		r = withCost.reason(args...)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		s.t.Fatalf("git reason %s wrote no cost: %v\n%s", strings.Join(args, " "), err, r.stderr)
	}
	var c cost
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &c); err != nil {
		s.t.Fatal(err)
	}
	return c, r, gits
}

// syncCounts is what a sync says it examined.
type syncCounts struct {
	Pull struct{ Examined int } `json:"pull"`
	Push struct {
		Examined int
		Tasks    []struct{ Task, Outcome string }
	} `json:"push"`
}

// maxCatchUpGits is the most git processes a catch-up of a few moved
// tasks may start beyond what the command starts anyway: a fixed set
// per catch-up, whatever the number of tasks it integrates.
const maxCatchUpGits = 5

// TestScaleCounts holds the cost of sync and of a write to what changed,
// with counts that do not depend on timing, at 1,000 tasks against 10: a
// sync with nothing to do examines no task history and starts as many git
// processes at 1,000 tasks as at 10; a sync after one record examines that
// task alone; a write touches no file under .git/reason/ larger at 1,000
// tasks than at 10. A cost that grows with the number of tasks fails here
// without a timed test (bench/scale times them).
func TestScaleCounts(t *testing.T) {
	harness.SkipShort(t, "generates 1,000 tasks")
	type counts struct {
		gits      int
		written   int64 // the largest file under .git/reason/ a write changed
		writtenAt string
		write     cost // an assessment of a task that exists
		reads     map[string]cost
		// moved is what status and handover read and wrote after one
		// record was written, each the first read to see it; fetched is
		// what the first status read and wrote after a plain git fetch
		// moved three tasks' tracking heads (its catch-up integrating
		// them).
		moved   map[string]cost
		fetched cost
		// warmGits and fetchedGits are the git processes a warm status
		// and that first status after the fetch started.
		warmGits, fetchedGits int
		// packed is what the first status of one task read after git
		// pack-refs; one is what a status of one task read after a plain
		// fetch moved three other tasks, and oneGits the git commands it
		// started.
		packed, one cost
		oneGits     []string
		// journals is what each command after new records did to the
		// files under .git/reason/ (journalWrites), by command.
		journals map[string]journalWrites
	}
	measure := func(n int) counts {
		c := scaleWorld(t, n)
		var got counts
		r, gits := c.traced("sync", "--json")
		if r.code != 0 {
			t.Fatalf("%d tasks: no-op sync: exit %d\n%s%s", n, r.code, r.stdout, r.stderr)
		}
		var sc syncCounts
		if err := json.Unmarshal([]byte(r.stdout), &sc); err != nil {
			t.Fatalf("%d tasks: sync --json: %v\n%s", n, err, r.stdout)
		}
		if sc.Pull.Examined != 0 || sc.Push.Examined != 0 {
			t.Errorf("%d tasks: a sync with nothing to do examined %d histories pulling and %d pushing, want 0", n, sc.Pull.Examined, sc.Push.Examined)
		}
		got.gits = gits
		// A write: a new task with a subject of its own, then another
		// record on an existing task. What it changes under .git/reason/
		// must not grow with the tasks. The writer appends only on a
		// head known to replay clean (its own, or one a replay found
		// clean): the clone's first read, as a person's first status
		// after a clone, verifies the tasks the plain fetch above brought
		// straight into the task refs (a pull verifies what it takes).
		c.mustReason("status")
		start := time.Now().Add(-time.Second)
		reasonDir := filepath.Join(c.gitDir(), "reason")
		before := map[string]time.Time{}
		filepath.WalkDir(reasonDir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if fi, err := d.Info(); err == nil {
					before[p] = fi.ModTime()
				}
			}
			return nil
		})
		c.mustReason("assess", "new-task", "--subject", "a subject never seen", "--question", "q", "--materiality", "trivial", "--reversibility", "reversible")
		got.write = c.costed("assess", "T-000003", "--subject", "another new subject", "--question", "q", "--materiality", "trivial", "--reversibility", "reversible")
		filepath.WalkDir(reasonDir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			fi, err := d.Info()
			if err != nil || !fi.ModTime().After(start) || fi.ModTime().Equal(before[p]) {
				return nil
			}
			if fi.Size() > got.written {
				got.written, got.writtenAt = fi.Size(), p
			}
			return nil
		})
		// A sync after those two records examines the two tasks pushing,
		// and pulling only T-000003, whose local head is ahead of the
		// fetched one (an ancestry check, no replay).
		r = c.reason("sync", "--json")
		if r.code != 0 {
			t.Fatalf("%d tasks: sync after a write: exit %d\n%s%s", n, r.code, r.stdout, r.stderr)
		}
		sc = syncCounts{}
		if err := json.Unmarshal([]byte(r.stdout), &sc); err != nil {
			t.Fatal(err)
		}
		if sc.Pull.Examined != 1 || sc.Push.Examined != 2 || len(sc.Push.Tasks) != 2 {
			t.Errorf("%d tasks: sync after two writes examined %d pulling and %d pushing (pushed %v), want 1 and 2", n, sc.Pull.Examined, sc.Push.Examined, sc.Push.Tasks)
		}
		// Reads across every task on warm caches (each made once by the
		// command before): what they read.
		got.reads = map[string]cost{}
		// The catch-up trusts its stamp of the remote-tracking refs only
		// 100 ms after their last change (ops.stampRecent, git's racy
		// rule): a command run sooner after the sync reads fetched.heads
		// whole to be sure. Warm means past that window, as git's own
		// tests tick their clock past a racy timestamp.
		time.Sleep(300 * time.Millisecond)
		for _, args := range [][]string{{"log", "-n", "5"}, {"status"}, {"handover"}, {"verify"}, {"__complete", "tasks"}} {
			c.mustReason(args...)
			got.reads[strings.Join(args, " ")] = c.costed(args...)
		}
		_, got.warmGits = c.costedTraced(true, "status")
		// One record written: the first status and the first handover
		// after it derive that task, and add its entry to their caches,
		// not the whole file again.
		c.mustReason("assess", "T-000005", "--subject", "moved once", "--question", "q", "--materiality", "trivial", "--reversibility", "reversible")
		got.moved = map[string]cost{}
		got.journals = map[string]journalWrites{}
		for _, args := range [][]string{{"status"}, {"handover"}, {"log", "-n", "5"}} {
			got.journals[args[0]] = c.watched(func() { got.moved[args[0]] = c.costed(args...) })
		}
		// A plain git fetch moves three tasks' tracking heads: records
		// written here and pushed by plain git, the local refs set back,
		// as if another clone had written them.
		moveElsewhere := func(tasks ...string) {
			for _, task := range tasks {
				ref := "refs/reasoning/tasks/" + task
				old := strings.TrimSpace(c.git("rev-parse", ref))
				c.mustReason("assess", task, "--subject", "moved elsewhere", "--question", "q", "--materiality", "trivial", "--reversibility", "reversible")
				c.git("push", "-q", "--no-verify", "origin", ref+":"+ref)
				c.git("update-ref", ref, old)
			}
		}
		moved := []string{"T-000006", "T-000007", "T-000008"}
		moveElsewhere(moved...)
		c.git("fetch", "-q", "origin", "+refs/reasoning/tasks/*:refs/reasoning/remotes/origin/*")
		got.journals["status after a git fetch"] = c.watched(func() { got.fetched, got.fetchedGits = c.costedTraced(true, "status") })
		for _, task := range moved {
			if l, r := c.git("rev-parse", "refs/reasoning/tasks/"+task), c.git("rev-parse", "refs/reasoning/remotes/origin/"+task); l != r {
				t.Errorf("%d tasks: after a plain git fetch and a status, %s is at %s, its tracking ref at %s", n, task, l, r)
			}
		}
		// git pack-refs rewrites packed-refs: the first command after it
		// compares the digest of the tracking refs, not every ref, and
		// finds nothing moved.
		time.Sleep(300 * time.Millisecond)
		c.git("pack-refs", "--all")
		got.packed = c.costed("status", "T-000007")
		// Three more tasks moved by a plain fetch; a status of another
		// task integrates them: it reads their remembered verifications,
		// not a file of every task's, and moves their refs in one
		// transaction.
		moveElsewhere("T-000000", "T-000001", "T-000003")
		c.git("fetch", "-q", "origin", "+refs/reasoning/tasks/*:refs/reasoning/remotes/origin/*")
		file := filepath.Join(t.TempDir(), "cost.json")
		withCost := &sandbox{t: t, dir: c.dir, home: c.home, env: append(append([]string(nil), c.env...), "GIT_REASON_COST="+file)}
		if r, started := withCost.children("status", "T-000007"); r.code != 0 {
			t.Fatalf("%d tasks: status after a fetch: exit %d\n%s", n, r.code, r.stderr)
		} else {
			got.oneGits = started
		}
		if data, err := os.ReadFile(file); err != nil || json.Unmarshal(data, &got.one) != nil {
			t.Fatalf("%d tasks: no cost of the status after a fetch: %v", n, err)
		}
		// A fetch, then git pack-refs before any git reason command: the
		// moved ref is in packed-refs alone, and the digest sees it.
		moveElsewhere("T-000000")
		c.git("fetch", "-q", "origin", "+refs/reasoning/tasks/*:refs/reasoning/remotes/origin/*")
		c.git("pack-refs", "--all")
		c.mustReason("status", "T-000007")
		for _, task := range []string{"T-000000", "T-000001", "T-000003"} {
			if l, r := c.git("rev-parse", "refs/reasoning/tasks/"+task), c.git("rev-parse", "refs/reasoning/remotes/origin/"+task); l != r {
				t.Errorf("%d tasks: after a plain git fetch (and git pack-refs) and a status, %s is at %s, its tracking ref at %s", n, task, l, r)
			}
		}
		// A record, then a sync: it pushes that task and integrates
		// nothing.
		c.mustReason("assess", "T-000009", "--subject", "synced", "--question", "q", "--materiality", "trivial", "--reversibility", "reversible")
		got.journals["sync"] = c.watched(func() { c.mustReason("sync") })
		// The Reasoning page's task list, shown once, then again after a
		// record and after a plain git fetch moved a task (its catch-up
		// before the request integrating it).
		web := c.startWeb()
		web.get(t, "/")
		c.mustReason("assess", "T-000004", "--subject", "seen on the page", "--question", "q", "--materiality", "trivial", "--reversibility", "reversible")
		got.journals["task list"] = c.watched(func() {
			if page := web.get(t, "/"); !strings.Contains(page, "/task/T-000004") {
				t.Errorf("%d tasks: the task list after a record does not show T-000004", n)
			}
		})
		ref := "refs/reasoning/tasks/T-000002"
		moveElsewhere("T-000002")
		c.git("fetch", "-q", "origin", "+refs/reasoning/tasks/*:refs/reasoning/remotes/origin/*")
		got.journals["task list after a git fetch"] = c.watched(func() { web.get(t, "/") })
		if l, r := c.git("rev-parse", ref), c.git("rev-parse", "refs/reasoning/remotes/origin/T-000002"); l != r {
			t.Errorf("%d tasks: after a plain git fetch and the task list, T-000002 is at %s, its tracking ref at %s", n, l, r)
		}
		return got
	}
	small, large := measure(10), measure(1000)
	t.Logf("no-op sync: %d git processes at 10 tasks, %d at 1,000; largest file a write changed: %d bytes at 10 (%s), %d at 1,000 (%s)",
		small.gits, large.gits, small.written, small.writtenAt, large.written, large.writtenAt)
	if small.gits == 0 || large.gits != small.gits {
		t.Errorf("a sync with nothing to do started %d git processes at 1,000 tasks and %d at 10; want the same, not zero", large.gits, small.gits)
	}
	if large.written > 2*small.written+4096 {
		t.Errorf("a write changed %s, %d bytes at 1,000 tasks (%d at 10): a file that grows with the tasks", large.writtenAt, large.written, small.written)
	}
	t.Logf("an assessment read: %+v at 10 tasks, %+v at 1,000", small.write, large.write)
	if large.write.Histories != 0 || large.write.Tasks > small.write.Tasks || large.write.SharedBytes > 2*small.write.SharedBytes+4096 {
		t.Errorf("an assessment read %+v at 1,000 tasks, %+v at 10: more with more tasks", large.write, small.write)
	}
	// A write looks up the refs it moves (a binary search of packed-refs)
	// and reads its task from the task's cache: it lists no namespace of
	// refs and has go-git decode no pack index, both of which grow with
	// the tasks.
	for _, c := range []struct {
		n    int
		cost cost
	}{{10, small.write}, {1000, large.write}} {
		if c.cost.RefsListed != 0 || c.cost.PackIndexBytes != 0 {
			t.Errorf("an assessment at %d tasks listed %d refs and decoded %d bytes of pack indexes, want none", c.n, c.cost.RefsListed, c.cost.PackIndexBytes)
		}
	}
	for args, l := range large.moved {
		s := small.moved[args]
		t.Logf("%s after one record: %+v at 10 tasks, %+v at 1,000", args, s, l)
		if args == "log" {
			// The moved task merged into the newest-first list as it is
			// read, which is not written again.
			if l.Tasks > 6 || l.SharedBytes > 4096 || l.WrittenBytes != 0 || l.RefsListed != 0 || l.PackIndexBytes != 0 {
				t.Errorf("log -n 5 after one record read %d tasks and %d bytes of files holding every task at 1,000 tasks, wrote %d, listed %d refs and decoded %d bytes of pack indexes: want at most 6 tasks, 4 KiB and nothing else", l.Tasks, l.SharedBytes, l.WrittenBytes, l.RefsListed, l.PackIndexBytes)
			}
			continue
		}
		if l.Tasks > 1 || l.Histories > 1 || l.WrittenBytes > s.WrittenBytes+4096 || l.WrittenBytes == 0 {
			t.Errorf("%s after one record read %d tasks, replayed %d histories and wrote %d bytes of caches at 1,000 tasks (%d at 10): want at most one task and history, and the moved task's entry written, not every task's", args, l.Tasks, l.Histories, l.WrittenBytes, s.WrittenBytes)
		}
	}
	t.Logf("status after a git fetch moved 3 tasks: %+v at 10 tasks, %+v at 1,000", small.fetched, large.fetched)
	if f := large.fetched; f.Histories != small.fetched.Histories || f.Tasks != small.fetched.Tasks || f.Histories == 0 || f.Histories > 6 ||
		f.WrittenBytes > small.fetched.WrittenBytes+8192 {
		t.Errorf("status after a git fetch moved 3 tasks replayed %d histories, read %d tasks and wrote %d bytes of caches at 1,000 tasks (%d, %d, %d at 10): want what the 3 tasks cost at both sizes",
			f.Histories, f.Tasks, f.WrittenBytes, small.fetched.Histories, small.fetched.Tasks, small.fetched.WrittenBytes)
	}
	// The catch-up itself lists no refs (a status of one task after the
	// same fetch lists none, below), nor does the table of every task for
	// the three moved tasks' rows (ops.StatusRows derives those three
	// alone): a status of every task after the fetch lists the task refs
	// as a warm one does. It reads the few packed objects it needs
	// through git rather than have go-git decode the pack's index, which
	// grows with the tasks (228 KB at 1,000; gitstore/packreads.go).
	extra := func(c counts) int64 { return c.fetched.RefsListed - c.reads["status"].RefsListed }
	t.Logf("status after a git fetch moved 3 tasks listed %d refs more than a warm status at 10 tasks, %d at 1,000; decoded %d and %d bytes of pack indexes",
		extra(small), extra(large), small.fetched.PackIndexBytes, large.fetched.PackIndexBytes)
	if extra(large) > extra(small)+16 {
		t.Errorf("status after a git fetch moved 3 tasks listed %d refs beyond a warm status at 1,000 tasks (%d at 10): the catch-up, or the table's rows of the moved tasks, list every tracking or task ref", extra(large), extra(small))
	}
	// Nor does it start git processes per moved task (the signatures of
	// what each brings were three per task: rev-list, cat-file, log):
	// what it starts is a fixed set for the whole catch-up (the object
	// checks' pack-objects and index-pack, the one cat-file reader, and
	// the signature summaries' rev-list and log).
	gits := func(c counts) int { return c.fetchedGits - c.warmGits }
	t.Logf("status after a git fetch moved 3 tasks started %d git processes more than a warm status at 10 tasks, %d at 1,000", gits(small), gits(large))
	if gits(large) > maxCatchUpGits || gits(small) > maxCatchUpGits {
		t.Errorf("status after a git fetch moved 3 tasks started %d git processes beyond a warm status at 1,000 tasks (%d at 10), want at most %d: processes per moved task", gits(large), gits(small), maxCatchUpGits)
	}
	// After git pack-refs: no ref listed (every tracking ref compared
	// with fetched.heads before: 1,001 at 1,000 tasks). (What else it
	// reads, 82 KB of files of every task at 1,000 tasks in one run, is
	// the status's, not the catch-up's.)
	t.Logf("the first status of one task after git pack-refs: %+v at 10 tasks, %+v at 1,000", small.packed, large.packed)
	if small.packed.RefsListed != 0 || large.packed.RefsListed != 0 {
		t.Errorf("the first status of one task after git pack-refs listed %d refs at 1,000 tasks (%d at 10), want none: the catch-up compared every tracking ref",
			large.packed.RefsListed, small.packed.RefsListed)
	}
	// A status of one task after a fetch moved three: the three
	// histories, the same bytes at both sizes (the remembered
	// verifications of every task, read whole before: 210 KB at 1,000
	// tasks), and one git update-ref for the three refs.
	t.Logf("status of one task after a fetch moved 3 others: %+v, git %v at 10 tasks; %+v, git %v at 1,000", small.one, small.oneGits, large.one, large.oneGits)
	for _, c := range []counts{small, large} {
		updates := 0
		for _, g := range c.oneGits {
			if g == "update-ref" {
				updates++
			}
		}
		if c.one.Histories != 3 || c.one.RefsListed != 0 || updates != 1 {
			t.Errorf("status of one task after a fetch moved 3 others replayed %d histories, listed %d refs and ran git update-ref %d times (git %v), want 3, none and one transaction",
				c.one.Histories, c.one.RefsListed, updates, c.oneGits)
		}
	}
	if large.one.SharedBytes > small.one.SharedBytes+4096 {
		t.Errorf("status of one task after a fetch moved 3 others read %d bytes of files of every task at 1,000 tasks, %d at 10: a file that grows with the tasks read whole", large.one.SharedBytes, small.one.SharedBytes)
	}
	if large.fetched.PackIndexBytes > 64<<10 {
		t.Errorf("status after a git fetch moved 3 tasks decoded %d bytes of pack indexes at 1,000 tasks: go-git read the pack's whole index for a few objects", large.fetched.PackIndexBytes)
	}
	// What each command after new records did to the journals of every
	// task: appended a constant per moved task at both sizes, rewrote no
	// file that grows with the tasks, and (status after a record, status
	// after a fetch) appended the moved tasks' entries, which proves the
	// count looks at the files written.
	for what, l := range large.journals {
		s := small.journals[what]
		t.Logf("%s: appended %v, wrote %d task files, rewrote %v at 10 tasks; appended %v, wrote %d task files, rewrote %v at 1,000",
			what, s.appended, s.taskFiles, s.rewritten, l.appended, l.taskFiles, l.rewritten)
		movedTasks := 1
		if what == "status after a git fetch" {
			movedTasks = 3
		}
		if len(l.rewritten) > 0 {
			t.Errorf("%s at 1,000 tasks rewrote files that grow with the tasks: %v", what, l.rewritten)
		}
		for _, j := range countedJournals {
			if l.appended[j] > 2048*movedTasks || l.appended[j] > s.appended[j]+512 {
				t.Errorf("%s appended %d bytes to %s at 1,000 tasks (%d at 10), want at most 2 KiB a moved task, and what it appends at 10", what, l.appended[j], j, s.appended[j])
			}
		}
		// The remembered verifications: a file per moved task, none
		// other (the journal of every task they were read whole from the
		// first lookup on).
		if l.taskFiles > movedTasks || l.taskFiles != s.taskFiles {
			t.Errorf("%s wrote %d files of %s at 1,000 tasks (%d at 10), want at most one a moved task (%d), the same at both sizes", what, l.taskFiles, taskFilesDir, s.taskFiles, movedTasks)
		}
		if what == "status" || what == "status after a git fetch" {
			if l.taskFiles != movedTasks {
				t.Errorf("%s wrote %d files of %s at 1,000 tasks, want the %d moved tasks' (the count looks at the files written)", what, l.taskFiles, taskFilesDir, movedTasks)
			}
			// The table of every task keeps the moved tasks' rows
			// (ops.StatusRows); their signature summaries are asked of
			// each alone, not of the journal of every task.
			if j := "status-rows.journal"; l.appended[j] == 0 || s.appended[j] == 0 {
				t.Errorf("%s appended nothing to %s (%d bytes at 10 tasks, %d at 1,000): the moved tasks' rows are missing", what, j, s.appended[j], l.appended[j])
			}
		}
	}
	for args, l := range large.reads {
		s := small.reads[args]
		t.Logf("%s, warm: %+v at 10 tasks, %+v at 1,000", args, s, l)
		if l.Histories != 0 {
			t.Errorf("%s on warm caches replayed %d histories at 1,000 tasks, want 0", args, l.Histories)
		}
		switch args {
		case "log -n 5":
			// Five lines come from at most five tasks, whatever the
			// number of tasks and however many share a timestamp.
			if l.Tasks > 5 || l.SharedBytes > 4096 || l.RefsListed != 0 || l.PackIndexBytes != 0 {
				t.Errorf("log -n 5 read %d tasks and %d bytes of files holding every task at 1,000 tasks, listed %d refs and decoded %d bytes of pack indexes: want at most 5 tasks, 4 KiB and nothing else", l.Tasks, l.SharedBytes, l.RefsListed, l.PackIndexBytes)
			}
		case "status", "handover", "__complete tasks":
			if l.Tasks != 0 {
				t.Errorf("%s on warm caches read %d tasks' records at 1,000 tasks, want 0", args, l.Tasks)
			}
		}
	}
}

// TestFirstCatchUpListsRefs holds a clone's first catch-up (no
// .git/reason yet: every tracking ref is compared, none was integrated
// before) to a listing of the tracking refs and of the task refs, once,
// past the few moved tasks it looks up one by one: it read each task's
// two refs in turn to check the objects they bring, then listed them to
// integrate (at 5,000 tasks 41% of the first assess's samples). A
// tracking ref forged to bring a tree git's fsck refuses (one name twice)
// is still quarantined, by that first command, its local ref untouched.
func TestFirstCatchUpListsRefs(t *testing.T) {
	harness.SkipShort(t, "generates 300 tasks")
	t.Parallel()
	const n = 300 // more than ops.namedLookups
	c := scaleWorld(t, n)
	const forged = "T-000005"
	head := strings.TrimSpace(c.git("rev-parse", taskRef(forged)))
	var raw []byte
	entries := strings.Split(strings.TrimSpace(c.git("ls-tree", head+":records")), "\n")
	for _, e := range append(entries, entries[len(entries)-1]) {
		meta, name, _ := strings.Cut(e, "\t")
		f := strings.Fields(meta)
		id, err := hex.DecodeString(f[2])
		if err != nil {
			t.Fatal(err)
		}
		raw = append(append(raw, "100644 "+name+"\x00"...), id...)
	}
	records := c.run(t.Context(), raw, "git", "hash-object", "-t", "tree", "--literally", "-w", "--stdin")
	root := c.runStdin("040000 tree "+strings.TrimSpace(records.stdout)+"\trecords\n", "mktree")
	commit := strings.TrimSpace(c.git("commit-tree", strings.TrimSpace(root), "-p", head, "-m", "assessment: twice"))
	c.git("update-ref", "refs/reasoning/remotes/origin/"+forged, commit)
	if err := os.RemoveAll(filepath.Join(c.gitDir(), "reason")); err != nil {
		t.Fatal(err)
	}
	got, r, gits := c.costedRun(true, "status", "T-000007")
	t.Logf("first status of a task in a clone of %d tasks: %d git processes, %+v", n, gits, got)
	if r.code != 0 || !strings.Contains(r.stderr, "fetched task "+forged+" from origin quarantined (objects)") {
		t.Errorf("the first status of a clone whose tracking ref of %s brings a tree git refuses: exit %d, want 0 and it quarantined\n%s", forged, r.code, r.stderr)
	}
	if now := strings.TrimSpace(c.git("rev-parse", taskRef(forged))); now != head {
		t.Errorf("%s moved to %s by a catch-up that should have quarantined it", forged, now)
	}
	if got.RefReads > 16 {
		t.Errorf("the first status of a clone of %d tasks read %d refs one by one, want at most 16: the tracking and task refs are listed once", n, got.RefReads)
	}
	// The status of every task after it verifies the others, and
	// remembers them in one file, the pack (gitstore.Remembered): it
	// wrote a file per task in verified.d/. It reads every task and
	// keeps their caches in one file too, tasks.pack: it wrote a file per
	// task in tasks/.
	before := c.reasonFiles()
	c.mustReason("status")
	loose, caches := 0, 0
	for name, data := range c.reasonFiles() {
		if strings.HasPrefix(name, taskFilesDir) && string(before[name]) != string(data) {
			loose++
		}
		if strings.HasPrefix(name, "tasks/") && string(before[name]) != string(data) {
			caches++
		}
	}
	if _, err := os.Stat(filepath.Join(c.gitDir(), "reason", "verified.pack")); loose > 0 || err != nil {
		t.Errorf("the status of every task of a clone of %d tasks wrote %d files of %s (verified.pack: %v), want none and the pack", n, loose, taskFilesDir, err)
	}
	if _, err := os.Stat(filepath.Join(c.gitDir(), "reason", "tasks.pack")); caches > 0 || err != nil {
		t.Errorf("the status of every task of a clone of %d tasks wrote %d files of tasks/ (tasks.pack: %v), want none and the pack", n, caches, err)
	}
	// Read again from the pack: the next status of every task and of one.
	if r := c.reason("status"); r.code != 0 {
		t.Errorf("status after the caches went into tasks.pack: exit %d\n%s", r.code, r.stderr)
	}
	if got := c.costed("status", "T-000042"); got.Blobs > 0 {
		t.Errorf("the status of a task whose cache the pack holds read %d record blobs from git, want none (%+v)", got.Blobs, got)
	}
}

// TestFirstWriteCounts holds the first assessment of a clone to the task
// it writes: the subject index it builds once (gitstore/subjects.go)
// reads the records of the tasks whose trees name a conclusion, and only
// the trees of the others. It read and cached every task's records: at
// 5,000 tasks 3.4 s and 5,000 files under .git/reason/ for one record
// (bench/scale -audit). The concluded task is still indexed.
func TestFirstWriteCounts(t *testing.T) {
	t.Parallel()
	const n = 40
	c := scaleWorld(t, n)
	c.mustReason("conclude", "T-000002", "--decision", "keep it")
	// As a clone that fetched the tasks: no cache yet.
	reasonDir := filepath.Join(c.gitDir(), "reason")
	if err := os.RemoveAll(reasonDir); err != nil {
		t.Fatal(err)
	}
	got := c.costed("assess", "T-new", "--subject", "a subject never seen", "--question", "q", "--materiality", "trivial", "--reversibility", "reversible")
	t.Logf("first assessment of a clone of %d tasks: %+v", n, got)
	if got.Tasks > 2 || got.Blobs > 8 {
		t.Errorf("the first assessment of a clone of %d tasks, one concluded, read %d tasks' records and %d record blobs, want the concluded task's and its own", n, got.Tasks, got.Blobs)
	}
	if caches, _ := filepath.Glob(filepath.Join(reasonDir, "tasks", "*")); len(caches) > 2 {
		t.Errorf("the first assessment of a clone of %d tasks wrote %d task caches, want at most 2", n, len(caches))
	}
	subjects, _ := filepath.Glob(filepath.Join(reasonDir, "subjects", "*.json"))
	indexed := false
	for _, f := range subjects {
		data, _ := os.ReadFile(f)
		indexed = indexed || strings.Contains(string(data), `"T-000002"`)
	}
	if !indexed {
		t.Errorf("the subject index of the first assessment does not hold T-000002's standing conclusion (files %v)", subjects)
	}
}

// TestRememberedPackRace races the saves of the remembered verifications
// (gitstore.Remembered: a file a task in verified.d/, or the one pack,
// verified.pack, for a save of 64 tasks or more) in a clone of 200 tasks
// with no .git/reason: four first commands (two status, two verify, each
// saving every task at once, so that their packs' writes meet and one
// may leave its save to the task files), assessments of six tasks (small
// saves of tasks the bulk saves hold), and a plain git fetch bringing six
// tasks moved on the remote. Whatever the order: every command exits 0,
// no lock is left, verify exits 0 and says what a verify with no
// .git/reason says, and a task whose ref is then forged (a record
// rewritten on top of its head) is caught by verify although the pack
// holds an entry for it, and still when that entry is edited to name the
// forged head (the MAC of the head it named is the one of its true head).
func TestRememberedPackRace(t *testing.T) {
	harness.SkipShort(t, "generates 200 tasks and races 11 processes")
	const n = 200
	c := scaleWorld(t, n)
	bare := strings.TrimSpace(c.git("remote", "get-url", "origin"))
	task := func(i int) string { return fmt.Sprintf("T-%06d", i) }
	assess := func(s *sandbox, task, subject string) result {
		return s.reason("assess", task, "--subject", subject, "--question", "q",
			"--materiality", "trivial", "--reversibility", "reversible")
	}

	// Six tasks moved on the remote by another clone.
	w := &sandbox{t: t, dir: filepath.Join(t.TempDir(), "other"), home: c.home, env: c.env}
	c.git("clone", "-q", bare, w.dir)
	var moved []string
	for i := 10; i < 16; i++ {
		moved = append(moved, task(i))
		w.git("fetch", "-q", "origin", taskRef(task(i))+":"+taskRef(task(i)))
		if r := assess(w, task(i), "moved "+task(i)); r.code != 0 {
			t.Fatalf("assess %s in the other clone: exit %d\n%s", task(i), r.code, r.stderr)
		}
		w.git("push", "-q", "origin", taskRef(task(i)))
	}

	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed []string
	run := func(name string, f func() result) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := f(); r.code != 0 {
				mu.Lock()
				failed = append(failed, fmt.Sprintf("%s: exit %d: %s", name, r.code, strings.TrimSpace(r.stderr)))
				mu.Unlock()
			}
		}()
	}
	for _, cmd := range []string{"status", "verify", "status", "verify"} {
		run(cmd, func() result { return c.reason(cmd) })
	}
	var written []string
	for p := range 2 {
		tasks := []string{task(100 + 3*p), task(101 + 3*p), task(102 + 3*p)}
		written = append(written, tasks...)
		run(fmt.Sprintf("writer %d", p), func() result {
			for _, tk := range tasks {
				if r := assess(c, tk, "written "+tk); r.code != 0 {
					return r
				}
			}
			return result{}
		})
	}
	run("git fetch", func() result {
		return c.run(t.Context(), nil, "git", "fetch", "-q", "origin", "+refs/reasoning/tasks/*:refs/reasoning/remotes/origin/*")
	})
	wg.Wait()
	if len(failed) > 0 {
		t.Fatalf("racing the remembered verifications' saves:\n%s", strings.Join(failed, "\n"))
	}
	if l := c.locks(); len(l) > 0 {
		t.Fatalf("locks left after every command ended: %v", l)
	}

	// A status brings the moved tasks in if no command did.
	c.mustReason("status")
	for _, tk := range moved {
		if local, fetched := c.git("rev-parse", taskRef(tk)), c.git("rev-parse", "refs/reasoning/remotes/origin/"+tk); local != fetched {
			t.Errorf("%s is at %s after the fetch and a status, want the fetched %s", tk, strings.TrimSpace(local), strings.TrimSpace(fetched))
		}
	}
	for _, tk := range written {
		if recs := c.records(tk); len(recs) != 3 || recs[2].Body.Subject != "written "+tk {
			t.Errorf("%s holds %d records after its assessment, want 3, the last its assessment", tk, len(recs))
		}
	}
	cached := c.reason("verify")
	if cached.code != 0 {
		t.Fatalf("verify after the race: exit %d\n%s%s", cached.code, cached.stdout, cached.stderr)
	}
	// What every task reads from the task caches the race left (in
	// tasks.pack or a file each) is what it reads from its ref.
	var shown, shownFresh []string
	for _, tk := range append(append([]string{task(0), task(150)}, moved...), written...) {
		shown = append(shown, c.mustReason("log", tk))
	}
	reason := filepath.Join(c.gitDir(), "reason")
	if err := os.Rename(reason, reason+".kept"); err != nil {
		t.Fatal(err)
	}
	for _, tk := range append(append([]string{task(0), task(150)}, moved...), written...) {
		shownFresh = append(shownFresh, c.mustReason("log", tk))
	}
	if !slices.Equal(shown, shownFresh) {
		t.Errorf("log with the task caches the race left:\n%s\nwith no .git/reason:\n%s", strings.Join(shown, ""), strings.Join(shownFresh, ""))
	}
	if err := os.RemoveAll(reason); err != nil {
		t.Fatal(err)
	}
	fresh := c.reason("verify")
	if err := os.RemoveAll(reason); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(reason+".kept", reason); err != nil {
		t.Fatal(err)
	}
	if fresh.code != 0 || fresh.stdout != cached.stdout {
		t.Fatalf("verify with what the race remembered: exit 0\n%s\nverify with no .git/reason: exit %d\n%s%s", cached.stdout, fresh.code, fresh.stdout, fresh.stderr)
	}

	// The forged task: one whose true head the pack remembers, and which
	// has no file of its own.
	pack := filepath.Join(reason, "verified.pack")
	names, entries := readVerifiedPack(t, pack)
	files, _ := os.ReadDir(filepath.Join(reason, "verified.d"))
	t.Logf("after the race and two commands: %d tasks in verified.pack, %d files in verified.d/", len(names), len(files))
	packed := func(tk string) int { // -1: no entry, or its file in verified.d/ is read over it
		sum := sha256.Sum256([]byte(tk))
		name := hex.EncodeToString(sum[:16])
		if _, err := os.Stat(filepath.Join(reason, "verified.d", name)); !os.IsNotExist(err) {
			return -1
		}
		return slices.Index(names, name)
	}
	forged := ""
	var head string
	for i := range n {
		head = strings.TrimSpace(c.git("rev-parse", taskRef(task(i))))
		if at := packed(task(i)); at >= 0 && bytes.Contains(entries[at], []byte(head)) {
			forged = task(i)
			break
		}
	}
	if forged == "" {
		t.Fatal("the pack remembers no task at its head after the race")
	}
	recs := c.records(forged)
	blob := c.run(t.Context(), []byte(strings.Replace(c.git("cat-file", "blob", recs[0].blob), "bulk subject", "forged subject", 1)),
		"git", "hash-object", "-w", "--stdin")
	tree := strings.Replace(strings.TrimSpace(c.git("ls-tree", "-r", head)), recs[0].blob, strings.TrimSpace(blob.stdout), 1)
	recordsTree := c.run(t.Context(), []byte(strings.ReplaceAll(tree, "records/", "")+"\n"), "git", "mktree")
	root := c.run(t.Context(), []byte("040000 tree "+strings.TrimSpace(recordsTree.stdout)+"\trecords\n"), "git", "mktree")
	commit := strings.TrimSpace(c.git("commit-tree", "-p", head, "-m", "forged", strings.TrimSpace(root.stdout)))
	c.git("update-ref", taskRef(forged), commit)
	r := c.reason("verify")
	if r.code == 0 || !strings.Contains(r.stdout+r.stderr, forged) {
		t.Errorf("verify of a clone whose %s is forged on top of its head the pack remembers: exit %d, want it caught\n%s%s", forged, r.code, r.stdout, r.stderr)
	}
	// The entry edited as a stranger would: the forged head for the true
	// one, under the true one's MAC, framed anew (its checksum and length).
	at := packed(forged)
	frame, data, _ := bytes.Cut(entries[at], []byte("\n"))
	data = bytes.ReplaceAll(data[:len(data)-1], []byte(head), []byte(commit))
	entries[at] = fmt.Appendf(nil, "%s %s %x %d\n%s\n", forged, commit, crc32.ChecksumIEEE(data), len(data), data)
	if !bytes.HasPrefix(frame, []byte(forged+" "+head+" ")) {
		t.Fatalf("%s's entry in the pack starts %q", forged, frame)
	}
	writeVerifiedPack(t, pack, names, entries)
	if r := c.reason("verify"); r.code == 0 || !strings.Contains(r.stdout+r.stderr, forged) {
		t.Errorf("verify of a clone whose %s is forged, its pack entry naming the forged head: exit %d, want it caught\n%s%s", forged, r.code, r.stdout, r.stderr)
	}
}

// readVerifiedPack reads the pack of remembered verifications
// (gitstore/rememberedpack.go) as a stranger would: its index's names and
// their entries, in its order.
func readVerifiedPack(t *testing.T, path string) (names []string, entries [][]byte) {
	t.Helper()
	data := harness.ReadFile(t, path)
	header, rest, _ := strings.Cut(string(data), "\n")
	count, err := strconv.Atoi(strings.TrimPrefix(header, "git reason verified pack 1 "))
	if err != nil || count*55 > len(rest) {
		t.Fatalf("%s starts %q", path, header)
	}
	body := rest[count*55:]
	for i := range count {
		line := rest[i*55 : (i+1)*55]
		off, err1 := strconv.Atoi(line[33:43])
		size, err2 := strconv.Atoi(line[44:54])
		if err1 != nil || err2 != nil || off+size > len(body) {
			t.Fatalf("%s: index line %q", path, line)
		}
		names = append(names, line[:32])
		entries = append(entries, []byte(body[off:off+size]))
	}
	return names, entries
}

// writeVerifiedPack writes the pack readVerifiedPack reads.
func writeVerifiedPack(t *testing.T, path string, names []string, entries [][]byte) {
	t.Helper()
	b := fmt.Appendf(nil, "git reason verified pack 1 %d\n", len(names))
	off := 0
	for i, name := range names {
		b = fmt.Appendf(b, "%s %010d %010d\n", name, off, len(entries[i]))
		off += len(entries[i])
	}
	harness.WriteFile(t, path, string(append(b, bytes.Join(entries, nil)...)))
}

// TestPrePushVerifiesTogether holds the pre-push hook to as many git
// processes for a push of 40 task refs as for one of 4: it verified each
// task ref in a verification of its own, three git processes a task (a
// push of 300 tasks with the hooks installed took 12.2 s of CPU against
// 1.6 s without; `sh bench/push/first.sh BASE WORLD 300 3 hooks`).
func TestPrePushVerifiesTogether(t *testing.T) {
	t.Parallel()
	c := scaleWorld(t, 44)
	all := strings.SplitAfter(c.git("for-each-ref",
		"--format=%(refname) %(objectname) %(refname) "+strings.Repeat("0", 40), "refs/reasoning/tasks/"), "\n")
	// gits is the hook's git processes for the task refs of lines, none
	// of which it saw before (what it verifies it remembers).
	gits := func(lines []string) int64 {
		t.Helper()
		n := len(lines)
		got := prePushCost(t, c, strings.Join(lines, ""))
		if got.Histories != int64(n) {
			t.Fatalf("the pre-push hook of %d task refs replayed %d histories, want each once", n, got.Histories)
		}
		return got.GitProcesses
	}
	few, many := gits(all[:4]), gits(all[4:44])
	if few == 0 || many > few {
		t.Errorf("the pre-push hook started %d git processes for 40 task refs against %d for 4, want no more", many, few)
	}
}

// TestPrePushReplaysWhatIsNew holds the pre-push hook, for tasks that
// moved on from heads this clone verified clean, to reading the records
// the push adds, not each whole history again: it replayed every pushed
// history whole (a push of 300 tasks moved on by one record each, with
// the hooks on both ends, `sh bench/push/update.sh WORLD 300 3`).
func TestPrePushReplaysWhatIsNew(t *testing.T) {
	t.Parallel()
	c := scaleWorld(t, 1)
	tasks := longTasks(t, c)
	c.mustReason("verify") // remembers each head clean, as a push or a pull does
	var lines strings.Builder
	for _, ref := range tasks {
		old := strings.TrimSpace(c.git("rev-parse", ref))
		c.mustReason("conclude", strings.TrimPrefix(ref, gitstore.TaskPrefix), "--decision", "keep it")
		fmt.Fprintf(&lines, "%s %s %s %s\n", ref, strings.TrimSpace(c.git("rev-parse", ref)), ref, old)
	}
	if got := prePushCost(t, c, lines.String()); got.Blobs > int64(len(tasks)) {
		t.Errorf("the pre-push hook read %d record blobs for %d tasks of 40 records that moved on by one each, want one a task", got.Blobs, len(tasks))
	}
}

// TestPushVerifiesOnce holds `git reason push`, with the hooks installed,
// to replaying each history it pushes once in all: it verified what it
// pushes and saved what it found clean only after git push, whose pre-push
// hook (another git reason) replayed every pushed history whole again
// (six histories and 240 record blobs here, for three); remembered so,
// the hook still read every record to check the reuses again (three
// histories, 240 blobs), as the push had not remembered them checked.
func TestPushVerifiesOnce(t *testing.T) {
	t.Parallel()
	c := scaleWorld(t, 1)
	tasks := longTasks(t, c)
	c.mustReason("hooks", "install")
	file := filepath.Join(t.TempDir(), "cost.json")
	push := &sandbox{t: t, dir: c.dir, home: c.home, env: append(append([]string(nil), c.env...), "GIT_REASON_COST="+file)}
	push.mustReason("push", "origin")
	var histories, blobs int64
	costs := costsIn(t, file)
	for _, got := range costs {
		histories += got.Histories
		blobs += got.Blobs
	}
	if len(costs) != 2 || histories != int64(len(tasks)) || blobs > int64(len(tasks)*40) {
		t.Errorf("git reason push of %d new tasks of 40 records, with the hooks: %d processes replayed %d histories (%d record blobs), want the push and its hook, each history once", len(tasks), len(costs), histories, blobs)
	}
}

// prePushCost is what the pre-push hook read (its cost) given lines, as
// git push gives them, in c.
func prePushCost(t *testing.T, c *sandbox, lines string) cost {
	t.Helper()
	env, err := harness.DispatchEnv(c.env)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "cost.json")
	hook := &sandbox{t: t, dir: c.dir, home: c.home, env: append(append([]string(nil), env...), "GIT_REASON_COST="+file)}
	r := hook.run(context.Background(), []byte(lines), reasonBin, "hook", "pre-push", "origin", "unused")
	if r.code != 0 {
		t.Fatalf("the pre-push hook: exit %d\n%s", r.code, r.stderr)
	}
	return costsIn(t, file)[0]
}

// TestPreReceiveChecksTogether holds the server's pre-receive hook to as
// many git processes for a push of 40 new tasks as for one of 4, and for
// a push of 40 tasks moved on as for one of 4: it ran git's object
// checks, the signatures and the replay once a task, seven git processes
// a task (the replay's two because go-git did not see the objects git
// keeps apart while the hook runs), and a git merge-base a task moved;
// a first push of 300 tasks to a server with the hooks took 39.7 s
// against 1.3 s without (`sh bench/push/first.sh BASE WORLD 300 3
// server`).
func TestPreReceiveChecksTogether(t *testing.T) {
	t.Parallel()
	c := scaleWorld(t, 44)
	all := strings.Fields(c.git("for-each-ref", "--format=%(refname)", "refs/reasoning/tasks/"))
	// pushed is what the pre-receive hook started of git processes for a
	// plain git push of refs to server.
	pushed := func(server string, refs []string) int64 {
		t.Helper()
		got := preReceiveCost(t, c, server, refs)
		if got.Histories != int64(len(refs)) {
			t.Fatalf("the pre-receive hook of %d tasks replayed %d histories, want each once", len(refs), got.Histories)
		}
		return got.GitProcesses
	}
	gits := func(refs []string) (created, moved int64) {
		t.Helper()
		server := hookedServer(t, c)
		created = pushed(server, refs)
		if got := strings.Fields(c.git("--git-dir="+server, "for-each-ref", "--format=%(refname)", "refs/reasoning/tasks/")); len(got) != len(refs) {
			t.Fatalf("the server holds %d tasks after a push of %d", len(got), len(refs))
		}
		concludeEach(t, c, refs)
		return created, pushed(server, refs)
	}
	few, fewMoved := gits(all[:4])
	many, manyMoved := gits(all[4:44])
	if few == 0 || many > few {
		t.Errorf("the pre-receive hook started %d git processes for 40 new tasks against %d for 4, want no more", many, few)
	}
	if fewMoved == 0 || manyMoved > fewMoved {
		t.Errorf("the pre-receive hook started %d git processes for 40 tasks moved on against %d for 4, want no more", manyMoved, fewMoved)
	}
}

// concludeEach concludes each task of refs in c ("keep it") by the real
// writer over c's store in this process: the commit `git reason conclude
// TASK --decision 'keep it'` writes, without a git reason process, its
// discovery and its settings a task (a third of the processes of
// TestPreReceiveChecksTogether).
func concludeEach(t *testing.T, c *sandbox, refs []string) {
	t.Helper()
	store, err := gitstore.Open(c.dir)
	if err != nil {
		t.Fatal(err)
	}
	w := &record.Writer{Store: store, Index: gitstore.Index{Store: store}, Actor: "Ada Tester <ada@example.invalid>", Origin: "concluder"}
	for _, ref := range refs {
		task := strings.TrimPrefix(ref, gitstore.TaskPrefix)
		_, recs, err := store.Load(t.Context(), task)
		if err != nil || len(recs) == 0 || recs[0].Kind != record.KindAssessment {
			t.Fatalf("task %s: %d records, %v; want its assessment first", task, len(recs), err)
		}
		if _, err := w.Append(t.Context(), task, record.KindConclusion, []byte(`{"assessment":"`+recs[0].ID+`","decision":"keep it"}`)); err != nil {
			t.Fatalf("conclude %s: %v", task, err)
		}
	}
}

// TestPreReceiveReplaysWhatIsNew holds the server's pre-receive hook, for
// tasks that moved on from heads it checked in an earlier push, to
// reading the records the push adds, not each whole history again: it
// replayed every pushed history whole (a push of 300 tasks moved on by
// one record each, with the hooks on both ends, `sh bench/push/update.sh
// WORLD 300 3`).
func TestPreReceiveReplaysWhatIsNew(t *testing.T) {
	t.Parallel()
	c := scaleWorld(t, 1)
	server := hookedServer(t, c)
	refs := longTasks(t, c)
	preReceiveCost(t, c, server, refs)
	for _, ref := range refs {
		c.mustReason("conclude", strings.TrimPrefix(ref, gitstore.TaskPrefix), "--decision", "keep it")
	}
	if got := preReceiveCost(t, c, server, refs); got.Blobs > int64(len(refs)) {
		t.Errorf("the pre-receive hook read %d record blobs for %d tasks of 40 records that moved on by one each, want one a task", got.Blobs, len(refs))
	}
}

// longTasks writes three tasks of 40 records into c and returns their refs.
func longTasks(t *testing.T, c *sandbox) []string {
	t.Helper()
	var refs []string
	for _, task := range []string{"L-000000", "L-000001", "L-000002"} {
		harness.BulkTaskT(t, c.dir, task, 40)
		refs = append(refs, gitstore.TaskRef(task))
	}
	return refs
}

// hookedServer is a new bare repository with git reason's server hooks.
func hookedServer(t *testing.T, c *sandbox) string {
	t.Helper()
	server := filepath.Join(t.TempDir(), "server.git")
	c.git("init", "-q", "--bare", server)
	hub := &sandbox{t: t, dir: server, home: c.home, env: c.env}
	if r := hub.reason("hooks", "install", "--server"); r.code != 0 {
		t.Fatalf("hooks install --server: exit %d\n%s", r.code, r.stderr)
	}
	return server
}

// preReceiveCost is what server's pre-receive hook read (its cost) in a
// plain git push of refs from c.
func preReceiveCost(t *testing.T, c *sandbox, server string, refs []string) cost {
	t.Helper()
	file := filepath.Join(t.TempDir(), "cost.json")
	push := &sandbox{t: t, dir: c.dir, home: c.home, env: append(append([]string(nil), c.env...), "GIT_REASON_COST="+file)}
	if r := push.run(context.Background(), nil, "git", append([]string{"push", "-q", server}, refs...)...); r.code != 0 {
		t.Fatalf("git push of %d tasks: exit %d\n%s", len(refs), r.code, r.stderr)
	}
	for _, got := range costsIn(t, file) {
		if slices.Contains(got.Args, "pre-receive") {
			return got
		}
	}
	t.Fatalf("no cost of the pre-receive hook of a push of %d tasks", len(refs))
	return cost{}
}

// costsIn is the costs (GIT_REASON_COST) the processes wrote to file,
// one a line, at least one.
func costsIn(t *testing.T, file string) []cost {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []cost
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var c cost
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		out = append(out, c)
	}
	return out
}
