// Command scale-bench measures what git reason costs as the number of
// tasks grows, against plain git on the same refs, in one run:
//
//   - a sync with nothing to do ÷ `git fetch` of the task refs (target
//     <= 1.5x);
//   - a pull after one task moved on the remote ÷ `git fetch` of that
//     change (<= 2x);
//   - an assessment of a new subject at N tasks ÷ at -small tasks (<= 1.2x),
//     the two timed alternately;
//   - `log -n 5` (<= 50 ms);
//   - status, handover, verify and task completion at N tasks (-verify:
//     verify alone, against another build with -baseline BINARY);
//   - the fetch catch-up: status after a plain git fetch moved K tasks,
//     over status with nothing fetched (it must grow with K, not N).
//
// Each world is a bare remote holding N tasks of two records each (made
// by harness.BulkTasks: the real writer in process, then one git
// fast-import, refs packed) and a clone holding them all on its task and
// remote-tracking refs, caches warmed by one status and one sync. Every
// timed command runs -runs times; the program prints medians (min-max).
// Timed operations that change the repository run on fresh copies made
// outside the timing.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"git-reason/reliability/harness"
)

func main() {
	runs := flag.Int("runs", 5, "timed runs of each command")
	sizes := flag.String("tasks", "5000,20000", "comma-separated task counts")
	small := flag.Int("small", 50, "the task count assess is compared with")
	keep := flag.String("keep", "", "build the worlds in `DIR` and keep them; a world a run under the same DIR finished making is used again")
	makeOnly := flag.Bool("make", false, "with -keep: build the worlds and time nothing (to profile them)")
	flag.BoolVar(&catchUpOnly, "catchup", false, "time the fetch catch-up alone")
	flag.BoolVar(&writeOnly, "write", false, "time assess (against -small tasks) and log -n 5 alone")
	flag.BoolVar(&verifyOnly, "verify", false, "time verify of every task with nothing moved alone (with -baseline: against that build, alternately)")
	flag.BoolVar(&statusOnly, "status", false, "time status of every task (the table) with nothing moved alone (with -baseline: against that build, alternately)")
	flag.BoolVar(&doctorOnly, "doctor", false, "time doctor with nothing moved alone (with -baseline: against that build, alternately)")
	flag.StringVar(&baseline, "baseline", "", "a git-reason `BINARY` (another build) timed by -verify, -status, -doctor, -log, -first, -firstassess, -firsttask, -search or -pulled in the same rounds as this build, each on its own copy of the clone")
	flag.BoolVar(&firstOnly, "first", false, "time the first status of a clone with no caches yet (.git/reason absent, as after git clone) alone (with -baseline: against that build, alternately)")
	flag.BoolVar(&firstAssessOnly, "firstassess", false, "time the first assess of a clone with no caches yet (.git/reason absent: the subject index is built) alone (with -baseline: against that build, alternately)")
	flag.BoolVar(&firstTaskOnly, "firsttask", false, "time the first status of one task of a clone with no caches yet (.git/reason absent: its catch-up compares every tracking ref) alone (with -baseline: against that build, alternately)")
	flag.BoolVar(&showOnly, "show", false, "time the first show of a record id prefix, the id index (.git/reason/ids) removed before each run, alone")
	flag.BoolVar(&searchOnly, "search", false, "time a search whose index (.git/reason/search) is made again, removed before each run, alone (with -baseline: against that build, alternately)")
	flag.BoolVar(&logOnly, "log", false, "time log -n 5 with nothing moved alone, git-reason version beside it (with -baseline: against that build, alternately)")
	flag.BoolVar(&looseRefs, "loose", false, "with -verify, -doctor, -log, -first, -firstassess or -firsttask: every task and tracking ref of each build's copy a loose file, as git fetch and git reason's appends and catch-up leave them until git packs refs")
	flag.BoolVar(&pulledOnly, "pulled", false, "each read command first in a clone without .git/reason, and first after a pull that moved 1 and 100 tasks on the remote, with the files it wrote under .git/reason/ and the git processes it started, medians of -runs (with -baseline: that build too, in the same rounds)")
	flag.BoolVar(&auditOnly, "audit", false, "each read and write command once in a copy of the clone without .git/reason (as after git clone), again, and after one task moved, with the files it wrote under .git/reason/ and the git processes it started; pull and sync after one task moved on the remote; reads after a plain git fetch moved one (-runs is not used)")
	flag.Parse()
	harness.ExitOn("scale-bench", run(*runs, *sizes, *small, *keep, *makeOnly))
}

func run(runs int, sizes string, small int, keep string, makeOnly bool) error {
	root, remove, err := harness.Sandbox(keep, "scale-bench-")
	if err != nil {
		return err
	}
	defer remove()
	var ns []int
	for _, f := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return fmt.Errorf("-tasks: %w", err)
		}
		ns = append(ns, n)
	}
	fmt.Printf("load average at start: %s\n", harness.LoadAverage())
	base, err := newWorld(root, small)
	if err != nil {
		return err
	}
	if makeOnly {
		for _, n := range ns {
			if _, err := newWorld(root, n); err != nil {
				return err
			}
		}
		return nil
	}
	for _, n := range ns {
		w, err := newWorld(root, n)
		if err != nil {
			return err
		}
		if err := report(w, runs, base); err != nil {
			return fmt.Errorf("%d tasks: %w", n, err)
		}
	}
	fmt.Printf("load average at end: %s\n", harness.LoadAverage())
	return nil
}

