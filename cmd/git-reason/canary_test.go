package main

// The canary test: a credential variable's value is read by nothing but an
// adapter at the moment of a call. With a canary value in the credential
// variables of two declared advisors, every command must leave the canary
// nowhere: not in any output or error, not in any git object, not under
// .git/reason/, not anywhere else in .git or in the home directory. First
// the commands that contact nothing (and must run no advisor), then consult,
// where both advisors do get their credential and answer with it in hand:
// the api one's server echoes the key in its 401 body (as real services do
// in "incorrect API key" errors), the cli one prints it on stderr.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

const (
	canaryKeyVar   = "CANARY_ADVISOR_KEY"
	canaryKey      = "CANARY-7f3a9c-SECRET"
	canaryTokenVar = "CANARY_ADVISOR_TOKEN"
	canaryToken    = "CANARY-0b51d2-TOKEN"
)

// canaryOverlay declares the advisors whose credentials hold the canaries,
// first in preference so that plans select them; baseURL is the api one's
// server.
func canaryOverlay(baseURL string) string {
	return `providers:
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
    base_url: ` + baseURL + `
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
}

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

	// The api advisor's server: it notes whether the key arrived, then
	// refuses it and quotes it back.
	var mu sync.Mutex
	var requests, keyed int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		requests++
		if req.Header.Get("Authorization") == "Bearer "+canaryKey {
			keyed++
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error": {"message": "Incorrect API key provided: %s", "code": "invalid_api_key"}}`, canaryKey)
	}))
	defer srv.Close()

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
	// The cli advisor says whether it got its token (never the token), then
	// prints the token on stderr and answers.
	writeFile(t, filepath.Join(bin, "fake-canary-advisor"), `#!/bin/sh
cat >/dev/null
if [ "$`+canaryTokenVar+`" = '`+canaryToken+`' ]; then echo token-received >> '`+mark+`'; else echo token-missing >> '`+mark+`'; fi
echo "debug: authenticating with $`+canaryTokenVar+`" >&2
echo '{"stance": "endorse_with_changes", "summary": "Rotate now; keep the old key valid for a day.", "recommendations": ["keep the old key valid for a day"], "risks": ["clients that pin the key"], "confidence": 0.6, "model": "canary-model"}'
`, 0o755)
	writeFile(t, filepath.Join(repo, ".reason", "advisors.yaml"), canaryOverlay(srv.URL+"/v1"), 0o644)

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

	// Nothing so far may have run an advisor or contacted one.
	if _, err := os.Stat(mark); err == nil {
		t.Errorf("a command before consult ran the fake advisor")
	}
	mu.Lock()
	if requests != 0 {
		t.Errorf("a command before consult sent %d requests to the api advisor", requests)
	}
	mu.Unlock()

	// consult: both advisors get their credential; the api one fails
	// (authentication, its body quoting the key), the cli one answers
	// after printing its token on stderr.
	r.git(0, "reason", "plan", "T-1")
	stdout, _ = r.git(0, "reason", "consult", "T-1", "--json")
	var consulted struct {
		Results []struct{ Advisor, Status, Failure, Record string }
	}
	mustJSON(t, stdout, &consulted)
	var answered string
	for _, c := range consulted.Results {
		switch {
		case c.Advisor == "adv-canary" && (c.Status != "failed" || c.Failure != "authentication"):
			t.Errorf("adv-canary: %s %s, want failed authentication", c.Status, c.Failure)
		case c.Advisor == "adv-canary-cli" && c.Status != "completed":
			t.Errorf("adv-canary-cli: %s %s, want completed", c.Status, c.Failure)
		case c.Advisor == "adv-canary-cli":
			answered = c.Record
		}
	}
	// Control: the credentials did reach the advisors.
	mu.Lock()
	if keyed != 1 || requests != 1 {
		t.Errorf("control: the api advisor's server got %d requests, %d with the canary key; want 1 and 1", requests, keyed)
	}
	mu.Unlock()
	if got, err := os.ReadFile(mark); err != nil || string(got) != "token-received\n" {
		t.Errorf("control: the cli advisor did not get its token: %q %v", got, err)
	}
	r.git(0, "reason", "advisors")
	r.git(0, "reason", "advisors", "--json")
	r.git(0, "reason", "status", "T-1", "--json")
	r.git(0, "reason", "status", "T-1", "--report")
	r.git(0, "reason", "log", "T-1")
	r.git(0, "reason", "log", "T-1", "--json")
	if answered != "" {
		r.git(0, "reason", "show", "--json", answered)
		r.git(0, "reason", "conclude", "T-1", "--decision", "rotate now", "--weigh", answered+"=adopted:keeps clients working", "--json")
	} else {
		t.Errorf("no consultation record for adv-canary-cli")
	}
	r.git(0, "reason", "status", "--json")
	r.git(0, "reason", "doctor")
	r.git(0, "reason", "doctor", "--json")

	// Every git object, loose or packed, in full.
	objects, _ := r.git(0, "cat-file", "--batch-all-objects", "--batch")
	if !strings.Contains(objects, "adv-canary-cli") || !strings.Contains(objects, "authentication") {
		t.Errorf("control: the git objects hold no consultation of the canary advisors; the scan read nothing useful")
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
