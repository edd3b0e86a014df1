// Command summary reads `go test -json` on stdin and prints each
// package's elapsed time, slowest first, the slowest tests and every
// failure. bench/tests/run.sh runs it over its logs.
//
// With -scripts DIR it counts, in each testscript of DIR, the commands
// it types: git reason through git's dispatch (two processes before
// git-reason's own), git-reason run directly, and other git commands,
// the scripts with the most first.
//
// With -time it instead runs the command given after the flags, passing
// stdin, stdout and stderr through, and then prints to stderr the
// command's wall time and the CPU time (user and system) of it and every
// process it waited for: on a shared machine the CPU time is the figure
// that other users' load changes least.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// module is cut from package names to keep the lines short.
const module = "git-reason/"

type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
}

type row struct {
	name    string
	action  string
	elapsed float64
}

func main() {
	top := flag.Int("top", 15, "how many of the slowest tests to list")
	timed := flag.Bool("time", false, "run the command after the flags and print its wall and CPU time")
	label := flag.String("label", "", "with -time: the name printed before the figures (default: the command)")
	logFile := flag.String("log", "", "with -time: write the command's stdout and stderr to this file")
	execs := flag.String("execs", "", "count the programs started in this strace -f -e trace=execve output instead")
	scripts := flag.String("scripts", "", "count the git and git reason commands each testscript of this directory types instead")
	flag.Parse()
	if *scripts != "" {
		os.Exit(countScripts(*scripts, *top))
	}
	if *timed {
		os.Exit(runTimed(*label, *logFile, flag.Args()))
	}
	if *execs != "" {
		os.Exit(countExecs(*execs, *top))
	}
	summarise(*top)
}

// runTimed runs args[0] with args[1:] and returns its exit status. The CPU
// time is the rusage wait4 reports, which counts the process and every
// descendant it waited for (go test waits for its test binaries, and they
// for the git and git-reason processes they start).
func runTimed(label, logFile string, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: summary -time [-label NAME] COMMAND [ARG...]")
		return 2
	}
	if label == "" {
		label = strings.Join(args, " ")
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if logFile != "" {
		f, err := os.Create(logFile)
		if err != nil {
			fmt.Fprintf(os.Stderr, "summary: %v\n", err)
			return 1
		}
		defer f.Close()
		cmd.Stdout, cmd.Stderr = f, f
	}
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		fmt.Fprintf(os.Stderr, "summary: %v\n", err)
		return 1
	}
	user, sys := cmd.ProcessState.UserTime(), cmd.ProcessState.SystemTime()
	cpu := user + sys
	fmt.Fprintf(os.Stderr, "%s: %.1f s wall, %.1f s CPU (%.1f user + %.1f sys), %.2f cores busy\n",
		label, wall.Seconds(), cpu.Seconds(), user.Seconds(), sys.Seconds(), cpu.Seconds()/wall.Seconds())
	return cmd.ProcessState.ExitCode()
}

func summarise(top int) {
	var pkgs, tests []row
	// summed is each package's summed test time: its top-level tests'
	// elapsed times, with TestScript counted as its scripts (a parent of
	// parallel subtests shows 0). Beside the package's wall time it says
	// how busy the package kept the machine; scripts is the scripts' part.
	summed, scripts := map[string]float64{}, map[string]float64{}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	for in.Scan() {
		var e event
		if json.Unmarshal(in.Bytes(), &e) != nil {
			continue
		}
		switch e.Action {
		case "pass", "fail", "skip":
		default:
			continue
		}
		if e.Test == "" {
			pkgs = append(pkgs, row{strings.TrimPrefix(e.Package, module), e.Action, e.Elapsed})
			continue
		}
		tests = append(tests, row{strings.TrimPrefix(e.Package, module) + " " + e.Test, e.Action, e.Elapsed})
		pkg := strings.TrimPrefix(e.Package, module)
		if parent, _, sub := strings.Cut(e.Test, "/"); parent == "TestScript" && sub {
			scripts[pkg] += e.Elapsed
			summed[pkg] += e.Elapsed
		} else if !sub && e.Test != "TestScript" {
			summed[pkg] += e.Elapsed
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "summary:", err)
		os.Exit(1)
	}
	slowest := func(rs []row) {
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].elapsed > rs[j].elapsed })
	}
	slowest(pkgs)
	slowest(tests)
	fmt.Println("  packages (test binary time, s; the summed time of its tests, of which scripts):")
	for _, p := range pkgs {
		if p.elapsed >= 0.05 || p.action == "fail" {
			extra := ""
			if scripts[p.name] > 0 {
				extra = fmt.Sprintf(", scripts %.1f", scripts[p.name])
			}
			fmt.Printf("    %7.1f  %-4s  %s (tests %.1f%s)\n", p.elapsed, p.action, p.name, summed[p.name], extra)
		}
	}
	fmt.Println("  slowest tests and subtests (s; a parent of parallel subtests may show 0):")
	for i, t := range tests {
		if i >= top {
			break
		}
		fmt.Printf("    %7.1f  %-4s  %s\n", t.elapsed, t.action, t.name)
	}
	for _, t := range tests {
		if t.action == "fail" {
			fmt.Printf("  FAIL %s (%.1f s)\n", t.name, t.elapsed)
		}
	}
}

