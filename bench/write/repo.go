package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"git-reason/gitstore"
	"git-reason/record"
	"git-reason/reliability/harness"
)

// genVersion changes whenever generated repositories would differ; a kept
// repository of another version is generated again.
const genVersion = 1

// benchTask is the generated task every timed write appends to.
const benchTask = "T-00000"

// bench holds the binary, the environment and the cases of one run.
type bench struct {
	o     *options
	dir   string
	bin   string // the directory holding the git-reason under test
	env   []string
	cases []*benchCase
	// baseBin and baseRev are the -baseline build, once built.
	baseBin, baseRev string
}

func newBench(o *options, dir string) (*bench, error) {
	b := &bench{o: o, dir: dir, bin: filepath.Join(dir, "bin")}
	// No background gc or maintenance (harness.GitConfig): neither side of
	// a comparison may pay for housekeeping the other does not.
	var err error
	if b.env, err = harness.BenchEnv(filepath.Join(dir, "home")); err != nil {
		return nil, err
	}
	return b, nil
}

// withPath is the environment with binDir first on PATH.
func (b *bench) withPath(binDir string, extra ...string) []string {
	env := append([]string(nil), b.env...)
	env = append(env, "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return append(env, extra...)
}

func (b *bench) describe() string {
	gitVersion, _ := exec.Command("git", "version").Output()
	return fmt.Sprintf("%s, %s/%s, %d CPUs, %s; %d runs per case, %d records per task; %s",
		strings.TrimSpace(string(gitVersion)), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(),
		runtime.Version(), b.o.runs, b.o.perTask, harness.LoadAverage())
}

// prepare builds the binary and makes (or reuses) every repository, then
// defines the cases.
func (b *bench) prepare(out io.Writer) error {
	start := time.Now()
	if err := b.build(b.bin, nil); err != nil {
		return err
	}
	if err := b.buildTags(b.bin+"-plain", nil, ""); err != nil {
		return err
	}
	fmt.Fprintf(out, "# built git-reason with -tags %s, and without, in %s\n", installTags, since(start))
	start = time.Now()
	if err := b.buildHello(); err != nil {
		return err
	}
	fmt.Fprintf(out, "# built a hello-world Go program in %s\n", since(start))
	base := ""
	for _, n := range b.o.sizes {
		dir := filepath.Join(b.dir, fmt.Sprintf("repo-%d", n))
		if err := b.repo(out, dir, n, b.o.perTask); err != nil {
			return err
		}
		if base == "" {
			base = dir
			b.cases = append(b.cases,
				&benchCase{name: "git notes --ref=x append", dir: dir, args: notesArgs},
				&benchCase{name: "git reason schema assessment (startup floor)", dir: dir, args: schemaArgs},
				// The two git processes a write starts: discovery and
				// its settings.
				&benchCase{name: "git rev-parse (discovery)", dir: dir, args: revParseArgs},
				&benchCase{name: "git config --list (settings)", dir: dir, args: configArgs},
				// Both run directly, without git in front: the startup of
				// one Go program against the least a Go program costs.
				&benchCase{name: "git-reason --version", dir: dir, prog: "git-reason", args: versionArgs, version: true},
				// The same tree built as a plain go build (or go install
				// without README's tags) builds it.
				&benchCase{name: "git-reason --version (go build without -tags)", dir: dir, prog: "git-reason", args: versionArgs,
					bin: b.bin + "-plain", plain: true},
				&benchCase{name: "hello-world Go program", dir: dir, prog: helloProg, args: noArgs},
				// The same hello world as a git subcommand (git-hello on
				// PATH): git starting, reading its configuration and
				// executing a Go program, the least any git subcommand
				// written in Go costs, before it does anything.
				&benchCase{name: gitHelloCase, dir: dir, args: helloArgs})
		}
		if b.o.only == "startup" {
			break
		}
		b.cases = append(b.cases, &benchCase{name: fmt.Sprintf("git reason assess (%d records)", n),
			dir: dir, args: assessArgs, records: n})
		if dir == base {
			// What the write costs before it writes, in the same rounds.
			floors, err := b.floorCases(dir)
			if err != nil {
				return err
			}
			b.cases = append(b.cases, floors...)
		}
		if b.o.gitBug != "" && dir == base {
			c, err := b.gitBugCase(dir)
			if err != nil {
				return err
			}
			b.cases = append(b.cases, c)
		}
	}
	if b.o.baseline != "" {
		c, err := b.baselineCase(out, b.o.sizes[0])
		if err != nil {
			return err
		}
		if b.o.only != "startup" {
			b.cases = append(b.cases, c)
		}
		// --version as built from the same revision, run directly too:
		// start-up before and after a change, from one run.
		b.cases = append(b.cases, &benchCase{name: "git-reason --version at " + c.rev, dir: base,
			prog: "git-reason", args: versionArgs, bin: c.bin, version: true, rev: c.rev})
	}
	if b.o.only == "startup" {
		return nil
	}
	// status of every task, in the largest repository (target: 1,000 tasks,
	// 50k records, within 1 s; report its peak memory).
	largest := slices.Max(b.o.sizes)
	b.cases = append(b.cases, &benchCase{name: fmt.Sprintf("git reason status (all tasks, %d records)", largest),
		dir: filepath.Join(b.dir, fmt.Sprintf("repo-%d", largest)), args: statusAllArgs, statusAll: true})
	// context of a branch whose ten commits name ten tasks by trailer, in
	// the same repository: linking reads every task (attempts, validations
	// and evidence may name the branch's commits too), so it is timed
	// against the same 1 s as status of every task.
	ctxRepo := filepath.Join(b.dir, fmt.Sprintf("repo-%d", largest))
	if err := b.contextBranch(ctxRepo, (largest+b.o.perTask-1)/b.o.perTask); err != nil {
		return err
	}
	b.cases = append(b.cases, &benchCase{name: fmt.Sprintf("git reason context (10 commits, %d records)", largest),
		dir: ctxRepo, args: contextArgs, context: true})
	dir := filepath.Join(b.dir, fmt.Sprintf("status-%d", b.o.status))
	if err := b.repo(out, dir, b.o.status, b.o.status); err != nil {
		return err
	}
	b.cases = append(b.cases, &benchCase{name: fmt.Sprintf("git reason status (task of %d records)", b.o.status),
		dir: dir, args: statusArgs, status: true})
	if b.baseBin != "" {
		// The same status as built from -baseline, in its own copy.
		repo := dir + "-baseline"
		if err := copyRepo(dir, repo); err != nil {
			return err
		}
		b.cases = append(b.cases, &benchCase{name: fmt.Sprintf("git reason status (task of %d records) at %s", b.o.status, b.baseRev),
			dir: repo, args: statusArgs, status: true, bin: b.baseBin, rev: b.baseRev})
	}
	return nil
}

// gitBugCase puts the -git-bug binary on the benchmark's PATH as git-bug,
// makes its identity and one bug in dir, and returns the case that adds a
// comment to that bug through git's dispatch, as a user types it.
func (b *bench) gitBugCase(dir string) (*benchCase, error) {
	prog, err := filepath.Abs(b.o.gitBug)
	if err != nil {
		return nil, err
	}
	link := filepath.Join(b.bin, "git-bug")
	if err := os.Remove(link); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := os.Symlink(prog, link); err != nil {
		return nil, err
	}
	if err := b.git(dir, "bug", "user", "create", "--non-interactive", "-n", "Bench", "-e", "bench@example.com"); err != nil {
		return nil, err
	}
	out, err := b.gitOut(dir, "bug", "add", "--non-interactive", "-t", "bench", "-m", "a bug to comment on")
	if err != nil {
		return nil, err
	}
	id, _, _ := strings.Cut(out, " ") // "<id> created"
	return &benchCase{name: gitBugName, dir: dir, args: func(i int) []string {
		return []string{"bug", "comment", "add", "--non-interactive", id, "-m", fmt.Sprintf("comment %d", i)}
	}}, nil
}

// gitBugName is the name of the git-bug case.
const gitBugName = "git bug comment add (git-bug)"

// copyRepo replaces dst with a copy of the repository src, without its
// task cache: neither build's cache is the other's.
func copyRepo(src, dst string) error {
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	cp := exec.Command("cp", "-a", src, dst)
	if out, err := cp.CombinedOutput(); err != nil {
		return fmt.Errorf("copy the repository: %v\n%s", err, out)
	}
	return os.RemoveAll(filepath.Join(dst, ".git", "reason"))
}

func notesArgs(i int) []string {
	return []string{"notes", "--ref=x", "append", "-m", fmt.Sprintf("note %d", i), "HEAD"}
}

func versionArgs(int) []string { return []string{"--version"} }

func noArgs(int) []string { return nil }

func helloArgs(int) []string { return []string{"hello"} }

// gitHelloCase is the name of the case that runs hello world through git.
const gitHelloCase = "git hello (hello world as git subcommand)"

// helloProg is the hello-world program the benchmark builds next to
// git-reason, with the same toolchain: the floor of a Go process's cost.
const helloProg = "hello-world"

const helloMain = `package main

import "fmt"

func main() { fmt.Println("hello, world") }
`

// buildHello builds helloProg into the binary directory, from a module of
// its own.
func (b *bench) buildHello() error {
	src := filepath.Join(b.dir, "hello")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return err
	}
	for name, data := range map[string]string{"go.mod": "module hello\n\ngo 1.22\n", "main.go": helloMain} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(data), 0o644); err != nil {
			return err
		}
	}
	cmd := exec.Command("go", "build", "-o", filepath.Join(b.bin, helloProg), ".")
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build hello-world: %v\n%s", err, out)
	}
	// git hello runs it as a git subcommand.
	os.Remove(filepath.Join(b.bin, "git-hello")) // from an earlier run with the same -dir
	return os.Link(filepath.Join(b.bin, helloProg), filepath.Join(b.bin, "git-hello"))
}

