package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"git-reason/reliability/harness"
)

// profMain replaces cmd/git-reason/main.go, through go build -overlay, in
// the build that profiles: the same program, writing a CPU profile at
// 1000 Hz (the default 100 Hz sees two samples of a 20 ms process) to
// $GIT_REASON_CPUPROFILE when it is set.
const profMain = `package main

import (
	"os"
	"runtime"
	"runtime/pprof"

	"git-reason/cmd/git-reason/internal/cli"
)

func main() {
	path := os.Getenv("GIT_REASON_CPUPROFILE")
	if path == "" {
		os.Exit(cli.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
	}
	f, err := os.Create(path)
	if err != nil {
		panic(err)
	}
	runtime.SetCPUProfileRate(1000) // StartCPUProfile then warns that it keeps this rate
	if err := pprof.StartCPUProfile(f); err != nil {
		panic(err)
	}
	code := cli.Main(os.Args, os.Stdin, os.Stdout, os.Stderr)
	pprof.StopCPUProfile()
	f.Close()
	os.Exit(code)
}
`

// mainCall is what profMain assumes cmd/git-reason/main.go does.
const mainCall = "os.Exit(cli.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))"

func writeOverlay(path string, replace map[string]string) error {
	data, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// profileCases builds the profiling binary, runs each case -profile-runs
// times under it and prints go tool pprof's top entries, flat and
// cumulative, over the merged profiles.
func (b *bench) profileCases(out io.Writer, cases []*benchCase) error {
	realMain := filepath.Join(b.o.moduleDir, "cmd", "git-reason", "main.go")
	src, err := os.ReadFile(realMain)
	if err != nil {
		return err
	}
	if !strings.Contains(string(src), mainCall) {
		return fmt.Errorf("%s no longer calls %s: update profMain in bench/write/profile.go", realMain, mainCall)
	}
	binDir := filepath.Join(b.dir, "profbin")
	gen := filepath.Join(binDir, "main.go")
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(gen, []byte(profMain), 0o644); err != nil {
		return err
	}
	if err := b.build(binDir, map[string]string{realMain: gen}); err != nil {
		return err
	}
	profDir, err := filepath.Abs(b.o.profile)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(profDir, 0o755); err != nil {
		return err
	}
	for _, c := range cases {
		if c.version {
			if err := b.initTrace(out, c); err != nil {
				return err
			}
			continue
		}
		slug := strings.Map(func(r rune) rune {
			if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
				return r
			}
			return '-'
		}, strings.ToLower(c.name))
		var files []string
		for i := range b.o.profRuns {
			f := filepath.Join(profDir, fmt.Sprintf("%s.%03d.pprof", slug, i))
			if _, _, err := c.exec(b.withPath(binDir, "GIT_REASON_CPUPROFILE="+f)); err != nil {
				return err
			}
			files = append(files, f)
		}
		fmt.Fprintf(out, "\n## profile: %s (%d processes merged; %s/%s.*.pprof)\n", c.name, len(files), profDir, slug)
		for _, sort := range [][]string{{"-nodecount=20"}, {"-cum", "-nodecount=40"}} {
			args := append([]string{"tool", "pprof", "-top"}, sort...)
			args = append(args, filepath.Join(binDir, "git-reason"))
			cmd := exec.Command("go", append(args, files...)...)
			cmd.Stdout, cmd.Stderr = out, out
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("go tool pprof: %v", err)
			}
		}
	}
	return nil
}

// initTrace runs the case -profile-runs times with GODEBUG=inittrace=1 and
// prints the packages whose initialisation takes longest (median clock
// time over the runs) and the median total.
func (b *bench) initTrace(out io.Writer, c *benchCase) error {
	env := b.withPath(b.bin, "GODEBUG=inittrace=1")
	prog, err := lookPath(env, c.prog)
	if err != nil {
		return err
	}
	clocks := map[string][]time.Duration{}
	var totals []time.Duration
	for range b.o.profRuns {
		cmd := exec.Command(prog, c.args(0)...)
		cmd.Dir, cmd.Env = c.dir, env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s: %v: %s", prog, err, stderr.Bytes())
		}
		var total time.Duration
		for _, line := range strings.Split(stderr.String(), "\n") {
			// init PKG @T ms, C ms clock, B bytes, A allocs
			f := strings.Fields(line)
			if len(f) < 7 || f[0] != "init" || f[6] != "clock," {
				continue
			}
			ms, err := strconv.ParseFloat(f[4], 64)
			if err != nil {
				continue
			}
			d := time.Duration(ms * float64(time.Millisecond))
			clocks[f[1]] = append(clocks[f[1]], d)
			total += d
		}
		totals = append(totals, total)
	}
	type pkg struct {
		name string
		med  time.Duration
	}
	var pkgs []pkg
	for name, ds := range clocks {
		pkgs = append(pkgs, pkg{name, harness.Median(ds)})
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].med > pkgs[j].med })
	fmt.Fprintf(out, "\n## package initialisation: %s (GODEBUG=inittrace=1, medians of %d runs; %d packages, median total %s)\n",
		c.name, len(totals), len(pkgs), ms(harness.Median(totals)))
	var own time.Duration
	for _, p := range pkgs {
		if strings.HasPrefix(p.name, "git-reason/") {
			own += p.med
		}
	}
	for _, p := range pkgs[:min(len(pkgs), 15)] {
		fmt.Fprintf(out, "  %8.3f ms  %s\n", float64(p.med.Nanoseconds())/1e6, p.name)
	}
	fmt.Fprintf(out, "  %8.3f ms  this module's own packages together\n", float64(own.Nanoseconds())/1e6)
	return nil
}
