package harness

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// What the benchmark programs under bench/ share.

// ExitOn ends a benchmark program whose run failed: it prints "name: err"
// on stderr and exits 1. A nil err returns.
func ExitOn(name string, err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// WorkDir is a benchmark's work directory: keep, created when missing,
// when it is given, else a new temporary directory named after prefix.
// remove deletes the temporary one, and nothing that keep names.
func WorkDir(keep, prefix string) (dir string, remove func(), err error) {
	if keep != "" {
		return keep, func() {}, os.MkdirAll(keep, 0o755)
	}
	dir, err = os.MkdirTemp("", prefix)
	if err != nil {
		return "", nil, err
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// benchIdentity is the author of what the benchmark programs write,
// after GitConfig's: the benchmarks' own, as their repositories have
// always had it.
const benchIdentity = "[user]\n\tname = Bench\n\temail = bench@example.com\n"

// BenchEnv makes home (WriteHome, with the benchmarks' identity) and
// returns the environment a benchmark that compares binaries runs each
// of them in: the caller's, without its git, HOME, PATH, XDG_CONFIG_HOME
// and CI settings, with HOME=home and no system git configuration. The
// caller adds PATH, with the binary it times first.
func BenchEnv(home string) ([]string, error) {
	if err := WriteHome(home, benchIdentity); err != nil {
		return nil, err
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "PATH=") &&
			!strings.HasPrefix(kv, "XDG_CONFIG_HOME=") && !strings.HasPrefix(kv, "CI=") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+home, "GIT_CONFIG_NOSYSTEM=1"), nil
}

// RunGit runs git with args in dir, in env when it is not nil (else the
// caller's); the error names the command and holds git's stderr.
func RunGit(env []string, dir string, args ...string) error {
	_, err := GitOutput(env, dir, "", args...)
	return err
}

// GitOutput is RunGit with stdin as git's standard input, and returns
// git's stdout without its leading and trailing white space.
func GitOutput(env []string, dir, stdin string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return strings.TrimSpace(string(out)), nil
}

// number is what a benchmark takes the median of: durations, counts.
type number interface{ ~int | ~int64 | ~float64 }

// Median is the middle value of v, the mean of the two middle ones when
// their count is even, 0 when v is empty; v is left as it is.
func Median[T number](v []T) T {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// P90 is the 90th percentile of v: nine values in ten are at most it.
func P90[T number](v []T) T {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)*9/10]
}

// Timing is what one run of a process cost.
type Timing struct {
	Wall time.Duration
	// CPU is the user and system time of the process and of the children
	// it waited for (git and the git-reason it ran, say).
	CPU time.Duration
	// Faults is how many minor page faults they took, and MaxRSS the peak
	// resident memory of any of them in KiB (0 where the system does not
	// say).
	Faults, MaxRSS int64
	// Out is what the process wrote on its standard output.
	Out []byte
}

// Timings is the timed runs of one case of a benchmark, kept series by
// series.
type Timings struct {
	Wall, CPU []time.Duration
	Faults    []int64
}

// Add keeps one run's wall and CPU time and page faults.
func (s *Timings) Add(t Timing) {
	s.Wall, s.CPU, s.Faults = append(s.Wall, t.Wall), append(s.CPU, t.CPU), append(s.Faults, t.Faults)
}

// Median is the median of each series (Median), as one Timing.
func (s *Timings) Median() Timing {
	return Timing{Wall: Median(s.Wall), CPU: Median(s.CPU), Faults: Median(s.Faults)}
}

// Timed runs cmd, keeping its standard output in Out and its standard
// error for the error, and measures the run. A failure's error names the
// command and carries what it printed on standard error; its Timing has
// Wall and Out only.
func Timed(cmd *exec.Cmd) (Timing, error) {
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	start := time.Now()
	err := cmd.Run()
	t := Timing{Wall: time.Since(start), Out: out.Bytes()}
	if err != nil {
		return t, fmt.Errorf("%s: %v: %s", strings.Join(cmd.Args, " "), err, bytes.TrimSpace(errs.Bytes()))
	}
	t.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	t.Faults, t.MaxRSS = usage(cmd.ProcessState)
	return t, nil
}

// Interleave runs each of cases once a round, rounds times, in an order
// rng shuffles each round, and stops at run's first error: cases timed in
// one interleaved run share whatever the machine's load does meanwhile,
// so that their ratios can be compared. cases keeps its order.
func Interleave[T any](rng *rand.Rand, rounds int, cases []T, run func(T) error) error {
	order := slices.Clone(cases)
	for range rounds {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, c := range order {
			if err := run(c); err != nil {
				return err
			}
		}
	}
	return nil
}

// Measure times cases: each runs warm times untimed (a first run pays for
// cold caches), then rounds times interleaved (Interleave), each timed
// run's Timing added to its case; it stops at run's first error.
func Measure[T interface{ Add(Timing) }](rng *rand.Rand, warm, rounds int, cases []T, run func(T) (Timing, error)) error {
	for range warm {
		for _, c := range cases {
			if _, err := run(c); err != nil {
				return err
			}
		}
	}
	return Interleave(rng, rounds, cases, func(c T) error {
		t, err := run(c)
		if err != nil {
			return err
		}
		c.Add(t)
		return nil
	})
}

// Report runs a benchmark (run writes its report to w) and returns the
// report, logged; when run fails it fails tb with the error and what was
// written before it.
func Report(tb testing.TB, run func(w io.Writer) error) string {
	tb.Helper()
	var out bytes.Buffer
	if err := run(&out); err != nil {
		tb.Fatalf("%v\n%s", err, out.String())
	}
	tb.Logf("\n%s", out.String())
	return out.String()
}

// HasRows fails tb, without stopping it, for each of rows that report (a
// benchmark's printed report, say) does not hold.
func HasRows(tb testing.TB, report string, rows ...string) {
	tb.Helper()
	for _, row := range rows {
		if !strings.Contains(report, row) {
			tb.Errorf("the report has no %q", row)
		}
	}
}
