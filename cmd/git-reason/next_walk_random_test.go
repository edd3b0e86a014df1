package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"git-reason/cmd/git-reason/internal/cli"
	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/cmd/git-reason/internal/serving"
	"git-reason/reliability/harness"
)

// TestNextWalkRandom walks seeded random situations (seeds 1 to 300; with
// -short the 12 of the first 50 in shortWalkSeeds; GIT_REASON_WALKS=N
// walks seeds 1 to N instead, in -short too), one task each in one
// repository, so that what earlier walks left (open circuits, standing
// conclusions, disabled advisors) is part of the next walk's world. Each
// command runs in this process through the command line's entry point,
// on one resident session of the operations layer (cli.Servers.Session),
// and the two advisors are chat-completions endpoints served by this
// process on loopback, answering as the walk says (endorse, oppose, or
// garbage: 503, an unavailable advisor, whose circuit opens; a malformed
// answer never opens one): no process is started per command or per
// question.
// A walk draws how the task is assessed (every materiality ×
// reversibility), how each advisor answers, and what the person does on
// the way: disable the advisors after planning (then, at the person's
// step status marks, enable them again or plan anew), close and reopen
// the task, see a validation fail first, withdraw a validation, record a
// failed attempt, or conclude the task in a second clone too and sync,
// so that next must settle the merge. The test fails when any of these
// never happened. It walks in a test binary of its own (walkAside), beside
// the package's parallel tests.
func TestNextWalkRandom(t *testing.T) {
	if !walkAside(t) {
		return
	}
	seeds, require := walkSeeds(300), true
	if testing.Short() {
		seeds = shortWalkSeeds
	}
	if n, err := strconv.Atoi(os.Getenv("GIT_REASON_WALKS")); err == nil && n > 0 {
		seeds, require = walkSeeds(n), n >= 50 // fewer may miss a dimension
	}
	walkRandom(t, seeds, false, require)
}

// shortWalkSeeds are the seeds -short walks, in this order in one world:
// 12 of seeds 1 to 50 that together reach every dimension the tally
// requires, each assessment (materiality × reversibility) once, so no
// fewer can (a walk assesses one way). Walked in this order, each reaches
// (its line "seed N reached: …"), besides plan, conclude and a validation
// that passes:
//
//	 1  critical reversible; consult answered, an advisor skipped; close, reopen; withdraw
//	 2  critical irreversible; person step, plans anew
//	 4  minor irreversible; consult answered; validate failed; withdraw
//	 5  critical costly; consult answered; disagreement, resolve; validate failed
//	 6  material reversible; consult answered, with a failure; person step, enables,
//	    plans anew; close, reopen
//	 8  material costly; consult answered; withdraw
//	 9  trivial costly; attempt
//	12  material irreversible; consult answered; attempt; close, reopen
//	17  trivial reversible; reuse
//	20  trivial irreversible; reuse; withdraw
//	34  minor costly
//	41  minor reversible; sync merge; withdraw
//
// (The rarest in the first 50 seeds walked in a row were an advisor
// skipped, disagreement, resolve and person enables, once each, all in
// seeds 1 to 6, and sync merge, in seeds 39 and 41.) The full run
// (.ci/run) walks all 300, the same dimensions again on other draws and
// in other worlds.
var shortWalkSeeds = []uint64{1, 2, 4, 5, 6, 8, 9, 12, 17, 20, 34, 41}

// walkSeeds is seeds 1 to n.
func walkSeeds(n int) []uint64 {
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	return seeds
}

// TestNextWalkRandomBinary walks a few of the same seeded situations
// (the first four of TestNextWalkRandom's; the first alone with -short,
// where TestNextWalkBinary walks one more) through the real binaries:
// git's dispatch, a process per command, each reading its caches from
// disk.
func TestNextWalkRandomBinary(t *testing.T) {
	t.Parallel()
	walks := 4
	if testing.Short() {
		walks = 1 // about 3 s of CPU a walk through the binaries
	}
	walkRandom(t, walkSeeds(walks), true, false)
}

