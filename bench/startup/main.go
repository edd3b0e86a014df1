// Command startup-bench measures what each group of git-reason's
// dependencies adds to starting a Go program, and what build choices do to
// git-reason's own start-up.
//
// It builds, with the module's own go.mod and go.sum (so with the versions
// git-reason links), one program per group of packages: a hello world that
// blank-imports the group, so that the group's package initialisation and
// the runtime's set-up of its code run as they do in git-reason. Beside
// them it builds hello world alone, every group together, and
// ./cmd/git-reason as `go install` builds it, plus the build variants
// given with -variant (for example "tags=urfave_cli_no_docs" or
// "cgo=0"). Each program runs -runs times (git-reason with --version)
// after two untimed runs, in an order shuffled per round so that noise
// hits every program alike, and the program prints each one's median wall
// time, CPU time (user+system) and minor page faults, and what each adds
// to hello world's.
//
// The figures of a group are what linking it costs at start-up when
// nothing else is linked; groups share the standard library, so their
// additions do not sum to git-reason's.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"git-reason/reliability/harness"
)

// groups are the dependencies git-reason links, grouped by what needs
// them; each is imported for its initialisation only.
var groups = []struct {
	name string
	pkgs []string
	gone bool // no longer linked: timed for the record, left out of "all the groups"
}{
	{name: "urfave/cli v2 (command line; links blackfriday and md2man)", pkgs: []string{"github.com/urfave/cli/v2"}},
	{name: "gojq (--jq)", pkgs: []string{"github.com/itchyny/gojq"}},
	{name: "MCP go-sdk mcp (git reason mcp; links jsonschema-go, net/http)", pkgs: []string{"github.com/modelcontextprotocol/go-sdk/mcp"}},
	{name: "net/http (web, serve)", pkgs: []string{"net/http"}},
	{name: "go-git storage/filesystem (links go-git config, gcfg, encoding/gob)", pkgs: []string{"github.com/go-git/go-git/v5/storage/filesystem"}},
	{name: "go-git plumbing/object (links ProtonMail/go-crypto openpgp, circl; no longer linked)", pkgs: []string{"github.com/go-git/go-git/v5/plumbing/object"}, gone: true},
	{name: "go.yaml.in/yaml/v4", pkgs: []string{"go.yaml.in/yaml/v4"}},
	{name: "encoding/gob", pkgs: []string{"encoding/gob"}},
}

type program struct {
	name string
	path string
	args []string
	harness.Timings
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "startup-bench:", err)
		os.Exit(1)
	}
}

type variants []string

