package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"git-reason/reliability/harness"
)

// warmups are untimed runs of each case before the timed rounds; the first
// is reported as the case's cold run.
const warmups = 2

// benchCase is one whole-process command and its timings.
type benchCase struct {
	name      string
	dir       string
	prog      string // run directly, found on the environment's PATH; "" runs git
	bin       string // the directory of the git-reason it runs, when not the one under test
	rev       string // the revision that git-reason was built from, with bin
	args      func(i int) []string
	records   int     // repository size of an assess case, 0 otherwise
	version   bool    // the startup case: git-reason --version
	plain     bool    // --version as built without README's build tags
	status    bool    // the status case
	statusAll bool    // the status-of-every-task case
	context   bool    // the context case
	floor     bool    // a floor case (floor.go), run from bin
	maxRSS    int64   // peak resident memory of any run, in KiB
	faults    []int64 // minor page faults of each run (warm-ups included)
	calls     int
	cold      time.Duration
	times     []time.Duration // wall time of each timed run
	cpu       []time.Duration // user+system time of each, the process and its children
}

// exec runs the case's command once and returns its wall time and the CPU
// time (user and system) of git and the processes it waited for.
func (c *benchCase) exec(env []string) (wall, cpu time.Duration, err error) {
	c.calls++
	args := c.args(c.calls)
	prog := "git"
	if c.prog != "" {
		if prog, err = lookPath(env, c.prog); err != nil {
			return 0, 0, err
		}
	}
	cmd := exec.Command(prog, args...)
	cmd.Dir, cmd.Env = c.dir, env
	t, err := harness.Timed(cmd)
	if err != nil {
		return 0, 0, fmt.Errorf("in %s: %w", c.dir, err)
	}
	c.maxRSS = max(c.maxRSS, t.MaxRSS) // of git and the git-reason it waited for
	c.faults = append(c.faults, t.Faults)
	return t.Wall, t.CPU, nil
}

// lookPath finds prog on the PATH of env, as the shell of a user with that
// environment would.
func lookPath(env []string, prog string) (string, error) {
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, prog)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is not on the benchmark's PATH", prog)
}

func (c *benchCase) median() time.Duration { return harness.Median(c.times) }

// measure runs the warm-ups, then -runs rounds in which every case runs
// once, in an order shuffled per round.
func (b *bench) measure(out io.Writer) ([]*benchCase, error) {
	env := b.withPath(b.bin)
	envOf := func(c *benchCase) []string {
		if c.bin != "" {
			return b.withPath(c.bin)
		}
		return env
	}
	for w := range warmups {
		for _, c := range b.cases {
			d, _, err := c.exec(envOf(c))
			if err != nil {
				return nil, err
			}
			if w == 0 {
				c.cold = d
			}
		}
	}
	start := time.Now()
	err := harness.Interleave(rand.New(rand.NewPCG(b.o.seed, 2)), b.o.runs, b.cases, func(c *benchCase) error {
		d, cpu, err := c.exec(envOf(c))
		if err != nil {
			return err
		}
		c.times, c.cpu = append(c.times, d), append(c.cpu, cpu)
		return nil
	})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "# %d rounds of %d cases in %.1f s; %s\n\n", b.o.runs, len(b.cases), time.Since(start).Seconds(), harness.LoadAverage())
	return b.cases, nil
}

// target is one goal of the benchmark and whether a run met it.
type target struct {
	c      *benchCase
	what   string
	value  float64
	limit  float64
	unit   string
	missed bool
}