type world struct {
	n            int
	dir          string // holds remote.git, clone, writer
	remote       string
	clone        string
	assessNumber int
}

const trackSpec = "+refs/reasoning/tasks/*:refs/reasoning/remotes/origin/*"

func newWorld(root string, n int) (*world, error) {
	w := &world{n: n, dir: filepath.Join(root, fmt.Sprintf("w%d", n))}
	w.remote, w.clone = filepath.Join(w.dir, "remote.git"), filepath.Join(w.dir, "clone")
	start := time.Now()
	made := filepath.Join(w.dir, "made")
	if _, err := os.Stat(made); err == nil {
		// Made by an earlier run under -keep: only the caches are warmed
		// again, by this build, as below.
		if err := warm(w); err != nil {
			return nil, err
		}
		fmt.Printf("%d tasks: world of an earlier run, caches warmed in %v\n", n, time.Since(start).Round(time.Millisecond))
		return w, nil
	}
	os.RemoveAll(w.dir) // a world an earlier run did not finish
	if err := git("", "init", "-q", "--bare", w.remote); err != nil {
		return nil, err
	}
	if err := harness.BulkTasks(context.Background(), w.remote, "T-", n); err != nil {
		return nil, err
	}
	if err := git("", "init", "-q", w.clone); err != nil {
		return nil, err
	}
	steps := [][]string{
		{"remote", "add", "origin", w.remote},
		{"fetch", "-q", "origin", "+refs/reasoning/tasks/*:refs/reasoning/tasks/*", trackSpec},
		{"pack-refs", "--all"},
	}
	for _, s := range steps {
		if err := git(w.clone, s...); err != nil {
			return nil, err
		}
	}
	if err := warm(w); err != nil {
		return nil, err
	}
	if err := os.WriteFile(made, nil, 0o644); err != nil {
		return nil, err
	}
	fmt.Printf("%d tasks: world made in %v\n", n, time.Since(start).Round(time.Millisecond))
	return w, nil
}

// warm makes the caches a clone in use has: the task index, the
// remembered heads, the subject index its first assessment builds, and
// what handover and log read (so that a timing of one run is not a cold
// one).
func warm(w *world) error {
	for _, args := range [][]string{{"status"}, {"sync"}, {"assess", "warm", "--subject", "warm-up", "--question", "q",
		"--materiality", "trivial", "--reversibility", "reversible"}, {"sync"}, {"handover"}, {"log", "-n", "5"}, {"status"}} {
		if _, err := timed(w.clone, "git", append([]string{"reason"}, args...)...); err != nil {
			return err
		}
	}
	return nil
}

// catchUpOnly: -catchup, report times the fetch catch-up alone; writeOnly:
// -write, assess and log -n 5 alone; verifyOnly: -verify, verify alone;
// statusOnly: -status, status of every task alone; doctorOnly: -doctor, doctor alone; logOnly: -log, log -n 5 and version
// alone; firstOnly: -first, the first status of a clone without caches;
// firstAssessOnly: -firstassess, its first assess; firstTaskOnly:
// -firsttask, its first status of one task; the last six against the
// build baseline names when it names one.
var (
	catchUpOnly, writeOnly, verifyOnly, statusOnly, doctorOnly, logOnly, firstOnly, firstAssessOnly, firstTaskOnly, showOnly, searchOnly, looseRefs, auditOnly, pulledOnly bool
	baseline                                                                                                                                                               string
)

// report times everything at w's size and prints it.
func report(w *world, runs int, base *world) error {
	if catchUpOnly {
		return timeCatchUp(w, runs)
	}
	if writeOnly {
		return timeWrite(w, runs, base)
	}
	if verifyOnly {
		return timeBuilds(w, runs, []string{"verify"})
	}
	if statusOnly {
		return timeBuilds(w, runs, []string{"status"})
	}
	if doctorOnly {
		return timeBuilds(w, runs, []string{"doctor"})
	}
	if logOnly {
		return timeBuilds(w, runs, []string{"log -n 5", "version"})
	}
	if firstOnly {
		return timeFirst(w, runs)
	}
	if firstAssessOnly {
		return timeFirstAssess(w, runs)
	}
	if firstTaskOnly {
		return timeInFreshClones(w, runs, "first status of one task of a clone", "status", "T-000007")
	}
	if showOnly {
		return timeFirstShow(w, runs)
	}
	if searchOnly {
		return timeSearchIndex(w, runs)
	}
	if auditOnly {
		return audit(w)
	}
	if pulledOnly {
		return pulledReads(w, runs)
	}
	noop, err := repeat(runs, func() (time.Duration, error) { return timed(w.clone, "git", "reason", "sync") })
	if err != nil {
		return err
	}
	fetch, err := repeat(runs, func() (time.Duration, error) { return timed(w.clone, "git", "fetch", "-q", "origin", trackSpec) })
	if err != nil {
		return err
	}
	fmt.Printf("%d tasks: no-op sync %s; git fetch %s; ratio %s (target <= 1.5x)\n", w.n, noop, fetch, ratio(noop, fetch))

	pull, fetchOne, err := timeOneMoved(w, runs)
	if err != nil {
		return err
	}
	fmt.Printf("%d tasks: pull after one task moved %s; git fetch of it %s; ratio %s (target <= 2x)\n", w.n, pull, fetchOne, ratio(pull, fetchOne))

	if err := timeWrite(w, runs, base); err != nil {
		return err
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"status", []string{"reason", "status"}},
		{"handover", []string{"reason", "handover"}},
		{"verify", []string{"reason", "verify"}},
		{"doctor", []string{"reason", "doctor"}},
		{"completion of tasks", []string{"reason", "__complete", "tasks"}},
	} {
		s, err := repeat(runs, func() (time.Duration, error) { return timed(w.clone, "git", c.args...) })
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		fmt.Printf("%d tasks: %s %s\n", w.n, c.name, s)
	}
	return timeCatchUp(w, runs)
}

