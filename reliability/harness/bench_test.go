package harness

import (
	"errors"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// A benchmark's environment keeps none of the caller's git, HOME, PATH,
// XDG_CONFIG_HOME or CI settings, keeps the rest, and gives a home whose
// configuration git reads as the benchmarks' identity with no background
// gc.
func TestBenchEnv(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	t.Setenv("GIT_DIR", "/elsewhere")
	t.Setenv("CI", "true")
	t.Setenv("XDG_CONFIG_HOME", "/elsewhere")
	t.Setenv("BENCH_ENV_KEPT", "yes")
	env, err := BenchEnv(home)
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range env {
		for _, dropped := range []string{"GIT_DIR=", "CI=", "XDG_CONFIG_HOME=", "PATH="} {
			if strings.HasPrefix(kv, dropped) {
				t.Errorf("the caller's %s is passed on", kv)
			}
		}
	}
	for _, want := range []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "BENCH_ENV_KEPT=yes"} {
		if !slices.Contains(env, want) {
			t.Errorf("no %s in %q", want, env)
		}
	}
	for key, want := range map[string]string{"user.name": "Bench", "user.email": "bench@example.com", "gc.auto": "0"} {
		out, err := GitTry("", "config", "--file", filepath.Join(home, ".gitconfig"), "--get", key)
		if got := strings.TrimSpace(out); err != nil || got != want {
			t.Errorf("git config %s = %q (%v), want %q", key, got, err, want)
		}
	}
}

// Median, which every benchmark's report takes (bench/startup and
// bench/write had copies of it), is the middle value, the mean of the two
// middle ones for an even count, 0 of nothing, and leaves its input as it
// was.
func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []int64
		want int64
	}{
		{nil, 0},
		{[]int64{7}, 7},
		{[]int64{9, 1, 5}, 5},
		{[]int64{8, 2, 6, 4}, 5},
	} {
		in := slices.Clone(c.in)
		if got := Median(in); got != c.want || !slices.Equal(in, c.in) {
			t.Errorf("Median(%v) = %d, leaving %v; want %d, the input as it was", c.in, got, in, c.want)
		}
	}
	if got := Median([]time.Duration{3 * time.Millisecond, time.Millisecond}); got != 2*time.Millisecond {
		t.Errorf("Median of 3 ms and 1 ms = %v, want 2ms", got)
	}
}

// Timed, which the benchmarks that time whole processes share, keeps
// what the process wrote on stdout, counts the CPU time and page faults
// of the process it ran, and on a failure names the command and what it
// printed on stderr.
func TestTimed(t *testing.T) {
	NeedTools(t, "sh")
	// A loop long enough to take CPU time however coarse the clock.
	tm, err := Timed(exec.Command("sh", "-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; echo out; echo err >&2"))
	if err != nil {
		t.Fatal(err)
	}
	if string(tm.Out) != "out\n" {
		t.Errorf("Out = %q, want the process's stdout alone", tm.Out)
	}
	if tm.Wall <= 0 || tm.CPU <= 0 || tm.CPU > 4*tm.Wall {
		t.Errorf("wall %v, CPU %v: want both counted, CPU within what a process on one thread can take", tm.Wall, tm.CPU)
	}
	if runtime.GOOS == "linux" && (tm.Faults <= 0 || tm.MaxRSS <= 0) {
		t.Errorf("faults %d, peak memory %d KiB: want the process's own", tm.Faults, tm.MaxRSS)
	}

	_, err = Timed(exec.Command("sh", "-c", "echo said; echo why it failed >&2; exit 3"))
	if err == nil || !strings.Contains(err.Error(), "sh -c") || !strings.Contains(err.Error(), "exit status 3") || !strings.HasSuffix(err.Error(), ": why it failed") {
		t.Errorf("a failing run: %v, want the command, its exit status and its stderr", err)
	}
}

// Interleave, which the benchmarks that compare cases in one run share,
// runs every case once in each round, shuffles the order between rounds
// (a fixed order would give one case the machine's quiet moments each
// time), leaves the cases' own order alone and stops at the first error.
func TestInterleave(t *testing.T) {
	cases := []string{"a", "b", "c", "d", "e"}
	var ran []string
	err := Interleave(rand.New(rand.NewPCG(1, 2)), 6, cases, func(c string) error {
		ran = append(ran, c)
		return nil
	})
	if err != nil || len(ran) != 6*len(cases) {
		t.Fatalf("ran %d cases (%v), want %d", len(ran), err, 6*len(cases))
	}
	orders := map[string]bool{}
	for r := range 6 {
		round := ran[r*len(cases) : (r+1)*len(cases)]
		orders[strings.Join(round, "")] = true
		if sorted := slices.Sorted(slices.Values(round)); !slices.Equal(sorted, cases) {
			t.Errorf("round %d ran %v, want each case once", r, round)
		}
	}
	if len(orders) < 2 {
		t.Errorf("six rounds all ran in one order: %v", orders)
	}
	if !slices.Equal(cases, []string{"a", "b", "c", "d", "e"}) {
		t.Errorf("the cases were reordered: %v", cases)
	}
	stop, calls := errors.New("stop"), 0
	err = Interleave(rand.New(rand.NewPCG(1, 2)), 6, cases, func(string) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("a failing case: %v after %d runs, want its error after 1", err, calls)
	}
}

// Measure runs each case warm times untimed before the interleaved
// rounds, keeps the Timing of each timed run alone in its case, and stops
// at the first error.
func TestMeasure(t *testing.T) {
	type counted struct {
		Timings
		runs int
	}
	cases := []*counted{{}, {}, {}}
	run := func(c *counted) (Timing, error) {
		c.runs++
		return Timing{Wall: time.Duration(c.runs)}, nil
	}
	if err := Measure(rand.New(rand.NewPCG(1, 2)), 2, 5, cases, run); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		if want := []time.Duration{3, 4, 5, 6, 7}; c.runs != 7 || !slices.Equal(c.Wall, want) {
			t.Errorf("case %d ran %d times and kept %v; want 7 runs, the last 5 kept: %v", i, c.runs, c.Wall, want)
		}
	}
	stop, calls := errors.New("stop"), 0
	err := Measure(rand.New(rand.NewPCG(1, 2)), 2, 5, cases, func(*counted) (Timing, error) {
		calls++
		return Timing{}, stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("a failing case: %v after %d runs, want its error after 1", err, calls)
	}
}

// Timings keeps each run's wall time, CPU time and faults in their own
// series, and its Median is each series' median.
func TestTimingsMedian(t *testing.T) {
	var s Timings
	for _, r := range []Timing{
		{Wall: 30 * time.Millisecond, CPU: 3 * time.Millisecond, Faults: 300},
		{Wall: 10 * time.Millisecond, CPU: 9 * time.Millisecond, Faults: 100},
		{Wall: 20 * time.Millisecond, CPU: 1 * time.Millisecond, Faults: 900},
	} {
		s.Add(r)
	}
	want := Timing{Wall: 20 * time.Millisecond, CPU: 3 * time.Millisecond, Faults: 300}
	if got := s.Median(); got.Wall != want.Wall || got.CPU != want.CPU || got.Faults != want.Faults {
		t.Errorf("Median = %+v, want %+v", got, want)
	}
}
