// Command web-bench times the Reasoning page from a warm cache: the task
// list at -tasks tasks (first page, a text filter, each other filter, a
// late page) and the page of one task of -records records (target: 300
// ms each), and the list again after a record arrives.
//
// The repository holds -tasks tasks of two records each (harness.BulkTasks:
// the real writer in process, one git fast-import, refs packed) and the
// task T-big, whose -records assessments the real binary writes in a small
// repository of its own (the writer's cost there does not grow with the
// big one's tasks) and which is then fetched in. One `git reason status`
// warms the caches; then `git reason web` serves the repository, every
// page is fetched once untimed, and each is fetched -runs times over HTTP
// with the page's cookie, as a browser would. The program prints each
// page's median (min-max), the server's CPU time a page (from /proc:
// what the page costs whatever else the machine runs) and its size. With -keep DIR the repository is built
// once and reused.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"git-reason/reliability/harness"
)

// options is what the flags set.
type options struct {
	tasks, records, runs int
	keep                 string // where the repository is built and kept; "": a temporary directory
	target               time.Duration
}

func main() {
	var o options
	flag.IntVar(&o.tasks, "tasks", 20000, "tasks in the repository (two records each)")
	flag.IntVar(&o.records, "records", 1000, "records of the task whose page is timed")
	flag.IntVar(&o.runs, "runs", 15, "timed fetches of each page")
	flag.StringVar(&o.keep, "keep", "", "build the repository in `DIR` and keep it (reused when it is there)")
	flag.DurationVar(&o.target, "target", 300*time.Millisecond, "the warm median to meet")
	flag.Parse()
	harness.ExitOn("web-bench", run(o))
}

func run(o options) error {
	root, remove, err := harness.Sandbox(o.keep, "web-bench-")
	if err != nil {
		return err
	}
	defer remove()
	repo := filepath.Join(root, fmt.Sprintf("repo-%d-%d", o.tasks, o.records))
	if _, err := os.Stat(filepath.Join(repo, ".git")); err != nil {
		start := time.Now()
		if err := build(root, repo, o.tasks, o.records); err != nil {
			return err
		}
		fmt.Printf("built %d tasks and a task of %d records in %s\n", o.tasks, o.records, time.Since(start).Round(time.Second))
	}
	if _, err := command(repo, "git", "reason", "status"); err != nil { // warms the caches
		return err
	}
	fmt.Printf("%s\n", harness.LoadAverage())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, stop, err := serve(ctx, repo)
	if err != nil {
		return err
	}
	defer stop()
	c := harness.PageClient(time.Minute)
	if _, err := get(c, base.full); err != nil { // the token becomes a cookie
		return err
	}
	// A path with %d is a new one each run (the run's number): a text
	// the server has not looked for yet.
	pages := []struct{ name, path, want string }{
		{"task list, first page", "/", " tasks, page 1 of "},
		{"task list, text filter", "/?q=T-0123", "/task/T-0123"},
		{"task list, new text each", "/?q=which+way+for+1%d%%3F", "/task/T-"},
		{"task list, unsigned", "/?sig=unsigned", " tasks, page 1 of "},
		{"task list, signed", "/?sig=signed", " tasks"},
		{"task list, phase planned", "/?phase=planned", " tasks, page 1 of "},
		{"task list, open", "/?state=open", " tasks, page 1 of "},
		{"task list, closed", "/?state=closed", " tasks"},
		{"task list, actor", "/?actor=bulk", " tasks, page 1 of "},
		{"task list, quarantined", "/?quarantined=1", " tasks"},
		{"task list, page 150", "/?page=150", "page 150 of"},
		{fmt.Sprintf("task page of %d records", o.records), "/task/T-big", fmt.Sprintf("of %d, the latest", o.records)},
		{"its graph, on demand", "/task/T-big?graph=1", `<svg class="graph"`},
		{"its report, on demand", "/task/T-big?report=1", "<h1>Reasoning: T-big</h1>"},
		{"its earliest records", "/task/T-big?record=first", "records 1–"},
	}
	big, err := command(repo, "git", "reason", "log", "T-big", "--json")
	if err != nil {
		return err
	}
	if m := regexp.MustCompile(`"id": "([0-9A-Z]{26})"`).FindStringSubmatch(big); m != nil {
		pages[len(pages)-1].path = "/task/T-big?record=" + m[1]
	}
	met := true
	for _, p := range pages {
		body, err := get(c, base.root+numbered(p.path, 0)) // untimed: the server's first read
		if err != nil {
			return err
		}
		if !strings.Contains(body, p.want) {
			return fmt.Errorf("%s does not show %q", p.path, p.want)
		}
		times := make([]time.Duration, o.runs)
		cpu0 := serverCPU(base.pid)
		for i := range times {
			path := numbered(p.path, i+1)
			start := time.Now()
			if _, err := get(c, base.root+path); err != nil {
				return err
			}
			times[i] = time.Since(start)
		}
		cpu := (serverCPU(base.pid) - cpu0) / time.Duration(o.runs)
		slices.Sort(times)
		med := times[len(times)/2]
		verdict := "met"
		if med > o.target {
			verdict, met = "NOT met", false
		}
		fmt.Printf("%-28s median %6.1f ms (%.1f-%.1f), server CPU %5.1f ms a page, %d KB: target %s %s\n", p.name,
			ms(med), ms(times[0]), ms(times[len(times)-1]), ms(cpu), len(body)/1024, o.target, verdict)
	}
	// After a record arrives: the list's first fetch then reads what
	// moved (a new task each time, written by the real binary, untimed).
	after := make([]time.Duration, max(3, o.runs/3))
	var cpu time.Duration
	stamp := time.Now().Unix() // a repository kept is served again
	for i := range after {
		task := fmt.Sprintf("T-new-%d-%d", stamp, i)
		if _, err := command(repo, "git", "reason", "assess", task, "--subject", "Arrived while serving",
			"--question", "Seen?", "--materiality", "trivial", "--reversibility", "reversible"); err != nil {
			return err
		}
		cpu0 := serverCPU(base.pid)
		start := time.Now()
		body, err := get(c, base.root+"/")
		if err != nil {
			return err
		}
		after[i] = time.Since(start)
		cpu += serverCPU(base.pid) - cpu0
		if !strings.Contains(body, "/task/"+task) {
			return fmt.Errorf("the list does not show %s after it was written", task)
		}
	}
	slices.Sort(after)
	verdict := "met"
	if med := after[len(after)/2]; med > o.target {
		verdict, met = "NOT met", false
	}
	fmt.Printf("%-28s median %6.1f ms (%.1f-%.1f), server CPU %5.1f ms a page: target %s %s\n", "task list after a record",
		ms(after[len(after)/2]), ms(after[0]), ms(after[len(after)-1]), ms(cpu/time.Duration(len(after))), o.target, verdict)
	fmt.Printf("%s\n", harness.LoadAverage())
	if !met {
		return errors.New("a target was not met")
	}
	return nil
}