// walkRandom walks the situations of seeds, in this order, in this
// process on a resident session, or through the real binaries; with
// require, it fails when the walks never reached one of the dimensions
// the tally requires.
func walkRandom(t *testing.T, seeds []uint64, binary, require bool) {
	world := &walkWorld{modes: map[string]string{}}
	srv := httptest.NewServer(world) // loopback only
	t.Cleanup(srv.Close)
	s := newSandbox(t, walkHTTPAdvisors(srv.URL), nil, "WALK_ADVISOR_KEY=walk-key")
	s.git("commit", "-q", "--allow-empty", "-m", "base")
	origin := shareOrigin(t, s)
	s.git("push", "-q", "origin", "HEAD")
	peer := &sandbox{t: t, dir: filepath.Join(filepath.Dir(s.dir), "peer"), env: s.env}
	s.git("clone", "-q", origin, peer.dir)
	if err := os.MkdirAll(filepath.Join(peer.dir, ".reason"), 0o755); err != nil {
		t.Fatal(err)
	}
	harness.WriteFile(t, filepath.Join(peer.dir, ".reason", "advisors.yaml"), walkHTTPAdvisors(srv.URL))
	peer.git("reason", "trust")

	var run, runPeer walkRun
	if binary {
		through := func(s *sandbox) walkRun {
			return func(args ...string) (string, string, int) { return s.run(append([]string{"reason"}, args...)...) }
		}
		run, runPeer = through(s), through(peer)
	} else {
		inProcess(t, s) // this process's environment and directory are the sandbox's
		run, runPeer = resident(t, s.dir), resident(t, peer.dir)
	}
	tally, disabled := map[string]int{}, false
	start, cpu := time.Now(), harness.CPUTime()
	for _, seed := range seeds {
		sit, opts := randomSituation(seed)
		world.set(sit.modes)
		if disabled {
			s.git("config", "--unset", "reason.disable")
		}
		task := fmt.Sprintf("R-%d", seed)
		w := &walker{t: t, s: s, run: run, sit: sit, task: task, tally: tally, enable: opts.enable}
		if opts.sync {
			w.peer = &walker{t: t, s: peer, run: runPeer, sit: sit, task: task}
		}
		t.Logf("seed %d: %s", seed, sit.name)
		before := maps.Clone(tally)
		w.walk()
		var reached []string
		for d, n := range tally {
			if n > before[d] {
				reached = append(reached, d)
			}
		}
		sort.Strings(reached)
		t.Logf("seed %d reached: %s", seed, strings.Join(reached, "; "))
		disabled = w.disabled
	}
	wall, used := time.Since(start), harness.CPUTime()-cpu
	walks := len(seeds)
	t.Logf("%d walks: %.1f ms wall, %.1f ms CPU (this process and its children) a walk; %d advisor questions", walks,
		float64(wall.Microseconds())/1000/float64(walks), float64(used.Microseconds())/1000/float64(walks), world.asked)
	dims := make([]string, 0, len(tally))
	for d := range tally {
		dims = append(dims, d)
	}
	sort.Strings(dims)
	for _, d := range dims {
		t.Logf("  %-40s %d", d, tally[d])
	}
	if !require {
		return // too few walks to require every dimension
	}
	want := []string{"plan", "consult", "consult answered", "consult with a failure", "consult with an advisor skipped",
		"person step", "person enables", "person plans anew", "disagreement", "resolve", "conclude",
		"validate passed", "validate failed", "attempt", "close", "reopen", "withdraw", "sync merge", "reuse"}
	for _, m := range []string{"trivial", "minor", "material", "critical"} {
		for _, r := range []string{"reversible", "costly", "irreversible"} {
			want = append(want, "assess "+m+" "+r)
		}
	}
	for _, d := range want {
		if tally[d] == 0 {
			t.Errorf("%d walks never did %q", walks, d)
		}
	}
}

// walkOptions are what a random walk's person does besides following next.
type walkOptions struct {
	enable, sync bool
}

