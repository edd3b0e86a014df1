package harness

import (
	"debug/buildinfo"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
)

// raceLog is the directory the race reports of the processes Env starts
// go to (GORACE's log_path), once Binary has found its build made with
// the race detector (GOFLAGS=-race); nil otherwise.
var raceLog atomic.Pointer[string]

// logRaces makes raceLog when bin was built with the race detector. A
// report goes there rather than to the process's stderr, where a test
// reading only stdout, a hook whose status git ignores or a process the
// test killed would lose it; CheckRaces reads it.
func logRaces(bin string) error {
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		return err
	}
	for _, s := range info.Settings {
		if s.Key == "-race" && s.Value == "true" {
			dir, err := os.MkdirTemp("", "git-reason-races-")
			if err != nil {
				return err
			}
			raceLog.Store(&dir)
		}
	}
	return nil
}

// RaceEnv is the GORACE setting of a process Env starts, and of the
// commands of cmd/git-reason's scripts: none unless the binary under test
// has the race detector.
func RaceEnv() []string {
	if dir := raceLog.Load(); dir != nil {
		return []string{"GORACE=log_path=" + filepath.Join(*dir, "race")}
	}
	return nil
}

// LogRacesIn sends the race reports of the processes started afterwards
// to dir, as Binary does for a race detector build, until undo: for a
// test that its own user of RaceEnv passes it on. Not for parallel tests.
func LogRacesIn(dir string) (undo func()) {
	saved := raceLog.Swap(&dir)
	return func() { raceLog.Store(saved) }
}

// CheckRaces ends a TestMain whose tests start the binary under test with
// Env: it returns code (m.Run's), or 1 when one of those processes
// reported a data race, after printing the reports on stderr.
func CheckRaces(code int) int { return checkRaces(os.Stderr, code) }

func checkRaces(w io.Writer, code int) int {
	dir := raceLog.Load()
	if dir == nil {
		return code
	}
	entries, _ := os.ReadDir(*dir)
	if len(entries) == 0 {
		os.Remove(*dir)
		return code
	}
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(*dir, e.Name()))
		fmt.Fprintf(w, "%s:\n%s\n", e.Name(), data)
	}
	fmt.Fprintf(w, "FAIL: %d processes under test reported data races (above, kept in %s): fix them\n", len(entries), *dir)
	return 1
}
