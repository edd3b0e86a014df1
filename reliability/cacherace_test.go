package reliability

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"git-reason/reliability/harness"
)

// TestTaskCacheRace races every path that appends to or rewrites a task's
// cache file (.git/reason/tasks/<task>.records, appended to without a
// lock) and its list of what the writer did (written.d), in one clone:
// writer processes of `git reason assess` on one task they share and on
// tasks of their own, a quarter of them killed by SIGKILL at a random
// moment of their append; a resident `git reason mcp` appending through
// its write-behind cache and reading log and status through it, killed
// and started again; readers (`log --json`, `status --json` of one task
// and of every task, `tasks --json`, `show --json`) that rewrite a stale
// cache file whole, a third of them killed too, and `verify`; git
// pack-refs and git gc; and a second clone
// whose appends `git reason sync` brings in (fast-forwards and merges).
// Meanwhile a watcher reads every cache file over and over.
// GIT_REASON_CACHE_RACE_SECONDS sets how long the race runs (8 s; 120 s
// in the long form).
//
// Pass: every acknowledged record is on its task exactly once (plain
// git) and each task appended in this clone alone is one chain, a
// record a commit; every answer a reader got while racing is the
// history's own at some head (the MCP server's log and status too): log
// lists exactly the task's first k records, status counts k and names
// record k (for every task it lists too), tasks counts k and names record
// k's subject, show prints the record asked; every verify while racing is clean; no watched cache
// file ever held a whole segment appended where it does not go on from
// the head before it (an append made to a file not at the length its
// writer read: the cache is cut there); written.d holds only whole
// lines; after one write to each task, every cache file is at its task's
// head and read to its end; and log, status, tasks, handover and verify
// answer as a fresh clone of the refs with no cache does.
func TestTaskCacheRace(t *testing.T) {
	harness.SkipShort(t, "starts hundreds of processes")
	secs, name := form(8, 120)
	if v, err := strconv.Atoi(os.Getenv("GIT_REASON_CACHE_RACE_SECONDS")); err == nil && v > 0 {
		secs = v
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("%s: %d s of racing at least; seed %d", name, secs, seed)
	w := newSyncWorld(t, 2)
	a, b := w.clones[0], w.clones[1]
	r := &cacheRace{s: a, acked: map[string][]string{}, killed: map[string][]string{}}
	// Every task exists before the race, so that readers read it from
	// the start.
	for _, task := range cacheRaceTasks {
		r.assess(a, task, "before the race", false, false, 0)
	}
	b.mustReason("assess", "T-b", "--subject", "b before the race", "--question", "q",
		"--materiality", "trivial", "--reversibility", "reversible")
	b.mustReason("sync")
	a.mustReason("sync")
	b.mustReason("sync")

	// The race runs secs seconds, and on (at most four times as long)
	// until it has done each thing it is to prove (r.covered): on a
	// loaded machine 8 s could end before a reader had asked show once.
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go func() {
		defer stop()
		least := time.Duration(secs) * time.Second
		time.Sleep(least)
		for deadline := time.Now().Add(3 * least); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			if r.covered(r.answered()) {
				return
			}
		}
	}()
	var wg sync.WaitGroup
	run := func(f func()) {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	writers := 4
	if v, err := strconv.Atoi(os.Getenv("GIT_REASON_CACHE_RACE_WRITERS")); err == nil && v > 0 {
		writers = v
	}
	t.Logf("%d writer processes at a time", writers)
	for p := range writers {
		run(func() { r.writer(ctx, p, rand.New(rand.NewPCG(seed, uint64(p)))) })
	}
	run(func() { r.mcpWriter(ctx, rand.New(rand.NewPCG(seed, 10))) })
	for p := range 2 {
		run(func() { r.reader(ctx, p, rand.New(rand.NewPCG(seed, uint64(20+p)))) })
	}
	run(func() { r.watch(ctx) })
	// The sweeper runs until every process of the race has ended: a
	// writer still running at the end waits for a lock left late.
	sweep, endSweep := context.WithCancel(context.Background())
	swept := make(chan struct{})
	go func() { defer close(swept); r.sweepLocks(sweep) }()
	run(func() { r.syncs(ctx, b, rand.New(rand.NewPCG(seed, 30))) })
	var repacking sync.Mutex
	var maxPacks atomic.Int64
	loops := packingLoops(ctx, &wg, a, cacheRaceTasks, &maxPacks, &repacking)
	began := time.Now()
	wg.Wait()
	t.Logf("raced %.1f s", time.Since(began).Seconds())
	endSweep()
	<-swept

	// Quiet: a lock a kill left behind is removed, as a git user does
	// once no git process runs; one write to each task, and both clones
	// synced, in turn.
	for _, l := range a.locks() {
		r.staleLocks = append(r.staleLocks, l)
		os.Remove(filepath.Join(a.gitDir(), filepath.FromSlash(l)))
	}
	for _, task := range cacheRaceTasks {
		r.assess(a, task, "after the race", false, false, 0)
	}
	for range 2 {
		b.mustReason("sync")
		a.mustReason("sync")
	}
	for _, l := range loops {
		l.report(t)
	}
	r.check(t)
}

// covered reports whether the race killed a writer and a reader, wrote
// through the MCP server, and has answers (checked, by readerAnswer.name)
// of every kind a reader asks.
func (r *cacheRace) covered(checked map[string]int) bool {
	if r.kills.Load() == 0 || r.readerKills.Load() == 0 || r.mcpWrites.Load() == 0 {
		return false
	}
	for _, k := range []string{"log", "status", "show", "status of every task", "tasks of every task", "mcp log", "mcp status"} {
		if checked[k] == 0 {
			return false
		}
	}
	return true
}

// answered counts the readers' answers so far by name, right or wrong
// (check judges them once the race is over).
func (r *cacheRace) answered() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := map[string]int{}
	for _, a := range r.answers {
		n[a.name()]++
	}
	return n
}

