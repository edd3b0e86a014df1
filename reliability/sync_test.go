package reliability

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"git-reason/reliability/harness"
)

// syncWorld is a bare remote and clones of it, each a sandbox sharing one
// HOME and environment.
type syncWorld struct {
	remote *sandbox // the bare repository (dir is its git dir)
	clones []*sandbox
}

// newSyncWorld makes a bare remote holding one commit on main and n clones
// of it.
func newSyncWorld(t *testing.T, n int) *syncWorld {
	t.Helper()
	seed := newSandbox(t)
	root := t.TempDir()
	bare := filepath.Join(root, "remote.git")
	seed.git("init", "-q", "--bare", bare)
	seed.git("push", "-q", bare, "main")
	w := &syncWorld{remote: &sandbox{t: t, dir: bare, home: seed.home, env: seed.env}}
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("clone-%d", i))
		seed.git("clone", "-q", bare, dir)
		w.clones = append(w.clones, &sandbox{t: t, dir: dir, home: seed.home, env: seed.env})
	}
	return w
}

// heads returns every task ref of s with its value, one "hash ref" line
// each, sorted, read with plain git.
func (s *sandbox) heads() string {
	return s.git("for-each-ref", "--format=%(objectname) %(refname)", "refs/reasoning/tasks/")
}

// ackedRecord is a record whose command exited 0 in clone.
type ackedRecord struct {
	clone    int
	task, id string
}

// syncOutcome counts what the syncs of a run did, by exit status.
type syncOutcome struct {
	mu    sync.Mutex
	codes map[int]int
	took  []time.Duration
	other []string
}

func (o *syncOutcome) add(r result) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.codes[r.code]++
	o.took = append(o.took, r.took)
	// Exit 1 is allowed while eight clones race, for one reason only: the
	// remote kept moving through every retry. Anything else is a bug.
	if r.code != 0 && !(r.code == 1 && strings.Contains(r.stdout, " kept moving: gave up")) && len(o.other) < 5 {
		o.other = append(o.other, fmt.Sprintf("exit %d: %s%s", r.code, strings.TrimSpace(r.stdout), strings.TrimSpace(r.stderr)))
	}
}

