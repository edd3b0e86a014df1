// Command write-bench times whole-process `git reason` against git's own
// `git notes` and against the least a Go program costs, in one run:
//
//   - one `git reason assess` against one `git notes --ref=x append` on a
//     commit, in the same repository;
//   - the same assess in repositories holding -sizes records (100 per task
//     by default), each repository packed by `git gc` as a real one would be;
//   - `git reason status TASK` of a task holding -status records;
//   - `git reason context main..bench-context` in the largest repository: a
//     branch of ten commits whose Reason-Task trailers name ten tasks, which
//     links by reading every task;
//   - `git rev-parse` and `git config --list`, the two git processes a
//     write starts (discovery, then its settings: their share of its cost);
//   - `git-reason --version` against a hello-world Go program the benchmark
//     builds with the same toolchain, both run directly: what starting the
//     program costs before it does anything. -only startup times just these
//     and the four before them (git notes append, the startup floor,
//     git rev-parse and git config);
//   - the floor of a write in the first repository, through git's
//     dispatch as assess runs: the same program (built with go build
//     -overlay, every package linked and initialised) exiting as soon as
//     main starts, and that opening the repository first (git rev-parse
//     and git config --list side by side, as every command does): the
//     least a write could cost with these libraries and these processes,
//     and what assess adds to it (floor.go);
//   - with -git-bug PATH (or GIT_BUG=PATH), git-bug's `git bug comment add`
//     on a bug in the first repository: the peer a user would otherwise
//     pick for the same kind of write (one commit on a dedicated ref, Go,
//     go-git). The binary is the caller's, never part of this tree; build
//     v0.8.0 from its module in a scratch module (its current module path
//     is not served at that version, its old one is):
//     go mod init x && go get github.com/MichaelMure/git-bug@v0.8.0 &&
//     go build -o git-bug github.com/MichaelMure/git-bug
//
// Every write goes to an existing task holding -per-task records, so the
// only thing that differs between sizes is the rest of the repository.
// Repositories are generated in-process with the real writer
// (gitstore.Store under record.Writer), not with one process per record;
// records are trivial assessments, so no standing conclusion exists and the
// generator can skip the cross-task index (the first git reason run then
// builds it: that run is reported as "cold").
//
// The cases run -runs times each after two warm-up runs, in a shuffled
// order each round so that noise hits every case alike, and the program
// prints each case's median, min and max, the ratios and the targets. With
// -baseline REV adds the same assess (and status) as built from revision REV of this
// module (from the main package -baseline-pkg: ./cmd/git-reason--net times
// git-reason as one binary with the network linked in; git archive, then
// go build with the build under test's tags unless -baseline-tags says
// otherwise), in its own copy of the first
// repository so that neither build's caches go stale under the other's
// writes, timed in the same rounds: before and after from one run. With
// -cpuprofile DIR it then profiles every case that missed its target (or,
// with -profile-match, every case whose name matches), using
// a build of the binary whose main writes a CPU profile (the same code, built
// with go build -overlay: no file of the tree is changed), and prints the
// top of go tool pprof for each. A CPU profile starts in main and cannot
// see package initialisation, which is most of what --version costs: for
// that case it prints instead the median time of each package's init over
// -profile-runs runs, from GODEBUG=inittrace=1.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"git-reason/reliability/harness"
)

type options struct {
	runs         int
	sizes        []int
	perTask      int
	status       int
	dir          string
	keep         bool
	profile      string
	profRuns     int
	profMatch    string
	seed         uint64
	baseline     string
	baseTags     string // build tags of the -baseline build
	basePkg      string // the main package the -baseline build is built from
	only         string // "startup": only the cases that time starting the program
	gitBug       string // a git-bug binary to time beside assess; "" for none
	instructions int    // runs of each start-up case under cachegrind; 0: none
	moduleDir    string
}

