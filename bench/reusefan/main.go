// Command reusefan measures what reading tasks costs when fetched tasks
// reuse other tasks' conclusions in numbers, builds (-builds) on copies
// of one repository: wall and CPU time (git reason and its git processes) and
// what each run read (gitstore.Cost: histories replayed, records
// decoded), medians of -rounds rounds, the builds alternating.
//
// Three shapes, each written with the real writer in process
// (harness.BulkTask, harness.BulkReusing) as a stranger's clone would
// push them:
//
//   - fan-in: H, a task of -records records and a standing conclusion,
//     and -tasks tasks R-i whose one assessment reuses it. Timed after H
//     moved by one record (an assessment, untimed), as after a pull:
//     status of every task (--json, the table), status R-000000, verify.
//   - fan-out: -tasks tasks U-i of two records, and one task F whose
//     -tasks assessments each reuse a conclusion of another U-i. Cold
//     (.git/reason removed before each run): status F, verify F.
//   - chain: -tasks tasks C-i, C-i's assessment reusing a conclusion of
//     C-(i-1). Cold: status of the last, status of every task (--json),
//     verify.
package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	// the processes run, and what they wrote
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"git-reason/gitstore"
	"git-reason/record"
	"git-reason/reliability/harness"
)

type options struct {
	builds         []string // directories holding each build's git-reason
	tasks, records int
	rounds         int
	dir            string
}

func main() {
	var o options
	builds := flag.String("builds", "", "comma-separated directories of the builds' git-reason, the last writing the fan-in's conclusion")
	flag.IntVar(&o.tasks, "tasks", 200, "reusing tasks (fan-in), reused tasks (fan-out), chain length")
	flag.IntVar(&o.records, "records", 400, "records of the reused task H (fan-in)")
	flag.IntVar(&o.rounds, "rounds", 5, "timed rounds")
	flag.StringVar(&o.dir, "dir", "", "work directory (default: a temporary one, removed)")
	flag.Parse()
	o.builds = strings.Split(*builds, ",")
	harness.ExitOn("reusefan", run(o))
}

// step is one timed command of a shape: move, when set, runs untimed
// before it; cold removes what git reason keeps first.
type step struct {
	name string
	args []string
	move bool
	cold bool
}

type sample struct {
	wall, cpu time.Duration
	c         gitstore.Cost
}

func run(o options) error {
	if len(o.builds) < 2 {
		return fmt.Errorf("-builds names at least two builds' directories")
	}
	dir, remove, err := harness.WorkDir(o.dir, "reusefan-")
	if err != nil {
		return err
	}
	defer remove()
	env, err := harness.BenchEnv(filepath.Join(dir, "home"))
	if err != nil {
		return err
	}
	fmt.Printf("# %d tasks, H of %d records, %d rounds; load %s\n", o.tasks, o.records, o.rounds, load())
	shapes := []struct {
		name  string
		make  func(repo string) error
		steps []step
	}{
		{"fan-in", func(repo string) error { return fanIn(env, repo, o) }, []step{
			{name: "status --json", args: []string{"status", "--json"}, move: true},
			{name: "status", args: []string{"status"}, move: true},
			{name: "status R-000000", args: []string{"status", "R-000000"}, move: true},
			{name: "verify", args: []string{"verify"}, move: true},
		}},
		{"fan-out", func(repo string) error { return fanOut(repo, o.tasks) }, []step{
			{name: "status F", args: []string{"status", "F"}, cold: true},
			{name: "verify F", args: []string{"verify", "F"}, cold: true},
		}},
		{"chain", func(repo string) error { return chain(repo, o.tasks) }, []step{
			{name: "status C-last", args: []string{"status", fmt.Sprintf("C-%06d", o.tasks-1)}, cold: true},
			{name: "status --json", args: []string{"status", "--json"}, cold: true},
			{name: "verify", args: []string{"verify"}, cold: true},
		}},
	}
	fmt.Printf("%-8s %-16s %-6s %10s %10s %10s %10s\n", "shape", "command", "build", "wall", "cpu", "histories", "decodes")
	for _, sh := range shapes {
		repo := filepath.Join(dir, sh.name)
		if err := harness.RunGit(env, dir, "init", "-q", repo); err != nil {
			return err
		}
		if err := sh.make(repo); err != nil {
			return fmt.Errorf("%s: %w", sh.name, err)
		}
		builds := o.builds
		copies := make([]string, len(builds))
		for i := range builds {
			copies[i] = fmt.Sprintf("%s-%d", repo, i)
			if out, err := exec.Command("cp", "-a", repo, copies[i]).CombinedOutput(); err != nil {
				return fmt.Errorf("cp: %v: %s", err, out)
			}
			if _, err := reason(env, builds[i], copies[i], "status", "--json"); err != nil { // warm, untimed
				return err
			}
		}
		for _, st := range sh.steps {
			got := make([][]sample, len(builds))
			one := func(r, i int) error {
				if st.move {
					if _, err := reason(env, builds[i], copies[i], "assess", "H", "--subject", fmt.Sprintf("move %d", r),
						"--question", "q?", "--materiality", "trivial", "--reversibility", "reversible"); err != nil {
						return err
					}
				}
				if st.cold {
					os.RemoveAll(filepath.Join(copies[i], ".git", "reason"))
				}
				s, err := reason(env, builds[i], copies[i], st.args...)
				got[i] = append(got[i], s)
				return err
			}
			for r := range o.rounds {
				for i := range builds {
					if err := one(r, i); err != nil {
						return err
					}
				}
			}
			for i := range builds {
				m := medians(got[i])
				fmt.Printf("%-8s %-16s %-6d %8.0fms %8.0fms %10d %10d\n", sh.name, st.name, i, ms(m.wall), ms(m.cpu), m.c.Histories, m.c.Decodes)
			}
		}
	}
	fmt.Printf("# load %s\n", load())
	return nil
}

