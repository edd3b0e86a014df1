package main

// The canary test: a credential variable's value is read by nothing but an
// adapter at the moment of a call, so with a canary value in the credential
// variables of two declared advisors, every command a user may run without
// consulting must leave the canary nowhere: not in any output or error, not
// in any git object, not under .git/reason/, not anywhere else in .git or
// in the home directory.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

const (
	canaryKeyVar   = "CANARY_ADVISOR_KEY"
	canaryKey      = "CANARY-7f3a9c-SECRET"
	canaryTokenVar = "CANARY_ADVISOR_TOKEN"
	canaryToken    = "CANARY-0b51d2-TOKEN"
)

// canaryOverlay declares the advisors whose credentials hold the canaries,
// first in preference so that plans select them.
const canaryOverlay = `providers:
  - id: canary_gateway
    name: Canary Gateway
vendors:
  - id: canary_vendor
    name: Canary Vendor
    models:
      - id: canary-model
advisors:
  - id: adv-canary
    transport: api
    adapter: chat_completions
    base_url: https://advisor.example.invalid/v1
    credential: ` + canaryKeyVar + `
    provider: canary_gateway
    vendor: canary_vendor
    model: canary-model
    capabilities: [reasoning, security]
  - id: adv-canary-cli
    transport: cli
    adapter: exec
    executable: fake-canary-advisor
    command: [fake-canary-advisor]
    credential: ` + canaryTokenVar + `
    vendor: canary_vendor
    model: canary-model
    capabilities: [reasoning, security]
order: [adv-canary, adv-canary-cli]
`

// leaks lists what must not appear: each canary, its distinctive middle
// (a truncated or masked value would still carry it), and its base64.
func leaks() []string {
	var out []string
	for _, c := range []string{canaryKey, canaryToken} {
		out = append(out, c, strings.Split(c, "-")[1], base64.StdEncoding.EncodeToString([]byte(c)))
	}
	return out
}

func findLeak(data []byte) string {
	for _, s := range leaks() {
		if bytes.Contains(data, []byte(s)) {
			return s
		}
	}
	return ""
}

// around quotes the text around the first occurrence of s in data.
func around(data []byte, s string) string {
	i := bytes.Index(data, []byte(s))
	lo, hi := max(0, i-120), min(len(data), i+len(s)+120)
	return strconv.Quote(string(data[lo:hi]))
}

type canaryRun struct {
	t    *testing.T
	dir  string
	env  []string
	seen int // commands run
}

// git runs git with args in the repository and returns stdout, stderr and
// the exit status; any output holding a canary fails the test.
func (r *canaryRun) git(want int, args ...string) (string, string) {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = r.dir, r.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		r.t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	r.seen++
	name := "git " + strings.Join(args, " ")
	for what, out := range map[string][]byte{"stdout": stdout.Bytes(), "stderr": stderr.Bytes()} {
		if s := findLeak(out); s != "" {
			r.t.Errorf("%s: %s holds %q: %s", name, what, s, around(out, s))
		}
	}
	if code != want {
		r.t.Fatalf("%s exited %d, want %d\nstdout:\n%s\nstderr:\n%s", name, code, want, stdout.String(), stderr.String())
	}
	return stdout.String(), stderr.String()
}

