package reliability

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"git-reason/reliability/harness"
)

// concWriters is the number of concurrent writer processes.
const concWriters = 8

// TestConcurrentWriters runs 8 writer processes of `git reason assess`, one
// after another within each writer, first all on one task and then each on
// a task of its own, while loops run git pack-refs --all, git gc (full and
// --auto, with thresholds that make it repack), git maintenance run
// --task=loose-objects and git update-ref on a neighbouring branch, and a
// reader runs git rev-parse and git reason status on the task refs.
//
// Pass: every record present exactly once (by subject, read with plain git),
// the first-parent chain one commit per record, each adding only its own
// record with the next clock and a Reason-Record trailer naming it, git fsck
// --strict clean, git reason verify clean, no lock left behind, no writer
// failed, and no reader check failed once its task's ref existed.
func TestConcurrentWriters(t *testing.T) {
	harness.SkipShort(t, "starts hundreds of processes")
	// The long form is also the store's own concurrency figure: 8 processes
	// appending 200 records each to one task while pack-refs and gc run.
	// The quick form's 12 appends a writer still race seven others on every
	// append, under every loop (each must do its work, or the test fails);
	// its loops run back to back for as long as the writers do, so their
	// cost grew with the appends and with the machine's load (25 appends:
	// 91 s of CPU at load 45, the most of any test in the suite).
	per, name := form(12, 200)
	t.Logf("%s: %d writers x %d appends, on one task and on %d tasks", name, concWriters, per, concWriters)
	t.Run("one task", func(t *testing.T) {
		runConcurrent(t, per, func(int) string { return "T-one" })
	})
	t.Run("eight tasks", func(t *testing.T) {
		runConcurrent(t, per, func(p int) string { return fmt.Sprintf("T-%d", p) })
	})
}

func concSubject(p, n int) string { return fmt.Sprintf("w%d-%04d", p, n) }

// runConcurrent is one run of the test: writers, loops and reader on a
// fresh repository; taskOf names writer p's task.
func runConcurrent(t *testing.T, per int, taskOf func(p int) string) {
	start := time.Now()
	s := newSandbox(t,
		"gc.auto", "50", // gc --auto repacks once a few loose objects pile up
		"gc.autoPackLimit", "4", // and often consolidates (deletes) the packs it made
		"gc.autoDetach", "false", // so the loop waits for each gc to finish
		// gc's own pack-refs and reflog steps take packed-refs.lock and the
		// neighbour's lock, which the pack-refs and update-ref loops hold
		// much of the time: git gc then fails before it repacks, the packs
		// that maintenance writes pile up (over 1,100 in one long run) and
		// the test measures git's contention with itself. Those steps have
		// loops of their own here, so gc skips them.
		"gc.packRefs", "false",
		"gc.reflogExpire", "never", "gc.reflogExpireUnreachable", "never",
		"maintenance.auto", "false")
	neighbourA := strings.TrimSpace(s.git("rev-parse", "HEAD"))
	s.git("commit", "-q", "--allow-empty", "-m", "second commit")
	neighbourB := strings.TrimSpace(s.git("rev-parse", "HEAD"))

	var tasks []string
	existsSince := map[string]*atomic.Int64{} // first exit 0 of a writer, unix ns
	for p := range concWriters {
		if task := taskOf(p); existsSince[task] == nil {
			tasks = append(tasks, task)
			existsSince[task] = &atomic.Int64{}
		}
	}

	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var maxPacks atomic.Int64
	// gc and the loose-objects task both delete objects they believe
	// packed (repack -d, prune-packed); git runs them one at a time and
	// does not lock one against the other. Run concurrently they lose
	// reachable objects with no writer of ours involved (seen in CI: "bad
	// tree object" from gc's prune), so their loops take turns; each still
	// runs concurrently with every writer, reader and ref loop.
	var repacking sync.Mutex
	loops := append(packingLoops(ctx, &wg, s, tasks, &maxPacks, &repacking),
		startLoop(ctx, &wg, "git maintenance run --task=loose-objects (once a second)", "runs that wrote or deleted packs",
			maintenanceStep(s, &repacking)),
		startLoop(ctx, &wg, "git update-ref refs/heads/neighbour", "runs that moved the neighbour",
			updateRefStep(s, neighbourA, neighbourB)))
	reader := startReader(ctx, &wg, s, tasks, existsSince)

	writeStart := time.Now()
	fails, took := runWriters(t, s, per, taskOf, existsSince)
	writeTime := time.Since(writeStart)
	stop()
	wg.Wait()

	total := concWriters * per
	t.Logf("writers: %d appends in %v (%.1f ms per record, %.1f records/s); each process took %s; %d failed",
		len(took), writeTime.Round(time.Millisecond), float64(writeTime.Milliseconds())/float64(total),
		float64(total)/writeTime.Seconds(), percentiles(took), len(fails))
	for _, l := range loops {
		l.report(t)
	}
	t.Logf("most packs seen before a gc: %d", maxPacks.Load())
	reader.report(t)
	for i, f := range fails {
		if i == 10 {
			t.Errorf("... and %d more writer failures", len(fails)-10)
			break
		}
		t.Errorf("writer failed: %s", f)
	}
	if n := reader.failures.Load(); n > 0 {
		t.Errorf("readers failed %d times on an existing ref (first: %s)", n, reader.firstFailure())
	}
	if reader.checked.Load() == 0 {
		t.Errorf("the reader never checked an existing ref: the test proved nothing about readers")
	}

	checkAllRecords(t, s, per, tasks, taskOf)
	fsck := s.fsck()
	t.Logf("git fsck --strict: %v; %s (dangling commits are appends that lost a compare-and-swap race and retried)",
		orOK(fsck.err), fsck)
	if fsck.err != nil || len(fsck.complaints) > 0 {
		t.Errorf("git fsck --strict: %v\n%s", fsck.err, strings.Join(slices.Compact(fsck.complaints), "\n"))
	}
	s.verify()
	if left := s.locks(); len(left) > 0 {
		t.Errorf("lock files left behind: %v", left)
	}
	if got := strings.TrimSpace(s.git("rev-parse", "refs/heads/neighbour")); got != neighbourA && got != neighbourB {
		t.Errorf("refs/heads/neighbour is %s, which the update-ref loop never wrote", got)
	}
	t.Logf("total %v", time.Since(start).Round(time.Millisecond))
}

