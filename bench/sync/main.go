// Command sync-bench times `git reason sync` against the plain git pair a
// user would otherwise type, `git fetch` + `git push` of the same refs, in
// one run:
//
//   - one task on which two clones diverged by -records records each;
//   - -tasks tasks on each of which they diverged by -records records.
//
// Clone A has pushed its records; clone B has its own and syncs: it
// fetches A's, verifies them by replay, merges each task (a merge commit
// whose tree is the union) and pushes the merges. The plain pair fetches
// the same refs into the remote-tracking namespace and pushes B's task
// refs to new names on the remote (plain git cannot push a diverged task
// without forcing): it transfers the same objects and does no verification
// and no merge. Every run starts from fresh copies of the remote and of
// clone B, made outside the timing; the cases run -runs times in an order
// shuffled each round, and the program prints each case's median, min and
// max and the ratio of medians (target: sync <= 3x the pair).
//
// Records are generated in-process with the real writer (trivial
// assessments), and every repository is packed with git gc, as a real one
// would be.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"git-reason/gitstore"
	"git-reason/record"
	"git-reason/reliability/harness"
)

// options is what the flags set.
type options struct {
	runs, records, tasks int
	keep                 string // where the scenarios are prepared and kept; "": a temporary directory
}

func main() {
	var o options
	flag.IntVar(&o.runs, "runs", 7, "timed runs per case")
	flag.IntVar(&o.records, "records", 100, "records each clone adds to each task")
	flag.IntVar(&o.tasks, "tasks", 10, "tasks of the many-task case")
	flag.StringVar(&o.keep, "keep", "", "prepare the scenarios in `DIR` and keep them (for profiling)")
	flag.Parse()
	harness.ExitOn("sync-bench", run(o))
}

type scenario struct {
	name  string
	tasks []string
	dir   string // holds remote.git and b, the prepared state
}

// syncCase is one scenario timed one way: git reason sync, or plain git
// fetch and push; times are its counted runs' wall times.
type syncCase struct {
	sc    *scenario
	sync  bool
	times []time.Duration
}

func (c *syncCase) Add(t harness.Timing) { c.times = append(c.times, t.Wall) }

func run(o options) error {
	root, remove, err := harness.Sandbox(o.keep, "sync-bench-")
	if err != nil {
		return err
	}
	defer remove()

	many := make([]string, o.tasks)
	for i := range many {
		many[i] = fmt.Sprintf("T-%02d", i)
	}
	scenarios := []*scenario{
		{name: fmt.Sprintf("1 task, %d+%d records", o.records, o.records), tasks: []string{"T"}},
		{name: fmt.Sprintf("%d tasks, %d+%d records each", o.tasks, o.records, o.records), tasks: many},
	}
	for i, sc := range scenarios {
		sc.dir = filepath.Join(root, fmt.Sprintf("s%d", i))
		start := time.Now()
		if err := prepare(sc, o.records); err != nil {
			return fmt.Errorf("prepare %s: %w", sc.name, err)
		}
		fmt.Printf("prepared %s in %v\n", sc.name, time.Since(start).Round(time.Millisecond))
	}

	startLoad := harness.LoadAverage()
	var cases []*syncCase
	for _, sc := range scenarios {
		cases = append(cases, &syncCase{sc: sc, sync: true}, &syncCase{sc: sc})
	}
	// One round warms caches and is not counted; the rounds after it run
	// the cases in a shuffled order.
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	if err := harness.Measure(rng, 1, o.runs, cases, func(c *syncCase) (harness.Timing, error) {
		d, err := timeOnce(c.sc, c.sync, filepath.Join(root, "run"))
		if err != nil {
			return harness.Timing{}, fmt.Errorf("%s: %w", c.sc.name, err)
		}
		return harness.Timing{Wall: d}, nil
	}); err != nil {
		return err
	}
	fmt.Printf("\n%d runs per case (median, min-max); %s at start, %s at end\n", o.runs, startLoad, harness.LoadAverage())
	for i, sc := range scenarios {
		s, p := cases[2*i].times, cases[2*i+1].times
		ratio := float64(median(s)) / float64(median(p))
		verdict := "meets"
		if ratio > 3 {
			verdict = "MISSES"
		}
		fmt.Printf("%s\n  git reason sync        %8v  (%v-%v)\n  git fetch + git push   %8v  (%v-%v)\n  ratio %.2fx: %s the target of <= 3x\n",
			sc.name, median(s), minOf(s), maxOf(s), median(p), minOf(p), maxOf(p), ratio, verdict)
	}
	return nil
}