// TestSyncConvergence runs 8 clones of one bare remote at once, each set
// up by `git reason hooks install` (git fetch brings reasoning, git push
// carries it). In each clone a writer appends, for R rounds, one record
// to a task all clones share and one to the clone's own task, while a
// syncer, at random moments, runs `git reason sync`, or a plain
// `git fetch` followed by `git reason status` (whose catch-up integrates
// what the fetch brought), or a plain `git push` of a code commit naming
// the clone's task (whose pre-push hook pushes its reasoning): so pulls,
// pushes and the automatic paths race appends in the same clone and the
// other clones. Then every clone syncs twice, one after another.
//
// Pass: no sync ever quarantines or fails except by the remote moving
// through every retry; every status after a fetch and every code push
// exits 0, the status with the fetched head of the shared task in its
// local ref and nothing said but what arrived, the code push with the
// clone's own task's head (as before the push) on the remote and nothing
// said by its hook; every final sync exits 0; every acknowledged record
// is in every clone; all clones and the remote have identical task heads;
// git reason verify passes and git fsck --strict has no complaint in every
// clone and the remote.
func TestSyncConvergence(t *testing.T) {
	harness.SkipShort(t, "runs hundreds of processes")
	const clones = 8
	rounds, name := form(5, 50)
	seed := uint64(time.Now().UnixNano())
	t.Logf("%s: %d clones, %d rounds; seed %d", name, clones, rounds, seed)
	w := newSyncWorld(t, clones)
	for _, c := range w.clones {
		c.mustReason("hooks", "install")
	}
	// The shared task is on the remote before the race, so that every
	// git fetch of it brings the task's remote-tracking ref and the
	// status after it has a fetched head to integrate: without it, a
	// race whose few syncs come late checks no fetch at all (seen in CI:
	// "checked 0 times after a fetch").
	w.clones[0].mustReason("assess", "shared", "--subject", "before the race", "--question", "q",
		"--materiality", "trivial", "--reversibility", "reversible")
	w.clones[0].mustReason("sync")
	start := time.Now()

	var (
		mu     sync.Mutex
		acked  []ackedRecord
		failed []string
		wg     sync.WaitGroup
	)
	syncs := &syncOutcome{codes: map[int]int{}}
	auto := &syncOutcome{codes: map[int]int{}} // the automatic paths
	// How many of them were checked beyond their exit status: a fetched
	// head of the shared task found in the local ref after status, a
	// clone's own head found on the remote after its code push.
	var fetchChecked, pushChecked atomic.Int64
	for i, c := range w.clones {
		done := make(chan struct{})
		wg.Add(2)
		go func() {
			defer wg.Done()
			defer close(done)
			for r := range rounds {
				for _, task := range []string{"shared", fmt.Sprintf("own-%d", i)} {
					res := c.reason("assess", task, "--subject", fmt.Sprintf("clone %d round %d %s", i, r, task),
						"--question", "q", "--materiality", "trivial", "--reversibility", "reversible", "--json")
					var rec struct{ ID string }
					mu.Lock()
					if res.code != 0 || json.Unmarshal([]byte(res.stdout), &rec) != nil || rec.ID == "" {
						failed = append(failed, fmt.Sprintf("clone %d: assess %s: exit %d: %s", i, task, res.code, strings.TrimSpace(res.stderr)))
					} else {
						acked = append(acked, ackedRecord{clone: i, task: task, id: rec.ID})
					}
					mu.Unlock()
				}
			}
		}()
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(i)))
			// Each clone's first step is one of the three in turn
			// (clone i takes step i mod 3), taken whatever the writes
			// are doing, so that every run races each of them however
			// few steps the load leaves time for; the later ones are
			// drawn.
			for n := 0; ; n++ {
				step := i % 3
				if n > 0 {
					select {
					case <-done:
						return
					case <-time.After(time.Duration(rng.IntN(300)) * time.Millisecond):
					}
					step = rng.IntN(3)
				}
				switch step {
				case 0:
					syncs.add(c.reason("sync"))
				case 1:
					r, checked := fetchThenStatus(c)
					auto.add(r)
					if checked {
						fetchChecked.Add(1)
					}
				default:
					r, checked := codePush(c, w.remote, i)
					auto.add(r)
					if checked {
						pushChecked.Add(1)
					}
				}
			}
		}()
	}
	wg.Wait()
	concurrent := time.Since(start)
	for _, f := range failed {
		t.Error(f)
	}
	if syncs.codes[3] > 0 || len(syncs.other) > 0 {
		t.Errorf("syncs while racing: exit statuses %v; unexpected: %s", syncs.codes, strings.Join(syncs.other, "\n"))
	}
	if len(auto.codes) > 1 || auto.codes[0] == 0 {
		t.Errorf("fetches, statuses after them and code pushes while racing: exit statuses %v, want all 0: %s", auto.codes, strings.Join(auto.other, "\n"))
	}
	if fetchChecked.Load() == 0 || pushChecked.Load() == 0 {
		t.Errorf("the automatic paths were checked %d times after a fetch and %d times after a code push: want both at least once, or the test proved nothing about them",
			fetchChecked.Load(), pushChecked.Load())
	}

	// Then every clone syncs twice, in turn.
	final := &syncOutcome{codes: map[int]int{}}
	for pass := range 2 {
		for i, c := range w.clones {
			r := c.reason("sync")
			final.add(r)
			if r.code != 0 {
				t.Errorf("final sync %d of clone %d: exit %d: %s%s", pass+1, i, r.code, r.stdout, r.stderr)
			}
		}
	}

	want := w.remote.heads()
	for i, c := range w.clones {
		if got := c.heads(); got != want {
			t.Errorf("clone %d task heads differ from the remote's:\n%s\nremote:\n%s", i, got, want)
		}
	}
	present := map[string]bool{}
	for _, task := range tasksOf(acked) {
		for _, r := range w.remote.records(task) {
			present[task+"/"+r.ID] = true
		}
	}
	lost := 0
	for _, a := range acked {
		if !present[a.task+"/"+a.id] {
			if lost++; lost <= 5 {
				t.Errorf("record %s of task %s, acknowledged in clone %d, is not on the remote", a.id, a.task, a.clone)
			}
		}
	}
	for i, c := range w.clones {
		c.verify()
		if f := c.fsck(); len(f.complaints) > 0 || f.err != nil {
			t.Errorf("clone %d: git fsck --strict: %v %s", i, f.err, strings.Join(f.complaints, "; "))
		}
	}
	if f := w.remote.fsck(); len(f.complaints) > 0 || f.err != nil {
		t.Errorf("remote: git fsck --strict: %v %s", f.err, strings.Join(f.complaints, "; "))
	}
	merges := strings.Count(w.remote.git("rev-list", "--merges", "refs/reasoning/tasks/shared"), "\n")
	t.Logf("%s: %d records acknowledged (%d lost), %d of them in task shared, whose history has %d merge commits",
		name, len(acked), lost, countTask(acked, "shared"), merges)
	t.Logf("racing syncs: %d, exit statuses %v, took %s; racing phase %v", len(syncs.took), syncs.codes, percentiles(syncs.took), concurrent.Round(time.Millisecond))
	t.Logf("racing automatic paths (git fetch then status, git push of code): %d, exit statuses %v; fetched heads found integrated %d times, own heads found on the remote after a code push %d times",
		len(auto.took), auto.codes, fetchChecked.Load(), pushChecked.Load())
	t.Logf("final syncs: %d, exit statuses %v, took %s; all %d clones have the remote's %d task heads",
		len(final.took), final.codes, percentiles(final.took), clones, strings.Count(want, "\n"))
}