// runWriters starts concWriters goroutines, each running per `git reason
// assess` processes one after another, and returns a line for every process
// that did not exit 0 and how long each took. Writers stop starting
// processes a minute before the test's deadline, so that a slow machine
// fails with the records checked rather than in go test's alarm.
func runWriters(t *testing.T, s *sandbox, per int, taskOf func(int) string, existsSince map[string]*atomic.Int64) ([]string, []time.Duration) {
	var (
		mu    sync.Mutex
		fails []string
		took  []time.Duration
		wg    sync.WaitGroup
	)
	stopAt, hasDeadline := t.Deadline()
	stopAt = stopAt.Add(-time.Minute)
	for p := range concWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			task := taskOf(p)
			for n := range per {
				if hasDeadline && time.Now().After(stopAt) {
					mu.Lock()
					fails = append(fails, fmt.Sprintf("%s: not run: out of time (give go test a longer -timeout)", concSubject(p, n)))
					mu.Unlock()
					continue
				}
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				r := s.reasonCtx(ctx, "assess", task, "--subject", concSubject(p, n),
					"--question", "q", "--materiality", "trivial", "--reversibility", "reversible")
				cancel()
				if r.code == 0 {
					existsSince[task].CompareAndSwap(0, time.Now().UnixNano())
				}
				mu.Lock()
				took = append(took, r.took)
				if r.code != 0 {
					fails = append(fails, fmt.Sprintf("%s on %s: exit %d: %s", concSubject(p, n), task, r.code, strings.TrimSpace(r.stderr)))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return fails, took
}

// checkAllRecords reads every task with plain git and checks that each
// writer's every subject is on its task exactly once and nothing else is.
func checkAllRecords(t *testing.T, s *sandbox, per int, tasks []string, taskOf func(int) string) {
	seen := map[string]map[string]int{}
	stored := 0
	for _, task := range tasks {
		recs := s.records(task)
		s.checkChain(task, recs)
		seen[task] = map[string]int{}
		for _, r := range recs {
			seen[task][r.Body.Subject]++
		}
		stored += len(recs)
	}
	present, missing, dup := 0, 0, 0
	for p := range concWriters {
		task := taskOf(p)
		for n := range per {
			subj := concSubject(p, n)
			switch c := seen[task][subj]; {
			case c == 0:
				if missing++; missing <= 5 {
					t.Errorf("record %q is missing from %s", subj, task)
				}
			case c > 1:
				if dup++; dup <= 5 {
					t.Errorf("record %q is stored %d times on %s", subj, c, task)
				}
			}
			if seen[task][subj] > 0 {
				present++
			}
			delete(seen[task], subj)
		}
	}
	for task, rest := range seen {
		for subj := range rest {
			t.Errorf("unexpected record %q on %s", subj, task)
		}
	}
	t.Logf("records: %d of %d present (read with git ls-tree and cat-file), %d missing, %d duplicated, %d stored in all over %d task(s)",
		present, concWriters*per, missing, dup, stored, len(tasks))
}

func orOK(err error) string {
	if err == nil {
		return "exit 0"
	}
	return err.Error()
}

// loopStats counts what one maintenance loop did.
type loopStats struct {
	name, workDesc       string
	runs, failed, worked atomic.Int64
	firstErr             atomic.Value
}

func (l *loopStats) report(t *testing.T) {
	t.Logf("%s: %d runs (%d failed), %d did the work (%s)", l.name, l.runs.Load(), l.failed.Load(), l.worked.Load(), l.workDesc)
	if msg, _ := l.firstErr.Load().(string); msg != "" {
		t.Logf("  first failure: %s", msg)
	}
	if l.worked.Load() == 0 {
		t.Errorf("%s never did its work while the writers ran: the test proved nothing about it", l.name)
	}
}

// startLoop calls step until ctx is done, never interrupting a run (a
// killed gc proves nothing).
func startLoop(ctx context.Context, wg *sync.WaitGroup, name, workDesc string, step func() (bool, error)) *loopStats {
	l := &loopStats{name: name, workDesc: workDesc}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			worked, err := step()
			l.runs.Add(1)
			if err != nil {
				l.failed.Add(1)
				l.firstErr.CompareAndSwap(nil, err.Error())
				time.Sleep(10 * time.Millisecond)
				continue
			}
			if worked {
				l.worked.Add(1)
			}
		}
	}()
	return l
}

