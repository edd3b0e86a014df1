// Command search-bench measures git reason search and log --grep at N
// tasks (two records each, made by harness.BulkTasks in a fresh
// repository): the first search, which builds the index under
// .git/reason/ from every task; a search with nothing moved (the index
// read whole, every head compared); a search after one new record (one
// task read again); and log --grep over every task. Each timed command
// runs -runs times; the program prints medians (min-max) of wall time.
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

func main() {
	runs := flag.Int("runs", 5, "timed runs of each command")
	n := flag.Int("tasks", 20000, "tasks in the repository")
	flag.Parse()
	if err := run(*runs, *n); err != nil {
		fmt.Fprintln(os.Stderr, "search-bench:", err)
		os.Exit(1)
	}
}

func run(runs, n int) error {
	root, err := os.MkdirTemp("", "search-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	bin, home := filepath.Join(root, "bin"), filepath.Join(root, "home")
	if err := harness.Install(bin); err != nil {
		return err
	}
	if err := harness.WriteHome(home, ""); err != nil {
		return err
	}
	os.Setenv("HOME", home)
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "CI", "GIT_REASON_PROFILE"} {
		os.Unsetenv(k)
	}
	repo := filepath.Join(root, "repo")
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v: %s", err, out)
	}
	start := time.Now()
	if err := harness.BulkTasks(context.Background(), repo, "T-", n); err != nil {
		return err
	}
	fmt.Printf("load average at start: %s\n%d tasks made in %s\n", harness.LoadAverage(), n, time.Since(start).Round(time.Millisecond))
	first, err := timed(repo, "search", "subject 17")
	if err != nil {
		return err
	}
	fmt.Printf("first search (builds the index): %s\n", first.Round(time.Millisecond))
	warm, err := repeat(runs, func() (time.Duration, error) { return timed(repo, "search", "which way for 1234?") })
	if err != nil {
		return err
	}
	fmt.Printf("search, nothing moved: %s\n", warm)
	i := 0
	moved, err := repeat(runs, func() (time.Duration, error) {
		i++
		if _, err := timed(repo, "assess", fmt.Sprintf("T-%06d", i), "--subject", fmt.Sprintf("moved %d", i), "--question", "q?",
			"--materiality", "trivial", "--reversibility", "reversible", "--new-evidence"); err != nil {
			return 0, err
		}
		return timed(repo, "search", fmt.Sprintf("moved %d", i))
	})
	if err != nil {
		return err
	}
	fmt.Printf("search after one task moved: %s\n", moved)
	grep, err := repeat(runs, func() (time.Duration, error) { return timed(repo, "log", "--grep", "subject 1[0-9]{3}$") })
	if err != nil {
		return err
	}
	fmt.Printf("log --grep over every task: %s\n", grep)
	return nil
}

// timed runs git reason ARGS in dir and returns its wall time.
func timed(dir string, args ...string) (time.Duration, error) {
	cmd := exec.Command("git", append([]string{"reason"}, args...)...)
	cmd.Dir = dir
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("git reason %v: %v: %s", args, err, out)
	}
	return time.Since(start), nil
}

type stats []time.Duration

func (s stats) String() string {
	slices.Sort(s)
	r := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	return fmt.Sprintf("median %s (%s-%s)", r(s[len(s)/2]), r(s[0]), r(s[len(s)-1]))
}

func repeat(runs int, f func() (time.Duration, error)) (stats, error) {
	var out stats
	for range runs {
		d, err := f()
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}
