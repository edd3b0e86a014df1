package faults

// Secrets: a canary credential value, and canary strings that an advisor
// puts in its error bodies and headers and around its answer, must appear
// nowhere git reason writes or prints. This is the project's one canary
// suite: every way an advisor can hand a secret or a raw transcript back
// is one of its advisors below.
//
// A loopback server speaking chat_completions refuses with 401 and 403,
// rate-limits with 429, fails with 500, answers garbage, and answers well,
// each time echoing the credential it was sent (the Authorization header
// itself) and the error canary in its body and headers (as real services
// do in "incorrect key" errors); its good answer wraps the conclusion in
// prose holding the raw-text canary, adds the canary as an unknown field,
// as reasoning text beside the answer and as response metadata. One cli
// advisor prints its token and the error canary on stderr and stdout and
// fails; one prints its token on stderr and answers inside prose holding
// the raw-text canary, with the canary as an unknown field; one exits 0
// with its token and the canary in an answer that does not parse. The
// real binary runs assess, plan, consult (twice: the echo is met again by
// the advisors whose circuit stays closed), advisors, doctor, status, log,
// show, handover --derive, conclude, validate and verify, with and without
// --json, under the default, offline and ci profiles and on bad input and
// refusals, through git's own dispatch ('git reason ...'). Every command
// before the first consult must contact no advisor and run no advisor
// program (the credentials are read by nothing but an adapter at the
// moment of a call). Then every output, every git object (git cat-file
// --batch-all-objects --batch), every file under .git (the reflogs and
// .git/reason/ included), the home directory, the overlay and a trace2 and
// trace log of every git process are searched for each canary, its
// distinctive middle and its base64. Pass: 0 hits, while the normalised
// answers (summaries, recommendations, failure kinds) are in the objects.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"git-reason/reliability/harness"
)

const (
	keyVar    = "FAULTS_CANARY_KEY"
	keyValue  = "fzkey-4c2f8e19d7-CANARY"
	tokenVar  = "FAULTS_CANARY_TOKEN"
	tokenVal  = "fztok-91be07a3c5-CANARY"
	errCanary = "ERRBODY-6d0a3f7e21-CANARY"
	rawCanary = "RAWTEXT-b3c8e5d402-CANARY"
)

// needles are what must not appear: each canary, its distinctive middle (a
// truncated or masked value still carries it) and its base64.
func needles() []string {
	var out []string
	for _, c := range []string{keyValue, tokenVal, errCanary, rawCanary} {
		out = append(out, c, strings.Split(c, "-")[1], base64.StdEncoding.EncodeToString([]byte(c)))
	}
	return out
}

// leakScan counts what it searched and every hit.
type leakScan struct {
	t                     *testing.T
	outputs, outputBytes  int
	files, fileBytes      int
	objectBytes, logBytes int
	hits                  int
}

// found lists the needles in data, each with the text around it.
func found(data []byte) []string {
	var out []string
	for _, n := range needles() {
		if i := bytes.Index(data, []byte(n)); i >= 0 {
			lo, hi := max(0, i-100), min(len(data), i+len(n)+100)
			out = append(out, fmt.Sprintf("%q: %s", n, strconv.Quote(string(data[lo:hi]))))
		}
	}
	return out
}

func (s *leakScan) search(where string, data []byte) {
	s.t.Helper()
	for _, f := range found(data) {
		s.hits++
		s.t.Errorf("%s holds %s", where, f)
	}
}

func (s *leakScan) tree(dir string) {
	s.t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		s.files++
		s.fileBytes += len(data)
		s.search(path, data)
		return nil
	})
	if err != nil {
		s.t.Fatalf("scan %s: %v", dir, err)
	}
}

// canaryServer is the loopback advisor server. The first path segment
// chooses its behaviour; it counts requests and those that carried the
// canary key.
type canaryServer struct {
	*httptest.Server
	mu             sync.Mutex
	requests, keys map[string]int
}