// prepare makes remote.git and clones a and b, gives every task one
// shared record, then -records more in each clone; a pushes its records;
// everything is packed. b is what each timed run starts from.
func prepare(sc *scenario, records int) error {
	remote := filepath.Join(sc.dir, "remote.git")
	a, b := filepath.Join(sc.dir, "a"), filepath.Join(sc.dir, "b")
	if err := os.MkdirAll(sc.dir, 0o755); err != nil {
		return err
	}
	if err := git(sc.dir, "init", "-q", "--bare", remote); err != nil {
		return err
	}
	for _, d := range []string{a, b} {
		if err := git(sc.dir, "clone", "-q", remote, d); err != nil {
			return err
		}
	}
	if err := write(a, sc.tasks, 1, "base"); err != nil {
		return err
	}
	if err := reason(a, "push"); err != nil {
		return err
	}
	if err := reason(b, "pull"); err != nil {
		return err
	}
	if err := write(a, sc.tasks, records, "a"); err != nil {
		return err
	}
	if err := write(b, sc.tasks, records, "b"); err != nil {
		return err
	}
	if err := reason(a, "push"); err != nil {
		return err
	}
	for _, d := range []string{remote, a, b} {
		if err := git(d, "gc", "-q"); err != nil {
			return err
		}
	}
	return nil
}

// write appends n trivial assessments to each task of the clone at dir
// with the real writer.
func write(dir string, tasks []string, n int, who string) error {
	store, err := gitstore.Open(dir)
	if err != nil {
		return err
	}
	w := &record.Writer{Store: store, Index: gitstore.Index{Store: store}, Actor: "Bench <bench@example.invalid>", Origin: who}
	for _, t := range tasks {
		for i := range n {
			body := fmt.Sprintf(`{"subject":"%s %s %d","question":"q","materiality":"trivial","reversibility":"reversible"}`, who, t, i)
			if _, err := w.Append(context.Background(), t, record.KindAssessment, []byte(body)); err != nil {
				return fmt.Errorf("append to %s: %w", t, err)
			}
		}
	}
	return nil
}

// timeOnce copies the prepared remote and b to a fresh place and times
// one sync (or the plain pair) of b there.
func timeOnce(sc *scenario, sync bool, work string) (time.Duration, error) {
	os.RemoveAll(work)
	if err := os.MkdirAll(work, 0o755); err != nil {
		return 0, err
	}
	defer os.RemoveAll(work)
	for _, d := range []string{"remote.git", "b"} {
		if out, err := exec.Command("cp", "-a", filepath.Join(sc.dir, d), work).CombinedOutput(); err != nil {
			return 0, fmt.Errorf("cp: %v: %s", err, out)
		}
	}
	b := filepath.Join(work, "b")
	if err := git(b, "remote", "set-url", "origin", filepath.Join(work, "remote.git")); err != nil {
		return 0, err
	}
	start := time.Now()
	if sync {
		if err := reason(b, "sync"); err != nil {
			return 0, err
		}
		return time.Since(start), nil
	}
	if err := git(b, "fetch", "-q", "origin", gitstore.FetchRefspec("origin")); err != nil {
		return 0, err
	}
	args := []string{"push", "-q", "origin"}
	for _, t := range sc.tasks {
		args = append(args, gitstore.TaskRef(t)+":refs/reasoning/pushed/"+t)
	}
	if err := git(b, args...); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

func git(dir string, args ...string) error { return harness.RunGit(nil, dir, args...) }

func reason(dir string, args ...string) error {
	return git(dir, append([]string{"reason"}, args...)...)
}

func median(ds []time.Duration) time.Duration { return harness.Median(ds).Round(time.Millisecond) }

func minOf(ds []time.Duration) time.Duration { return slices.Min(ds).Round(time.Millisecond) }

func maxOf(ds []time.Duration) time.Duration { return slices.Max(ds).Round(time.Millisecond) }