// name is the kind of answer a: "mcp " for the MCP server's, the verb,
// " of every task" when it named none.
func (a readerAnswer) name() string {
	return map[bool]string{true: "mcp "}[a.mcp] + a.verb + map[bool]string{true: " of every task"}[a.task == ""]
}

// cacheRaceTasks are the tasks of the clone that races; T-hot is shared
// by every writer and the MCP server, T-shared is appended to in both
// clones as well (so merged by sync), T-b in the other clone alone.
var cacheRaceTasks = []string{"T-hot", "T-0", "T-1", "T-2", "T-3", "T-shared"}

// linearTasks are the tasks whose history is one chain in the racing
// clone: a reader's answer is the chain's first k records.
var linearTasks = []string{"T-hot", "T-0", "T-1", "T-2", "T-3", "T-b"}

// cacheRace is what one run saw.
type cacheRace struct {
	s     *sandbox
	mu    sync.Mutex
	acked map[string][]string // task: subjects whose command exited 0
	// killed is, by task, the subjects whose command SIGKILL ended.
	killed map[string][]string
	n      atomic.Int64 // subjects made

	writes, kills, killedStored, mcpWrites, mcpKills, readerKills, verifies, syncRuns atomic.Int64
	snapshots, cutSeen, segmentsSeen, maxSegments, showsUnasked                       atomic.Int64

	appendTook             []time.Duration
	failures               []string
	answers                []readerAnswer
	misplaced              []string // watched cache files holding a segment that does not follow
	locksSwept, staleLocks []string // while racing, and after
}