func newCanaryServer(t *testing.T) *canaryServer {
	s := &canaryServer{requests: map[string]int{}, keys: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *canaryServer) serve(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	mode, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	s.mu.Lock()
	s.requests[mode]++
	if r.Header.Get("Authorization") == "Bearer "+keyValue {
		s.keys[mode]++
	}
	s.mu.Unlock()
	h := w.Header()
	h.Set("X-Debug-Echo", errCanary+" key="+keyValue)
	h.Set("WWW-Authenticate", `Bearer error="invalid_token", error_description="`+keyValue+`"`)
	h.Set("X-Echo-Authorization", r.Header.Get("Authorization"))
	errBody := fmt.Sprintf(`{"error":{"message":"Incorrect API key provided: %s (%s); header was %q","type":"invalid_request_error"}}`,
		keyValue, errCanary, r.Header.Get("Authorization"))
	switch mode {
	case "deny":
		h.Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, errBody)
	case "forbid":
		h.Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, errBody)
	case "limit":
		h.Set("Retry-After", "30")
		h.Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprintf(w, `{"error":{"message":"Rate limit reached for key %s; %s"}}`, keyValue, errCanary)
	case "broken":
		h.Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, "<html><body>Internal error. Trace: %s Authorization: Bearer %s</body></html>", errCanary, keyValue)
	case "garbage":
		h.Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html>%s %s not a completion</html>", errCanary, keyValue)
	case "fine":
		content := "Thinking it over (" + rawCanary + ").\n```json\n" +
			`{"stance":"endorse_with_changes","summary":"Rotate now; keep the old key valid for a day.","recommendations":["normalised-advice-http"],"risks":["clients that pin the key"],"confidence":0.6,"debug":"` + rawCanary + `"}` +
			"\n```\nRegards, " + rawCanary
		resp := map[string]any{"id": rawCanary, "model": "made-up-model-7", "system_fingerprint": rawCanary,
			"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content, "reasoning_content": rawCanary}}},
			"usage":   map[string]any{"note": rawCanary}}
		h.Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	default:
		http.NotFound(w, r)
	}
}

// secretsOverlay declares the canary advisors: six api ones at the
// server's behaviours and three cli ones (one fails, one answers, one
// answers what does not parse), all made up.
func secretsOverlay(base string) string {
	var b strings.Builder
	b.WriteString(`providers:
  - id: fz_canary_gateway
    name: Canary Gateway
vendors:
  - id: fz_canary_maker
    name: Canary Maker
    models:
      - id: made-up-model-7
advisors:
`)
	for _, mode := range []string{"deny", "forbid", "limit", "broken", "garbage", "fine"} {
		fmt.Fprintf(&b, `  - id: adv-%s
    transport: api
    adapter: chat_completions
    base_url: %s/%s/v1
    credential: %s
    provider: fz_canary_gateway
    vendor: fz_canary_maker
    model: made-up-model-7
    capabilities: [reasoning, security]
    timeout: 20s
`, mode, base, mode, keyVar)
	}
	for _, tool := range []string{"tool", "tool-ok", "tool-babble"} {
		fmt.Fprintf(&b, `  - id: adv-%s
    transport: cli
    adapter: exec
    executable: fz-canary-%s
    command: [fz-canary-%s, --review]
    credential: %s
    vendor: fz_canary_maker
    model: made-up-model-7
    capabilities: [reasoning, security]
    timeout: 20s
`, tool, tool, tool, tokenVar)
	}
	return b.String()
}

type secretsRun struct {
	t    *testing.T
	dir  string
	env  []string
	scan *leakScan
	ids  []string // every declared advisor
}

// git runs git with args, scans both outputs and checks the exit status.
func (r *secretsRun) git(want int, extraEnv []string, args ...string) []byte {
	r.t.Helper()
	res := runIn(r.t, r.dir, append(append([]string{}, r.env...), extraEnv...), "git", args...)
	name := strings.Join(res.args, " ")
	r.scan.outputs++
	r.scan.outputBytes += len(res.stdout) + len(res.stderr)
	r.scan.search(name+": stdout", res.stdout)
	r.scan.search(name+": stderr", res.stderr)
	if res.code != want {
		r.t.Fatalf("%s exited %d, want %d\nstdout:\n%s\nstderr:\n%s", name, res.code, want, res.stdout, res.stderr)
	}
	return res.stdout
}

