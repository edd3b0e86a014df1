package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The programs, built with README's tags, link no C library: they start
// without the dynamic loader. A package that brings cgo in (os/user, or
// net without netgo, with cgo on) made every command some milliseconds
// slower to start, unnoticed: 5780806 linked os/user, and git-reason
// --version went from 3.4× a hello-world program to 4.0×.
func TestProgramsLinkNoCLibrary(t *testing.T) {
	for _, pkg := range []string{"git-reason/cmd/git-reason", "git-reason/cmd/git-reason--net"} {
		cmd := exec.Command("go", "list", "-deps", "-tags", installTags, pkg)
		cmd.Env = append(cmd.Environ(), "CGO_ENABLED=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		if deps := strings.Fields(string(out)); slices.Contains(deps, "runtime/cgo") {
			t.Errorf("%s links runtime/cgo with -tags %s: it would start through the dynamic loader", pkg, installTags)
		}
	}
}