// report prints the table and the targets, and returns the cases that
// missed theirs.
func report(out io.Writer, o *options, cases []*benchCase) []*benchCase {
	var gitBug, notes, base, status, statusAll, contextCase, version, hello, gitHello, baseline, versionBefore, plain, statusBefore *benchCase
	var floors []*benchCase
	for _, c := range cases {
		switch {
		case c.floor:
			floors = append(floors, c)
		case c.name == gitHelloCase:
			gitHello = c
		case c.name == gitBugName:
			gitBug = c
		case c.plain:
			plain = c
		case c.bin != "" && c.version:
			versionBefore = c
		case c.bin != "" && c.status:
			statusBefore = c
		case c.bin != "":
			baseline = c
		case c.prog == helloProg:
			hello = c
		case c.version:
			version = c
		case strings.HasPrefix(c.name, "git notes"):
			notes = c
		case c.records == o.sizes[0]:
			base = c
		case c.status:
			status = c
		case c.statusAll:
			statusAll = c
		case c.context:
			contextCase = c
		}
	}
	width := 0
	for _, c := range cases {
		width = max(width, len(c.name))
	}
	row := func(cells ...string) {
		fmt.Fprintf(out, "%-*s", width, cells[0])
		for _, c := range cells[1:] {
			fmt.Fprintf(out, " %10s", c)
		}
		fmt.Fprintln(out)
	}
	if base == nil {
		// -only startup: no assess case to compare with.
		base = notes
	}
	row("case", "median", "min", "max", "cold", "× notes", "× base", "cpu", "cpu×notes")
	for _, c := range cases {
		s := slices.Clone(c.times)
		slices.Sort(s)
		row(c.name, ms(c.median()), ms(s[0]), ms(s[len(s)-1]), ms(c.cold),
			fmt.Sprintf("%.2f", ratio(c, notes)), baseRatio(c, base),
			ms(harness.Median(c.cpu)), fmt.Sprintf("%.2f", cpuRatio(c, notes)))
	}
	fmt.Fprintf(out, "(wall-clock medians unless marked; × base: against %s; cold: the first, untimed run;\n"+
		" cpu: median user+system time of git and what it ran, which load from other processes does not inflate)\n", base.name)
	if baseline != nil {
		quotient(out, base, baseline, "")
	}
	if statusBefore != nil && status != nil {
		quotient(out, status, statusBefore, "")
	}
	// --version ÷ hello world, for information: issue 23 retired its
	// target.
	for _, c := range []*benchCase{version, plain, versionBefore} {
		if c != nil {
			quotient(out, c, hello, "")
		}
	}
	if gitHello != nil {
		quotient(out, gitHello, notes, " (the floor of any git subcommand written in Go)")
		if base != notes {
			difference(out, base, gitHello, " (git-reason's own start-up and work)")
		}
	}
	for _, f := range floors {
		quotient(out, f, notes, " (a floor: no write)")
		if gitBug != nil {
			quotient(out, f, gitBug, "")
		}
		if base != notes {
			difference(out, base, f, " (what the write adds to that floor)")
		}
	}

	var targets []target
	if base != notes {
		// Issue 23's budget: a whole-process write within 4× git's own.
		targets = append(targets, target{c: base, what: base.name + " ÷ git notes append",
			value: ratio(base, notes), limit: 4.0, unit: "×"})
	}
	if gitBug != nil && base != notes {
		// Issue 23's budget: half the peer's cost for the same kind of write.
		targets = append(targets, target{c: base, what: base.name + " ÷ " + gitBug.name,
			value: ratio(base, gitBug), limit: 0.5, unit: "×"},
			target{c: base, what: base.name + " ÷ " + gitBug.name + " (CPU)",
				value: float64(harness.Median(base.cpu)) / float64(harness.Median(gitBug.cpu)), limit: 0.5, unit: "×"})
	}
	for _, c := range cases {
		if c.records > 0 && c != base {
			targets = append(targets, target{c: c, what: c.name + " ÷ " + base.name,
				value: ratio(c, base), limit: 1.1, unit: "×"})
		}
	}
	if status != nil {
		targets = append(targets, target{c: status, what: status.name,
			value: float64(status.median().Microseconds()) / 1000, limit: 50, unit: " ms"})
	}
	if statusAll != nil {
		targets = append(targets, target{c: statusAll, what: statusAll.name,
			value: float64(statusAll.median().Microseconds()) / 1000, limit: 1000, unit: " ms"})
		fmt.Fprintf(out, "peak memory of %s: %.1f MiB\n", statusAll.name, float64(statusAll.maxRSS)/1024)
	}
	if contextCase != nil {
		targets = append(targets, target{c: contextCase, what: contextCase.name,
			value: float64(contextCase.median().Microseconds()) / 1000, limit: 1000, unit: " ms"})
	}
	fmt.Fprintln(out, "\ntargets (medians):")
	var missed []*benchCase
	for i := range targets {
		t := &targets[i]
		t.missed = t.value > t.limit
		verdict := "met"
		if t.missed {
			verdict = "MISSED"
			if !slices.Contains(missed, t.c) {
				missed = append(missed, t.c)
			}
		}
		fmt.Fprintf(out, "  %-6s %s = %.2f%s (target ≤ %g%s)\n", verdict, t.what, t.value, t.unit, t.limit, t.unit)
	}
	return missed
}

func ratio(c, of *benchCase) float64 {
	return float64(c.median()) / float64(of.median())
}

// cpuRatio is ratio of the CPU times' medians.
func cpuRatio(c, of *benchCase) float64 {
	return float64(harness.Median(c.cpu)) / float64(harness.Median(of.cpu))
}

// quotient writes a line of c's medians over of's, wall and CPU, and note.
func quotient(out io.Writer, c, of *benchCase, note string) {
	fmt.Fprintf(out, "%s ÷ %s: %.2f× wall, %.2f× cpu%s\n", c.name, of.name, ratio(c, of), cpuRatio(c, of), note)
}

// difference writes a line of c's medians less of's, wall and CPU, and
// note.
func difference(out io.Writer, c, of *benchCase, note string) {
	fmt.Fprintf(out, "%s − %s: %s wall, %s cpu%s\n", c.name, of.name, ms(c.median()-of.median()), ms(harness.Median(c.cpu)-harness.Median(of.cpu)), note)
}

func baseRatio(c, base *benchCase) string {
	if c.records == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", ratio(c, base))
}
