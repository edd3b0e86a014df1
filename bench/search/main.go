// Command search-bench measures git reason search and log --grep at N
// tasks (two records each, made by harness.BulkTasks in a fresh
// repository): the first search, which builds the index under
// .git/reason/ from every task; a search with nothing moved (the index
// read whole, every head compared); a search after one new record (one
// task read again); and log --grep over every task. Each timed command
// runs -runs times; the program prints the median run by CPU time (user
// and system, its git processes included) with its wall time, and the
// range of CPU times; `git reason version` is the floor of any command.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"git-reason/reliability/harness"
)

// options is what the flags set.
type options struct {
	runs, tasks int
	dir         string // kept and reused; "": a temporary one
}

func main() {
	var o options
	flag.IntVar(&o.runs, "runs", 5, "timed runs of each command")
	flag.IntVar(&o.tasks, "tasks", 20000, "tasks in the repository")
	flag.StringVar(&o.dir, "dir", "", "where the repository is made, kept and reused (default: a temporary directory, removed)")
	flag.Parse()
	harness.ExitOn("search-bench", run(o))
}

func run(o options) error {
	root, remove, err := harness.Sandbox(o.dir, "search-bench-")
	if err != nil {
		return err
	}
	defer remove()
	repo := filepath.Join(root, fmt.Sprintf("repo-%d", o.tasks))
	if _, err := os.Stat(repo); err != nil {
		if err := harness.RunGit(nil, "", "init", "-q", repo); err != nil {
			return err
		}
		start := time.Now()
		if err := harness.BulkTasks(context.Background(), repo, "T-", o.tasks); err != nil {
			return err
		}
		fmt.Printf("%d tasks made in %s\n", o.tasks, time.Since(start).Round(time.Millisecond))
	}
	fmt.Printf("load average at start: %s\n", harness.LoadAverage())
	if err := os.RemoveAll(filepath.Join(repo, ".git", "reason")); err != nil {
		return err
	}
	first, err := timed(repo, "search", "subject 17")
	if err != nil {
		return err
	}
	fmt.Printf("first search (builds the index): %s\n", first)
	start, err := repeat(o.runs, func() (cost, error) { return timed(repo, "version") })
	if err != nil {
		return err
	}
	fmt.Printf("git reason version (the program's start, for reference): %s\n", start)
	warm, err := repeat(o.runs, func() (cost, error) { return timed(repo, "search", "which way for 1234?") })
	if err != nil {
		return err
	}
	fmt.Printf("search, nothing moved: %s\n", warm)
	i := 0
	moved, err := repeat(o.runs, func() (cost, error) {
		i++
		if _, err := timed(repo, "assess", fmt.Sprintf("T-%06d", i), "--subject", fmt.Sprintf("moved %d", i), "--question", "q?",
			"--materiality", "trivial", "--reversibility", "reversible", "--new-evidence"); err != nil {
			return cost{}, err
		}
		return timed(repo, "search", fmt.Sprintf("moved %d", i))
	})
	if err != nil {
		return err
	}
	fmt.Printf("search after one task moved: %s\n", moved)
	grep, err := repeat(o.runs, func() (cost, error) { return timed(repo, "log", "--grep", "subject 1[0-9]{3}$") })
	if err != nil {
		return err
	}
	fmt.Printf("log --grep over every task: %s\n", grep)
	grep, err = repeat(o.runs, func() (cost, error) { return timed(repo, "log", "-i", "--grep", "SUBJECT 1[0-9]{3}$") })
	if err != nil {
		return err
	}
	fmt.Printf("log -i --grep (no literal to look for: every text asked): %s\n", grep)
	return nil
}

// cost is one run's wall time and CPU time (user and system, its git
// processes included): on a shared machine the CPU time says more about
// the program than the wall time does.
type cost struct{ wall, cpu time.Duration }

func (c cost) String() string {
	r := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	return fmt.Sprintf("wall %s cpu %s", r(c.wall), r(c.cpu))
}

// timed runs git reason ARGS in dir and returns what it cost.
func timed(dir string, args ...string) (cost, error) {
	cmd := exec.Command("git", append([]string{"reason"}, args...)...)
	cmd.Dir = dir
	t, err := harness.Timed(cmd)
	if err != nil {
		return cost{}, err
	}
	return cost{t.Wall, t.CPU}, nil
}

type stats []cost

// String is the median run by CPU time, and the range of CPU times.
func (s stats) String() string {
	slices.SortFunc(s, func(a, b cost) int { return int(a.cpu - b.cpu) })
	return fmt.Sprintf("median %s (cpu %s-%s)", s[len(s)/2], s[0].cpu.Round(time.Millisecond), s[len(s)-1].cpu.Round(time.Millisecond))
}

func repeat(runs int, f func() (cost, error)) (stats, error) {
	var out stats
	for range runs {
		c, err := f()
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}