// reason runs the git-reason of bin in repo and returns what it cost;
// exit 3 (findings) is no error.
func reason(env []string, bin, repo string, args ...string) (sample, error) {
	costFile := filepath.Join(repo, "..", "cost-"+filepath.Base(repo))
	os.Remove(costFile)
	cmd := exec.Command(filepath.Join(bin, "git-reason"), args...)
	cmd.Dir = repo
	cmd.Env = append(append([]string(nil), env...), "PATH="+bin+":"+os.Getenv("PATH"), gitstore.CostEnv+"="+costFile)
	t, err := harness.Timed(cmd)
	if err != nil {
		if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 3 {
			return sample{}, err
		}
		t.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	s := sample{wall: t.Wall, cpu: t.CPU}
	if data, err := os.ReadFile(costFile); err == nil {
		lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
		json.Unmarshal(lines[len(lines)-1], &s.c)
	}
	return s, nil
}

func medians(v []sample) sample {
	var wall, cpu []time.Duration
	var hist, dec []int64
	for _, s := range v {
		wall, cpu, hist, dec = append(wall, s.wall), append(cpu, s.cpu), append(hist, s.c.Histories), append(dec, s.c.Decodes)
	}
	return sample{wall: harness.Median(wall), cpu: harness.Median(cpu), c: gitstore.Cost{Histories: harness.Median(hist), Decodes: harness.Median(dec)}}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func load() string {
	data, _ := os.ReadFile("/proc/loadavg")
	return strings.Join(strings.Fields(string(data))[:min(3, len(strings.Fields(string(data))))], " ")
}

// fanIn writes H (o.records records, then a conclusion by the after
// build) and o.tasks tasks reusing H's conclusion.
func fanIn(env []string, repo string, o options) error {
	ctx := context.Background()
	if err := harness.BulkTask(ctx, repo, "H", o.records); err != nil {
		return err
	}
	for _, args := range [][]string{
		{"assess", "H", "--subject", "Cache size", "--question", "How large?", "--materiality", "critical", "--reversibility", "irreversible", "--evidence", "note::load test"},
		{"plan", "H"},
		{"conclude", "H", "--decision", "512 MiB", "--local-review", "1=yes", "--local-review", "2=yes", "--local-review", "3=yes", "--local-review", "4=yes", "--local-review", "5=yes"},
	} {
		if _, err := reason(env, o.builds[len(o.builds)-1], repo, args...); err != nil {
			return err
		}
	}
	last := o.builds[len(o.builds)-1]
	cmd := exec.Command(filepath.Join(last, "git-reason"), "status", "H", "--json")
	cmd.Dir, cmd.Env = repo, append(append([]string(nil), env...), "PATH="+last+":"+os.Getenv("PATH"))
	out, err := cmd.Output()
	if err != nil {
		return err
	}
	var st struct {
		Standing []record.Standing `json:"standing"`
	}
	if err := json.Unmarshal(out, &st); err != nil || len(st.Standing) != 1 {
		return fmt.Errorf("status H --json: no standing conclusion (%v): %s", err, out)
	}
	h := st.Standing[0]
	h.Materiality, h.Reversibility = "critical", "irreversible"
	return harness.BulkReusing(ctx, repo, names("R-%06d", o.tasks), func(string) []record.Standing { return []record.Standing{h} })
}

// fanOut writes n tasks U-i and F, whose n assessments each reuse one.
func fanOut(repo string, n int) error {
	ctx := context.Background()
	if err := harness.BulkTasks(ctx, repo, "U-", n); err != nil {
		return err
	}
	us := names("U-%06d", n)
	return harness.BulkReusing(ctx, repo, []string{"F"}, func(string) []record.Standing {
		out := make([]record.Standing, n)
		for i, u := range us {
			out[i] = claimed(u, i)
		}
		return out
	})
}

// chain writes n tasks C-i, each of one assessment reusing a conclusion
// of the one before (C-0 a conclusion of C-n, which is none: a cycle's
// worth of names).
func chain(repo string, n int) error {
	cs := names("C-%06d", n)
	i := 0
	return harness.BulkReusing(context.Background(), repo, cs, func(string) []record.Standing {
		defer func() { i++ }()
		return []record.Standing{claimed(cs[(i+n-1)%n], i)}
	})
}

// claimed is a standing conclusion of task u a stranger's record claims
// to reuse: an id of its own (no record of u has it), subject i.
func claimed(u string, i int) record.Standing {
	return record.Standing{Task: u, Conclusion: fmt.Sprintf("01J%023d", i), SubjectKey: fmt.Sprintf("claimed %d", i),
		Actor: "Stranger <s@example.invalid>", Materiality: "critical", Reversibility: "irreversible"}
}

func names(format string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(format, i)
	}
	return out
}
