package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"git-reason/reliability/harness"
)

// TestStartupBuildsLittle holds this module's packages to building almost
// nothing at initialisation: every package linked is initialised by every
// command, --version included, so a table, regular expression or schema
// made at package level is paid by all of them. It reads the runtime's
// own trace (GODEBUG=inittrace=1), whose byte counts do not depend on the
// machine's load; anything bigger is made on first use (sync.OnceValue).
func TestStartupBuildsLittle(t *testing.T) {
	t.Parallel()
	const limit = 4096 // bytes allocated by one package's initialisation
	bin, err := harness.Binary()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("git-reason --version: %v\n%s", err, stderr.String())
	}
	own := 0
	for _, line := range strings.Split(stderr.String(), "\n") {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(line)
		if len(f) < 9 || f[0] != "init" || f[8] != "bytes," || !strings.HasPrefix(f[1], "git-reason/") {
			continue
		}
		own++
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", line, err)
		}
		if n > limit {
			t.Errorf("%s allocates %d bytes at initialisation (limit %d): make what it builds on first use", f[1], n, limit)
		}
	}
	if own == 0 {
		t.Fatalf("no initialisation of this module's packages in the trace:\n%s", stderr.String())
	}
}
