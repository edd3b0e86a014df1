package main

// End-to-end tests of consult that a script cannot express: a second
// git reason process serving reviews (peer) and two consult runs at once.
// They run the real binary as separate processes: TestMain puts the
// harness's build of git-reason first on PATH, and sandbox.run starts it
// as git's dispatch would (dispatchEnv). Every advisor, vendor and model name here is made up.
// Canary credentials and raw answers that must leave no trace are the
// reliability suite's (reliability/faults, TestSecretsLeaveNoTrace).

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"git-reason/reliability/harness"
)

// sandbox is a temporary repository with its own HOME and an environment
// built from nothing: no caller's credential, profile or CI setting leaks in.
type sandbox struct {
	t   *testing.T
	dir string
	env []string
}

// newSandbox makes a repository whose .reason/advisors.yaml is overlay,
// trusted, with fake executables (name → script) on PATH and extra variables set.
func newSandbox(t *testing.T, overlay string, scripts map[string]string, extra ...string) *sandbox {
	t.Helper()
	sandboxPossible(t)
	return newSandboxAt(t, t.TempDir(), overlay, scripts, extra...)
}

// sandboxPossible skips the test where a sandbox cannot work and fails it
// when the harness's git-reason is not on PATH; it returns git-reason's
// path.
func sandboxPossible(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake advisors are shell scripts")
	}
	harness.NeedGit(t)
	self, err := exec.LookPath("git-reason")
	if err != nil {
		t.Fatalf("git-reason is not on PATH (TestMain puts it there): %v", err)
	}
	return self
}

// newSandboxAt is newSandbox in root, an empty directory the caller owns.
func newSandboxAt(t *testing.T, root, overlay string, scripts map[string]string, extra ...string) *sandbox {
	t.Helper()
	home, bin, dir := filepath.Join(root, "home"), filepath.Join(root, "bin"), filepath.Join(root, "repo")
	for _, d := range []string{home, bin, filepath.Join(dir, ".reason")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, data string, mode fs.FileMode) {
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, ".gitconfig"), "[user]\n\tname = Ada Tester\n\temail = ada@example.invalid\n"+
		"[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n[receive]\n\tautogc = false\n", 0o644)
	write(filepath.Join(dir, ".reason", "advisors.yaml"), overlay, 0o644)
	for name, script := range scripts {
		write(filepath.Join(bin, name), "#!/bin/sh\n"+script, 0o755)
	}
	s := &sandbox{t: t, dir: dir, env: sandboxEnv(root, extra...)}
	s.git("init", "-q")
	s.git("reason", "trust") // the overlay is this test's own
	return s
}

// sandboxEnv is the whole environment of the commands of a sandbox in
// root: the harness's git-reason, root/bin and git on PATH, root/home as
// HOME, discovery stopped at root, then extra.
func sandboxEnv(root string, extra ...string) []string {
	gitPath, _ := exec.LookPath("git")
	self, _ := exec.LookPath("git-reason")
	home := filepath.Join(root, "home")
	return append([]string{
		"PATH=" + strings.Join([]string{filepath.Dir(self), filepath.Join(root, "bin"), filepath.Dir(gitPath), "/usr/bin", "/bin"}, string(os.PathListSeparator)),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CEILING_DIRECTORIES=" + root,
		"LC_ALL=C",
		"TZ=UTC",
	}, extra...)
}

// sandboxTemplate is a sandbox written once per test binary by the first
// test that asks for it, for tests that each need the same records: each
// gets a copy (sandboxTemplate.copy) instead of writing them again with a
// dozen git reason runs. TestMain removes the directories.
type sandboxTemplate struct {
	once  sync.Once
	root  string
	extra []string
	ok    bool
}

// templateDirs are the template directories TestMain removes at the end.
var templateDirs struct {
	sync.Mutex
	dirs []string
}