// timeBuilds times each of cmds (git-reason's arguments, split at
// spaces) with nothing moved, this build's, and with -baseline that
// build's in the same rounds, alternately, each build on a copy of the
// clone of its own (the caches one build writes are keyed by its
// release: the other's would rebuild them), each copy settled by two
// untimed runs of every command first. They run as git's dispatch would
// start them, without the dispatch's own git, their output to a pipe.
func timeBuilds(w *world, runs int, cmds []string) error {
	bins, err := builds()
	if err != nil {
		return err
	}
	all := make([]stats, len(bins)*len(cmds))
	out := make([]*stats, len(all))
	fs := make([]func() (time.Duration, error), len(all))
	for i, bin := range bins {
		run, err := cloneCopy(w, fmt.Sprintf("builds-%d", i))
		if err != nil {
			return err
		}
		defer os.RemoveAll(run)
		if looseRefs {
			if err := loosen(run); err != nil {
				return err
			}
		}
		for j, c := range cmds {
			args := strings.Fields(c)
			for range 2 {
				if _, err := timed(run, bin, args...); err != nil {
					return fmt.Errorf("settle %s %s: %w", bin, c, err)
				}
			}
			k := i*len(cmds) + j
			out[k] = &all[k]
			fs[k] = func() (time.Duration, error) { return timed(run, bin, args...) }
		}
	}
	if err := interleave(runs, out, fs...); err != nil {
		return err
	}
	for j, c := range cmds {
		fmt.Printf("%d tasks: %s, nothing moved, this build %s\n", w.n, c, all[j])
		if baseline != "" {
			fmt.Printf("%d tasks: %s, nothing moved, %s %s; this build over it %s\n", w.n, c, baseline, all[len(cmds)+j], ratio(all[j], all[len(cmds)+j]))
		}
	}
	fmt.Printf("load average after the rounds: %s\n", harness.LoadAverage())
	return nil
}

// timeFirst times the first git reason status of a clone that has no
// caches yet, as right after git clone and git reason pull (or a git
// fetch of the tasks): every task is read, replayed and remembered. This
// build's, and with -baseline that build's in the same rounds,
// alternately (timeInFreshClones).
func timeFirst(w *world, runs int) error {
	return timeInFreshClones(w, runs, "first status of a clone", "status")
}

// timeFirstAssess times the first git reason assess of a clone that has
// no caches yet, of a task of its own: the subject index is built from
// every task (the tasks whose trees name a conclusion derived), with the
// clone's first catch-up. As timeFirst, against -baseline when it names
// a build.
func timeFirstAssess(w *world, runs int) error {
	return timeInFreshClones(w, runs, "first assess of a clone", "assess", "first-assess", "--subject", "a subject never seen",
		"--question", "q", "--materiality", "trivial", "--reversibility", "reversible")
}

// timeInFreshClones times git-reason args, this build's and -baseline's
// alternately, each run on a copy of the clone without .git/reason, made
// before the timing by copying everything else (not by deleting
// .git/reason from a full copy: on ext4 without a journal, creating files
// right after deleting thousands costs more); every copy is removed only
// after the last round, for the same reason.
func timeInFreshClones(w *world, runs int, what string, args ...string) error {
	copies := filepath.Join(w.dir, "first")
	os.RemoveAll(copies)
	defer os.RemoveAll(copies)
	made := 0
	return timeEachBuild(w, runs, what, func(_ int, bin string) (func() (time.Duration, error), error) {
		return func() (time.Duration, error) {
			made++
			run := filepath.Join(copies, strconv.Itoa(made))
			if err := copyWithout(w.clone, run, filepath.Join(".git", "reason")); err != nil {
				return 0, err
			}
			if looseRefs {
				if err := loosen(run); err != nil {
					return 0, err
				}
			}
			return timed(run, bin, args...)
		}, nil
	})
}

// timeEachBuild times one case for each build (this one, then
// -baseline's when it names one), interleaved: mk makes build i's timed
// run (bin, its program), and the figures print as what.
func timeEachBuild(w *world, runs int, what string, mk func(i int, bin string) (func() (time.Duration, error), error)) error {
	bins, err := builds()
	if err != nil {
		return err
	}
	all := make([]stats, len(bins))
	out := make([]*stats, len(bins))
	fs := make([]func() (time.Duration, error), len(bins))
	for i, bin := range bins {
		out[i] = &all[i]
		if fs[i], err = mk(i, bin); err != nil {
			return err
		}
	}
	if err := interleave(runs, out, fs...); err != nil {
		return err
	}
	fmt.Printf("%d tasks: %s, this build %s\n", w.n, what, all[0])
	if baseline != "" {
		fmt.Printf("%d tasks: %s, %s %s; this build over it %s\n", w.n, what, baseline, all[1], ratio(all[0], all[1]))
	}
	fmt.Printf("load average after the rounds: %s\n", harness.LoadAverage())
	return nil
}