// sweepLocks removes, until ctx ends, a lock file under .git that has
// been there for five seconds: one a process killed between taking it and
// renaming it into place left behind, exactly as git leaves one, which
// the next command to want it waits for (ten seconds) and then fails or
// warns naming. A user removes it once no git process runs; a live
// process holds one for milliseconds.
func (r *cacheRace) sweepLocks(ctx context.Context) {
	for ctx.Err() == nil {
		for _, l := range r.s.locks() {
			p := filepath.Join(r.s.gitDir(), filepath.FromSlash(l))
			if fi, err := os.Stat(p); err == nil && time.Since(fi.ModTime()) > 5*time.Second && os.Remove(p) == nil {
				r.mu.Lock()
				r.locksSwept = append(r.locksSwept, l)
				r.mu.Unlock()
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// readerAnswer is one reader command's output, checked once the race is
// over against the final history.
type readerAnswer struct {
	task, verb, arg, out string
	mcp                  bool // a tool's result, of the resident server
}

func (r *cacheRace) fail(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.failures) < 20 {
		r.failures = append(r.failures, fmt.Sprintf(format, args...))
	}
}

func (r *cacheRace) subject(tag string) string {
	return fmt.Sprintf("%s-%05d", tag, r.n.Add(1))
}

// assess appends one record to task in s, killing the process group
// after delay when kill is set; an acknowledged record is remembered.
func (r *cacheRace) assess(s *sandbox, task, subject string, big, kill bool, delay time.Duration) {
	env, err := harness.DispatchEnv(s.env)
	if err != nil {
		s.t.Fatal(err)
	}
	args := []string{"assess", task, "--subject", subject, "--question", "q",
		"--materiality", "trivial", "--reversibility", "reversible"}
	if big {
		args = append(args, bigEvidence...)
	}
	c := exec.Command(reasonBin, args...)
	c.Dir, c.Env = s.dir, env
	res, sent := runKilled(c, kill, delay)
	switch {
	case res.code == 0:
		r.mu.Lock()
		r.acked[task] = append(r.acked[task], subject)
		r.appendTook = append(r.appendTook, res.took)
		r.mu.Unlock()
		r.writes.Add(1)
	case res.killed && sent:
		r.kills.Add(1)
		r.mu.Lock()
		r.killed[task] = append(r.killed[task], subject)
		r.mu.Unlock()
	default:
		r.fail("assess %s %s: exit %d: %s", task, subject, res.code, strings.TrimSpace(res.stderr))
	}
}

// bigEvidence is the flags of 30 pieces of evidence of 1,900 bytes
// each: a record of some 60 KB, whose segment takes many pages to write,
// so that a reader may read it half written.
var bigEvidence = func() []string {
	var out []string
	for i := range 30 {
		out = append(out, "--evidence", fmt.Sprintf("note::%02d %s", i, strings.Repeat("x", 1897)))
	}
	return out
}()

// writer appends records until ctx ends, to T-hot half the time and to
// the task T-(p mod 4) otherwise, killing one append in four at a random
// moment within one and a half times the median an append takes; writer
// 3 (and every fourth after it) writes records of some 60 KB.
func (r *cacheRace) writer(ctx context.Context, p int, rng *rand.Rand) {
	for i := 0; ctx.Err() == nil; i++ {
		task := "T-hot"
		if rng.IntN(2) == 0 {
			task = fmt.Sprintf("T-%d", p%4)
		}
		r.mu.Lock()
		limit := 30 * time.Millisecond
		if len(r.appendTook) >= 5 {
			limit = harness.Median(r.appendTook) * 3 / 2
		}
		r.mu.Unlock()
		kill := rng.IntN(4) == 0
		r.assess(r.s, task, r.subject(fmt.Sprintf("w%d", p)), p%4 == 3, kill, time.Duration(rng.Int64N(int64(limit)+1)))
	}
}

// mcpWriter appends through a resident `git reason mcp` (its caches
// written behind), to T-hot and T-0, killing the server by SIGKILL after
// a random number of calls and starting another.
func (r *cacheRace) mcpWriter(ctx context.Context, rng *rand.Rand) {
	for ctx.Err() == nil {
		m, err := startMCP(r.s)
		if err != nil {
			r.fail("start git reason mcp: %v", err)
			return
		}
		calls := 1 + rng.IntN(20)
		for i := 0; i < calls && ctx.Err() == nil; i++ {
			task := []string{"T-hot", "T-0"}[rng.IntN(2)]
			subj := r.subject("mcp")
			res, err := m.call("tools/call", map[string]any{"name": "assess", "arguments": map[string]any{
				"task": task, "subject": subj, "question": "q", "materiality": "trivial", "reversibility": "reversible"}})
			var out struct {
				IsError bool `json:"isError"`
				Content struct {
					ID string `json:"id"`
				} `json:"structuredContent"`
			}
			if err != nil || json.Unmarshal(res, &out) != nil || out.IsError || out.Content.ID == "" {
				r.fail("mcp assess %s: %v %s", task, err, res)
				break
			}
			r.mu.Lock()
			r.acked[task] = append(r.acked[task], subj)
			r.mu.Unlock()
			r.mcpWrites.Add(1)
			// Then a read through the same server, from its memory.
			ans := readerAnswer{task: linearTasks[rng.IntN(len(linearTasks))], verb: []string{"log", "status"}[i%2], mcp: true}
			res, err = m.call("tools/call", map[string]any{"name": ans.verb, "arguments": map[string]any{"task": ans.task}})
			var read struct {
				IsError bool            `json:"isError"`
				Content json.RawMessage `json:"structuredContent"`
			}
			if err != nil || json.Unmarshal(res, &read) != nil || read.IsError {
				r.fail("mcp %s %s: %v %s", ans.verb, ans.task, err, res)
				break
			}
			ans.out = string(read.Content)
			if ans.verb == "log" {
				var l struct{ Entries json.RawMessage }
				json.Unmarshal(read.Content, &l)
				ans.out = string(l.Entries)
			}
			r.mu.Lock()
			r.answers = append(r.answers, ans)
			r.mu.Unlock()
		}
		if rng.IntN(3) == 0 {
			m.close() // input closed: the server flushes what it holds and exits
		} else {
			m.kill()
			r.mcpKills.Add(1)
		}
	}
}

// reader runs log --json, status --json, show --json (on one of the
// linear tasks), status --json and tasks --json (of every task) and
// verify in turn until ctx ends, killing a third of them, and keeps what
// each that exited 0 printed.
func (r *cacheRace) reader(ctx context.Context, p int, rng *rand.Rand) {
	env, err := harness.DispatchEnv(r.s.env)
	if err != nil {
		r.fail("%v", err)
		return
	}
	// Each round runs every command once, in turn; every third round's
	// are killed (but verify), so that each is checked however few rounds
	// the load leaves time for: the second reader's first round, the
	// first reader's third, so that a race whose readers each finish one
	// round (CI's load: two each in 8 s, and a kill in round three alone
	// killed none) kills some and checks every kind.
	for i := 0; ctx.Err() == nil; i++ {
		task := linearTasks[rng.IntN(len(linearTasks))]
		if i%6 == 5 {
			// verify replays every task as it stands: clean at any head.
			if res := r.s.reason("verify"); res.code != 0 {
				r.fail("verify while racing: exit %d: %s%s", res.code, res.stdout, res.stderr)
			}
			r.verifies.Add(1)
			continue
		}
		var ans readerAnswer
		switch i % 6 {
		case 0:
			ans = readerAnswer{task: task, verb: "log"}
		case 1:
			ans = readerAnswer{task: task, verb: "status"}
		case 2:
			ans = readerAnswer{verb: "status"} // of every task
		case 3:
			ans = readerAnswer{verb: "tasks"}
		default:
			r.mu.Lock()
			subjects := r.acked[task]
			r.mu.Unlock()
			if len(subjects) == 0 {
				continue
			}
			ans = readerAnswer{task: task, verb: "show", arg: subjects[rng.IntN(len(subjects))]}
		}
		args := []string{ans.verb, ans.task, "--json"}
		if ans.task == "" {
			args = []string{ans.verb, "--json"}
		}
		if ans.verb == "show" {
			// show takes an id: the reader asks log for the subject's id
			// first, from plain git, so that the show itself is the
			// command under test.
			// git log can miss a ref that git pack-refs is moving into
			// packed-refs (the packing loops race it): asked again.
			id := ""
			for try := 0; id == "" && try < 3; try++ {
				id = r.idOf(task, ans.arg)
			}
			if id == "" {
				r.showsUnasked.Add(1)
				continue
			}
			args = []string{"show", id, "--json"}
		}
		c := exec.Command(reasonBin, args...)
		c.Dir, c.Env = r.s.dir, env
		var out bytes.Buffer
		c.Stdout = &out
		kill := (i/6+2*p)%3 == 2
		res, sent := runKilled(c, kill, time.Duration(rng.Int64N(int64(20*time.Millisecond))))
		switch {
		case res.code == 0:
			ans.out = out.String()
			r.mu.Lock()
			r.answers = append(r.answers, ans)
			r.mu.Unlock()
		case res.killed && sent:
			r.readerKills.Add(1)
		default:
			r.fail("%s: exit %d: %s", strings.Join(args, " "), res.code, strings.TrimSpace(res.stderr))
		}
	}
}

// idOf is the id of task's record with subject, read with plain git, or
// "" when it is not found.
func (r *cacheRace) idOf(task, subject string) string {
	out := r.s.run(context.Background(), nil, "git", "log", "--format=%(trailers:key=Reason-Record,valueonly)%x00%s",
		"--grep", "assessment: "+subject+" (", "--fixed-strings", taskRef(task))
	id, _, _ := strings.Cut(out.stdout, "\x00")
	return strings.TrimSpace(id)
}

// syncs appends in the other clone, to T-b and T-shared, and to T-shared
// in this one, with `git reason sync` in both between them, until ctx
// ends.
func (r *cacheRace) syncs(ctx context.Context, b *sandbox, rng *rand.Rand) {
	for ctx.Err() == nil {
		r.assess(b, "T-b", r.subject("b"), false, false, 0)
		r.assess(b, "T-shared", r.subject("b"), false, false, 0)
		r.assess(r.s, "T-shared", r.subject("a"), false, false, 0)
		for _, c := range []*sandbox{b, r.s} {
			res := c.reason("sync")
			r.syncRuns.Add(1)
			if res.code != 0 && !(res.code == 1 && strings.Contains(res.stdout, " kept moving: gave up")) {
				r.fail("sync: exit %d: %s%s", res.code, res.stdout, res.stderr)
			}
		}
		time.Sleep(time.Duration(rng.IntN(200)) * time.Millisecond)
	}
}

// watch reads every task cache file over and over until ctx ends, and
// notes each that holds a whole segment appended after the head before
// it is not the one it goes on from.
func (r *cacheRace) watch(ctx context.Context) {
	dir := filepath.Join(r.s.gitDir(), "reason", "tasks")
	for ctx.Err() == nil {
		files, _ := filepath.Glob(filepath.Join(dir, "*.records"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			r.snapshots.Add(1)
			segs, bad := cacheSegments(data)
			r.segmentsSeen.Add(int64(segs))
			if int64(segs) > r.maxSegments.Load() {
				r.maxSegments.Store(int64(segs))
			}
			if !cacheFileWhole(data) {
				r.cutSeen.Add(1)
			}
			if bad != "" {
				bad = filepath.Base(f) + ": " + bad
				r.mu.Lock()
				if len(r.misplaced) < 10 && !slices.Contains(r.misplaced, bad) {
					r.misplaced = append(r.misplaced, bad)
				}
				r.mu.Unlock()
			}
		}
		time.Sleep(time.Millisecond)
	}
}

// cacheSegments walks a task cache file by its framing alone (its MACs
// are the store's to check): the first line "git-reason task cache N
// <head> <mac> <size>" and <size> bytes, then segments "<from> <head>
// <mac> <size>" and <size> bytes each. It returns how many whole
// segments it read and, when a whole segment's from is not the head
// before it, a description: an append made to a file not at the length
// its writer read. A segment cut short (an append in progress, or killed)
// ends the walk.
func cacheSegments(data []byte) (int, string) {
	line, rest, ok := bytes.Cut(data, []byte{'\n'})
	f := strings.Fields(string(line))
	if !ok || len(f) != 7 || f[0] != "git-reason" {
		return 0, ""
	}
	n, err := strconv.Atoi(f[6])
	if err != nil || n > len(rest) {
		return 0, ""
	}
	head, rest := f[4], rest[n:]
	segs := 1
	for len(rest) > 0 {
		line, next, ok := bytes.Cut(rest, []byte{'\n'})
		f := strings.Fields(string(line))
		if !ok || len(f) != 4 || len(f[0]) != 40 || len(f[1]) != 40 {
			return segs, ""
		}
		n, err := strconv.Atoi(f[3])
		if err != nil || n > len(next) {
			return segs, ""
		}
		if f[0] != head {
			return segs, fmt.Sprintf("segment %d goes on from %.12s, but the file is at %.12s", segs+1, f[0], head)
		}
		head, rest = f[1], next[n:]
		segs++
	}
	return segs, ""
}

// check holds the run to the test's claims.
func (r *cacheRace) check(t *testing.T) {
	s := r.s
	for _, f := range r.failures {
		t.Error(f)
	}
	final := map[string][]storedRecord{}
	for _, task := range append(slices.Clone(cacheRaceTasks), "T-b") {
		recs := s.records(task)
		slices.SortFunc(recs, func(x, y storedRecord) int { return x.Clock - y.Clock })
		final[task] = recs
		if slices.Contains(linearTasks, task) && task != "T-b" {
			s.checkChain(task, recs)
		}
		seen := map[string]int{}
		for _, rec := range recs {
			seen[rec.Body.Subject]++
		}
		for _, subj := range r.acked[task] {
			if seen[subj] != 1 {
				t.Errorf("%s: acknowledged record %q is there %d times", task, subj, seen[subj])
			}
		}
		for _, subj := range r.killed[task] {
			if seen[subj] > 0 {
				r.killedStored.Add(1)
			}
		}
		for subj, n := range seen {
			if n > 1 {
				t.Errorf("%s: record %q is there %d times", task, subj, n)
			}
		}
	}
	checked := map[string]int{}
	for _, a := range r.answers {
		if msg := a.check(final); msg != "" {
			if checked["wrong"]++; checked["wrong"] <= 10 {
				t.Errorf("%s %s %s answered what no head of the task holds: %s", a.verb, a.task, a.arg, msg)
			}
			continue
		}
		checked[a.name()]++
	}
	for _, m := range r.misplaced {
		t.Errorf("task cache: %s", m)
	}
	for _, task := range cacheRaceTasks {
		data, err := os.ReadFile(filepath.Join(s.gitDir(), "reason", "tasks", task+".records"))
		head := strings.TrimSpace(s.git("rev-parse", taskRef(task)))
		segs, bad := cacheSegments(data)
		if err != nil || bad != "" || !cacheFileAt(data, head) {
			t.Errorf("after one more write, %s's cache file (%d bytes, %d segments read) is not at the task's head %.12s to its end: %v %s",
				task, len(data), segs, head, err, bad)
		}
	}
	r.checkWritten(t)
	r.compareWithFreshClone(t)
	r.mu.Lock()
	defer r.mu.Unlock()
	t.Logf("writes: %d acknowledged by processes (an append took %s), %d killed by SIGKILL (%d of them after their ref moved), %d through the MCP server (killed %d times)",
		r.writes.Load(), percentiles(r.appendTook), r.kills.Load(), r.killedStored.Load(), r.mcpWrites.Load(), r.mcpKills.Load())
	t.Logf("readers: %d answers checked against the history %v, %d readers killed; %d verify runs while racing",
		len(r.answers), checked, r.readerKills.Load(), r.verifies.Load())
	t.Logf("watcher: %d cache files read (%d with a segment cut short), %d whole segments walked (at most %d in one file); %d syncs; locks a kill left, removed while racing: %v; locks removed after the race: %v",
		r.snapshots.Load(), r.cutSeen.Load(), r.segmentsSeen.Load(), r.maxSegments.Load(), r.syncRuns.Load(), r.locksSwept, r.staleLocks)
	for task, recs := range final {
		t.Logf("%s: %d records", task, len(recs))
	}
	if !r.covered(checked) {
		t.Errorf("the race killed no writer or reader, wrote nothing through the MCP server, or checked no answer of log, status (of one task and of every task), show (%d not run: no id found for the subject), tasks or the MCP server's log and status: it proved less than it claims", r.showsUnasked.Load())
	}
}

// cacheFileWhole reports whether a cache file's framing reads to its end.
func cacheFileWhole(data []byte) bool { return cacheFileAt(data, "") }

// cacheFileAt reports whether a cache file's framing reads to its end and
// ends at head ("": at any head).
func cacheFileAt(data []byte, head string) bool {
	line, rest, ok := bytes.Cut(data, []byte{'\n'})
	f := strings.Fields(string(line))
	if !ok || len(f) != 7 {
		return false
	}
	n, err := strconv.Atoi(f[6])
	if err != nil || n > len(rest) {
		return false
	}
	at, rest := f[4], rest[n:]
	for len(rest) > 0 {
		line, next, ok := bytes.Cut(rest, []byte{'\n'})
		f := strings.Fields(string(line))
		if !ok || len(f) != 4 {
			return false
		}
		n, err := strconv.Atoi(f[3])
		if err != nil || n > len(next) || f[0] != at {
			return false
		}
		at, rest = f[1], next[n:]
	}
	return head == "" || at == head
}

// checkWritten holds written.d to whole lines, each one append's ("<commit>
// <mac> <blob> <mac>", or "<commit> <mac>" for a commit a sync wrote):
// appends of racing writers never interleave within a line.
func (r *cacheRace) checkWritten(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(r.s.gitDir(), "reason", "written.d", "*"))
	lines := 0
	for _, f := range files {
		data, _ := os.ReadFile(f)
		for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			lines++
			fields := strings.Fields(line)
			if len(fields) != 4 && len(fields) != 2 || len(fields[0]) != 40 {
				t.Errorf("written.d/%s: line %q is not one append's", filepath.Base(f), line)
			}
		}
	}
	if lines == 0 {
		t.Errorf("written.d holds no line")
	}
}

// check is "" when the answer is the history's own at some head: the
// task's first k records, final being each task's final history in
// clock order. An answer about every task is checked on each task of
// linearTasks it names.
func (a readerAnswer) check(final map[string][]storedRecord) string {
	records := final[a.task]
	if a.task == "" {
		var rows []json.RawMessage
		if err := json.Unmarshal([]byte(a.out), &rows); err != nil {
			return err.Error()
		}
		for _, row := range rows {
			var r struct {
				Task string `json:"task"`
			}
			if err := json.Unmarshal(row, &r); err != nil {
				return err.Error()
			}
			if !slices.Contains(linearTasks, r.Task) {
				continue
			}
			one := readerAnswer{task: r.Task, verb: a.verb + " of one", out: string(row)}
			if msg := one.check(final); msg != "" {
				return r.Task + ": " + msg
			}
		}
		return ""
	}
	switch a.verb {
	case "log":
		var got []struct {
			Clock   int    `json:"clock"`
			ID      string `json:"id"`
			Summary string `json:"summary"`
		}
		if err := json.Unmarshal([]byte(a.out), &got); err != nil {
			return err.Error()
		}
		if len(got) > len(records) {
			return fmt.Sprintf("%d records, the task has %d", len(got), len(records))
		}
		for i, g := range got {
			w := records[i]
			if g.Clock != w.Clock || g.ID != w.ID || g.Summary != w.Body.Subject+" (trivial, reversible)" {
				return fmt.Sprintf("record %d is %d %s %q, want %d %s %q", i+1, g.Clock, g.ID, g.Summary, w.Clock, w.ID, w.Body.Subject)
			}
		}
	case "tasks of one":
		var got struct {
			Records int    `json:"records"`
			Subject string `json:"subject"`
		}
		if err := json.Unmarshal([]byte(a.out), &got); err != nil {
			return err.Error()
		}
		if got.Records < 1 || got.Records > len(records) || got.Subject != records[got.Records-1].Body.Subject {
			return fmt.Sprintf("%d records, subject %q; the task has %d", got.Records, got.Subject, len(records))
		}
	case "status", "status of one":
		var got struct {
			Task       string `json:"task"`
			Records    int    `json:"records"`
			Subject    string `json:"subject"`
			Assessment string `json:"assessment"`
		}
		if err := json.Unmarshal([]byte(a.out), &got); err != nil {
			return err.Error()
		}
		if got.Records < 1 || got.Records > len(records) {
			return fmt.Sprintf("%d records, the task has %d", got.Records, len(records))
		}
		w := records[got.Records-1]
		if got.Task != a.task || got.Assessment != w.ID || got.Subject != w.Body.Subject {
			return fmt.Sprintf("at %d records: assessment %s %q, want %s %q", got.Records, got.Assessment, got.Subject, w.ID, w.Body.Subject)
		}
	case "show":
		var got struct {
			Task string `json:"task"`
			Body struct {
				Subject string `json:"subject"`
			} `json:"body"`
		}
		if err := json.Unmarshal([]byte(a.out), &got); err != nil {
			return err.Error()
		}
		if got.Task != a.task || got.Body.Subject != a.arg {
			return fmt.Sprintf("record of %s %q, want %q", got.Task, got.Body.Subject, a.arg)
		}
	}
	return ""
}

// compareWithFreshClone holds log, status and verify of the racing clone,
// caches and all, to what a fresh clone of its refs answers with none.
func (r *cacheRace) compareWithFreshClone(t *testing.T) {
	s := r.s
	dir := filepath.Join(t.TempDir(), "fresh")
	s.git("clone", "-q", "--no-local", s.dir, dir)
	fresh := &sandbox{t: t, dir: dir, home: s.home, env: s.env}
	fresh.git("fetch", "-q", "origin", "+refs/reasoning/tasks/*:refs/reasoning/tasks/*")
	if got, want := fresh.heads(), s.heads(); got != want {
		t.Fatalf("the fresh clone's task heads differ:\n%s\nwant\n%s", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "reason", "tasks")); err == nil {
		t.Fatalf("the fresh clone has task caches before any command")
	}
	var cmds [][]string
	for _, task := range append(slices.Clone(cacheRaceTasks), "T-b") {
		cmds = append(cmds, []string{"log", task, "--json"}, []string{"status", task, "--json"})
	}
	cmds = append(cmds, []string{"log", "--json"}, []string{"status", "--json"}, []string{"tasks", "--json"},
		[]string{"handover", "--json"}, []string{"verify"})
	// handover names the second it ran.
	since := regexp.MustCompile(`"since": "[^"]*"`)
	for _, args := range cmds {
		got, want := s.reason(args...), fresh.reason(args...)
		got.stdout, want.stdout = since.ReplaceAllString(got.stdout, ""), since.ReplaceAllString(want.stdout, "")
		if got.code != want.code || got.stdout != want.stdout {
			t.Errorf("git reason %s: exit %d, the fresh clone %d; output differs:\n%s\nthe fresh clone's:\n%s",
				strings.Join(args, " "), got.code, want.code, got.stdout, want.stdout)
		}
	}
}

// mcpProc is a running `git reason mcp` spoken to line by line.
type mcpProc struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	next int
}

func startMCP(s *sandbox) (*mcpProc, error) {
	env, err := harness.DispatchEnv(s.env)
	if err != nil {
		return nil, err
	}
	c := exec.Command(reasonBin, "mcp")
	c.Dir, c.Env = s.dir, env
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, out, err := harness.StartPipes(c)
	if err != nil {
		return nil, err
	}
	m := &mcpProc{cmd: c, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	if _, err := m.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "race", "version": "1"}}); err != nil {
		m.kill()
		return nil, err
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	if _, err := m.in.Write(append(b, '\n')); err != nil {
		m.kill()
		return nil, err
	}
	return m, nil
}

// call sends a request and returns its result.
func (m *mcpProc) call(method string, params map[string]any) (json.RawMessage, error) {
	m.next++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.next, "method": method, "params": params})
	if _, err := m.in.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	for {
		line, err := m.out.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		var resp struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &resp); err != nil {
			return nil, fmt.Errorf("not JSON: %q", line)
		}
		if resp.ID == nil || *resp.ID != m.next {
			continue
		}
		if resp.Error != nil {
			return nil, fmt.Errorf("%s", resp.Error)
		}
		return resp.Result, nil
	}
}

// kill ends the server by SIGKILL, whatever it holds unwritten.
func (m *mcpProc) kill() {
	syscall.Kill(-m.cmd.Process.Pid, syscall.SIGKILL)
	m.cmd.Wait()
}

// close closes the server's input and waits for it to exit.
func (m *mcpProc) close() {
	m.in.Close()
	m.cmd.Wait()
}