// copy gives t a sandbox of its own holding what write wrote into the
// template's sandbox (written on the first call, with t's name on any
// failure). The copy lives at another path, so its overlay is trusted
// again there: trust names the repository's absolute path.
func (tpl *sandboxTemplate) copy(t *testing.T, write func(t *testing.T, root string, extra ...string) *sandbox) *sandbox {
	t.Helper()
	sandboxPossible(t)
	tpl.once.Do(func() {
		root, err := os.MkdirTemp("", "git-reason-sandbox-")
		if err != nil {
			t.Fatal(err)
		}
		templateDirs.Lock()
		templateDirs.dirs = append(templateDirs.dirs, root)
		templateDirs.Unlock()
		write(t, root, tpl.extra...)
		tpl.root, tpl.ok = root, true
	})
	if !tpl.ok {
		t.Fatal("the shared sandbox could not be written (see the first test that asked for it)")
	}
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(tpl.root)); err != nil {
		t.Fatalf("copy the shared sandbox: %v", err)
	}
	s := &sandbox{t: t, dir: filepath.Join(root, "repo"), env: sandboxEnv(root, tpl.extra...)}
	s.git("reason", "trust")
	return s
}

// run runs git with args in the repository and returns its output and exit
// status; a program that cannot start fails the test. "reason" as the
// first argument runs git-reason itself, in the environment git's
// dispatch gives it (dispatchEnv), as most script lines do: the dispatch
// is proven by the scripts that say "git reason" (script_test.go), and
// here it would cost a git process a command.
func (s *sandbox) run(args ...string) (stdout, stderr string, code int) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	name, env := "git", s.env
	if len(args) > 0 && args[0] == "reason" {
		name, args, env = "git-reason", args[1:], dispatchEnv(s.t, s.env)
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = s.dir, env
	return harness.Run(s.t, cmd)
}

