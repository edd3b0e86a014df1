package main

import (
	"strings"
	"testing"
	"time"

	"git-reason/reliability/harness"
)

// Each build's medians are reported against the first build's: the
// revision given first is the base of every ratio.
func TestReportAgainstTheFirst(t *testing.T) {
	ms := time.Millisecond
	builds := []*build{
		{name: "base", Timings: harness.Timings{CPU: []time.Duration{100 * ms, 90 * ms, 300 * ms}, Wall: []time.Duration{200 * ms, 210 * ms, 190 * ms}, Faults: []int64{1000, 1100, 900}}},
		{name: "new", Timings: harness.Timings{CPU: []time.Duration{45 * ms, 400 * ms, 50 * ms}, Wall: []time.Duration{100 * ms, 100 * ms, 500 * ms}, Faults: []int64{500, 2000, 400}}},
	}
	var out strings.Builder
	report(&out, builds)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("report printed %d lines, want one per build:\n%s", len(lines), out.String())
	}
	for i, want := range [][]string{
		{"base", "cpu  100.0 ms (1.000×)", "wall  200.0 ms (1.000×)", "faults  1000 (1.000×)"},
		{"new", "cpu   50.0 ms (0.500×)", "wall  100.0 ms (0.500×)", "faults   500 (0.500×)"},
	} {
		for _, w := range want {
			if !strings.Contains(lines[i], w) {
				t.Errorf("line %d %q lacks %q", i, lines[i], w)
			}
		}
	}
}
