package main

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

// countStartup prints, for each start-up case (--version, as built without
// README's build tags and from -baseline too, hello world and the two
// floors of a write, whose git processes it does not count) and for
// assess in the first repository (and as built from -baseline, in its copy
// of that repository), the user-space instructions one run of git-reason
// executes, counted by valgrind's cachegrind (median of -instructions
// runs; each assess run appends one more record), and the minor page
// faults of its timed runs (median, from the kernel's rusage), each
// against hello world's. Neither depends on the machine's load, unlike
// wall and CPU time, so a change of a few per cent in what a command does
// shows on a shared machine. Asynchronous preemption is off under
// valgrind, whose signal delivery it disturbs, and so is RDTSCP, which
// valgrind does not know (the Go runtime falls back to RDTSC).
func (b *bench) countStartup(out io.Writer) error {
	if _, err := exec.LookPath("valgrind"); err != nil {
		return fmt.Errorf("-instructions needs valgrind on PATH (apt-get install valgrind)")
	}
	var cases []*benchCase
	var hello *benchCase
	for _, c := range b.cases {
		switch {
		case c.prog == helloProg:
			hello = c
			cases = append(cases, c)
		case c.version || c.plain || c.floor:
			cases = append(cases, c)
		case c.records == b.o.sizes[0] || c.rev != "" && !c.version && !c.status:
			cases = append(cases, c) // assess, from this tree and from -baseline
		}
	}
	counts := map[*benchCase]int64{}
	for _, c := range cases {
		env := b.withPath(b.bin, valgrindDebug)
		if c.bin != "" {
			env = b.withPath(c.bin, valgrindDebug)
		}
		name, cargs := c.prog, c.args(0)
		if name == "" { // git reason …: count git-reason itself, not git in front of it
			name, cargs = "git-reason", cargs[1:]
		}
		prog, err := lookPath(env, name)
		if err != nil {
			return err
		}
		var runs []int64
		var lastErr error
		// valgrind does not know every instruction the Go runtime may
		// execute (RDTSCP, on a path an idle thread sometimes takes): a
		// run it kills is run again, a few times at most.
		for tries := 0; len(runs) < b.o.instructions && tries < 3*b.o.instructions; tries++ {
			args := append([]string{"--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", prog}, cargs...)
			cmd := exec.Command("valgrind", args...)
			cmd.Dir, cmd.Env = c.dir, env
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				lastErr = fmt.Errorf("valgrind %s: %v: %s", c.name, err, lastLines(stderr.String(), 5))
				continue
			}
			n, err := instructionRefs(stderr.String())
			if err != nil {
				return fmt.Errorf("valgrind %s: %v", c.name, err)
			}
			runs = append(runs, n)
		}
		if len(runs) < b.o.instructions {
			return lastErr
		}
		slices.Sort(runs)
		counts[c] = runs[len(runs)/2]
	}
	fmt.Fprintf(out, "\nload-independent (instructions of git-reason: cachegrind, median of %d runs; page faults: median of the timed runs):\n", b.o.instructions)
	for _, c := range cases {
		fmt.Fprintf(out, "  %-40s %12d instructions (%5.2f× hello world)  %5d minor page faults (%4.2f× hello world)\n",
			c.name, counts[c], float64(counts[c])/float64(counts[hello]), medianInt(c.faults), float64(medianInt(c.faults))/float64(medianInt(hello.faults)))
	}
	return nil
}

// instructionRefs reads "==PID== I   refs:      6,559,241" from
// cachegrind's summary.
// valgrindDebug is the GODEBUG of a program run under valgrind.
const valgrindDebug = "GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off"

func instructionRefs(stderr string) (int64, error) {
	for _, line := range strings.Split(stderr, "\n") {
		_, after, ok := strings.Cut(line, "I   refs:")
		if !ok {
			continue
		}
		return strconv.ParseInt(strings.ReplaceAll(strings.TrimSpace(after), ",", ""), 10, 64)
	}
	return 0, fmt.Errorf("no instruction count in its output")
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func medianInt(v []int64) int64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