func schemaArgs(int) []string { return []string{"reason", "schema", "assessment"} }

func configArgs(int) []string {
	return []string{"config", "--list", "-z", "--show-scope", "--show-origin", "--includes"}
}

func revParseArgs(int) []string {
	return []string{"rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir", "--git-path", "objects", "--show-object-format", "--show-toplevel"}
}

func assessArgs(i int) []string {
	return []string{"reason", "assess", benchTask, "--subject", fmt.Sprintf("timed write %d", i),
		"--question", "which way?", "--materiality", "trivial", "--reversibility", "reversible"}
}

func statusArgs(int) []string { return []string{"reason", "status", benchTask} }

func statusAllArgs(int) []string { return []string{"reason", "status"} }

// contextBranch is the branch whose reasoning the context case reads.
const contextBranch = "bench-context"

func contextArgs(int) []string { return []string{"reason", "context", "main.." + contextBranch} }

// contextBranch makes, once, a branch of ten empty commits on main, each
// naming one of the repository's tasks in a Reason-Task trailer.
func (b *bench) contextBranch(dir string, tasks int) error {
	if _, err := b.gitOut(dir, "rev-parse", "--verify", "--quiet", "refs/heads/"+contextBranch); err == nil {
		return nil
	}
	parent, err := b.gitOut(dir, "rev-parse", "main")
	if err != nil {
		return err
	}
	tree, err := b.gitOut(dir, "rev-parse", "main^{tree}")
	if err != nil {
		return err
	}
	for i := range 10 {
		msg := fmt.Sprintf("change %d\n\nReason-Task: T-%05d\n", i, i*tasks/10)
		if parent, err = b.gitOut(dir, "commit-tree", tree, "-p", parent, "-m", msg); err != nil {
			return err
		}
	}
	return b.git(dir, "update-ref", "refs/heads/"+contextBranch, parent)
}