func (v *variants) String() string     { return strings.Join(*v, " ") }
func (v *variants) Set(s string) error { *v = append(*v, s); return nil }

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("startup-bench", flag.ContinueOnError)
	runs := fs.Int("runs", 31, "timed runs of each program")
	seed := fs.Uint64("seed", 1, "seed of the per-round shuffle")
	only := fs.String("only", "", "time only the groups whose name matches this regular expression (hello world and git-reason always run)")
	noGroups := fs.Bool("no-groups", false, "time only hello world and the git-reason builds")
	instructions := fs.Int("instructions", 0, "also count each program's user-space instructions under valgrind's cachegrind, median of `N` runs (load-independent)")
	var extra variants
	fs.Var(&extra, "group", "also time a group of packages given as `NAME=PKG,PKG` (repeatable; a package git-reason does not require is fetched)")
	var vs variants
	fs.Var(&vs, "variant", "also build git-reason with `tags=T1,T2`, cgo=0 or ldflags=FLAGS (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, v := range vs {
		if key, _, _ := strings.Cut(v, "="); key != "tags" && key != "cgo" && key != "ldflags" {
			return fmt.Errorf("-variant %q: want tags=…, cgo=… or ldflags=…", v)
		}
	}
	mod, err := harness.ModuleRoot()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "startup-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	var progs []*program
	add := func(name, path string, args ...string) {
		progs = append(progs, &program{name: name, path: path, args: args})
	}
	// A module of its own with git-reason's requirements.
	gomod, err := os.ReadFile(filepath.Join(mod, "go.mod"))
	if err != nil {
		return err
	}
	gomod = regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(gomod, []byte("module startupvariant"))
	gosum, _ := os.ReadFile(filepath.Join(mod, "go.sum"))
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), gomod, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(src, "go.sum"), gosum, 0o644); err != nil {
		return err
	}
	build := func(name string, imports []string) (string, error) {
		d := filepath.Join(src, fmt.Sprintf("v%d", len(progs)))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", err
		}
		var b strings.Builder
		b.WriteString("package main\n\nimport (\n\t\"fmt\"\n")
		for _, p := range imports {
			fmt.Fprintf(&b, "\t_ %q\n", p)
		}
		b.WriteString(")\n\nfunc main() { fmt.Println(\"hello, world\") }\n")
		if err := os.WriteFile(filepath.Join(d, "main.go"), []byte(b.String()), 0o644); err != nil {
			return "", err
		}
		bin := filepath.Join(dir, "bin", filepath.Base(d))
		cmd := exec.Command("go", "build", "-mod=mod", "-o", bin, ".")
		cmd.Dir = d
		if o, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build %s: %v\n%s", name, err, o)
		}
		return bin, nil
	}
	bin, err := build("hello world", nil)
	if err != nil {
		return err
	}
	add("hello world", bin)
	if !*noGroups {
		var all []string
		var re *regexp.Regexp
		if *only != "" {
			if re, err = regexp.Compile(*only); err != nil {
				return fmt.Errorf("-only: %v", err)
			}
		}
		for _, g := range groups {
			if !g.gone {
				all = append(all, g.pkgs...)
			}
			if re != nil && !re.MatchString(g.name) {
				continue
			}
			bin, err := build(g.name, g.pkgs)
			if err != nil {
				return err
			}
			add("+ "+g.name, bin)
		}
		for _, g := range extra {
			name, pkgs, ok := strings.Cut(g, "=")
			if !ok || pkgs == "" {
				return fmt.Errorf("-group %q: want NAME=PKG,PKG", g)
			}
			bin, err := build(name, strings.Split(pkgs, ","))
			if err != nil {
				return err
			}
			add("+ "+name, bin)
		}
		if re == nil {
			bin, err := build("all groups", all)
			if err != nil {
				return err
			}
			add("+ all the groups git-reason links", bin)
		}
	}
	buildReason := func(name string, env []string, flags ...string) error {
		bin := filepath.Join(dir, "bin", fmt.Sprintf("git-reason-%d", len(progs)))
		cmd := exec.Command("go", append(append([]string{"build", "-o", bin}, flags...), "./cmd/git-reason")...)
		cmd.Dir, cmd.Env = mod, append(os.Environ(), env...)
		if o, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", name, err, o)
		}
		add(name, bin, "--version")
		return nil
	}
	if err := buildReason("git-reason --version (go build)", nil); err != nil {
		return err
	}
	for _, v := range vs {
		key, val, _ := strings.Cut(v, "=")
		var err error
		switch key {
		case "tags":
			err = buildReason("git-reason --version, -tags "+val, nil, "-tags", val)
		case "cgo":
			err = buildReason("git-reason --version, CGO_ENABLED="+val, []string{"CGO_ENABLED=" + val})
		case "ldflags":
			err = buildReason("git-reason --version, -ldflags "+val, nil, "-ldflags", val)
		default:
			err = fmt.Errorf("-variant %q: want tags=…, cgo=… or ldflags=…", v)
		}
		if err != nil {
			return err
		}
	}
	for _, p := range progs {
		if st, err := os.Stat(p.path); err == nil {
			p.name += fmt.Sprintf(" [%.1f MB]", float64(st.Size())/1e6)
		}
	}

	fmt.Fprintf(out, "# %d programs, %d runs each; %s\n", len(progs), *runs, harness.LoadAverage())
	start := time.Now()
	if err := harness.Measure(rand.New(rand.NewPCG(*seed, 3)), 2, *runs, progs, (*program).exec); err != nil {
		return err
	}
	fmt.Fprintf(out, "# 2 untimed rounds and the timed ones in %.1f s; %s\n\n", time.Since(start).Seconds(), harness.LoadAverage())
	hello := progs[0]
	h := hello.Median()
	width := 0
	for _, p := range progs {
		width = max(width, len(p.name))
	}
	fmt.Fprintf(out, "%-*s %9s %9s %9s %9s %9s %7s %7s %7s\n", width, "program (median of runs)", "wall", "+wall", "cpu", "+cpu", "faults", "+flt", "×wall", "×cpu")
	for _, p := range progs {
		m := p.Median()
		fmt.Fprintf(out, "%-*s %9s %9s %9s %9s %9d %7d %7.2f %7.2f\n", width, p.name,
			ms(m.Wall), ms(m.Wall-h.Wall), ms(m.CPU), ms(m.CPU-h.CPU), m.Faults, m.Faults-h.Faults,
			float64(m.Wall)/float64(h.Wall), float64(m.CPU)/float64(h.CPU))
	}
	fmt.Fprintln(out, "(wall and cpu: milliseconds; cpu is user+system time; faults: minor page faults; + columns: added to hello world's; × columns: ratio to hello world's)")
	if *instructions > 0 {
		fmt.Fprintf(out, "\nuser-space instructions (cachegrind, median of %d runs):\n", *instructions)
		var hi int64
		for i, p := range progs {
			n, err := p.instructions(*instructions)
			if err != nil {
				return err
			}
			if i == 0 {
				hi = n
			}
			fmt.Fprintf(out, "%-*s %12d %+12d %7.2f×\n", width, p.name, n, n-hi, float64(n)/float64(hi))
		}
	}
	return nil
}

// instructions is the median of n counts of the instructions one run
// executes in user space, under cachegrind; asynchronous preemption is
// off, since valgrind's signal delivery disturbs it.
func (p *program) instructions(n int) (int64, error) {
	if _, err := exec.LookPath("valgrind"); err != nil {
		return 0, fmt.Errorf("-instructions needs valgrind on PATH")
	}
	var counts []int64
	for tries := 0; len(counts) < n && tries < 3*n; tries++ {
		cmd := exec.Command("valgrind", append([]string{"--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", p.path}, p.args...)...)
		cmd.Env = append(os.Environ(), "GODEBUG=asyncpreemptoff=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if cmd.Run() != nil {
			continue // valgrind now and then kills a Go program on an instruction it does not know
		}
		for _, line := range strings.Split(stderr.String(), "\n") {
			if _, after, ok := strings.Cut(line, "I   refs:"); ok {
				v, err := strconv.ParseInt(strings.ReplaceAll(strings.TrimSpace(after), ",", ""), 10, 64)
				if err != nil {
					return 0, fmt.Errorf("%s: cachegrind: %v", p.name, err)
				}
				counts = append(counts, v)
			}
		}
	}
	if len(counts) < n {
		return 0, fmt.Errorf("%s: cachegrind counted %d runs of %d", p.name, len(counts), n)
	}
	return harness.Median(counts), nil
}

// exec runs the program once, with its output discarded.
func (p *program) exec() (harness.Timing, error) {
	t, err := harness.Timed(exec.Command(p.path, p.args...))
	if err != nil {
		return t, fmt.Errorf("%s: %w", p.name, err)
	}
	return t, nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d.Microseconds())/1000) }