// gitStep runs git args to completion in the sandbox.
func gitStep(s *sandbox, args ...string) error {
	r := s.run(context.Background(), nil, "git", args...)
	if r.err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), r.err, strings.TrimSpace(r.stderr))
	}
	return nil
}

// packingLoops starts the two loops that pack, in s, what the writers
// write: git pack-refs --all (its runs counted when a ref of tasks was
// packed) and git gc (holding repacking while it runs; maxPacks is the
// most packs it found before a run).
func packingLoops(ctx context.Context, wg *sync.WaitGroup, s *sandbox, tasks []string, maxPacks *atomic.Int64, repacking *sync.Mutex) []*loopStats {
	return []*loopStats{
		startLoop(ctx, wg, "git pack-refs --all", "runs after which a task ref was packed and its loose file gone",
			packRefsStep(s, tasks)),
		startLoop(ctx, wg, "git gc (every third run full, else --auto)", "runs that wrote or deleted packs",
			gcStep(s, maxPacks, repacking)),
	}
}

func packRefsStep(s *sandbox, tasks []string) func() (bool, error) {
	return func() (bool, error) {
		if err := gitStep(s, "pack-refs", "--all"); err != nil {
			return false, err
		}
		packed, _ := os.ReadFile(filepath.Join(s.gitDir(), "packed-refs"))
		for _, task := range tasks {
			_, err := os.Stat(filepath.Join(s.gitDir(), filepath.FromSlash(taskRef(task))))
			if os.IsNotExist(err) && strings.Contains(string(packed), " "+taskRef(task)+"\n") {
				return true, nil
			}
		}
		return false, nil
	}
}

// packs names the repository's pack files.
func packs(s *sandbox) string {
	names, _ := filepath.Glob(filepath.Join(s.gitDir(), "objects", "pack", "*.pack"))
	return strings.Join(names, "\n")
}

