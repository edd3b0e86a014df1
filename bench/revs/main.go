// Command revs times one `git reason assess` as built from each of several
// revisions of this module, in the same interleaved rounds: the way to
// find which of a range of commits changed what a write costs, on a
// machine whose load moves between runs (only figures from one run
// compare).
//
// Each revision is built as README installs it (-tags, default
// urfave_cli_no_docs,netgo) from git archive of that revision (the
// argument "." builds the working tree as it is), and appends to its own
// copy of one repository holding a task of -records records (the real
// writer's, through harness.BulkTask), so that no build reads another's
// caches. After two warm-up writes each, every round runs each build
// once, in an order shuffled per round. It prints each build's median
// CPU (user and system of git, git-reason and the git processes it waits
// for, from the kernel's rusage), median wall time and minor page
// faults, each against the first revision's, and the load average.
//
// Usage: go run ./bench/revs [-records 100] [-runs 21] [-dir DIR] REV...
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"git-reason/reliability/harness"
)

const task = "T-1"

type build struct {
	rev   string // as given
	name  string // the short commit, or "tree"
	bin   string // directory holding its git-reason
	repo  string // its copy of the repository
	env   []string
	calls int
	harness.Timings
}

func main() {
	fs := flag.NewFlagSet("revs", flag.ExitOnError)
	records := fs.Int("records", 100, "records in the task each assess appends to (even)")
	runs := fs.Int("runs", 21, "timed rounds")
	keep := fs.String("dir", "", "work directory (kept; default a temporary one, removed)")
	tags := fs.String("tags", "urfave_cli_no_docs,netgo", "build tags of every build")
	seed := fs.Uint64("seed", 1, "seed of the per-round shuffle")
	fs.Parse(os.Args[1:])
	if fs.NArg() == 0 || *runs < 1 || *records < 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench/revs [-records N] [-runs N] [-dir DIR] [-tags TAGS] REV...")
		os.Exit(2)
	}
	dir, remove, err := harness.WorkDir(*keep, "revs-")
	harness.ExitOn("revs", err)
	defer remove()
	harness.ExitOn("revs", run(dir, *tags, *records, *runs, *seed, fs.Args()))
}

func run(dir, tags string, records, runs int, seed uint64, revs []string) error {
	mod, err := harness.ModuleRoot()
	if err != nil {
		return err
	}
	env, err := harness.BenchEnv(filepath.Join(dir, "home"))
	if err != nil {
		return err
	}
	env = append(env, "PATH="+os.Getenv("PATH"))
	repo := filepath.Join(dir, "repo")
	if err := makeRepo(env, repo, records); err != nil {
		return err
	}
	var builds []*build
	for i, rev := range revs {
		b := &build{rev: rev, bin: filepath.Join(dir, fmt.Sprintf("bin-%d", i)), repo: filepath.Join(dir, fmt.Sprintf("repo-%d", i))}
		if err := b.make(mod, tags); err != nil {
			return err
		}
		if err := os.RemoveAll(b.repo); err != nil {
			return err
		}
		if out, err := exec.Command("cp", "-a", repo, b.repo).CombinedOutput(); err != nil {
			return fmt.Errorf("copy the repository: %v: %s", err, out)
		}
		b.env = append(slices.Clone(env[:len(env)-1]), "PATH="+b.bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		builds = append(builds, b)
	}
	fmt.Printf("# %s; assess on a task of %d records, %d rounds\n", harness.LoadAverage(), records, runs)
	start := time.Now()
	if err := harness.Measure(rand.New(rand.NewPCG(seed, 3)), 2, runs, builds, (*build).assess); err != nil {
		return err
	}
	fmt.Printf("# %d rounds, after 2 untimed, in %.1f s; %s\n", runs, time.Since(start).Seconds(), harness.LoadAverage())
	report(os.Stdout, builds)
	return nil
}

// report prints each build's medians, each against the first build's.
func report(w io.Writer, builds []*build) {
	base := builds[0].Median()
	for _, b := range builds {
		m := b.Median()
		fmt.Fprintf(w, "%-10s cpu %6.1f ms (%.3f×)  wall %6.1f ms (%.3f×)  faults %5d (%.3f×)\n", b.name,
			ms(m.CPU), float64(m.CPU)/float64(base.CPU),
			ms(m.Wall), float64(m.Wall)/float64(base.Wall),
			m.Faults, float64(m.Faults)/float64(base.Faults))
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// makeRepo makes, once, a repository with one commit and a task of n
// records, packed as a repository that has been gc'd.
func makeRepo(env []string, repo string, n int) error {
	if _, err := os.Stat(filepath.Join(repo, ".git")); err == nil {
		return nil
	}
	if err := harness.RunGit(env, "", "init", "-q", "-b", "main", repo); err != nil {
		return err
	}
	if err := harness.RunGit(env, repo, "commit", "-q", "--allow-empty", "-m", "init"); err != nil {
		return err
	}
	if err := harness.BulkTask(context.Background(), repo, task, n); err != nil {
		return err
	}
	return harness.RunGit(env, repo, "gc", "-q")
}

// make builds git-reason from b.rev ("." is the working tree).
func (b *build) make(mod, tags string) error {
	src := mod
	b.name = "tree"
	if b.rev != "." {
		out, err := exec.Command("git", "-C", mod, "rev-parse", "--short", b.rev+"^{commit}").Output()
		if err != nil {
			return fmt.Errorf("revision %s: %v", b.rev, err)
		}
		b.name = strings.TrimSpace(string(out))
		src = b.bin + "-src"
		os.RemoveAll(src)
		if err := os.MkdirAll(src, 0o755); err != nil {
			return err
		}
		archive := exec.Command("sh", "-c", `git archive --format=tar "$1" | tar -x -C "$2"`, "sh", b.name, src)
		archive.Dir = mod
		if out, err := archive.CombinedOutput(); err != nil {
			return fmt.Errorf("git archive %s: %v: %s", b.name, err, out)
		}
	}
	cmd := exec.Command("nice", "-n", "10", "go", "build", "-tags", tags, "-o", filepath.Join(b.bin, "git-reason"), "./cmd/git-reason")
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build at %s: %v: %s", b.name, err, out)
	}
	return nil
}

// assess appends one assessment through git's dispatch, as a user types
// it, and returns the CPU, wall time and minor faults of git and what it
// waited for.
func (b *build) assess() (harness.Timing, error) {
	b.calls++
	cmd := exec.Command("git", "reason", "assess", task, "--subject", fmt.Sprintf("timed write %d", b.calls),
		"--question", "which way?", "--materiality", "trivial", "--reversibility", "reversible")
	cmd.Dir, cmd.Env = b.repo, b.env
	t, err := harness.Timed(cmd)
	if err != nil {
		return t, fmt.Errorf("assess at %s: %w", b.name, err)
	}
	return t, nil
}