// cloneCopy copies the world's clone (cp -a) to name under the world's
// directory, for one build's runs, and returns the copy's path.
func cloneCopy(w *world, name string) (string, error) {
	run := filepath.Join(w.dir, name)
	os.RemoveAll(run)
	return run, exec.Command("cp", "-a", w.clone, run).Run()
}

// timeSearchIndex times git reason search of a word every task's subject
// holds when its index must be made again (removed before each run; the
// verdicts of every task remembered, as after a first status), each build
// on its own copy of the clone, alternately.
func timeSearchIndex(w *world, runs int) error {
	var copies []string
	defer func() {
		for _, c := range copies {
			os.RemoveAll(c)
		}
	}()
	return timeEachBuild(w, runs, "search with its index made again", func(i int, bin string) (func() (time.Duration, error), error) {
		run, err := cloneCopy(w, fmt.Sprintf("search-%d", i))
		copies = append(copies, run)
		if err != nil {
			return nil, err
		}
		if _, err := timed(run, bin, "status"); err != nil { // settle: caches and verdicts
			return nil, err
		}
		return func() (time.Duration, error) {
			for _, f := range []string{"search", "search.terms"} {
				if err := os.RemoveAll(filepath.Join(run, ".git", "reason", f)); err != nil {
					return 0, err
				}
			}
			return timed(run, bin, "search", "subject")
		}, nil
	})
}

// timeFirstShow times git reason show of a record id's first 10
// characters when the id index does not exist yet, as at the first show
// of a clone: every task's record ids are indexed, then the task that
// holds the id is read.
func timeFirstShow(w *world, runs int) error {
	out, err := harness.GitTry(w.clone, "reason", "log", "-n", "1", "--json", "--jq", ".[0].id")
	id := strings.Trim(strings.TrimSpace(out), `"`)
	if err != nil || len(id) < 10 {
		return fmt.Errorf("the latest record's id: %v: %s", err, out)
	}
	ids := filepath.Join(w.clone, ".git", "reason", "ids")
	s, err := repeat(runs, func() (time.Duration, error) {
		if err := os.RemoveAll(ids); err != nil {
			return 0, err
		}
		return timed(w.clone, "git", "reason", "show", id[:10])
	})
	if err != nil {
		return err
	}
	fmt.Printf("%d tasks: first show of an id, the id index removed before each run, %s\n", w.n, s)
	fmt.Printf("load average after the rounds: %s\n", harness.LoadAverage())
	return nil
}

// audit prints, for each command, its first run in a copy of the clone
// without .git/reason (as after git clone and a fetch of the tasks), its
// second run, and its run after one task moved (a record written here to
// T-000003): wall and CPU time, the files it wrote under .git/reason/ and
// the git processes it started. A cost that grows with the tasks where
// little changed shows as a moved run near its first run. The writes
// write on tasks of their own each run; pull and sync run after a record
// of T-000004 was pushed to the copy's remote by another clone, and the
// reads marked "fetched" after a plain git fetch brought it.
func audit(w *world) error {
	out, err := harness.GitTry(w.clone, "reason", "log", "T-000001", "--json", "--jq", ".[0].id")
	id := strings.Trim(strings.TrimSpace(out), `"`)
	if err != nil || len(id) < 10 {
		return fmt.Errorf("a record id of T-000001: %v: %s", err, out)
	}
	fmt.Printf("%d tasks: audit, each command: wall, CPU, files written under .git/reason/, git processes started\n", w.n)
	assess := func(task string) []string {
		return []string{"assess", task, "--subject", "audit", "--question", "q", "--materiality", "trivial", "--reversibility", "reversible"}
	}
	onTask := func(f func(string) []string, tasks ...string) func(int) []string {
		return func(i int) []string { return f(tasks[i]) }
	}
	same := func(args ...string) func(int) []string { return func(int) []string { return args } }
	cases := []struct {
		name string
		args func(round int) []string
	}{
		{"status", same("status")}, {"status T", same("status", "T-000001")}, {"log", same("log")},
		{"log -n 5", same("log", "-n", "5")}, {"log T", same("log", "T-000001")}, {"show ID", same("show", id)},
		{"show prefix", same("show", id[:16])}, {"tasks", same("tasks")}, {"handover", same("handover")},
		{"search", same("search", "no such text")}, {"verify", same("verify")}, {"verify T", same("verify", "T-000001")},
		{"context", same("context")}, {"completion", same("__complete", "tasks")}, {"doctor", same("doctor")},
		{"assess existing", onTask(assess, "T-000010", "T-000011", "T-000012")},
		{"assess new", onTask(assess, "new-1", "new-2", "new-3")},
		{"plan existing", onTask(func(t string) []string { return []string{"plan", t} }, "T-000020", "T-000021", "T-000022")},
		{"conclude existing", onTask(func(t string) []string { return []string{"conclude", t, "--decision", "d"} }, "T-000030", "T-000031", "T-000032")},
		{"pull", same("pull")}, {"sync", same("sync")},
	}
	for _, c := range cases {
		run, remote, done, err := auditCopy(w)
		if err != nil {
			return err
		}
		for i, phase := range []string{"first", "warm", "moved"} {
			if phase == "moved" {
				move := func() error {
					_, err := timed(run, "git", append([]string{"reason"}, assess("T-000003")...)...)
					return err
				}
				if c.name == "pull" || c.name == "sync" {
					move = func() error { return moveOnRemote(remote, "T-000004") }
				}
				if err := move(); err != nil {
					return err
				}
			}
			if err := auditRun(run, c.name, phase, c.args(i)); err != nil {
				return err
			}
		}
		done()
	}
	for _, args := range [][]string{{"status"}, {"status", "T-000004"}, {"log", "-n", "5"}, {"tasks"}, {"handover"}, {"verify"}, {"pull"}} {
		run, remote, done, err := auditCopy(w)
		if err != nil {
			return err
		}
		for _, settle := range [][]string{{"status"}, args} {
			if _, err := timed(run, "git", append([]string{"reason"}, settle...)...); err != nil {
				return err
			}
		}
		if err := moveOnRemote(remote, "T-000004"); err != nil {
			return err
		}
		if err := git(run, "fetch", "-q", "origin", trackSpec); err != nil {
			return err
		}
		if err := auditRun(run, "fetched: "+strings.Join(args, " "), "moved", args); err != nil {
			return err
		}
		done()
	}
	fmt.Printf("load average after the audit: %s\n", harness.LoadAverage())
	return nil
}