// dispatchEnv is env as git's dispatch gives it to git-reason
// (harness.DispatchEnv).
func dispatchEnv(t *testing.T, env []string) []string {
	t.Helper()
	out, err := harness.DispatchEnv(env)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// git runs git with args and requires success.
func (s *sandbox) git(args ...string) string {
	s.t.Helper()
	out, errs, code := s.run(args...)
	if code != 0 {
		s.t.Fatalf("git %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

// shareOrigin makes a bare repository and adds it to each of clones as
// their remote origin; it returns the bare repository's path.
func shareOrigin(t *testing.T, clones ...*sandbox) string {
	t.Helper()
	bare := filepath.Join(t.TempDir(), "origin.git")
	harness.Git(t, "", "init", "-q", "--bare", bare)
	for _, s := range clones {
		s.git("remote", "add", "origin", bare)
	}
	return bare
}

// reason runs "git reason" with args and requires success.
func (s *sandbox) reason(args ...string) string {
	s.t.Helper()
	return s.git(append([]string{"reason"}, args...)...)
}

// reasonJSON runs "git reason ... --json" and decodes its stdout into v.
func (s *sandbox) reasonJSON(v any, args ...string) string {
	s.t.Helper()
	out := s.reason(append(args, "--json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		s.t.Fatalf("git reason %s --json: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// plan assesses a critical decision on task and plans it.
func (s *sandbox) plan(task string) {
	s.t.Helper()
	s.reason("assess", task, "--subject", "Queue backend for "+task, "--question", "Keep the queue in the database?",
		"--materiality", "critical", "--reversibility", "costly", "--needs", "reasoning",
		"--evidence", "note::peak load is 2k messages a second")
	s.reason("plan", task)
}

// assessTrivial records on task an assessment of subject whose decision
// is trivial and reversible.
func (s *sandbox) assessTrivial(task, subject, question string) {
	s.t.Helper()
	s.reason("assess", task, "--subject", subject, "--question", question, "--materiality", "trivial", "--reversibility", "reversible")
}

// objects returns the content of every object in the repository.
func (s *sandbox) objects() string {
	s.t.Helper()
	return s.git("cat-file", "--batch-all-objects", "--batch")
}

// filesUnder returns the raw content of every regular file under .git/sub
// ("" for all of .git), each prefixed by its path.
func (s *sandbox) filesUnder(sub string) string {
	s.t.Helper()
	var b strings.Builder
	root := filepath.Join(s.dir, ".git", sub)
	if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		fmt.Fprintf(&b, "== %s\n%s\n", p, data)
		return err
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return b.String()
}

// consultRow is one row of "git reason consult --json" results.
type consultRow struct {
	Advisor     string `json:"advisor"`
	Status      string `json:"status"`
	Stance      string `json:"stance"`
	Failure     string `json:"failure"`
	Model       string `json:"model"`
	ModelSource string `json:"model_source"`
	Record      string `json:"record"`
}

type consultOut struct {
	Results []consultRow                       `json:"results"`
	Skipped []struct{ Advisor, Reason string } `json:"skipped"`
}

// shownRecord is the part of "git reason show ID --json" the tests read.
type shownRecord struct {
	Kind string `json:"kind"`
	Body struct {
		Advisor   string `json:"advisor"`
		Status    string `json:"status"`
		Transport string `json:"transport"`
	} `json:"body"`
	Derived struct {
		Model *struct{ Name, Source string } `json:"model"`
	} `json:"derived"`
}

// fakeCatalog is the catalog part of an overlay: the tool fake_tool and
// the vendor fakevendor, which serves models.
func fakeCatalog(models ...string) string {
	s := "providers:\n  - id: fake_tool\n    name: Fake Tool\nvendors:\n  - id: fakevendor\n    name: Fake Vendor\n    models:\n"
	for _, m := range models {
		s += "      - id: " + m + "\n"
	}
	return s
}

// fakeVendor is the catalog the test advisors name: fakevendor serves
// fake-model-1 and fake-model-2.
var fakeVendor = fakeCatalog("fake-model-1", "fake-model-2")

// cliAdvisor is one item of an overlay's advisors list: the advisor id,
// reached by the exec adapter, runs command (the items of a YAML flow
// list, the executable first) and reasons; each of more is a further
// "key: value" line of its declaration.
func cliAdvisor(id, command string, more ...string) string {
	executable, _, _ := strings.Cut(command, ",")
	s := "  - id: " + id + "\n    transport: cli\n    adapter: exec\n    executable: " + executable + "\n    command: [" + command + "]\n"
	for _, m := range more {
		s += "    " + m + "\n"
	}
	return s + "    capabilities: [reasoning]\n"
}

// vendorAdvisor is cliAdvisor declared to serve model of fakevendor
// through fake_tool.
func vendorAdvisor(id, command, model string) string {
	return cliAdvisor(id, command, "provider: fake_tool", "vendor: fakevendor", "model: "+model)
}

// localAdvisor is an overlay of one cli advisor, adv-local, that runs
// executable and is declared to serve model of fakevendor.
func localAdvisor(executable, model string) string {
	return fakeVendor + "advisors:\n" + vendorAdvisor("adv-local", executable, model)
}

// twoAdvisors is an overlay of two cli advisors of fakevendor, adv-a
// (fake-model-1) and adv-b (fake-model-2), both running executable, each
// with its own further arguments (", a, b": the rest of a YAML flow list).
func twoAdvisors(executable, argsA, argsB string) string {
	return fakeVendor + "advisors:\n" + vendorAdvisor("adv-a", executable+argsA, "fake-model-1") + vendorAdvisor("adv-b", executable+argsB, "fake-model-2")
}

// peerAdvisor is an overlay of one peer advisor, adv-remote, that asks the
// git reason serve at addr with the token in PEER_TEST_TOKEN.
func peerAdvisor(addr string) string {
	return `advisors:
  - id: adv-remote
    transport: peer
    adapter: peer
    base_url: http://` + addr + `
    credential: PEER_TEST_TOKEN
    capabilities: [reasoning]
`
}

// peerToken is the token a peer served by consultsPeer takes.
const peerToken = "peer-token-5c2f-e61a"

// consultsPeer starts "git reason serve" on loopback, taking peerToken
// through --token-env, in a repository whose one advisor (as localAdvisor,
// declared to serve model, and to answer peers) reads the question and
// prints answer. It
// returns the server's address and stderr, and a second repository whose
// one advisor, adv-remote, is that peer.
func consultsPeer(t *testing.T, model, answer string) (addr string, serverLog func() string, b *sandbox) {
	t.Helper()
	a := newSandbox(t, fakeVendor+"advisors:\n"+cliAdvisor("adv-local", "fake-peer-reviewer", "provider: fake_tool", "vendor: fakevendor", "model: "+model, "answers_peers: true"),
		map[string]string{"fake-peer-reviewer": "cat > /dev/null\necho '" + answer + "'\n"}, "PEER_TEST_TOKEN="+peerToken)
	addr, serverLog = serve(t, a, "--token-env", "PEER_TEST_TOKEN")
	return addr, serverLog, newSandbox(t, peerAdvisor(addr), nil, "PEER_TEST_TOKEN="+peerToken)
}

// serve starts "git-reason serve" in s as a process of its own and
// returns the address it listens on. The process is killed at cleanup and
// by a deadline, whichever comes first; its stderr is returned by the func.
func serve(t *testing.T, s *sandbox, args ...string) (addr string, stderr func() string) {
	t.Helper()
	self, err := exec.LookPath("git-reason")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	cmd := exec.CommandContext(ctx, self, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Dir, cmd.Env = s.dir, s.env
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var log strings.Builder
	found := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		re := regexp.MustCompile(`serving reviews on http://(\S+)/v1/review`)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		_ = cmd.Process.Kill()
		<-done
		_ = cmd.Wait()
	})
	stderr = func() string {
		mu.Lock()
		defer mu.Unlock()
		return log.String()
	}
	select {
	case addr = <-found:
	case <-done:
		t.Fatalf("git reason serve exited before serving:\n%s", stderr())
	case <-time.After(20 * time.Second):
		t.Fatalf("git reason serve printed no address:\n%s", stderr())
	}
	return addr, stderr
}

// Two git reason processes on loopback: A serves reviews answered by its
// own fake advisor; B consults A as a peer. B's consultation is completed
// and attributed to the model A's advisor reported.
func TestConsultPeer(t *testing.T) {
	t.Parallel()
	addr, serverLog, b := consultsPeer(t, "fake-model-1",
		`{"stance":"endorse_with_changes","summary":"served by the peer","recommendations":["cap the queue"],"confidence":0.75,"model":"fake-reported-model-4"}`)

	// The server takes the token from --token-env: without it, no review.
	resp, err := http.Post("http://"+addr+"/v1/review", "application/json", strings.NewReader(`{"request":{"question":"q?"}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a review request without the token: %d, want 401", resp.StatusCode)
	}

	b.plan("T-1")
	var out consultOut
	raw := b.reasonJSON(&out, "consult", "T-1")
	if len(out.Results) != 1 {
		t.Fatalf("consult results: %s\nserver stderr:\n%s", raw, serverLog())
	}
	r := out.Results[0]
	if r.Advisor != "adv-remote" || r.Status != "completed" || r.Stance != "endorse_with_changes" {
		t.Errorf("result %+v, want adv-remote completed endorse_with_changes\nserver stderr:\n%s", r, serverLog())
	}
	if r.Model != "fake-reported-model-4" || r.ModelSource != "reported" {
		t.Errorf("model %q (%s), want fake-reported-model-4 (reported)", r.Model, r.ModelSource)
	}
	var rec shownRecord
	b.reasonJSON(&rec, "show", r.Record)
	if rec.Kind != "consultation" || rec.Body.Transport != "peer" || rec.Body.Status != "completed" {
		t.Errorf("stored record: %+v", rec)
	}
	if m := rec.Derived.Model; m == nil || m.Name != "fake-reported-model-4" || m.Source != "reported" {
		t.Errorf("stored model %+v, want fake-reported-model-4 reported", m)
	}
	if strings.Contains(b.objects()+b.filesUnder(""), peerToken) {
		t.Errorf("the peer token is stored in B's repository")
	}
}

// Two consult runs started together on one plan: each selected advisor's
// answer to that plan counts once. (One run alone skips advisors that
// already answered; two at once both see none answered yet.)
func TestConsultConcurrentRunsCountOnce(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, twoAdvisors("fake-steady", "", ""), map[string]string{"fake-steady": `cat > /dev/null
sleep 0.5
echo '{"stance":"endorse","summary":"fine","confidence":0.5}'
`})
	s.plan("T-1")
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.run("reason", "consult", "T-1")
		}()
	}
	wg.Wait()
	var st struct {
		ReviewCount int `json:"review_count"`
	}
	s.reasonJSON(&st, "status", "T-1")
	if st.ReviewCount < 2 {
		t.Fatalf("review_count %d after two runs, want at least the 2 advisors", st.ReviewCount)
	}
	if st.ReviewCount != 2 {
		t.Errorf("two concurrent consult runs record each advisor's answer to one plan twice: review_count %d from 2 advisors", st.ReviewCount)
	}
}
