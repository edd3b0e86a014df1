package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// profMain replaces cmd/git-reason/main.go, through go build -overlay, in
// the build that profiles: the same program, writing a CPU profile at
// 1000 Hz (the default 100 Hz sees two samples of a 20 ms process) to
// $GIT_REASON_CPUPROFILE when it is set.
const profMain = `package main

import (
	"os"
	"runtime"
	"runtime/pprof"

	"git-reason/cmd/git-reason/internal/cli"
)

func main() {
	path := os.Getenv("GIT_REASON_CPUPROFILE")
	if path == "" {
		os.Exit(cli.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
	}
	f, err := os.Create(path)
	if err != nil {
		panic(err)
	}
	runtime.SetCPUProfileRate(1000) // StartCPUProfile then warns that it keeps this rate
	if err := pprof.StartCPUProfile(f); err != nil {
		panic(err)
	}
	code := cli.Main(os.Args, os.Stdin, os.Stdout, os.Stderr)
	pprof.StopCPUProfile()
	f.Close()
	os.Exit(code)
}
`

// mainCall is what profMain assumes cmd/git-reason/main.go does.
const mainCall = "os.Exit(cli.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))"

func writeOverlay(path string, replace map[string]string) error {
	data, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// profileCases builds the profiling binary, runs each case -profile-runs
// times under it and prints go tool pprof's top entries, flat and
// cumulative, over the merged profiles.
func (b *bench) profileCases(out io.Writer, cases []*benchCase) error {
	realMain := filepath.Join(b.o.moduleDir, "cmd", "git-reason", "main.go")
	src, err := os.ReadFile(realMain)
	if err != nil {
		return err
	}
	if !strings.Contains(string(src), mainCall) {
		return fmt.Errorf("%s no longer calls %s: update profMain in bench/write/profile.go", realMain, mainCall)
	}
	binDir := filepath.Join(b.dir, "profbin")
	gen := filepath.Join(binDir, "main.go")
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(gen, []byte(profMain), 0o644); err != nil {
		return err
	}
	if err := b.build(binDir, map[string]string{realMain: gen}); err != nil {
		return err
	}
	profDir, err := filepath.Abs(b.o.profile)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(profDir, 0o755); err != nil {
		return err
	}
	for _, c := range cases {
		slug := strings.Map(func(r rune) rune {
			if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
				return r
			}
			return '-'
		}, strings.ToLower(c.name))
		var files []string
		for i := range b.o.profRuns {
			f := filepath.Join(profDir, fmt.Sprintf("%s.%03d.pprof", slug, i))
			if _, _, err := c.exec(b.withPath(binDir, "GIT_REASON_CPUPROFILE="+f)); err != nil {
				return err
			}
			files = append(files, f)
		}
		fmt.Fprintf(out, "\n## profile: %s (%d processes merged; %s/%s.*.pprof)\n", c.name, len(files), profDir, slug)
		for _, sort := range [][]string{{"-nodecount=20"}, {"-cum", "-nodecount=40"}} {
			args := append([]string{"tool", "pprof", "-top"}, sort...)
			args = append(args, filepath.Join(binDir, "git-reason"))
			cmd := exec.Command("go", append(args, files...)...)
			cmd.Stdout, cmd.Stderr = out, out
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("go tool pprof: %v", err)
			}
		}
	}
	return nil
}
