// Command complete-bench times whole-process "git reason __complete KIND",
// through git's own dispatch as a shell's completion runs it, in a
// repository of -tasks tasks with -records records each.
//
// Completion reads ref names and records/ tree entry names only, never a
// record, so the repository holds task heads whose records/ trees name
// -records entries (<clock>-<kind>-<id>.json, the id a ULID as the tree
// reader requires) of one empty blob: what
// completion reads is there at full size, what it must not read is not.
// The program checks the answers' sizes, then prints each kind's median,
// min and max over -runs runs, its ratio to a plain git process listing the
// same task refs, and the target (100 ms).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"git-reason/reliability/harness"
)

// options is what the flags set: the repository's size, and how many
// timed runs of each kind.
type options struct{ tasks, records, runs int }

func main() {
	var o options
	flag.IntVar(&o.tasks, "tasks", 300, "tasks in the repository")
	flag.IntVar(&o.records, "records", 40, "records in each task")
	flag.IntVar(&o.runs, "runs", 15, "timed runs of each kind")
	flag.Parse()
	harness.ExitOn("complete-bench", run(o))
}

func run(o options) error {
	if o.tasks < 1 || o.records < 1 || o.runs < 1 {
		return fmt.Errorf("-tasks, -records and -runs must be at least 1")
	}
	dir, bin, remove, err := harness.InstalledWorkDir("", "complete-bench-")
	if err != nil {
		return err
	}
	defer remove()
	repo := filepath.Join(dir, "repo")
	if _, err := git(dir, "", "init", "-q", repo); err != nil {
		return err
	}
	start := time.Now()
	if err := generate(repo, o.tasks, o.records); err != nil {
		return err
	}
	// Packed, as a fetched or long-lived repository is.
	if _, err := git(repo, "", "repack", "-a", "-d", "-q"); err != nil {
		return err
	}
	if _, err := git(repo, "", "pack-refs", "--all"); err != nil {
		return err
	}
	fmt.Printf("# generated %d tasks of %d records in %s\n", o.tasks, o.records, time.Since(start).Round(time.Millisecond))

	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	// The baseline is what a completion that only knew git would run to
	// list the tasks: one git process reading the same refs; the second
	// line is git reason's start-up alone. The machine
	// is shared and noisy; the ratio to it, measured in the same run, is
	// the figure to compare.
	cases := []struct {
		args []string
		want int // lines of output
	}{
		{[]string{"for-each-ref", "--format=%(refname:lstrip=3)", "refs/reasoning/tasks/"}, o.tasks},
		// What every verb pays before it does anything: git's dispatch and
		// git-reason's start-up.
		{[]string{"reason", "version"}, 1},
		{[]string{"reason", "__complete", "tasks"}, o.tasks},
		{[]string{"reason", "__complete", "ids", "assessment", "task-0007"}, (o.records + 1) / 2},
		{[]string{"reason", "__complete", "ids"}, o.tasks * o.records},
	}
	var base time.Duration
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("# %s/%s, %d CPUs, %s; load average %s\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version(),
		strings.Join(strings.Fields(string(load))[:3], " "))
	for _, c := range cases {
		argv := c.args
		var times []time.Duration
		for i := 0; i <= o.runs; i++ { // the first run warms the caches
			cmd := exec.Command("git", argv...)
			cmd.Dir, cmd.Env = repo, env
			var out bytes.Buffer
			cmd.Stdout = &out
			t0 := time.Now()
			err := cmd.Run()
			d := time.Since(t0)
			if err != nil {
				return fmt.Errorf("git %s: %v", strings.Join(argv, " "), err)
			}
			if n := strings.Count(out.String(), "\n"); n != c.want {
				return fmt.Errorf("git %s printed %d lines, want %d", strings.Join(argv, " "), n, c.want)
			}
			if i > 0 {
				times = append(times, d)
			}
		}
		slices.Sort(times)
		med := times[len(times)/2]
		verdict := "met"
		if med >= 100*time.Millisecond {
			verdict = "missed"
		}
		if base == 0 {
			base = med
		}
		fmt.Printf("git %s (%d lines): median %s (%.1fx the baseline), min %s, max %s over %d runs; target 100ms: %s\n",
			strings.Join(argv, " "), c.want, med.Round(time.Millisecond/10), float64(med)/float64(base), times[0].Round(time.Millisecond/10),
			times[len(times)-1].Round(time.Millisecond/10), o.runs, verdict)
	}
	return nil
}

// generate gives each task a head commit whose records/ tree names
// records entries, alternately assessments and plans.
func generate(repo string, tasks, records int) error {
	blob, err := git(repo, "", "hash-object", "-w", "--stdin")
	if err != nil {
		return err
	}
	var refs strings.Builder
	for t := 0; t < tasks; t++ {
		var entries strings.Builder
		for r := 0; r < records; r++ {
			kind := "assessment"
			if r%2 == 1 {
				kind = "plan"
			}
			fmt.Fprintf(&entries, "100644 blob %s\t%010d-%s-01BENCH%05d%014d.json\n", blob, r+1, kind, t, r)
		}
		recs, err := git(repo, entries.String(), "mktree")
		if err != nil {
			return err
		}
		root, err := git(repo, "040000 tree "+recs+"\trecords\n", "mktree")
		if err != nil {
			return err
		}
		commit, err := git(repo, "", "commit-tree", "-m", "bench", root)
		if err != nil {
			return err
		}
		fmt.Fprintf(&refs, "create refs/reasoning/tasks/task-%04d %s\n", t, commit)
	}
	_, err = git(repo, refs.String(), "update-ref", "--stdin")
	return err
}

// git runs git in dir with stdin, as the benchmark's author and
// committer, and returns its trimmed stdout.
func git(dir, stdin string, args ...string) (string, error) {
	return harness.GitOutput(append(os.Environ(), "GIT_AUTHOR_NAME=Bench", "GIT_AUTHOR_EMAIL=bench@example.com",
		"GIT_COMMITTER_NAME=Bench", "GIT_COMMITTER_EMAIL=bench@example.com"), dir, stdin, args...)
}