// auditCopy copies the world's clone without .git/reason and its remote,
// the copy's origin the remote's copy, and makes a commit naming
// T-000001 for context to show.
func auditCopy(w *world) (run, remote string, done func(), err error) {
	dir := filepath.Join(w.dir, "audit")
	os.RemoveAll(dir)
	run, remote = filepath.Join(dir, "clone"), filepath.Join(dir, "remote.git")
	if err := copyWithout(w.clone, run, filepath.Join(".git", "reason")); err != nil {
		return "", "", nil, err
	}
	if err := exec.Command("cp", "-a", w.remote, remote).Run(); err != nil {
		return "", "", nil, err
	}
	for _, s := range [][]string{{"remote", "set-url", "origin", remote}, {"commit", "-q", "--allow-empty", "-m", "audit\n\nReason-Task: T-000001"}} {
		if err := git(run, s...); err != nil {
			return "", "", nil, err
		}
	}
	return run, remote, func() { os.RemoveAll(dir) }, nil
}

// moveOnRemote writes a record of each of tasks in another clone of
// remote and pushes them there by plain git.
func moveOnRemote(remote string, tasks ...string) error {
	writer := filepath.Join(filepath.Dir(remote), "writer")
	os.RemoveAll(writer)
	defer os.RemoveAll(writer)
	var specs []string
	for _, task := range tasks {
		ref := "refs/reasoning/tasks/" + task
		specs = append(specs, ref+":"+ref)
	}
	for _, s := range [][]string{{"init", "-q", writer}, append([]string{"-C", writer, "fetch", "-q", remote}, specs...)} {
		if err := git("", s...); err != nil {
			return err
		}
	}
	for _, task := range tasks {
		if _, err := timed(writer, "git", "reason", "assess", task, "--subject", "moved elsewhere", "--question", "q",
			"--materiality", "trivial", "--reversibility", "reversible"); err != nil {
			return err
		}
	}
	return git(writer, append([]string{"push", "-q", "--no-verify", remote}, specs...)...)
}

// auditRun runs git reason args in run and prints one row: wall and CPU
// time, the files under .git/reason/ it wrote, and the git processes it
// started (auditMeasure).
func auditRun(run, name, phase string, args []string) error {
	m, err := auditMeasure(run, "", args)
	if err != nil {
		return err
	}
	r := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	fmt.Printf("  %-22s %-6s wall %-9v CPU %-9v files %-6d gits %d%s\n", name, phase, r(m.Wall), r(m.CPU), m.files, m.gits, m.status)
	return nil
}

// measured is one run of auditMeasure.
type measured struct {
	harness.Timing
	files, gits int
	status      string // " (exit N)" when it failed
}

// auditMeasure runs git reason args in run, git's dispatch finding
// git-reason first in bin when it is not "", and measures it: wall and
// CPU time, the files under .git/reason/ it created or rewrote (by
// modification time), and the git processes it started (trace2 start
// events of the children of git's dispatch of git reason, as
// reliability's traced counts them).
func auditMeasure(run, bin string, args []string) (measured, error) {
	trace := filepath.Join(filepath.Dir(run), "trace2.json")
	os.Remove(trace)
	cmd := exec.Command("git", append([]string{"reason"}, args...)...)
	cmd.Dir = run
	cmd.Env = append(os.Environ(), "GIT_TRACE2_EVENT="+trace)
	if bin != "" {
		cmd.Env = append(cmd.Env, "PATH="+bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
	}
	start := time.Now()
	var m measured
	var err error
	m.Timing, err = harness.Timed(cmd)
	if err != nil && !strings.Contains(err.Error(), "exit status") {
		return m, err
	}
	if err != nil {
		m.status = fmt.Sprintf(" (exit %d)", cmd.ProcessState.ExitCode())
	}
	filepath.WalkDir(filepath.Join(run, ".git", "reason"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil && !fi.ModTime().Before(start) {
				m.files++
			}
		}
		return nil
	})
	data, _ := os.ReadFile(trace)
	for _, line := range strings.Split(string(data), "\n") {
		var ev struct{ Event, Sid string }
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Event == "start" && strings.Count(ev.Sid, "/") == 1 {
			m.gits++
		}
	}
	return m, nil
}

// pulledMoved are the numbers of tasks pulledReads moves on the remote.
var pulledMoved = []int{1, 100}

