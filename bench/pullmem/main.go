// Command pullmem-bench measures whole-process `git reason pull` of a
// hostile history: one task whose one commit holds -blobs records of just
// under 1 MiB each, every one a small change of the one before, so that
// git stores them as deltas and the pack stays small (1,500 such records
// made pull use 3.5 GB for 69 s before reading was bounded in total).
//
// For each count it writes the history with git fast-import into a bare
// remote, clones nothing (a fresh repository adds the remote), runs the
// real binary's pull and reports the pack's size, pull's wall time and the
// peak resident memory of pull and the git processes it waited for
// (wait4's maxrss), and the line pull printed for the task.
//
//	go run ./bench/pullmem -blobs 300,1500,5000
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"git-reason/reliability/harness"
)

func main() {
	counts := flag.String("blobs", "300,1500,5000", "record counts, comma-separated")
	dir := flag.String("dir", "", "work directory (default: a temporary one, removed)")
	flag.Parse()
	harness.ExitOn("pullmem-bench", run(*counts, *dir))
}

func run(counts, keep string) error {
	dir, bin, remove, err := harness.InstalledWorkDir(keep, "pullmem-bench-")
	if err != nil {
		return err
	}
	defer remove()
	home := filepath.Join(dir, "home")
	if err := harness.WriteHome(home, "[user]\n\tname = Bench\n\temail = bench@example.invalid\n"); err != nil {
		return err
	}
	env := harness.Env(home, dir, []string{bin})
	fmt.Printf("load average %s\n", harness.LoadAverage())
	fmt.Printf("%8s %10s %10s %12s  %s\n", "records", "pack KiB", "wall", "peak RSS MB", "pull said")
	for _, f := range strings.Split(counts, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("-blobs: %q is not a count", f)
		}
		remote := filepath.Join(dir, fmt.Sprintf("remote-%d.git", n))
		if err := hostile(env, remote, n); err != nil {
			return err
		}
		pack, err := packBytes(remote)
		if err != nil {
			return err
		}
		victim := filepath.Join(dir, fmt.Sprintf("victim-%d", n))
		if err := harness.RunGit(env, "", "init", "-q", victim); err != nil {
			return err
		}
		if err := harness.RunGit(env, victim, "remote", "add", "origin", remote); err != nil {
			return err
		}
		cmd := exec.Command("git", "reason", "pull")
		cmd.Dir, cmd.Env = victim, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		err = cmd.Run()
		wall := time.Since(start)
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			return err
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		fmt.Printf("%8d %10d %10s %12.1f  exit %d: %s\n", n, pack>>10, wall.Round(time.Millisecond),
			float64(ru.Maxrss)/1024, cmd.ProcessState.ExitCode(), firstFinding(out.String()))
	}
	return nil
}

// hostile writes the history into a new bare repository: n blobs of just
// under 1 MiB, each the one before with its number changed, one tree
// naming them all as records, one commit on refs/reasoning/tasks/H.
func hostile(env []string, remote string, n int) error {
	if err := harness.RunGit(env, "", "init", "-q", "--bare", remote); err != nil {
		return err
	}
	err := harness.FastImport(context.Background(), remote, env, func(w *bufio.Writer) error {
		pad := bytes.Repeat([]byte{' '}, 1<<20-200)
		for i := 1; i <= n; i++ {
			body := fmt.Sprintf(`{"id":"01J%023d","kind":"assessment","task":"H","clock":%d,"pad":"`, i, i)
			fmt.Fprintf(w, "blob\nmark :%d\ndata %d\n%s%s\"}\n", i, len(body)+len(pad)+2, body, pad)
		}
		fmt.Fprintf(w, "commit refs/reasoning/tasks/H\ncommitter Eve <eve@example.invalid> 1700000000 +0000\ndata 37\nassessment: hostile\n\nReason-Task: H\n\n")
		for i := 1; i <= n; i++ {
			fmt.Fprintf(w, "M 100644 :%d records/%010d-assessment-01J%023d.json\n", i, i, i)
		}
		_, err := fmt.Fprintf(w, "\n")
		return err
	})
	if err != nil {
		return err
	}
	// One pack, as a remote serving it would hold it.
	return harness.RunGit(env, remote, "repack", "-adq")
}

func packBytes(repo string) (int64, error) {
	packs, err := filepath.Glob(filepath.Join(repo, "objects", "pack", "*.pack"))
	var total int64
	for _, p := range packs {
		if fi, err := os.Stat(p); err == nil {
			total += fi.Size()
		}
	}
	return total, err
}

// firstFinding is the line pull printed about the task's first finding.
func firstFinding(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "  H ") {
			line = strings.TrimSpace(line)
			if len(line) > 160 {
				line = line[:160] + "…"
			}
			return line
		}
	}
	return strings.TrimSpace(out)
}