func TestCanaryCredentialsLeaveNoTrace(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake advisor is a shell script")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	// TestMain (testscript.RunMain) put a git-reason copy of this test
	// binary first on PATH: "git reason" reaches cli.Main through git's
	// own dispatch, in a process of its own with exactly the env below.
	self, err := exec.LookPath("git-reason")
	if err != nil {
		t.Fatalf("git-reason is not on PATH: %v", err)
	}

	root := t.TempDir()
	home := filepath.Join(root, "home")
	bin := filepath.Join(root, "bin")
	repo := filepath.Join(root, "repo")
	mark := filepath.Join(root, "fake-advisor-ran")
	for _, d := range []string{home, bin, filepath.Join(repo, ".reason")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(home, ".gitconfig"), "[user]\n\tname = Ada Tester\n\temail = ada@example.invalid\n"+
		"[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n", 0o644)
	// If anything ran the advisor, it would say so.
	writeFile(t, filepath.Join(bin, "fake-canary-advisor"), "#!/bin/sh\necho ran >> '"+mark+"'\n", 0o755)
	writeFile(t, filepath.Join(repo, ".reason", "advisors.yaml"), canaryOverlay, 0o644)

	// A clean environment: none of the caller's variables (so no default
	// declaration's credential is set), the canaries in ours.
	r := &canaryRun{t: t, dir: repo, env: []string{
		"PATH=" + strings.Join([]string{filepath.Dir(self), bin, os.Getenv("PATH")}, string(os.PathListSeparator)),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CEILING_DIRECTORIES=" + root,
		"LC_ALL=C",
		"TZ=UTC",
		canaryKeyVar + "=" + canaryKey,
		canaryTokenVar + "=" + canaryToken,
	}}

	// Control: the environment does carry the canaries, and the scan of
	// outputs catches them.
	control := exec.Command("sh", "-c", "echo $"+canaryKeyVar+" $"+canaryTokenVar)
	control.Env = r.env
	out, err := control.Output()
	if err != nil || findLeak(out) == "" || !bytes.Contains(out, []byte(canaryToken)) {
		t.Fatalf("control: the canaries are not in the environment the commands get (%q, %v)", out, err)
	}

	r.git(0, "init", "-q")

	// advisors: both canary advisors count as configured (the variables
	// are set) and are available.
	r.git(0, "reason", "advisors")
	stdout, _ := r.git(0, "reason", "advisors", "--json")
	var adv struct {
		Advisors []struct{ ID, Status, Reason string }
	}
	mustJSON(t, stdout, &adv)
	for _, id := range []string{"adv-canary", "adv-canary-cli"} {
		found := false
		for _, a := range adv.Advisors {
			if a.ID == id {
				found = true
				if a.Status != "available" {
					t.Errorf("advisor %s is %s (%s), want available: the canary must count as set", id, a.Status, a.Reason)
				}
			}
		}
		if !found {
			t.Errorf("advisor %s is not listed", id)
		}
	}
	r.git(0, "reason", "advisors", "--profile", "offline")
	r.git(0, "reason", "advisors", "--profile", "ci", "--json")
	r.git(0, "reason", "doctor")
	r.git(0, "reason", "doctor", "--json")

	// The reasoning cycle as far as it goes without consulting.
	r.git(0, "reason", "assess", "T-1", "--subject", "Rotate the signing keys",
		"--question", "Rotate now or at the next release?", "--materiality", "critical",
		"--reversibility", "costly", "--needs", "security", "--evidence", "note::keys are two years old", "--json")
	r.git(0, "reason", "plan", "T-1")
	stdout, _ = r.git(0, "reason", "plan", "T-1", "--json")
	var plan struct {
		ID      string
		Derived struct {
			Selected []string
			Snapshot []struct{ Advisor, Status, Reason string }
		}
	}
	mustJSON(t, stdout, &plan)
	if strings.Join(plan.Derived.Selected, ",") != "adv-canary,adv-canary-cli" {
		t.Errorf("plan selected %v, want both canary advisors", plan.Derived.Selected)
	}
	r.git(0, "reason", "plan", "T-1", "--profile", "offline", "--json")
	r.git(0, "reason", "--profile", "ci", "plan", "T-1")
	r.git(0, "reason", "status")
	r.git(0, "reason", "status", "--json")
	r.git(0, "reason", "status", "T-1")
	r.git(0, "reason", "status", "T-1", "--json")
	r.git(0, "reason", "status", "T-1", "--report")
	r.git(0, "reason", "log")
	r.git(0, "reason", "log", "--json")
	r.git(0, "reason", "log", "T-1", "--json")
	r.git(0, "reason", "show", plan.ID)
	r.git(0, "reason", "show", "--json", plan.ID)
	// Errors and refusals print nothing of it either.
	r.git(3, "reason", "conclude", "T-1", "--decision", "rotate now")
	r.git(2, "reason", "plan", "NO-SUCH-TASK")
	r.git(2, "reason", "advisors", "--profile", "no-such-profile")
	r.git(2, "reason", "assess", "T-2", "--subject", "s", "--question", "q", "--materiality", "critical",
		"--reversibility", "costly", "--needs", "no_such_capability", "--evidence", "note::n")
	// A conclusion with the plan answered by nobody: a minor plan made in
	// ci mode is the local review, which can be concluded.
	r.git(0, "reason", "assess", "T-3", "--subject", "Rename a flag", "--question", "q",
		"--materiality", "minor", "--reversibility", "irreversible")
	stdout, _ = r.git(0, "reason", "--profile", "ci", "plan", "T-3", "--json")
	var local struct {
		Derived struct {
			LocalReview []string `json:"local_review"`
		}
	}
	mustJSON(t, stdout, &local)
	args := []string{"reason", "conclude", "T-3", "--decision", "rename it", "--json"}
	for i := range local.Derived.LocalReview {
		args = append(args, "--local-review", strconv.Itoa(i+1)+"=answered")
	}
	r.git(0, args...)
	r.git(0, "reason", "validate", "T-3", "--run", "true")
	r.git(0, "reason", "status", "--json")
	r.git(0, "reason", "doctor")

	// Every git object, loose or packed, in full.
	objects, _ := r.git(0, "cat-file", "--batch-all-objects", "--batch")
	if !strings.Contains(objects, `"advisor":"adv-canary"`) && !strings.Contains(objects, `"advisor": "adv-canary"`) {
		t.Errorf("control: the git objects do not hold the plan's snapshot of adv-canary; the scan read nothing useful")
	}
	// .git/reason/ (the caches), then everything else under .git and the
	// home directory, byte for byte.
	reasonFiles := scanTree(t, filepath.Join(repo, ".git", "reason"))
	if reasonFiles == 0 {
		t.Errorf("control: nothing under .git/reason/ to scan")
	}
	scanTree(t, filepath.Join(repo, ".git"))
	scanTree(t, home)
	scanTree(t, filepath.Join(repo, ".reason"))

	if _, err := os.Stat(mark); err == nil {
		t.Errorf("a command ran the fake advisor: only consult may contact one")
	}
	t.Logf("%d commands, %d files under .git/reason, %d bytes of objects scanned", r.seen, reasonFiles, len(objects))
}

// scanTree fails the test for every regular file under dir holding a
// canary, and returns how many files it read.
func scanTree(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		if s := findLeak(data); s != "" {
			t.Errorf("%s holds %q: %s", path, s, around(data, s))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("scan %s: %v", dir, err)
	}
	return n
}

func writeFile(t *testing.T, path, content string, perm os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
}

func mustJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
}