// pulledReads prints, for each read command, its first run in a clone
// without .git/reason (as after git clone and a fetch of the tasks), and
// its first run after a git reason pull that moved 1 and 100 tasks (on a
// copy of the clone, whose caches are a clone's in use; the tasks moved
// are the last ones, a record each written in another clone and pushed
// to a copy of the remote), and the pull itself: median wall and CPU time
// of runs, the files it created or rewrote under .git/reason/ and the git
// processes it started (auditMeasure). After a pull, what a read writes
// must grow with the tasks moved, not with the tasks. With -baseline,
// that build's in the same rounds, each run on a copy of its own.
func pulledReads(w *world, runs int) error {
	bins, err := builds()
	if err != nil {
		return err
	}
	dir := filepath.Join(w.dir, "pulled")
	os.RemoveAll(dir)
	defer os.RemoveAll(dir)
	paths := make([]string, len(bins)) // a directory per build, its git-reason the build's
	for i, bin := range bins {
		paths[i] = filepath.Join(dir, "bin"+strconv.Itoa(i))
		if err := os.MkdirAll(paths[i], 0o777); err != nil {
			return err
		}
		if err := os.Symlink(bin, filepath.Join(paths[i], "git-reason")); err != nil {
			return err
		}
	}
	phases := []string{"clone"}
	remotes := map[string]string{}
	for _, k := range pulledMoved {
		if k > w.n {
			continue
		}
		phase := fmt.Sprintf("pulled %d", k)
		remote := filepath.Join(dir, fmt.Sprintf("remote-%d", k))
		if err := exec.Command("cp", "-a", w.remote, remote).Run(); err != nil {
			return err
		}
		var tasks []string
		for i := range k {
			tasks = append(tasks, fmt.Sprintf("T-%06d", w.n-1-i))
		}
		if err := moveOnRemote(remote, tasks...); err != nil {
			return err
		}
		phases, remotes[phase] = append(phases, phase), remote
	}
	task := fmt.Sprintf("T-%06d", w.n-1) // moved in every pull
	cases := []struct {
		name string
		args []string
	}{
		{"status T", []string{"status", task}}, {"status", []string{"status"}}, {"log -n 5", []string{"log", "-n", "5"}},
		{"log", []string{"log"}}, {"log T", []string{"log", task}}, {"handover", []string{"handover"}},
		{"verify", []string{"verify"}}, {"tasks", []string{"tasks"}}, {"search", []string{"search", "no such text"}},
	}
	type key struct {
		name, phase string
		build       int
	}
	got := map[key][]measured{}
	var order []key
	note := func(k key, m measured) {
		if _, ok := got[k]; !ok {
			order = append(order, k)
		}
		got[k] = append(got[k], m)
	}
	run := filepath.Join(dir, "run")
	for range runs {
		for _, c := range cases {
			for _, phase := range phases {
				for b := range bins {
					os.RemoveAll(run)
					if phase == "clone" {
						if err := copyWithout(w.clone, run, filepath.Join(".git", "reason")); err != nil {
							return err
						}
					} else {
						if err := exec.Command("cp", "-a", w.clone, run).Run(); err != nil {
							return err
						}
						if err := git(run, "remote", "set-url", "origin", remotes[phase]); err != nil {
							return err
						}
						m, err := auditMeasure(run, paths[b], []string{"pull"})
						if err != nil || m.status != "" {
							return fmt.Errorf("pull%s: %v", m.status, err)
						}
						note(key{"pull", phase, b}, m)
					}
					m, err := auditMeasure(run, paths[b], c.args)
					if err != nil {
						return err
					}
					note(key{c.name, phase, b}, m)
				}
			}
		}
	}
	os.RemoveAll(run)
	fmt.Printf("%d tasks: each read first after a clone and after a pull, medians of %d runs: wall, CPU, files written under .git/reason/, git processes started\n", w.n, runs)
	r := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	for _, k := range order {
		ms := got[k]
		walls, cpus := make([]time.Duration, len(ms)), make([]time.Duration, len(ms))
		for i, m := range ms {
			walls[i], cpus[i] = m.Wall, m.CPU
		}
		s := summarise(walls, cpus)
		last := ms[len(ms)-1]
		line := fmt.Sprintf("  %-10s %-10s %-8s wall %-9v CPU %-9v files %-6d gits %d%s", k.name, k.phase, []string{"this", "baseline"}[k.build],
			r(s.med), r(s.cpu), last.files, last.gits, last.status)
		if k.build == 1 {
			mine := got[key{k.name, k.phase, 0}]
			c0 := make([]time.Duration, len(mine))
			for i, m := range mine {
				c0[i] = m.CPU
			}
			line += fmt.Sprintf("; this build over it %.2fx CPU", float64(summarise(c0, slices.Clone(c0)).cpu)/float64(s.cpu))
		}
		fmt.Println(line)
	}
	fmt.Printf("load average after the rounds: %s\n", harness.LoadAverage())
	return nil
}

// copyWithout copies the directory src to dst (cp -a) but for the one
// path skip below it, which is neither copied nor created.
func copyWithout(src, dst, skip string) error {
	var walk func(rel string) error
	walk = func(rel string) error {
		if err := os.MkdirAll(filepath.Join(dst, rel), 0o777); err != nil {
			return err
		}
		ents, err := os.ReadDir(filepath.Join(src, rel))
		if err != nil {
			return err
		}
		for _, e := range ents {
			p := filepath.Join(rel, e.Name())
			switch {
			case p == skip:
			case e.IsDir() && strings.HasPrefix(skip, p+string(filepath.Separator)):
				if err := walk(p); err != nil {
					return err
				}
			default:
				if err := exec.Command("cp", "-a", filepath.Join(src, p), filepath.Join(dst, p)).Run(); err != nil {
					return fmt.Errorf("copy %s: %w", p, err)
				}
			}
		}
		return nil
	}
	return walk("")
}

