// Command material-bench times assembling an advisor's question in-process:
// -items evidence files of -size bytes each (synthetic source code with a
// few secrets of the forms the redactor knows sprinkled in) are redacted,
// numbered, framed and fitted to a budget that takes them all, as consult
// does after reading them. It prints the median, min and max of -runs
// runs, in wall and in CPU time, and the target (100 ms for 20 items of
// 1 MB; judged on CPU time, since the wall time of a loaded machine
// measures its other processes).
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"git-reason/advisor/material"
	"git-reason/advisor/transport"
)

func main() {
	items := flag.Int("items", 20, "evidence files")
	size := flag.Int("size", 1<<20, "bytes per file")
	runs := flag.Int("runs", 15, "timed runs")
	flag.Parse()
	files := make([]string, *items)
	for i := range files {
		files[i] = synthetic(i, *size)
	}
	env := map[string]string{"BENCH_API_KEY": "bench-credential-value-0042"}
	var times, cpus []time.Duration
	var q int
	var redactions int
	for range *runs {
		runtime.GC()
		start, cpu0 := time.Now(), cpuTime()
		r := material.NewRedactor([]string{"BENCH_API_KEY", "OTHER_KEY"}, func(k string) string { return env[k] })
		pieces := make([]material.Piece, len(files))
		for i, f := range files {
			text, n := r.RedactLines(f, 1)
			pieces[i] = material.Piece{Evidence: i + 1, Kind: material.KindFile, Ref: fmt.Sprintf("src/file%02d.go", i),
				Revision: "0123456789abcdef0123456789abcdef01234567", Text: text, Redactions: n}
		}
		set := material.NewSet(transport.Request{Subject: "bench", Question: "Is it sound?"}, pieces, material.NewNonce(), r)
		_, man := set.For(64 << 20)
		times, cpus = append(times, time.Since(start)), append(cpus, cpuTime()-cpu0)
		q, redactions = man.Bytes, man.Redactions
	}
	fmt.Printf("assemble %d items x %d bytes with redaction, %d runs (target 100ms); question %d bytes, %d redactions\n", *items, *size, *runs, q, redactions)
	// A reference on the same machine at the same moment: one plain copy
	// of as many bytes as the question holds.
	var copies []time.Duration
	src, dst := make([]byte, q), make([]byte, q)
	for range *runs {
		start := time.Now()
		copy(dst, src)
		copies = append(copies, time.Since(start))
	}
	fmt.Printf("  wall: %s\n  cpu:  %s (user+system of this process, GC included)\n", spread(times), spread(cpus))
	fmt.Printf("  reference, one copy of %d bytes: %s\n", q, spread(copies))
	slices.Sort(cpus)
	if cpus[len(cpus)/2] > 100*time.Millisecond && *items == 20 && *size == 1<<20 {
		os.Exit(1)
	}
}

// spread is "median M, min A, max B" of ds.
func spread(ds []time.Duration) string {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	r := func(d time.Duration) time.Duration { return d.Round(time.Millisecond / 10) }
	return fmt.Sprintf("median %v, min %v, max %v", r(ds[len(ds)/2]), r(ds[0]), r(ds[len(ds)-1]))
}

// cpuTime is the user and system time this process has used: on a shared
// machine the wall time says more about the neighbours than the code.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// synthetic returns about size bytes of Go-like source with assignments,
// comments and, now and then, a secret.
func synthetic(seed, size int) string {
	lines := []string{
		"func (s *server) handle(w http.ResponseWriter, r *http.Request) {",
		"\ttoken := r.Header.Get(\"Authorization\")",
		"\tif token == \"\" || len(token) < 8 {",
		"\t\thttp.Error(w, \"missing token\", http.StatusUnauthorized)",
		"\t\treturn",
		"\t}",
		"\tcfg := map[string]string{\"endpoint\": \"https://example.invalid/v1\", \"region\": \"eu-west-1\"}",
		"\t// Retry with a backoff: the upstream rate-limits bursts above 2k requests a second.",
		"\tfor attempt := 0; attempt < 3; attempt++ {",
		"\t\tresp, err := s.client.Do(req.WithContext(ctx))",
		"\t}",
		"}",
	}
	secrets := []string{
		"const apiKey = \"sk-bench0123456789abcdefghijklmnop\"",
		"BENCH_API_KEY=bench-credential-value-0042",
		"\tpassword: \"correct-horse-battery-staple\"",
	}
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		if (i+seed)%997 == 0 {
			b.WriteString(secrets[(i/997)%len(secrets)])
		} else {
			b.WriteString(lines[i%len(lines)])
		}
		b.WriteByte('\n')
	}
	return b.String()
}