// randomSituation draws a situation from seed.
func randomSituation(seed uint64) (walkSituation, walkOptions) {
	rng := rand.New(rand.NewPCG(seed, 0))
	pick := func(words ...string) string { return words[rng.IntN(len(words))] }
	sit := walkSituation{
		materiality:   pick("trivial", "minor", "material", "critical"),
		reversibility: pick("reversible", "costly", "irreversible"),
		modes:         map[string]string{"adv-a": pick("endorse", "oppose", "garbage"), "adv-b": pick("endorse", "oppose", "garbage")},
	}
	if rng.IntN(4) == 0 {
		sit.subject = "Shared subject " + pick("one", "two") // a standing conclusion may be reused
	}
	if rng.IntN(3) == 0 {
		sit.validate = []string{"false", "true"}
	}
	disable, closeAt, attempt, withdraw := rng.IntN(5) == 0, "", rng.IntN(5) == 0, rng.IntN(5) == 0
	opts := walkOptions{enable: rng.IntN(2) == 0, sync: rng.IntN(20) == 0}
	// Drawn from a stream of its own, so that the draws above stay what
	// they were for every seed: the person disables one of two selected
	// advisors after planning, and consult skips it (a skip that does not
	// hang on when a circuit happens to reopen).
	disableOne := rand.New(rand.NewPCG(seed, 1)).IntN(8) == 0
	if rng.IntN(4) == 0 {
		closeAt = pick("assessed", "planned", "consulting", "concluded")
	}
	sit.name = fmt.Sprintf("%s %s, answers %v, validate %v, disable %v (enable %v), disable one %v, close at %q, withdraw %v, failed attempt %v, sync %v",
		sit.materiality, sit.reversibility, sit.modes, sit.validate, disable, opts.enable, disableOne, closeAt, withdraw, attempt, opts.sync)
	withdrawn := false
	sit.act = func(w *walker, st walkStatus) bool {
		switch {
		case disable && st.Phase == "planned" && len(st.Selected) > 0 && !w.disabled:
			w.s.git("config", "reason.disable", "adv-a,adv-b")
			w.disabled, w.cached = true, nil
			return true
		case disableOne && !disable && st.Phase == "planned" && len(st.Selected) > 1 && !w.disabled:
			w.s.git("config", "reason.disable", st.Selected[0])
			w.disabled, w.cached = true, nil
			return true
		case st.Phase == closeAt && !slices.Contains(w.ran, "close"):
			w.admit("close", w.task, "--outcome", "abandoned")
			if got := w.status(); got.Closed == nil || got.Next != "" || got.PersonStep != nil {
				w.t.Fatalf("a closed task shows closed %v, next %q, person step %v", got.Closed, got.Next, got.PersonStep)
			}
			w.admit("reopen", w.task)
			w.count("close")
			w.count("reopen")
			return true
		case withdraw && !withdrawn && st.Phase == "validated":
			withdrawn = true
			w.admit("withdraw", w.task, w.latest("validation"), "--reason", "run from the wrong directory")
			if got := w.status(); got.Phase != "concluded" || !strings.HasPrefix(got.Next, "git reason validate ") {
				w.t.Fatalf("after its only validation was withdrawn the task is %s, next %q", got.Phase, got.Next)
			}
			w.count("withdraw")
			return true
		case attempt && st.Phase == "validated" && !slices.Contains(w.ran, "attempt"):
			w.admit("attempt", w.task, "--commit", "HEAD", "--outcome", "failed")
			w.handoverNext = true
			w.count("attempt")
			return true
		}
		return false
	}
	return sit, opts
}

// latest is the id of the task's latest record of kind, from log.
func (w *walker) latest(kind string) string {
	w.t.Helper()
	var entries []struct{ ID, Kind string }
	w.json(&entries, "log", w.task)
	for i := len(entries) - 1; i >= 0; i-- { // log is oldest first
		if entries[i].Kind == kind {
			return entries[i].ID
		}
	}
	w.t.Fatalf("task %s has no %s", w.task, kind)
	return ""
}

// walkHTTPAdvisors declares adv-a and adv-b as chat-completions
// endpoints at url (models fake-model-1 and fake-model-2).
func walkHTTPAdvisors(url string) string {
	adv := func(id, model string) string {
		return "  - id: " + id + "\n    transport: api\n    adapter: chat_completions\n    base_url: " + url + "/v1\n" +
			"    credential: WALK_ADVISOR_KEY\n    provider: fake_tool\n    vendor: fakevendor\n    model: " + model +
			"\n    capabilities: [reasoning]\n    cooldown: 2s\n"
	}
	return fakeVendor + "advisors:\n" + adv("adv-a", "fake-model-1") + adv("adv-b", "fake-model-2")
}

// walkWorld answers the walk's advisors: each as its mode says.
type walkWorld struct {
	mu    sync.Mutex
	modes map[string]string // advisor → endorse, oppose or garbage
	asked int
}

func (w *walkWorld) set(modes map[string]string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.modes = modes
}

func (w *walkWorld) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string `json:"model"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(rw, "bad request", http.StatusBadRequest)
		return
	}
	adv := map[string]string{"fake-model-1": "adv-a", "fake-model-2": "adv-b"}[req.Model]
	w.mu.Lock()
	mode := w.modes[adv]
	w.asked++
	w.mu.Unlock()
	if mode == "garbage" {
		http.Error(rw, "service unavailable", http.StatusServiceUnavailable)
		return
	}
	answer := "not an answer"
	switch mode {
	case "", "endorse", "oppose":
		if mode == "" {
			mode = "endorse"
		}
		answer = fmt.Sprintf(`{"stance":%q,"summary":"%s: %s","confidence":0.7}`, mode, adv, mode)
	}
	out, _ := json.Marshal(map[string]any{"model": req.Model,
		"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": answer}}}})
	rw.Header().Set("Content-Type", "application/json")
	rw.Write(out)
}

// resident runs git reason in this process on one resident session of
// the repository at dir, for the rest of t.
func resident(t *testing.T, dir string) walkRun {
	t.Helper()
	sess, err := ops.Open(context.Background(), ops.Options{Dir: dir, Resident: true})
	if err != nil {
		t.Fatal(err)
	}
	servers := serving.Servers() // the HTTP adapters' client, as in git-reason--net
	servers.Session = sess
	return func(args ...string) (string, string, int) {
		var stdout, stderr bytes.Buffer
		code := cli.MainNet(servers, append([]string{"git-reason"}, args...), strings.NewReader(""), &stdout, &stderr)
		return stdout.String(), stderr.String(), code
	}
}