// builds is the git-reason on PATH, then -baseline's when it names one.
func builds() ([]string, error) {
	self, err := exec.LookPath("git-reason")
	if err != nil {
		return nil, err
	}
	if baseline != "" {
		return []string{self, baseline}, nil
	}
	return []string{self}, nil
}

// loosen writes every ref under refs/reasoning/ of the clone at dir as a
// loose file holding its value, as git fetch and git reason's own
// appends and catch-up leave the refs they move until git packs refs.
func loosen(dir string) error {
	out, err := exec.Command("git", "-C", dir, "for-each-ref", "--format=%(objectname) %(refname)", "refs/reasoning/").Output()
	if err != nil {
		return fmt.Errorf("loosen: %w", err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		hash, ref, _ := strings.Cut(l, " ")
		path := filepath.Join(dir, ".git", filepath.FromSlash(ref))
		if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(hash+"\n"), 0o666); err != nil {
			return err
		}
	}
	return nil
}

// timeWrite times an assessment at w's size against one at base's, and
// log -n 5, with git-reason version beside it in the same rounds: the
// program's start, which log -n 5 cannot go below.
func timeWrite(w *world, runs int, base *world) error {
	assess, smallAssess, err := timeAssess(w, base, runs)
	if err != nil {
		return err
	}
	fmt.Printf("%d tasks: assess %s; at %d tasks %s; ratio %s (target <= 1.2x)\n", w.n, assess, base.n, smallAssess, ratio(assess, smallAssess))
	var log, version stats
	err = interleave(runs, []*stats{&log, &version},
		func() (time.Duration, error) { return timed(w.clone, "git", "reason", "log", "-n", "5") },
		func() (time.Duration, error) { return timed(w.clone, "git", "reason", "version") })
	if err != nil {
		return fmt.Errorf("log -n 5: %w", err)
	}
	fmt.Printf("%d tasks: log -n 5 %s (target <= 50 ms); git reason version %s\n", w.n, log, version)
	return nil
}

// catchUpMoved are the numbers of tasks timeCatchUp moves.
var catchUpMoved = []int{1, 10, 100}

// timeCatchUp times the fetch catch-up: the remote's heads of K tasks
// move (records written in a second clone and pushed by plain git), and
// on fresh copies of the clone a plain `git fetch` of the task refs into
// the tracking namespace (not timed) is followed by one `git reason
// status`, which integrates the K tasks before it answers. The same
// status with nothing fetched is the base; the difference is the cost of
// the K tasks, which must grow with K, not with the tasks.
func timeCatchUp(w *world, runs int) error {
	replayed := 0 // by the last run after a fetch
	copyRun := func(fetch bool) func() (time.Duration, error) {
		return func() (time.Duration, error) {
			return onCopy(w, func(run string) (time.Duration, error) {
				if !fetch {
					return timed(run, "git", "reason", "status")
				}
				if err := git(run, "fetch", "-q", "origin", trackSpec); err != nil {
					return 0, err
				}
				// What it replayed, from its own count (gitstore.Cost): the
				// proof that the catch-up integrated the K tasks.
				costFile := filepath.Join(w.dir, "cost.json")
				os.Remove(costFile)
				os.Setenv("GIT_REASON_COST", costFile)
				d, err := timed(run, "git", "reason", "status")
				os.Unsetenv("GIT_REASON_COST")
				var c struct{ Histories int }
				if data, rerr := os.ReadFile(costFile); rerr == nil {
					_ = json.Unmarshal(data, &c)
				}
				replayed = c.Histories
				return d, err
			})
		}
	}
	base, err := repeat(runs, copyRun(false))
	if err != nil {
		return err
	}
	fmt.Printf("%d tasks: status, nothing fetched %s\n", w.n, base)
	moved := 0
	for _, k := range catchUpMoved {
		if moved+k > w.n {
			// A world too small to move k more tasks (a -tasks 50 run).
			fmt.Printf("%d tasks: the catch-up of %d moved tasks is not timed: %d tasks are left to move\n", w.n, k, w.n-moved)
			break
		}
		var tasks []string
		for i := moved; i < moved+k; i++ {
			tasks = append(tasks, fmt.Sprintf("T-%06d", w.n-1-i)) // from the last: tasks the other timings leave alone
		}
		moved += k
		if err := moveOnRemote(w.remote, tasks...); err != nil {
			return err
		}
		after, err := repeat(runs, copyRun(true))
		if err != nil {
			return err
		}
		fmt.Printf("%d tasks: status after a git fetch moved %d tasks (it replayed %d histories) %s; over nothing fetched %v wall, %v CPU (%v CPU a task)\n",
			w.n, k, replayed, after, (after.med - base.med).Round(time.Millisecond), (after.cpu - base.cpu).Round(time.Millisecond),
			((after.cpu - base.cpu) / time.Duration(k)).Round(100*time.Microsecond))
		// The clone itself catches up, so that the next K moved are the
		// only ones its copies fetch.
		if err := git(w.clone, "fetch", "-q", "origin", trackSpec); err != nil {
			return err
		}
		if _, err := timed(w.clone, "git", "reason", "status"); err != nil {
			return err
		}
	}
	return nil
}

