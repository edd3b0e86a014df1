// Command neutrality-bench times the neutrality check against
// `git grep -i -E` over a generated repository, in the same run.
//
// It builds the engine's whole-process driver
// (cmd/git-reason/internal/neutrality/checkneutral), generates a tree of
// -files source-like files in a temporary directory, commits it, then runs
// both commands -runs times each, alternately, after warm-up runs, and
// prints the medians and their ratio. It fails when the engine does not find
// exactly the occurrences it planted, so a fast wrong engine cannot pass.
//
// By default ordinary lines hold no near miss of a name, so git grep matches
// only planted lines: the case least favourable to the engine. -nearmiss
// adds words such as "surface" that hold the short name "ace".
//
// Usage: go run ./bench/neutrality [-files 10000] [-runs 15] [-nearmiss] [-keep]
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
)

func main() {
	files := flag.Int("files", 10000, "files in the generated tree")
	runs := flag.Int("runs", 15, "timed runs of each command")
	keep := flag.Bool("keep", false, "keep the generated repository and print its path")
	nearMiss := flag.Bool("nearmiss", false, `also write words that hold the short name "ace" (surface, space, …), which git grep matches and the engine must not`)
	flag.Parse()
	if err := run(*files, *runs, *keep, *nearMiss); err != nil {
		fmt.Fprintln(os.Stderr, "neutrality-bench:", err)
		os.Exit(1)
	}
}

func run(files, runs int, keep, nearMiss bool) error {
	tmp, err := os.MkdirTemp("", "neutrality-bench-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Println("repository:", filepath.Join(tmp, "repo"))
	} else {
		defer os.RemoveAll(tmp)
	}
	bin := filepath.Join(tmp, "checkneutral")
	build := exec.Command("go", "build", "-o", bin, "git-reason/cmd/git-reason/internal/neutrality/checkneutral")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build checkneutral: %w", err)
	}
	repo := filepath.Join(tmp, "repo")
	tree, err := generate(repo, files, nearMiss)
	if err != nil {
		return fmt.Errorf("generate tree: %w", err)
	}
	termsFile := filepath.Join(tmp, "terms.txt")
	var tf strings.Builder
	var alts []string
	for _, t := range terms {
		fmt.Fprintf(&tf, "%s\t%s\n", t.name, t.declaredAs)
		alts = append(alts, regexp.QuoteMeta(t.name))
	}
	if err := os.WriteFile(termsFile, []byte(tf.String()), 0o644); err != nil {
		return err
	}
	env := gitEnv(tmp)
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "generated"},
	} {
		if out, err := command(repo, env, "git", args...)().CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v: %s", args[0], err, out)
		}
	}

	engine := command(repo, env, bin, "-C", repo, "-terms", termsFile)
	grep := command(repo, env, "git", "grep", "-i", "-E", "-e", strings.Join(alts, "|"))

	// Correctness first: the engine must report exactly what was planted.
	out, _ := engine().Output()
	if got := bytes.Count(out, []byte("\n")); got != tree.planted {
		return fmt.Errorf("engine reported %d violations, %d were planted", got, tree.planted)
	}
	gout, _ := grep().Output()
	fmt.Printf("tree: %d files, %.1f MB, %d planted occurrences in %d spellings\n",
		files, float64(tree.bytes)/1e6, tree.planted, len(spellings))
	fmt.Printf("engine found %d; git grep matched %d lines (it cannot see joined spellings)\n",
		tree.planted, bytes.Count(gout, []byte("\n")))

	for range 3 { // warm the page cache and git's index
		engine().Run()
		grep().Run()
	}
	var te, tg []time.Duration
	for range runs {
		te = append(te, timed(engine))
		tg = append(tg, timed(grep))
	}
	me, mg := median(te), median(tg)
	fmt.Printf("git grep -i -E: median %v of %d runs (min %v, max %v)\n", mg.Round(time.Microsecond), runs, slices.Min(tg), slices.Max(tg))
	fmt.Printf("engine:         median %v of %d runs (min %v, max %v)\n", me.Round(time.Microsecond), runs, slices.Min(te), slices.Max(te))
	fmt.Printf("ratio engine / git grep: %.2f (target <= 1.5)\n", float64(me)/float64(mg))
	return nil
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

func timed(mk func() *exec.Cmd) time.Duration {
	c := mk()
	start := time.Now()
	c.Run() // both exit non-zero when they find something
	return time.Since(start)
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func gitEnv(home string) []string {
	env := []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH")}
	for _, v := range []string{"GIT_AUTHOR", "GIT_COMMITTER"} {
		env = append(env, v+"_NAME=Bench", v+"_EMAIL=bench@example.invalid")
	}
	return env
}