// fetchThenStatus is the automatic path in: a plain git fetch, then
// git reason status, whose catch-up must integrate what the fetch brought
// before it answers. A result that exits 0 but left a fetched head of the
// shared task out of the local ref, or said anything but what arrived (a
// quarantine, a warning, a merge that needs a person), is returned as a
// failure (exit 90): the command never fails for its catch-up, so its
// exit status alone would prove nothing.
func fetchThenStatus(c *sandbox) (result, bool) {
	if f := c.run(context.Background(), nil, "git", "fetch", "-q", "origin"); f.code != 0 {
		return f, false
	}
	fetched := c.run(context.Background(), nil, "git", "rev-parse", "-q", "--verify", "refs/reasoning/remotes/origin/shared")
	st := c.reason("status")
	if st.code != 0 {
		return st, false
	}
	for _, l := range strings.Split(strings.TrimSpace(st.stderr), "\n") {
		if l != "" && !strings.HasPrefix(l, "git reason: integrated reasoning fetched from origin: ") {
			return result{code: 90, stderr: "git reason status after git fetch said: " + l}, false
		}
	}
	if fetched.code != 0 {
		return st, false
	}
	head := strings.TrimSpace(fetched.stdout)
	if a := c.run(context.Background(), nil, "git", "merge-base", "--is-ancestor", head, taskRef("shared")); a.code != 0 {
		return result{code: 90, stderr: fmt.Sprintf("git reason status after git fetch: the fetched head %s of task shared is not in the local ref (merge-base exit %d)", head, a.code)}, false
	}
	return st, true
}

// codePush is the automatic path out: a code commit naming clone i's own
// task, pushed with plain git, whose pre-push hook must carry that task's
// reasoning. Only clone i writes own-i, so the remote must then hold the
// local head read before the push (or a later one): a push that exits 0
// without it, or whose hook said a task did not travel, is returned as a
// failure (exit 90), since a reasoning push never fails the code push.
func codePush(c, remote *sandbox, i int) (result, bool) {
	own := fmt.Sprintf("own-%d", i)
	if cm := c.run(context.Background(), nil, "git", "commit", "-q", "--allow-empty", "-m", "code", "-m", "Reason-Task: "+own); cm.code != 0 {
		return cm, false
	}
	local := c.run(context.Background(), nil, "git", "rev-parse", "-q", "--verify", taskRef(own))
	p := c.run(context.Background(), nil, "git", "push", "-q", "origin", fmt.Sprintf("HEAD:refs/heads/clone-%d", i))
	if p.code != 0 {
		return p, false
	}
	if strings.Contains(p.stderr, "git-reason:") {
		return result{code: 90, stderr: "git push of code: " + strings.TrimSpace(p.stderr)}, false
	}
	if local.code != 0 {
		return p, false
	}
	head := strings.TrimSpace(local.stdout)
	if a := remote.run(context.Background(), nil, "git", "merge-base", "--is-ancestor", head, taskRef(own)); a.code != 0 {
		return result{code: 90, stderr: fmt.Sprintf("git push of code naming %s exited 0, but the remote lacks its reasoning head %s (merge-base exit %d)", own, head, a.code)}, false
	}
	return p, true
}