func gcStep(s *sandbox, maxPacks *atomic.Int64, repacking *sync.Mutex) func() (bool, error) {
	var n int
	return func() (bool, error) {
		repacking.Lock()
		defer repacking.Unlock()
		n++
		args := []string{"gc", "--quiet"}
		if n%3 != 1 {
			args = append(args, "--auto")
		}
		before := packs(s)
		if c := int64(strings.Count(before, "\n") + 1); c > maxPacks.Load() {
			maxPacks.Store(c)
		}
		if err := gitStep(s, args...); err != nil {
			return false, err
		}
		return packs(s) != before, nil
	}
}

// maintenanceStep runs the loose-objects task at most once a second: run
// back to back it writes a pack for every few appends, faster than a full
// gc of hundreds of packs can merge them (in one long run gc fell behind,
// packs passed 750 and a gc took minutes), and the test then measured that.
func maintenanceStep(s *sandbox, repacking *sync.Mutex) func() (bool, error) {
	return func() (bool, error) {
		defer time.Sleep(time.Second)
		repacking.Lock()
		defer repacking.Unlock()
		before := packs(s)
		if err := gitStep(s, "maintenance", "run", "--task=loose-objects", "--quiet"); err != nil {
			return false, err
		}
		return packs(s) != before, nil
	}
}

func updateRefStep(s *sandbox, a, b string) func() (bool, error) {
	var n int
	return func() (bool, error) {
		n++
		to := a
		if n%2 == 0 {
			to = b
		}
		if err := gitStep(s, "update-ref", "refs/heads/neighbour", to); err != nil {
			return false, err
		}
		time.Sleep(5 * time.Millisecond) // a neighbour, not a flood
		return true, nil
	}
}

// readerStats counts what the reader saw.
type readerStats struct {
	runs, checked, failures atomic.Int64
	mu                      sync.Mutex
	first                   []string
	revParse, status        []time.Duration
}

var hex40 = regexp.MustCompile(`^[0-9a-f]{40}\n$`)

// startReader runs, until ctx is done, `git rev-parse --verify
// <ref>^{commit}` and `git reason status TASK` on each task in turn. A
// check that started after a writer of its task had exited 0 must succeed:
// the ref resolves to a commit and status exits 0 naming the task.
func startReader(ctx context.Context, wg *sync.WaitGroup, s *sandbox, tasks []string, existsSince map[string]*atomic.Int64) *readerStats {
	st := &readerStats{}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ctx.Err() == nil; i++ {
			task := tasks[i%len(tasks)]
			began := time.Now().UnixNano()
			rp := s.run(context.Background(), nil, "git", "rev-parse", "--verify", taskRef(task)+"^{commit}")
			stat := s.reason("status", task)
			st.runs.Add(1)
			since := existsSince[task].Load()
			if since == 0 || since > began {
				continue // the ref may not exist yet
			}
			st.checked.Add(1)
			st.mu.Lock()
			st.revParse = append(st.revParse, rp.took)
			st.status = append(st.status, stat.took)
			st.mu.Unlock()
			var bad []string
			if rp.code != 0 || !hex40.MatchString(rp.stdout) {
				bad = append(bad, fmt.Sprintf("git rev-parse %s: exit %d, %q %s", taskRef(task), rp.code, rp.stdout, strings.TrimSpace(rp.stderr)))
			}
			if stat.code != 0 || !strings.HasPrefix(stat.stdout, "task "+task+": ") {
				bad = append(bad, fmt.Sprintf("git reason status %s: exit %d, %q %s", task, stat.code, firstLine(stat.stdout), strings.TrimSpace(stat.stderr)))
			}
			if len(bad) > 0 {
				st.failures.Add(1)
				st.mu.Lock()
				st.first = append(st.first, bad...)
				st.mu.Unlock()
			}
		}
	}()
	return st
}

func (st *readerStats) firstFailure() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.first) == 0 {
		return ""
	}
	return st.first[0]
}

func (st *readerStats) report(t *testing.T) {
	st.mu.Lock()
	defer st.mu.Unlock()
	t.Logf("reader: %d rounds of rev-parse + status, %d on an existing ref, %d failed; rev-parse %s; status %s",
		st.runs.Load(), st.checked.Load(), st.failures.Load(), percentiles(st.revParse), percentiles(st.status))
	for i, f := range st.first {
		if i == 5 {
			break
		}
		t.Logf("  reader failure: %s", f)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