// only is the disable list that leaves just the advisors named.
func (r *secretsRun) only(keep ...string) []string {
	var off []string
	for _, id := range r.ids {
		if !slices.Contains(keep, id) {
			off = append(off, id)
		}
	}
	return []string{"GIT_REASON_DISABLE=" + strings.Join(off, ",")}
}

type consultOut struct {
	Results []struct {
		Advisor, Status, Failure, Record string
		RetryAfter                       int `json:"retry_after_s"`
	}
	Skipped []struct{ Advisor, Reason string }
}

func TestSecretsLeaveNoTrace(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the cli advisor is a shell script")
	}
	// It runs with -short too: it is the only test of these leaks.
	t.Parallel()
	harness.NeedGit(t)
	bin := buildBinary(t)
	srv := newCanaryServer(t)

	root := t.TempDir()
	newHome(t, root)
	repo, tools, logs := filepath.Join(root, "repo"), filepath.Join(root, "tools"), filepath.Join(root, "logs")
	mark := filepath.Join(root, "tool-ran")
	for _, d := range []string{filepath.Join(repo, ".reason"), tools, logs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tool := `#!/bin/sh
cat >/dev/null
if [ "$` + tokenVar + `" = '` + tokenVal + `' ]; then echo token-received >> '` + mark + `'; else echo token-missing >> '` + mark + `'; fi
echo "error: unauthorized: token $` + tokenVar + ` rejected (` + errCanary + `)" >&2
echo "partial output ` + errCanary + ` $` + tokenVar + `"
exit 1
`
	// The answering tool says whether it got its token (never the token),
	// prints the token on stderr as a debug line, and answers inside prose
	// holding the raw-text canary, with the canary as an unknown field.
	toolOK := `#!/bin/sh
cat >/dev/null
if [ "$` + tokenVar + `" = '` + tokenVal + `' ]; then echo token-received >> '` + mark + `'; else echo token-missing >> '` + mark + `'; fi
echo "debug: authenticating with $` + tokenVar + `" >&2
echo 'Here is my review (` + rawCanary + `).'
echo '{"stance": "endorse_with_changes", "summary": "Rotate now; keep the old key valid for a day.", "recommendations": ["normalised-advice-exec"], "risks": ["clients that pin the key"], "confidence": 0.6, "model": "made-up-model-7", "trace": "` + rawCanary + `"}'
echo '` + rawCanary + ` (end of transcript)'
`
	// The babbling tool exits 0 with its token and the canary in an answer
	// that does not parse.
	toolBabble := `#!/bin/sh
cat >/dev/null
echo "I was called with $` + tokenVar + ` (` + rawCanary + `) and have no opinion {stance: maybe}"
`
	for name, script := range map[string]string{"fz-canary-tool": tool, "fz-canary-tool-ok": toolOK, "fz-canary-tool-babble": toolBabble} {
		if err := os.WriteFile(filepath.Join(tools, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, ".reason", "advisors.yaml"), []byte(secretsOverlay(srv.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	scan := &leakScan{t: t}
	r := &secretsRun{t: t, dir: repo, scan: scan, env: gitEnv(root, []string{bin, tools},
		keyVar+"="+keyValue, tokenVar+"="+tokenVal,
		"GIT_TRACE2_EVENT="+filepath.Join(logs, "trace2.json"), "GIT_TRACE="+filepath.Join(logs, "trace.txt"))}

	// Control: the scan finds a canary where there is one.
	control := runIn(t, repo, r.env, "sh", "-c", "echo $"+keyVar+" $"+tokenVar)
	if len(found(control.stdout)) < 2 {
		t.Fatalf("control: the commands' environment does not carry both canaries, or the scan misses them (%q)", control.stdout)
	}

	r.git(0, nil, "init", "-q")
	// The overlay is this test's own: trusting it shows what it runs and
	// where it sends which variable, never a value.
	r.git(0, nil, "reason", "trust")
	var adv struct{ Advisors []struct{ ID, Status string } }
	if err := json.Unmarshal(r.git(0, nil, "reason", "advisors", "--json"), &adv); err != nil {
		t.Fatal(err)
	}
	for _, a := range adv.Advisors {
		r.ids = append(r.ids, a.ID)
		if strings.HasPrefix(a.ID, "adv-") && a.Status != "available" {
			t.Errorf("control: %s is %s, want available (the canary must count as set)", a.ID, a.Status)
		}
	}
	r.git(0, nil, "reason", "advisors")
	r.git(0, nil, "reason", "advisors", "--profile", "offline")
	r.git(0, nil, "reason", "advisors", "--profile", "ci", "--json")
	r.git(0, nil, "reason", "doctor")
	r.git(0, nil, "reason", "doctor", "--json")
	r.contactNothing(srv, mark)

	// Four tasks, each consulting two advisors: every failure type and a
	// good answer.
	rounds := []struct {
		task     string
		advisors []string
		want     map[string]string // advisor -> failure kind, or completed
		json     bool
	}{
		{"T-1", []string{"adv-deny", "adv-limit"}, map[string]string{"adv-deny": "authentication", "adv-limit": "rate_limit"}, true},
		{"T-2", []string{"adv-broken", "adv-fine"}, map[string]string{"adv-broken": "unavailable", "adv-fine": "completed"}, false},
		{"T-3", []string{"adv-garbage", "adv-tool"}, map[string]string{"adv-garbage": "malformed", "adv-tool": "authentication"}, true},
		{"T-4", []string{"adv-forbid", "adv-fine"}, map[string]string{"adv-forbid": "authentication", "adv-fine": "completed"}, false},
		{"T-5", []string{"adv-fine", "adv-tool-ok"}, map[string]string{"adv-fine": "completed", "adv-tool-ok": "completed"}, true},
		{"T-6", []string{"adv-fine", "adv-tool-babble"}, map[string]string{"adv-fine": "completed", "adv-tool-babble": "malformed"}, false},
	}
	var records []string
	recorded := map[string]string{} // task/advisor -> consultation id
	for i, rd := range rounds {
		assess := []string{"reason", "assess", rd.task, "--subject", "Rotate the signing keys " + strconv.Itoa(i),
			"--question", "Rotate now or at the next release?", "--materiality", "critical", "--reversibility", "costly",
			"--needs", "security", "--evidence", "note::keys are two years old"}
		if rd.json {
			assess = append(assess, "--json")
		}
		r.git(0, nil, assess...)
		var plan struct {
			Derived struct{ Selected []string }
		}
		if err := json.Unmarshal(r.git(0, r.only(rd.advisors...), "reason", "plan", rd.task, "--json"), &plan); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(plan.Derived.Selected, rd.advisors) {
			t.Fatalf("%s: plan selected %v, want %v", rd.task, plan.Derived.Selected, rd.advisors)
		}
		r.git(0, r.only(rd.advisors...), "reason", "plan", rd.task)
		// Every round consults with --json so that outcomes can be
		// checked; the text form is exercised by a second consult that
		// skips what already answered or is now open.
		// consult exits 1 when any advisor failed; the outcomes are
		// recorded all the same.
		failed := 0
		for _, k := range rd.want {
			if k != "completed" {
				failed = 1
			}
		}
		var got consultOut
		if err := json.Unmarshal(r.git(failed, r.only(rd.advisors...), "reason", "consult", rd.task, "--json"), &got); err != nil {
			t.Fatal(err)
		}
		for _, c := range got.Results {
			kind := c.Failure
			if c.Status == "completed" {
				kind = "completed"
			}
			if kind != rd.want[c.Advisor] {
				t.Errorf("%s: %s came out %s, want %s", rd.task, c.Advisor, kind, rd.want[c.Advisor])
			}
			if c.Advisor == "adv-limit" && c.RetryAfter != 30 {
				t.Errorf("%s: adv-limit retry_after_s = %d, want 30", rd.task, c.RetryAfter)
			}
			records = append(records, c.Record)
			recorded[rd.task+"/"+c.Advisor] = c.Record
		}
		if len(got.Results) != 2 {
			t.Errorf("%s: consult recorded %d outcomes, want 2", rd.task, len(got.Results))
		}
		// The second consult asks again only the advisors whose one
		// transient failure left their circuit closed; they fail again.
		// An authentication failure or a rate limit opened the circuit;
		// when both advisors' circuits are open, nobody can be asked and
		// consult is refused (3), saying when to try again.
		again, open := 0, 0
		for _, k := range rd.want {
			switch k {
			case "authentication", "rate_limit":
				open++
			case "completed":
			default:
				again = 1
			}
		}
		if open == len(rd.want) {
			again = 3
		}
		r.git(again, r.only(rd.advisors...), "reason", "consult", rd.task)
	}

	// Control: the credentials reached the advisors.
	if _, err := os.Stat(mark); err != nil {
		t.Errorf("control: no cli advisor ran during consult: %v", err)
	}
	// Control: the credentials reached the servers, and the second consult
	// met the echo again where the circuit stayed closed (a 500 and
	// garbage are transient; 401, 403 and 429 open the circuit; an answer
	// is not asked for twice).
	srv.mu.Lock()
	for mode, want := range map[string]int{"deny": 1, "forbid": 1, "limit": 1, "broken": 2, "garbage": 2, "fine": 4} {
		if srv.requests[mode] != want || srv.keys[mode] != srv.requests[mode] {
			t.Errorf("control: %s got %d requests, %d with the canary key; want %d, all with it", mode, srv.requests[mode], srv.keys[mode], want)
		}
	}
	srv.mu.Unlock()
	if got, err := os.ReadFile(mark); err != nil || !strings.HasPrefix(string(got), "token-received\n") || strings.Contains(string(got), "missing") {
		t.Errorf("control: the cli advisor did not get its token: %q %v", got, err)
	}

	// The reading commands, with and without --json, and a conclusion.
	for _, args := range [][]string{
		{"advisors"}, {"advisors", "--json"}, {"doctor"}, {"doctor", "--json"},
		{"status"}, {"status", "--json"}, {"log"}, {"log", "--json"}, {"handover", "--derive"},
	} {
		r.git(0, nil, append([]string{"reason"}, args...)...)
	}
	// log TASK prints the task's lines of log, which ran above over every
	// task: with -short it is not run again per task.
	perTask := [][]string{{"status"}, {"status", "--json"}, {"status", "--report"}, {"log"}, {"log", "--json"}}
	if testing.Short() {
		perTask = perTask[:3]
	}
	for _, rd := range rounds {
		for _, args := range perTask {
			r.git(0, nil, append([]string{"reason", args[0], rd.task}, args[1:]...)...)
		}
	}
	for _, id := range records {
		r.git(0, nil, "reason", "show", id)
		r.git(0, nil, "reason", "show", "--json", id)
	}
	r.git(0, nil, "reason", "conclude", "T-2", "--decision", "rotate now", "--weigh", recorded["T-2/adv-fine"]+"=adopted:keeps clients working", "--json")
	r.git(0, nil, "reason", "conclude", "T-5", "--decision", "rotate now",
		"--weigh", recorded["T-5/adv-tool-ok"]+"=adopted:keeps clients working", "--weigh", recorded["T-5/adv-fine"]+"=adopted:same advice")
	r.git(3, nil, "reason", "conclude", "T-1", "--decision", "rotate now")
	r.git(0, nil, "reason", "verify")
	r.git(0, nil, "reason", "verify", "--json")

	// Every object, loose or packed, in full; then every file.
	objects := r.git(0, nil, "cat-file", "--batch-all-objects", "--batch")
	scan.objectBytes = len(objects)
	for _, want := range []string{"authentication", "rate_limit", "unavailable", "malformed", "endorse_with_changes", "made-up-model-7",
		"normalised-advice-http", "normalised-advice-exec"} {
		if !bytes.Contains(objects, []byte(want)) {
			t.Errorf("control: no git object holds %q: the scan of objects read nothing useful", want)
		}
	}
	before := scan.files
	scan.tree(filepath.Join(repo, ".git", "reason"))
	if scan.files == before {
		t.Errorf("control: nothing under .git/reason/ to scan")
	}
	scan.tree(filepath.Join(repo, ".git"))
	scan.tree(filepath.Join(root, "home"))
	scan.tree(filepath.Join(repo, ".reason"))
	before = scan.fileBytes
	scan.tree(logs)
	scan.logBytes = scan.fileBytes - before
	if scan.logBytes == 0 {
		t.Errorf("control: the trace logs are empty")
	}
	t.Logf("secrets: %d commands (%d bytes of output), %d bytes of git objects, %d files (%d bytes, %d of trace logs) searched for %d needles; %d hits",
		scan.outputs, scan.outputBytes, scan.objectBytes, scan.files, scan.fileBytes, scan.logBytes, len(needles()), scan.hits)
}

// contactNothing runs every command that must contact no advisor, on tasks
// of its own: plans under each profile, bad input and refusals, and a task
// taken to a validated conclusion through the local review. Afterwards the
// server must have seen no request and no cli advisor may have run.
func (r *secretsRun) contactNothing(srv *canaryServer, mark string) {
	t := r.t
	t.Helper()
	r.git(0, nil, "reason", "assess", "T-0", "--subject", "Rotate the signing keys",
		"--question", "Rotate now or at the next release?", "--materiality", "critical",
		"--reversibility", "costly", "--needs", "security", "--evidence", "note::keys are two years old", "--json")
	var plan struct {
		ID      string
		Derived struct{ Selected []string }
	}
	if err := json.Unmarshal(r.git(0, nil, "reason", "plan", "T-0", "--json"), &plan); err != nil {
		t.Fatal(err)
	}
	if len(plan.Derived.Selected) == 0 {
		t.Errorf("the plan selected no canary advisor: their credentials must count as set")
	}
	r.git(0, nil, "reason", "plan", "T-0")
	r.git(0, nil, "reason", "plan", "T-0", "--profile", "offline", "--json")
	r.git(0, nil, "reason", "--profile", "ci", "plan", "T-0")
	for _, args := range [][]string{{"status"}, {"status", "--json"}, {"status", "T-0"}, {"status", "T-0", "--json"},
		{"status", "T-0", "--report"}, {"log"}, {"log", "--json"}, {"log", "T-0", "--json"}, {"show", plan.ID}, {"show", "--json", plan.ID}} {
		r.git(0, nil, append([]string{"reason"}, args...)...)
	}
	// Errors and refusals print nothing of a canary either.
	r.git(3, nil, "reason", "conclude", "T-0", "--decision", "rotate now")
	r.git(2, nil, "reason", "plan", "NO-SUCH-TASK")
	r.git(2, nil, "reason", "advisors", "--profile", "no-such-profile")
	r.git(2, nil, "reason", "assess", "T-9", "--subject", "s", "--question", "q", "--materiality", "critical",
		"--reversibility", "costly", "--needs", "no_such_capability", "--evidence", "note::n")
	// A minor plan made under the ci profile is the local review, which
	// is answered by the person concluding; then a command validation.
	r.git(0, nil, "reason", "assess", "T-L", "--subject", "Rename a flag", "--question", "q",
		"--materiality", "minor", "--reversibility", "irreversible")
	var local struct {
		Derived struct {
			LocalReview []string `json:"local_review"`
		}
	}
	if err := json.Unmarshal(r.git(0, nil, "reason", "--profile", "ci", "plan", "T-L", "--json"), &local); err != nil {
		t.Fatal(err)
	}
	if len(local.Derived.LocalReview) == 0 {
		t.Errorf("a ci plan has no local review to answer")
	}
	conclude := []string{"reason", "conclude", "T-L", "--decision", "rename it", "--json"}
	for i := range local.Derived.LocalReview {
		conclude = append(conclude, "--local-review", strconv.Itoa(i+1)+"=answered")
	}
	r.git(0, nil, conclude...)
	r.git(0, nil, "reason", "validate", "T-L", "--run", "true")
	r.git(0, nil, "reason", "status", "--json")
	r.git(0, nil, "reason", "doctor")

	if _, err := os.Stat(mark); err == nil {
		t.Errorf("a command before consult ran a cli advisor")
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	for mode, n := range srv.requests {
		t.Errorf("a command before consult sent %d requests to the %s advisor", n, mode)
	}
}