// installTags are the build tags of README's install command (the
// harness builds the tests' binary with them, which is how .ci/run's
// tests get them: it sets no GOFLAGS): urfave_cli_no_docs
// leaves out urfave/cli v2's Markdown man-page generator (blackfriday,
// md2man), which git reason man does not use; netgo takes net's pure-Go
// resolver, so the program links no C library and starts without the
// dynamic loader. A plain go build gets neither; the start-up cases time
// that build too. TestInstallTagsAsREADME holds README and .ci/run to it.
const installTags = harness.InstallTags

// build compiles ./cmd/git-reason into binDir, as README's install command
// does, with a go build overlay when one is given.
func (b *bench) build(binDir string, overlay map[string]string) error {
	return b.buildTags(binDir, overlay, installTags)
}

// buildTags is build with the given build tags ("" for none).
func (b *bench) buildTags(binDir string, overlay map[string]string, tags string) error {
	// -tags even when empty: it overrides any tags GOFLAGS gives (as
	// .ci/run's does).
	args := []string{"build", "-o", filepath.Join(binDir, "git-reason"), "-tags", tags}
	if overlay != nil {
		path := filepath.Join(binDir, "overlay.json")
		if err := writeOverlay(path, overlay); err != nil {
			return err
		}
		args = append(args, "-overlay", path)
	}
	cmd := exec.Command("go", append(args, "./cmd/git-reason")...)
	cmd.Dir = b.o.moduleDir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	return nil
}

