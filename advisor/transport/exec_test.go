//go:build unix

package transport

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestExecContract(t *testing.T) {
	runContract(t, execFake{})
}

// execFake is a command-line advisor: a shell script in a temporary
// directory that records its run, its credential, its stdin (which it reads
// to the end, so a stdin left open hangs it) and its process ids, then acts.
type execFake struct{}

func (execFake) adapter() Adapter {
	a, _ := For("exec")
	return a
}

func (execFake) start(t *testing.T, b behaviour) (Target, func() received) {
	dir := t.TempDir()
	target := Target{ID: "fake-cli", Transport: "cli", Adapter: "exec", Credential: credVar}
	if b.act == unreachable {
		target.Command = []string{filepath.Join(dir, "no-such-advisor")}
		return target, func() received { return received{} }
	}
	script := filepath.Join(dir, "advisor.sh")
	writeFile(t, script, execScript(t, dir, b))
	// Run through sh rather than exec'ing the fresh file: no text-file-busy
	// race with other forks.
	target.Command = []string{"/bin/sh", script}
	return target, func() received { return execReceived(t, dir) }
}

func execScript(t *testing.T, dir string, b behaviour) string {
	var s strings.Builder
	fmt.Fprintf(&s, "dir=%q\n", dir)
	s.WriteString(`echo $$ >> "$dir/pids"
echo run >> "$dir/attempts"
printf '%s' "$` + credVar + `" > "$dir/credential"
cat > "$dir/stdin"
`)
	switch b.act {
	case answer:
		writeFile(t, filepath.Join(dir, "answer"), b.text)
		if b.delay > 0 {
			fmt.Fprintf(&s, "sleep %.3f\n", b.delay.Seconds())
		}
		if b.model != "" {
			// A line of metadata before the answer, as some tools print.
			fmt.Fprintf(&s, "printf '%%s\\n' '{\"model\": %q}'\n", b.model)
		}
		s.WriteString(`cat "$dir/answer"` + "\n")
	case refuseAuth:
		s.WriteString(`echo "authentication failed: invalid key $` + credVar + `" >&2; exit 1` + "\n")
	case rateLimit:
		fmt.Fprintf(&s, "echo \"error: rate limit exceeded for $%s; retry after %d seconds\" >&2; exit 2\n", credVar, b.retryAfter)
	case failing:
		s.WriteString(`echo "internal error near $` + credVar + `" >&2; exit 3` + "\n")
	case hang:
		s.WriteString(`sleep 30 & echo $! >> "$dir/pids"; wait` + "\n")
	case stubborn:
		s.WriteString(`trap '' TERM; sleep 30 & echo $! >> "$dir/pids"; sleep 30` + "\n")
	}
	return s.String()
}

func execReceived(t *testing.T, dir string) received {
	var got received
	attempts, _ := os.ReadFile(filepath.Join(dir, "attempts"))
	got.attempts = strings.Count(string(attempts), "run\n")
	cred, _ := os.ReadFile(filepath.Join(dir, "credential"))
	got.credential = string(cred)
	stdin, _ := os.ReadFile(filepath.Join(dir, "stdin"))
	got.text = string(stdin)
	pids, _ := os.ReadFile(filepath.Join(dir, "pids"))
	for _, f := range strings.Fields(string(pids)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("pids file: %v", err)
		}
		if alive(pid) {
			got.alive = append(got.alive, pid)
		}
	}
	return got
}

// alive reports whether pid is still running, allowing a killed process a
// moment to finish dying and treating an unreaped zombie as dead.
func alive(pid int) bool {
	for end := time.Now().Add(500 * time.Millisecond); ; {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) || zombie(pid) {
			return false
		}
		if time.Now().After(end) {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func zombie(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