// serverCPU is the CPU time the children of git's process pid (the
// git-reason serving) and the processes they waited for have used, from
// /proc; 0 where there is none.
func serverCPU(pid int) time.Duration {
	kids, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	var total time.Duration
	for _, k := range strings.Fields(string(kids)) {
		stat, err := os.ReadFile("/proc/" + k + "/stat")
		if err != nil {
			continue
		}
		// Fields after the command's closing parenthesis: utime, stime,
		// cutime and cstime (the git processes it ran and waited for) are
		// the 12th to 15th, in clock ticks (100 a second on Linux).
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 15 {
			continue
		}
		for _, v := range f[11:15] {
			n, _ := strconv.Atoi(v)
			total += time.Duration(n) * 10 * time.Millisecond
		}
	}
	return total
}

// numbered is path with n for its %d, path itself without one.
func numbered(path string, n int) string {
	if strings.Contains(path, "%d") {
		return fmt.Sprintf(path, n)
	}
	return path
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// build makes the repository: bulk tasks, then T-big written in a small
// repository and fetched in.
func build(root, repo string, tasks, records int) error {
	small := repo + "-small"
	for _, d := range []string{repo, small} {
		if _, err := command("", "git", "init", "-q", d); err != nil {
			return err
		}
	}
	if err := harness.BulkTasks(context.Background(), repo, "T-", tasks); err != nil {
		return err
	}
	for i := range records {
		if _, err := command(small, "git", "reason", "assess", "T-big", "--subject", fmt.Sprintf("Question %d of the big task", i),
			"--question", "Which way?", "--materiality", "trivial", "--reversibility", "reversible"); err != nil {
			return err
		}
	}
	if _, err := command(repo, "git", "fetch", "-q", small, "+refs/reasoning/tasks/T-big:refs/reasoning/tasks/T-big"); err != nil {
		return err
	}
	return os.RemoveAll(small)
}

func command(dir string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

type address struct {
	full, root string
	pid        int // git's, whose child serves
}

// serve starts 'git reason web' in repo and returns the address it
// printed; stop ends it with an interrupt, as Ctrl-C would.
func serve(ctx context.Context, repo string) (address, func(), error) {
	cmd := exec.CommandContext(ctx, "git", "reason", "web", "--listen", "127.0.0.1:0")
	cmd.Dir = repo
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	errs, err := cmd.StderrPipe()
	if err != nil {
		return address{}, nil, err
	}
	if err := cmd.Start(); err != nil {
		return address{}, nil, err
	}
	stop := func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() }
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(errs)
		re := regexp.MustCompile(`(http://127\.0\.0\.1:\d+)/\?token=[0-9a-f]+`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[0] + "\n" + m[1]
			}
		}
		_, _ = io.Copy(io.Discard, errs)
	}()
	select {
	case s := <-found:
		full, root, _ := strings.Cut(s, "\n")
		return address{full: full, root: root, pid: cmd.Process.Pid}, stop, nil
	case <-time.After(time.Minute):
		stop()
		return address{}, nil, errors.New("git reason web printed no address within a minute")
	}
}

func get(c *http.Client, u string) (string, error) {
	res, err := c.Get(u)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return "", err
	}
	if res.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s: %s", u, strconv.Itoa(res.StatusCode), b)
	}
	return string(b), nil
}