// repo makes a packed repository in dir whose tasks hold records in all,
// perTask each, named T-00000, T-00001, …; a repository kept from an earlier
// run is reused, with the timed task and refs/notes/x put back as they were.
func (b *bench) repo(out io.Writer, dir string, records, perTask int) error {
	marker := filepath.Join(dir, ".git", "write-bench")
	want := fmt.Sprintf("version %d records %d per-task %d", genVersion, records, perTask)
	if data, err := os.ReadFile(marker); err == nil {
		got, head, _ := strings.Cut(strings.TrimSpace(string(data)), "\nhead ")
		if got == want {
			fmt.Fprintf(out, "# reusing %s\n", dir)
			b.git(dir, "update-ref", "-d", "refs/notes/x")
			return b.git(dir, "update-ref", gitstore.TaskRef(benchTask), head)
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	start := time.Now()
	if err := b.git("", "init", "-q", dir); err != nil {
		return err
	}
	if err := b.git(dir, "commit", "-q", "--allow-empty", "-m", "base"); err != nil {
		return err
	}
	if err := generate(dir, records, perTask); err != nil {
		return err
	}
	gen := time.Since(start)
	start = time.Now()
	if err := b.git(dir, "gc", "--quiet"); err != nil {
		return err
	}
	fmt.Fprintf(out, "# generated %d records in %s in %.1f s, git gc in %.1f s\n",
		records, dir, gen.Seconds(), time.Since(start).Seconds())
	head, err := b.gitOut(dir, "rev-parse", gitstore.TaskRef(benchTask))
	if err != nil {
		return err
	}
	return os.WriteFile(marker, []byte(want+"\nhead "+head+"\n"), 0o644)
}

func (b *bench) git(dir string, args ...string) error {
	_, err := b.gitOut(dir, args...)
	return err
}

func (b *bench) gitOut(dir string, args ...string) (string, error) {
	return harness.GitOutput(b.withPath(b.bin), dir, "", args...)
}

// noIndex is an index with no standing conclusion: generated tasks hold
// only assessments, so the real index would find none either.
type noIndex struct{}

func (noIndex) Standing(context.Context, string, string) ([]record.Standing, error) { return nil, nil }

// generate appends records assessments to the repository in dir through the
// real writer and store, perTask per task, with four goroutines per CPU
// (each append waits for its ref lock's fsync), each with a store of its
// own.
func generate(dir string, records, perTask int) error {
	repo, err := gitstore.Discover(dir)
	if err != nil {
		return err
	}
	tasks := (records + perTask - 1) / perTask
	workers := min(4*runtime.NumCPU(), tasks)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			store := gitstore.NewStore(repo)
			wr := &record.Writer{Store: store, Index: noIndex{},
				Actor: "Bench <bench@example.com>", Origin: "write-bench"}
			for t := w; t < tasks && errs[w] == nil; t += workers {
				n := min(perTask, records-t*perTask)
				errs[w] = fill(wr, fmt.Sprintf("T-%05d", t), n)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func fill(w *record.Writer, task string, n int) error {
	ctx := context.Background()
	for i := range n {
		body := fmt.Sprintf(`{"subject":"%s: question %d","question":"which way should %s go, and why?",`+
			`"materiality":"%s","reversibility":"reversible"}`, task, i, task, []string{"trivial", "minor"}[i%2])
		if _, err := w.Append(ctx, task, record.KindAssessment, []byte(body)); err != nil {
			return fmt.Errorf("generate %s record %d: %w", task, i, err)
		}
	}
	return nil
}

// baselineCase builds git-reason from revision -baseline of the module
// into its own directory and copies the repository of n records for it:
// the same assess, before a change, timed in the same rounds.
func (b *bench) baselineCase(out io.Writer, n int) (*benchCase, error) {
	start := time.Now()
	rev, err := b.gitOut(b.o.moduleDir, "rev-parse", "--short", b.o.baseline+"^{commit}")
	if err != nil {
		return nil, err
	}
	src := filepath.Join(b.dir, "baseline-src")
	if err := os.RemoveAll(src); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(src, 0o755); err != nil {
		return nil, err
	}
	// The module may lie below the repository's top: archive that prefix.
	prefix, err := b.gitOut(b.o.moduleDir, "rev-parse", "--show-prefix")
	if err != nil {
		return nil, err
	}
	archive := exec.Command("sh", "-c", `git archive --format=tar "$1" | tar -x -C "$2"`, "sh", rev+":"+prefix, src)
	archive.Dir = b.o.moduleDir
	if out, err := archive.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("git archive %s: %v\n%s", rev, err, out)
	}
	bin := filepath.Join(b.dir, "bin-baseline")
	// Built with the build under test's tags by default (-baseline-tags),
	// so that a before and after measures the change, not the tags: a
	// plain go build starts slower (the --version case without -tags).
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "git-reason"), "-tags", b.o.baseTags, b.o.basePkg)
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build at %s: %v\n%s", rev, err, out)
	}
	repo := filepath.Join(b.dir, fmt.Sprintf("baseline-repo-%d", n))
	if err := copyRepo(filepath.Join(b.dir, fmt.Sprintf("repo-%d", n)), repo); err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "# built git-reason from %s at %s with -tags %q and copied %s in %s\n", b.o.basePkg, rev, b.o.baseTags, filepath.Base(repo), since(start))
	at := rev
	if b.o.basePkg != "./cmd/git-reason" {
		at += " from " + b.o.basePkg
	}
	b.baseBin, b.baseRev = bin, at
	return &benchCase{name: fmt.Sprintf("git reason assess (%d records) at %s", n, at),
		dir: repo, args: assessArgs, bin: bin, rev: at}, nil
}
