// Command neutrality-bench times the neutrality check against
// `git grep -i -E` over a generated repository, in the same run.
//
// It builds git-reason, generates a tree of
// -files source-like files in a temporary directory, commits it, then runs
// `git reason check neutrality` and `git grep` -runs times each, alternately, after warm-up runs, and
// prints the medians and their ratio. It fails when the engine does not find
// exactly the occurrences it planted, so a fast wrong engine cannot pass.
//
// By default ordinary lines hold no near miss of a name, so git grep matches
// only planted lines: the case least favourable to the engine. -nearmiss
// adds words such as "surface" that hold the short name "ace".
//
// The names are the generated configuration's extra terms; the shipped
// declarations are looked for too, as in any repository, and the tree holds
// none of them.
//
// -staged times the index path instead: the command reading blobs through
// git cat-file against git grep --cached.
//
// Usage: go run ./bench/neutrality [-files 10000] [-runs 15] [-nearmiss] [-staged] [-keep]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"git-reason/reliability/harness"
)

func main() {
	var o options
	flag.IntVar(&o.files, "files", 10000, "files in the generated tree")
	flag.IntVar(&o.runs, "runs", 15, "timed runs of each command")
	flag.BoolVar(&o.keep, "keep", false, "keep the generated repository and print its path")
	flag.BoolVar(&o.nearMiss, "nearmiss", false, `also write words that hold the short name "ace" (surface, space, …), which git grep matches and the engine must not`)
	flag.BoolVar(&o.staged, "staged", false, "read the index: the engine with -staged against git grep --cached")
	flag.Parse()
	harness.ExitOn("neutrality-bench", run(o))
}

// options are the command's flags.
type options struct {
	files, runs            int
	keep, nearMiss, staged bool
}

func run(o options) error {
	tmp, err := os.MkdirTemp("", "neutrality-bench-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Println("repository:", filepath.Join(tmp, "repo"))
	} else {
		defer os.RemoveAll(tmp)
	}
	engine, grep, planted, err := prepare(tmp, o)
	if err != nil {
		return err
	}
	// Correctness first: the engine must report exactly what was planted.
	out, _ := engine().Output()
	if got := bytes.Count(out, []byte("\n")); got != planted {
		return fmt.Errorf("engine reported %d violations, %d were planted", got, planted)
	}
	gout, _ := grep().Output()
	fmt.Printf("engine found all %d; git grep matched %d lines (it cannot see joined spellings)\n",
		planted, bytes.Count(gout, []byte("\n")))

	for range 3 { // warm the page cache and git's index
		engine().Run()
		grep().Run()
	}
	var te, tg, ce, cg []time.Duration
	for range o.runs { // alternate, so that load changes hit both alike
		wall, cpu := timed(engine)
		te, ce = append(te, wall), append(ce, cpu)
		wall, cpu = timed(grep)
		tg, cg = append(tg, wall), append(cg, cpu)
	}
	grepLabel, engineLabel := "git grep -i -E", "git reason check neutrality"
	if o.staged {
		grepLabel, engineLabel = grepLabel+" --cached", engineLabel+" --staged"
	}
	mg, me := report(grepLabel, tg, cg), report(engineLabel, te, ce)
	fmt.Printf("ratio engine / git grep (median wall time): %.2f (target <= 1.5)\n", float64(me)/float64(mg))
	fmt.Printf("ratio engine / git grep (median CPU time):  %.2f\n", float64(harness.Median(ce))/float64(harness.Median(cg)))
	return nil
}

// prepare builds git-reason, generates and commits the tree, and returns
// the two commands to time and how many occurrences were planted.
func prepare(tmp string, o options) (engine, grep func() *exec.Cmd, planted int, err error) {
	binDir := filepath.Join(tmp, "bin")
	if err := harness.Install(binDir); err != nil {
		return nil, nil, 0, err
	}
	repo := filepath.Join(tmp, "repo")
	tree, err := generate(repo, o.files, o.nearMiss)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("generate tree: %w", err)
	}
	fmt.Printf("tree: %d files, %.1f MB, %d planted occurrences in %d spellings\n",
		o.files, float64(tree.bytes)/1e6, tree.planted, len(spellings))
	var alts []string
	for _, t := range terms {
		alts = append(alts, regexp.QuoteMeta(t.name))
	}
	env := gitEnv(tmp, binDir)
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "generated"},
	} {
		if out, err := command(repo, env, "git", args...)().CombinedOutput(); err != nil {
			return nil, nil, 0, fmt.Errorf("git %s: %v: %s", args[0], err, out)
		}
	}
	engineArgs := []string{"reason", "check", "neutrality"}
	grepArgs := []string{"grep", "-i", "-E", "-e", strings.Join(alts, "|")}
	if o.staged {
		engineArgs = append(engineArgs, "--staged")
		grepArgs = append(grepArgs, "--cached")
	}
	return command(repo, env, "git", engineArgs...), command(repo, env, "git", grepArgs...), tree.planted, nil
}

// report prints a command's timings and returns the median wall time.
func report(label string, wall, cpu []time.Duration) time.Duration {
	med := harness.Median(wall)
	fmt.Printf("%-24s median %v of %d runs (min %v, max %v); CPU median %v\n", label+":",
		med.Round(time.Microsecond), len(wall), slices.Min(wall).Round(time.Microsecond),
		slices.Max(wall).Round(time.Microsecond), harness.Median(cpu).Round(time.Microsecond))
	return med
}

// command returns a function making a fresh *exec.Cmd (an exec.Cmd runs
// once) whose output is discarded.
func command(dir string, env []string, name string, args ...string) func() *exec.Cmd {
	return func() *exec.Cmd {
		c := exec.Command(name, args...)
		c.Dir = dir
		c.Env = env
		return c
	}
}

// timed runs a command and returns its wall time and its CPU time (user
// and system, its own and its waited-for children's, such as the engine's
// git processes).
func timed(mk func() *exec.Cmd) (wall, cpu time.Duration) {
	c := mk()
	start := time.Now()
	c.Run() // both exit non-zero when they find something
	wall = time.Since(start)
	if c.ProcessState != nil {
		cpu = c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	}
	return wall, cpu
}

// gitEnv is a clean environment whose PATH finds git-reason in binDir
// first, so that `git reason` runs the binary just built.
func gitEnv(home, binDir string) []string {
	env := []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1",
		"PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH")}
	for _, v := range []string{"GIT_AUTHOR", "GIT_COMMITTER"} {
		env = append(env, v+"_NAME=Bench", v+"_EMAIL=bench@example.invalid")
	}
	return env
}