func main() {
	o, err := parseFlags(os.Args[1:])
	if err == nil {
		err = run(o, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "write-bench:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (*options, error) {
	fs := flag.NewFlagSet("write-bench", flag.ContinueOnError)
	o := &options{}
	sizes := fs.String("sizes", "100,10000,100000", "records in each repository the write is timed in; the first is the baseline")
	fs.IntVar(&o.runs, "runs", 15, "timed runs of each case (at least 10 for the report)")
	fs.IntVar(&o.perTask, "per-task", 100, "records per task in the generated repositories")
	fs.IntVar(&o.status, "status", 1000, "records in the task whose status is timed")
	fs.StringVar(&o.dir, "dir", "", "where to generate repositories; kept and reused across runs when set (default: a temporary directory, removed)")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary directory and print its path")
	fs.StringVar(&o.profile, "cpuprofile", "", "profile every case that misses its target; profiles go to this directory")
	fs.IntVar(&o.profRuns, "profile-runs", 40, "processes profiled per missed case (their profiles are merged)")
	fs.StringVar(&o.profMatch, "profile-match", "", "with -cpuprofile: profile the cases whose name matches this `regexp`, missed or not, instead of the missed ones")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the per-round shuffle")
	fs.StringVar(&o.baseline, "baseline", "", "also time assess as built from this git revision of the module, in a copy of the first repository, in the same rounds (before and after a change, from one run)")
	fs.StringVar(&o.baseTags, "baseline-tags", installTags, "build tags of the -baseline build (by default the build under test's, so that both are built alike; \"\" for a plain go build)")
	fs.StringVar(&o.basePkg, "baseline-pkg", "./cmd/git-reason", "the main package the -baseline build is built from, as git-reason: ./cmd/git-reason--net is git-reason with the network verbs linked in, the one-binary build")
	fs.IntVar(&o.instructions, "instructions", 0, "also count the instructions of each start-up case and of assess in the first repository under valgrind's cachegrind, median of `N` runs (load-independent; needs valgrind)")
	fs.StringVar(&o.gitBug, "git-bug", os.Getenv("GIT_BUG"), "a git-bug `binary` (v0.8.0) whose comment add is timed beside assess in the first repository (default $GIT_BUG)")
	fs.StringVar(&o.only, "only", "", "startup: time only git notes append, the startup floor, --version and hello world, in one repository of the first size")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-sizes: %q is not a positive number", s)
		}
		o.sizes = append(o.sizes, n)
	}
	if o.only != "" && o.only != "startup" {
		return nil, fmt.Errorf("-only: %q is not a group of cases (startup)", o.only)
	}
	if o.runs < 1 || o.perTask < 1 || o.status < 1 {
		return nil, fmt.Errorf("-runs, -per-task and -status must be positive")
	}
	return o, nil
}

func run(o *options, out io.Writer) error {
	var err error
	if o.moduleDir == "" {
		if o.moduleDir, err = harness.ModuleRoot(); err != nil {
			return err
		}
	}
	dir := o.dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "write-bench-"); err != nil {
			return err
		}
		if o.keep {
			fmt.Fprintln(out, "# repositories kept in", dir)
		} else {
			defer os.RemoveAll(dir)
		}
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return err
	}
	b, err := newBench(o, dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "# %s\n", b.describe())
	if err := b.prepare(out); err != nil {
		return err
	}
	res, err := b.measure(out)
	if err != nil {
		return err
	}
	missed := report(out, o, res)
	if o.instructions > 0 {
		if err := b.countStartup(out); err != nil {
			return err
		}
	}
	if o.profile != "" && o.profMatch != "" {
		re, err := regexp.Compile(o.profMatch)
		if err != nil {
			return fmt.Errorf("-profile-match: %v", err)
		}
		missed = nil
		for _, c := range res {
			if re.MatchString(c.name) {
				missed = append(missed, c)
			}
		}
		if len(missed) == 0 {
			return fmt.Errorf("-profile-match %q: no case matches", o.profMatch)
		}
	}
	if o.profile != "" && len(missed) > 0 {
		return b.profileCases(out, missed)
	}
	return nil
}

func since(t time.Time) string { return ms(time.Since(t)) }

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