// execLine is one successful execve in strace's output: the program and its
// arguments, each a quoted string.
var execLine = regexp.MustCompile(`execve\("([^"]*)", \[(.*?)\]`)

var quoted = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)

// countExecs prints how many processes of each kind the trace holds, the
// most first: the program's name, and for git and git-reason their
// subcommand (git's first argument that is no option, after any -c
// NAME=VALUE), so that "git gc" and "git-reason assess" count apart.
func countExecs(path string, top int) int {
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "summary:", err)
		return 1
	}
	defer f.Close()
	counts := map[string]int{}
	total := 0
	in := bufio.NewScanner(f)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	for in.Scan() {
		line := in.Text()
		m := execLine.FindStringSubmatch(line)
		if m == nil || strings.Contains(line, "= -1 ") {
			continue // not an execve, or one that failed (a PATH lookup)
		}
		var args []string
		for _, q := range quoted.FindAllStringSubmatch(m[2], -1) {
			args = append(args, q[1])
		}
		key := filepath.Base(m[1])
		if key == "git" || key == "git-reason" {
			for i := 1; i < len(args); i++ {
				if args[i] == "-c" || args[i] == "-C" || args[i] == "--git-dir" || args[i] == "--work-tree" {
					i++
					continue
				}
				if !strings.HasPrefix(args[i], "-") {
					key += " " + args[i]
					break
				}
			}
		}
		counts[key]++
		total++
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "summary:", err)
		return 1
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if counts[keys[i]] != counts[keys[j]] {
			return counts[keys[i]] > counts[keys[j]]
		}
		return keys[i] < keys[j]
	})
	fmt.Printf("  %d processes started; the most started kinds:\n", total)
	for i, k := range keys {
		if i >= top {
			break
		}
		fmt.Printf("    %6d  %s\n", counts[k], k)
	}
	return 0
}

// scriptLine is a command line of a testscript that starts a program:
// exec, exitcode N or transcript, after any conditions and a "!".
var scriptLine = regexp.MustCompile(`^\s*(?:\[[^\]]*\]\s*)*(?:!\s+)?(?:exec|exitcode\s+\d+|transcript)\s`)

// countScripts prints, for the testscripts of dir, how many times each
// types git reason, git-reason and other git commands on its command
// lines (inside sh -c too), the most commands first; the whole list
// with top < 0.
func countScripts(dir string, top int) int {
	files, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil || len(files) == 0 {
		fmt.Fprintf(os.Stderr, "summary: no testscript in %s\n", dir)
		return 1
	}
	dispatched := regexp.MustCompile(`\bgit\s+(?:-[Cc]\s+\S+\s+)*reason\b`)
	direct := regexp.MustCompile(`(?:^|[\s'"(;|&])git-reason\s`)
	gits := regexp.MustCompile(`(?:^|[\s'"(;|&])git\s`)
	type counts struct {
		name                string
		viaGit, direct, git int
	}
	var all []counts
	var sum counts
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintf(os.Stderr, "summary: %v\n", err)
			return 1
		}
		c := counts{name: strings.TrimSuffix(filepath.Base(f), ".txtar")}
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "-- ") {
				break // the archive's files
			}
			if !scriptLine.MatchString(line) {
				continue
			}
			r := len(dispatched.FindAllString(line, -1))
			c.viaGit += r
			c.direct += len(direct.FindAllString(line, -1))
			c.git += len(gits.FindAllString(line, -1)) - r
		}
		sum.viaGit, sum.direct, sum.git = sum.viaGit+c.viaGit, sum.direct+c.direct, sum.git+c.git
		all = append(all, c)
	}
	sort.SliceStable(all, func(i, j int) bool {
		return all[i].viaGit+all[i].direct+all[i].git > all[j].viaGit+all[j].direct+all[j].git
	})
	fmt.Printf("  %d scripts type git reason %d times through git's dispatch, git-reason %d times directly, other git commands %d times\n",
		len(all), sum.viaGit, sum.direct, sum.git)
	fmt.Println("  git reason  git-reason  other git  script")
	for i, c := range all {
		if top >= 0 && i == top {
			break
		}
		fmt.Printf("  %10d  %10d  %9d  %s\n", c.viaGit, c.direct, c.git, c.name)
	}
	return 0
}