// timeOneMoved moves one task on the remote (a record written and pushed
// from a second clone), then times, on fresh copies of the clone, a pull
// and a plain fetch of the same change.
func timeOneMoved(w *world, runs int) (stats, stats, error) {
	writer := filepath.Join(w.dir, "writer")
	os.RemoveAll(writer)
	task := "T-000001"
	for _, s := range [][]string{{"init", "-q", writer}, {"-C", writer, "remote", "add", "origin", w.remote}} {
		if err := git("", s...); err != nil {
			return stats{}, stats{}, err
		}
	}
	for _, args := range [][]string{{"pull", task}, {"assess", task, "--subject", "moved", "--question", "q", "--materiality", "trivial", "--reversibility", "reversible"}, {"push", task}} {
		if _, err := timed(writer, "git", append([]string{"reason"}, args...)...); err != nil {
			return stats{}, stats{}, err
		}
	}
	copyRun := func(cmd ...string) func() (time.Duration, error) {
		return func() (time.Duration, error) {
			return onCopy(w, func(run string) (time.Duration, error) { return timed(run, cmd[0], cmd[1:]...) })
		}
	}
	pull, err := repeat(runs, copyRun("git", "reason", "pull"))
	if err != nil {
		return stats{}, stats{}, err
	}
	fetch, err := repeat(runs, copyRun("git", "fetch", "-q", "origin", trackSpec))
	return pull, fetch, err
}

// timeAssess times assessments of new subjects on new tasks in w and in
// base, alternately (so that both meet the same load), each on a fresh
// copy of its clone, so that every run writes into the same state.
func timeAssess(w, base *world, runs int) (stats, stats, error) {
	one := func(w *world) func() (time.Duration, error) {
		return func() (time.Duration, error) {
			run, done, err := freshCopy(w)
			if err != nil {
				return 0, err
			}
			defer done()
			w.assessNumber++
			k := strconv.Itoa(w.assessNumber)
			return timed(run, "git", "reason", "assess", "new-"+k, "--subject", "a subject never seen "+k,
				"--question", "q", "--materiality", "trivial", "--reversibility", "reversible")
		}
	}
	var large, small stats
	err := interleave(runs, []*stats{&large, &small}, one(w), one(base))
	return large, small, err
}

// interleave runs each of fs once a round, runs rounds, and puts each
// one's stats in out.
func interleave(runs int, out []*stats, fs ...func() (time.Duration, error)) error {
	ds := make([][]time.Duration, len(fs))
	cs := make([][]time.Duration, len(fs))
	for range runs {
		for i, f := range fs {
			d, err := f()
			if err != nil {
				return err
			}
			ds[i], cs[i] = append(ds[i], d), append(cs[i], cpu)
		}
	}
	for i := range fs {
		*out[i] = summarise(ds[i], cs[i])
	}
	return nil
}

// freshCopy copies the clone, outside any timing, for a run that changes
// it; done removes the copy. A copy is another repository to the caches
// keyed by files (other paths, other inodes: the catch-up's stamp of the
// tracking namespace), so its first command compares every tracking ref
// with .git/reason/fetched.heads, as a clone's first command after git
// pack-refs does: one untimed command settles the copy, so that a timed
// command pays what it costs in the clone it was copied from, not the
// copying.
func freshCopy(w *world) (run string, done func(), err error) {
	if run, err = cloneCopy(w, "run"); err != nil {
		return "", nil, err
	}
	if _, err := timed(run, "git", "reason", "status", "warm"); err != nil {
		return "", nil, fmt.Errorf("settle the copy: %w", err)
	}
	return run, func() { os.RemoveAll(run) }, nil
}

// onCopy runs f on a fresh copy of the clone.
func onCopy(w *world, f func(run string) (time.Duration, error)) (time.Duration, error) {
	run, done, err := freshCopy(w)
	if err != nil {
		return 0, err
	}
	defer done()
	return f(run)
}

func git(dir string, args ...string) error { return harness.RunGit(nil, dir, args...) }

// cpu is the user and system CPU time of the last command timed and the
// git processes it waited for: on a loaded machine wall time is mostly
// waiting for a core, so both are printed.
var cpu time.Duration

// timed runs one command to completion and returns its wall time.
func timed(dir, name string, args ...string) (time.Duration, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	t, err := harness.Timed(cmd)
	if err == nil {
		cpu = t.CPU
	}
	return t.Wall, err
}

// stats is the median, min and max wall time of runs, and the median CPU
// time.
type stats struct{ med, min, max, cpu time.Duration }

func (s stats) String() string {
	r := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	return fmt.Sprintf("%v (%v-%v; CPU %v)", r(s.med), r(s.min), r(s.max), r(s.cpu))
}

// ratio compares medians of wall time, and of CPU time.
func ratio(a, b stats) string {
	return fmt.Sprintf("%.2fx wall, %.2fx CPU", float64(a.med)/float64(b.med), float64(a.cpu)/float64(b.cpu))
}

func repeat(runs int, f func() (time.Duration, error)) (stats, error) {
	var s stats
	err := interleave(runs, []*stats{&s}, f)
	return s, err
}

// summarise is the stats of wall times ds and CPU times cs.
func summarise(ds, cs []time.Duration) stats {
	slices.Sort(ds)
	slices.Sort(cs)
	return stats{med: ds[len(ds)/2], min: ds[0], max: ds[len(ds)-1], cpu: cs[len(cs)/2]}
}
