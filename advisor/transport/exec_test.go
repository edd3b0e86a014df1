//go:build unix

package transport

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"git-reason/reliability/harness"
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
		s.WriteString(`echo "authentication failed: invalid key $` + credVar + ` ` + transcriptMarker + `" >&2; exit 1` + "\n")
	case rateLimit:
		fmt.Fprintf(&s, "echo \"error: rate limit exceeded for $%s; retry after %d seconds %s\" >&2; exit 2\n", credVar, b.retryAfter, transcriptMarker)
	case failing:
		s.WriteString(`echo "internal error near $` + credVar + ` ` + transcriptMarker + `" >&2; exit 3` + "\n")
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
		if harness.Alive(pid, 500*time.Millisecond) {
			got.alive = append(got.alive, pid)
		}
	}
	return got
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runScript asks the exec adapter to run a shell script made of body.
func runScript(t *testing.T, body string, credential string) (Answer, *Failure, time.Duration) {
	t.Helper()
	script := filepath.Join(t.TempDir(), "advisor.sh")
	writeFile(t, script, body)
	a, _ := For("exec")
	target := Target{ID: "fake-cli", Adapter: "exec", Command: []string{"/bin/sh", script}, Credential: credential}
	began := time.Now()
	ans, f := ask(t, a, target)
	return ans, f, time.Since(began)
}

func TestExecExitClassification(t *testing.T) {
	tests := []struct {
		script         string
		want           FailureKind
		wantRetryAfter time.Duration
	}{
		{"exit 77", Authentication, 0},
		{"echo 'Error: not logged in, run login first' >&2; exit 1", Authentication, 0},
		{"echo 'HTTP 401 Unauthorized' >&2; exit 4", Authentication, 0},
		{"echo 'Too Many Requests: try again in 1500ms' >&2; exit 1", RateLimit, 1500 * time.Millisecond},
		{"echo 'quota exceeded; retry-after: 2 minutes' >&2; exit 1", RateLimit, 2 * time.Minute},
		{"echo 'rate_limit' >&2; exit 1", RateLimit, 0},
		{"exit 1", Unavailable, 0},
		{"echo 'segmentation fault' >&2; exit 139", Unavailable, 0},
		{"kill -9 $$", Unavailable, 0},
		{"exit 0", Empty, 0},
		{"printf '\\n \\n'", Empty, 0},
	}
	for _, tc := range tests {
		t.Run(tc.script, func(t *testing.T) {
			_, f, _ := runScript(t, "cat >/dev/null\n"+tc.script+"\n", "")
			if f == nil || f.Kind != tc.want || f.RetryAfter != tc.wantRetryAfter {
				t.Errorf("failure = %+v, want %s retry after %v", f, tc.want, tc.wantRetryAfter)
			}
		})
	}
}

func TestExecEnvironmentIsMinimal(t *testing.T) {
	t.Setenv(credVar, canary)
	t.Setenv("GIT_REASON_TEST_UNLISTED", "must-not-pass")
	t.Setenv("LANG", "C.UTF-8")
	// env itself, not a shell, which would add variables of its own.
	envPath, err := exec.LookPath("env")
	if err != nil {
		harness.MissingTool(t, "env is not on PATH")
	}
	a, _ := For("exec")
	ans, f := ask(t, a, Target{ID: "fake-cli", Adapter: "exec", Command: []string{envPath}, Credential: credVar})
	if f != nil {
		t.Fatal(f)
	}
	allowed := map[string]bool{credVar: true}
	for _, k := range envAllowlist {
		allowed[k] = true
	}
	names := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(ans.Output), "\n") {
		name, _, _ := strings.Cut(line, "=")
		names[name] = true
		if !allowed[name] {
			t.Errorf("the command saw %s", name)
		}
	}
	// The command saw the credential; what it echoed of it comes back
	// redacted, since a credential's value is never stored or printed.
	if !strings.Contains(ans.Output, credVar+"=[redacted]") || !names["LANG"] {
		t.Errorf("the command's environment lacks the credential or LANG:\n%s", ans.Output)
	}
	if strings.Contains(ans.Output, canary) {
		t.Errorf("the credential's value came back in the answer:\n%s", ans.Output)
	}
}

func TestExecMissingCredentialRunsNothing(t *testing.T) {
	t.Setenv(credVar, "")
	marker := filepath.Join(t.TempDir(), "ran")
	_, f, _ := runScript(t, "touch "+marker+"\n", credVar)
	if f == nil || f.Kind != Authentication {
		t.Errorf("failure = %v, want authentication", f)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran without its credential")
	}
}

// TestExecKillsLeftovers: a command that answers and exits, leaving a child
// that holds stdout open, still answers within the pipe grace, and the
// child is gone when Ask returns.
func TestExecKillsLeftovers(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	ans, f, took := runScript(t, "cat >/dev/null\nsleep 30 & echo $! > "+pidFile+"\necho '"+mustJSON(testConclusion, false)+"'\n", "")
	if f != nil {
		t.Fatal(f)
	}
	if _, err := Normalise(ans.Output); err != nil {
		t.Errorf("answer: %v", err)
	}
	// The child sleeps 30 s: returning within 20 s
	// shows Ask did not wait for it, where a bound of a second past the
	// grace was outlasted by a process start on a loaded machine.
	if took > 20*time.Second {
		t.Errorf("Ask took %v", took)
	}
	raw, _ := os.ReadFile(pidFile)
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if harness.Alive(pid, 500*time.Millisecond) {
		t.Errorf("leftover child %d still running", pid)
	}
}

func TestExecNoCommand(t *testing.T) {
	a, _ := For("exec")
	_, f := ask(t, a, Target{ID: "fake-cli", Adapter: "exec"})
	if f == nil || f.Kind != Unavailable {
		t.Errorf("failure = %v, want unavailable", f)
	}
}

func TestReportedModel(t *testing.T) {
	tests := map[string]string{
		`{"stance": "endorse"}`:                          "",
		`{"model": "fake-model-7"}` + "\nanswer":         "fake-model-7",
		`noise {"model": 3} {"model": " model-a "}`:      "model-a",
		`{"result": {"model": "inner"}, "model": "top"}`: "top",
		"no json here": "",
	}
	for out, want := range tests {
		if got := reportedModel(out); got != want {
			t.Errorf("reportedModel(%q) = %q, want %q", out, got, want)
		}
	}
}
