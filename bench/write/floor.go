package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// floorMain replaces cmd/git-reason/main.go, through go build -overlay, in
// the build that times the floor of a write: the same program, every
// package linked and initialised as in the real one, that with its first
// argument floorExit exits as soon as main starts, and with floorOpen
// opens the repository as every command does (git rev-parse for discovery
// and git config --list for the settings, side by side, through
// ops.Open), waits for the settings and exits. Any other call runs the
// command line as the real main does.
const floorMain = `package main

import (
	"context"
	"os"

	"git-reason/cmd/git-reason/internal/cli"
	"git-reason/cmd/git-reason/internal/ops"
)

func main() {
	collectLate()
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "` + floorExit + `":
			os.Exit(0)
		case "` + floorOpen + `":
			sess, err := ops.Open(context.Background(), ops.Options{})
			if err == nil {
				_, err = sess.Settings()
			}
			if err != nil {
				os.Stderr.WriteString(err.Error() + "\n")
				os.Exit(1)
			}
			os.Exit(0)
		}
	}
	os.Exit(cli.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
`

// The floor build's two calls (floorMain).
const (
	floorExit = "floor-exit"
	floorOpen = "floor-open"
)

// The names of the two floor cases.
const (
	floorExitCase = "git reason floor-exit (links and initialises, then exits)"
	floorOpenCase = "git reason floor-open (and discovery, settings)"
)

// floorCases builds floorMain into its own directory as git-reason and
// returns the two cases that run it through git's dispatch in dir, as
// assess runs: what any git reason command costs before it does anything,
// and that with the two git processes every command starts. Neither
// writes, so both are the least a write could cost with these libraries
// and these processes.
func (b *bench) floorCases(dir string) ([]*benchCase, error) {
	realMain := filepath.Join(b.o.moduleDir, "cmd", "git-reason", "main.go")
	src, err := os.ReadFile(realMain)
	if err != nil {
		return nil, err
	}
	if !strings.Contains(string(src), "collectLate()\n\t"+mainCall) {
		return nil, fmt.Errorf("%s no longer calls collectLate, then %s: update floorMain in bench/write/floor.go", realMain, mainCall)
	}
	binDir := filepath.Join(b.dir, "floorbin")
	gen := filepath.Join(binDir, "main.go")
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(gen, []byte(floorMain), 0o644); err != nil {
		return nil, err
	}
	if err := b.build(binDir, map[string]string{realMain: gen}); err != nil {
		return nil, err
	}
	args := func(verb string) func(int) []string {
		return func(int) []string { return []string{"reason", verb} }
	}
	return []*benchCase{
		{name: floorExitCase, dir: dir, args: args(floorExit), bin: binDir, floor: true},
		{name: floorOpenCase, dir: dir, args: args(floorOpen), bin: binDir, floor: true},
	}, nil
}