func tasksOf(acked []ackedRecord) []string {
	var out []string
	for _, a := range acked {
		out = append(out, a.task)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func countTask(acked []ackedRecord, task string) int {
	n := 0
	for _, a := range acked {
		if a.task == task {
			n++
		}
	}
	return n
}

// TestSyncCrash kills `git reason pull`, `git reason push`,
// `git reason status` after a plain git fetch (whose catch-up integrates
// what the fetch brought) and a plain `git push` of a code commit naming
// the task (whose pre-push hook pushes, pulls, merges and pushes its
// reasoning again), in turns, with SIGKILL, with their whole
// process group, at a random moment while they integrate a diverged
// task. Before each kill the other clone has pushed a record to the
// shared task and this clone has appended one, so every pull and
// catch-up merges and every push sends a merge or is rejected and pulls.
// After each kill every task ref must resolve to a commit, every record
// this clone acknowledged must still be on its refs, and the next
// `git reason sync` must complete (exit 0). A lock file a kill left behind
// is removed, as a git user does once no git process runs, and counted.
//
// Pass: all of the above, and at the end the two clones and the remote
// agree, verify passes, fsck has no complaint; at least 20 (quick) or 200
// (long) processes were really killed.
func TestSyncCrash(t *testing.T) {
	harness.SkipShort(t, "kills processes")
	kills, name := form(20, 200)
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("GIT_REASON_CRASH_SEED"); v != "" {
		fmt.Sscan(v, &seed)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	t.Logf("%s: pull, push, the catch-up after a plain git fetch and a code push's pre-push hook killed until %d kills landed; seed %d (GIT_REASON_CRASH_SEED repeats the delays)", name, kills, seed)
	w := newSyncWorld(t, 2)
	a, b := w.clones[0], w.clones[1]
	a.mustReason("hooks", "install") // git fetch brings reasoning, git push carries it
	acked := map[string]bool{}
	assess := func(s *sandbox, who string, i int) {
		id := s.recordID("assess", "shared", "--subject", fmt.Sprintf("%s %d", who, i), "--question", "q",
			"--materiality", "trivial", "--reversibility", "reversible")
		if s == a {
			acked[id] = true
		}
	}
	assess(a, "a", -1)
	a.mustReason("sync")
	b.mustReason("sync")

	landed, attempts, staleLocks := 0, 0, map[string]int{}
	var delays []time.Duration
	byVerb := map[string]int{}
	for i := 0; landed < kills && attempts < 20*kills; i++ {
		attempts++
		assess(b, "b", i)
		b.mustReason("sync")
		assess(a, "a", i)
		verb := []string{"pull", "push", "status", "code push"}[i%4]
		switch verb {
		case "status":
			// The catch-up: a plain git fetch brings b's record, and
			// status, killed, integrates it before it answers.
			a.git("fetch", "-q", "origin")
		case "code push":
			// The pre-push hook: a plain git push of a commit naming the
			// task, killed while its hook pushes the task's reasoning
			// (rejected: b pushed; it pulls, merges and pushes again).
			a.git("commit", "-q", "--allow-empty", "-m", fmt.Sprintf("code %d", i), "-m", "Reason-Task: shared")
		}
		delay := time.Duration(rng.Int64N(int64(400 * time.Millisecond)))
		r, sent := killedVerb(a, delay, verb)
		if r.killed {
			landed++
			byVerb[verb]++
			delays = append(delays, delay)
		} else if !sent && r.code != 0 {
			t.Errorf("%s (not killed) exited %d: %s", verb, r.code, r.stderr)
		}
		for _, l := range a.locks() {
			staleLocks[l]++
			os.Remove(filepath.Join(a.gitDir(), filepath.FromSlash(l)))
		}
		for _, line := range strings.Split(strings.TrimSpace(a.heads()), "\n") {
			ref := strings.Fields(line)[1]
			if rp := a.run(context.Background(), nil, "git", "rev-parse", "--verify", "-q", ref+"^{commit}"); rp.code != 0 {
				t.Fatalf("after killing %s %d: %s does not resolve: %s", verb, i, ref, rp.stderr)
			}
		}
		have := map[string]bool{}
		for _, rec := range a.records("shared") {
			have[rec.ID] = true
		}
		for id := range acked {
			if !have[id] {
				t.Fatalf("after killing %s %d: acknowledged record %s is gone", verb, i, id)
			}
		}
		if s := a.reason("sync"); s.code != 0 {
			t.Fatalf("sync after killing %s %d: exit %d: %s", verb, i, s.code, s.stderr)
		}
	}
	if landed < kills {
		t.Errorf("only %d of %d kills landed in %d attempts", landed, kills, attempts)
	}
	b.mustReason("sync")
	if a.heads() != w.remote.heads() || b.heads() != w.remote.heads() {
		t.Errorf("clones and remote disagree:\na: %s\nb: %s\nremote: %s", a.heads(), b.heads(), w.remote.heads())
	}
	for _, s := range []*sandbox{a, b} {
		s.verify()
		if f := s.fsck(); len(f.complaints) > 0 || f.err != nil {
			t.Errorf("git fsck --strict: %v %s", f.err, strings.Join(f.complaints, "; "))
		}
	}
	t.Logf("%s: %d kills landed in %d attempts (delays %s; by what was killed: %v), %d records acknowledged, none lost; stale lock files removed: %v",
		name, landed, attempts, percentiles(delays), byVerb, len(acked), staleLocks)
}

// killedVerb runs git reason VERB in s ("code push": a plain git push of
// HEAD, hooks and all) and kills its process group after delay unless it
// ended first; sent says whether the kill was sent.
func killedVerb(s *sandbox, delay time.Duration, verb string) (crashResult, bool) {
	c := s.cmd(context.Background(), "git", "reason", verb)
	if verb == "code push" {
		c = s.cmd(context.Background(), "git", "push", "-q", "origin", "HEAD:refs/heads/code")
	}
	return runKilled(c, true, delay)
}
