// Command summary reads `go test -json` on stdin and prints each
// package's elapsed time, slowest first, the slowest tests and every
// failure. bench/tests/run.sh runs it over its logs.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
)

// module is cut from package names to keep the lines short.
const module = "git-reason/"

type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
}

type row struct {
	name    string
	action  string
	elapsed float64
}

func main() {
	top := flag.Int("top", 15, "how many of the slowest tests to list")
	flag.Parse()
	var pkgs, tests []row
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	for in.Scan() {
		var e event
		if json.Unmarshal(in.Bytes(), &e) != nil {
			continue
		}
		switch e.Action {
		case "pass", "fail", "skip":
		default:
			continue
		}
		if e.Test == "" {
			pkgs = append(pkgs, row{strings.TrimPrefix(e.Package, module), e.Action, e.Elapsed})
			continue
		}
		tests = append(tests, row{strings.TrimPrefix(e.Package, module) + " " + e.Test, e.Action, e.Elapsed})
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "summary:", err)
		os.Exit(1)
	}
	slowest := func(rs []row) {
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].elapsed > rs[j].elapsed })
	}
	slowest(pkgs)
	slowest(tests)
	fmt.Println("  packages (test binary time, s):")
	for _, p := range pkgs {
		if p.elapsed >= 0.05 || p.action == "fail" {
			fmt.Printf("    %7.1f  %-4s  %s\n", p.elapsed, p.action, p.name)
		}
	}
	fmt.Println("  slowest tests and subtests (s; a parent of parallel subtests may show 0):")
	for i, t := range tests {
		if i >= *top {
			break
		}
		fmt.Printf("    %7.1f  %-4s  %s\n", t.elapsed, t.action, t.name)
	}
	for _, t := range tests {
		if t.action == "fail" {
			fmt.Printf("  FAIL %s (%.1f s)\n", t.name, t.elapsed)
		}
	}
}
