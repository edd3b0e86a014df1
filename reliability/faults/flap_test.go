package faults

// Reliability item 6, advisor faults: one advisor whose server flaps
// between timeout, 429 (with and without Retry-After), 401, 5xx, a dropped
// connection, garbage, blank and valid answers, for 40 consultations (quick
// form), 200 (GIT_REASON_LONG=1), or with -short one of each (15).
//
// Each round plans the task's assessment anew and consults through
// advisor.Consult, recording through a record.Writer over a real git
// repository (gitstore), with availability derived as the tool derives it,
// advisor.Availability, over the outcomes recorded on the refs (the tool
// reads them from this clone's journal, dated by the real clock).
//
// Circuits open, so time is a fake clock (the writer's Now, which dates the
// records, and the availability's now): circuits are pure functions of the
// recorded outcomes and now. Between rounds the clock moves by a random
// step (1 s to 65 min); when the circuit is open at planning time, the plan
// made then must pass over the advisor with its snapshot saying open until
// the right moment, and the clock is moved to that moment and the plan made
// again, now selecting the advisor as recovering. A fresh origin per round
// was the alternative; it would never test a circuit opening.
//
// Pass: every round served exactly one request and recorded exactly one
// consultation whose status, failure kind, retry_after_s and model agree
// with what the server's own log says it did; after every round
// advisor.Circuit over the recorded outcomes agrees with an independent
// model of the rules (DESIGN.md, "Advisors, availability and circuits"),
// and every plan's snapshot agrees with it too; a teammate's failures
// recorded under another origin change nothing; records of this origin =
// requests served; gitstore.Store.Verify (record.Checked.Replay), 'git reason
// verify' and 'git fsck --strict' are clean.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"git-reason/advisor"
	"git-reason/gitstore"
	"git-reason/policy"
	"git-reason/record"
	"git-reason/record/storetest"
	"git-reason/reliability/harness"
)

// flapAct is one thing the flapping server does, and the outcome it must
// produce: the consultation's status or failure kind, and retry_after_s.
type flapAct struct {
	name       string
	kind       string // completed, or the failure kind
	retryAfter int    // seconds sent in Retry-After; 0 sends none
	model      string // the model reported by a valid answer; "" reports none
}

// flapActs are the behaviours, with weights: valid answers are a third, so
// that circuits also close.
var flapActs = []struct {
	act    flapAct
	weight int
}{
	{flapAct{name: "timeout", kind: "timeout"}, 2},
	{flapAct{name: "429 retry-after 1", kind: "rate_limit", retryAfter: 1}, 1},
	{flapAct{name: "429 retry-after 90", kind: "rate_limit", retryAfter: 90}, 1},
	{flapAct{name: "429 retry-after 4000", kind: "rate_limit", retryAfter: 4000}, 1},
	{flapAct{name: "429", kind: "rate_limit"}, 1},
	{flapAct{name: "401", kind: "authentication"}, 2},
	{flapAct{name: "500", kind: "unavailable"}, 1},
	{flapAct{name: "502", kind: "unavailable"}, 1},
	{flapAct{name: "503", kind: "unavailable"}, 1},
	{flapAct{name: "hang up", kind: "unavailable"}, 1},
	{flapAct{name: "garbage html", kind: "malformed"}, 1},
	{flapAct{name: "garbage prose", kind: "malformed"}, 1},
	{flapAct{name: "blank", kind: "empty"}, 1},
	{flapAct{name: "valid", kind: "completed", model: "made-up-flap-model-r2"}, 5},
	{flapAct{name: "valid without model", kind: "completed"}, 3},
}

// flapSchedule is the act for each request, from a seeded generator: every
// act at least once when n allows, the rest by weight, shuffled.
func flapSchedule(n int, rng *rand.Rand) []flapAct {
	var out, bag []flapAct
	for _, a := range flapActs {
		out = append(out, a.act)
		for i := 0; i < a.weight; i++ {
			bag = append(bag, a.act)
		}
	}
	for len(out) < n {
		out = append(out, bag[rng.IntN(len(bag))])
	}
	out = out[:n]
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// flapServer serves chat_completions, doing for its k-th request what the
// schedule says, and keeps its own log of what it did.
type flapServer struct {
	*httptest.Server
	schedule []flapAct
	closing  chan struct{}
	mu       sync.Mutex
	log      []flapAct
}

func newFlapServer(t *testing.T, schedule []flapAct) *flapServer {
	s := &flapServer{schedule: schedule, closing: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	t.Cleanup(func() { close(s.closing) })
	return s
}

func (s *flapServer) served() []flapAct {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]flapAct(nil), s.log...)
}

func (s *flapServer) serve(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body) // lets the server see the client hang up
	s.mu.Lock()
	k := len(s.log)
	act := flapAct{name: "beyond the schedule", kind: "unavailable"}
	if k < len(s.schedule) {
		act = s.schedule[k]
	}
	s.log = append(s.log, act)
	s.mu.Unlock()
	if r.URL.Path != "/v1/chat/completions" {
		http.Error(w, "wrong path "+r.URL.Path, http.StatusNotFound)
		return
	}
	answer := func(content any, model string) {
		resp := map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}}}
		if model != "" {
			resp["model"] = model
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	}
	switch act.name {
	case "timeout":
		select { // past the advisor's timeout: until the client gives up
		case <-r.Context().Done():
		case <-s.closing:
		case <-time.After(time.Minute):
		}
	case "hang up":
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	case "garbage html":
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body>502 upstream sent garbage</body></html>")
	case "garbage prose":
		answer("I think this is mostly fine, but I cannot say more.", "")
	case "blank":
		answer("  \n ", "")
	case "valid", "valid without model":
		answer("```json\n"+`{"stance":"endorse_with_changes","summary":"Fine once the retry budget is bounded.","recommendations":["bound the retries"],"risks":["retry storms"],"confidence":0.65}`+"\n```", act.model)
	default: // a status code, with Retry-After for a 429 that gives one
		code, _ := strconv.Atoi(strings.Fields(act.name)[0])
		if act.retryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(act.retryAfter))
		}
		http.Error(w, `{"error":{"message":"flapping"}}`, code)
	}
}

// fakeClock is the time the writer dates records with and availability is
// derived at; only the test moves it.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// flapAvail derives availability as the tool does, through
// advisor.Availability, over every consultation outcome on the refs and
// the fake clock. The tool reads the outcomes from this clone's journal
// (advisor.Journal), which the driver dates by the real clock; the
// records are dated by the fake one.
type flapAvail struct {
	store  *gitstore.Store
	decl   advisor.Declaration
	origin string
	clock  *fakeClock
}

type presentEnv struct{}

func (presentEnv) LookPath(string) bool      { return true }
func (presentEnv) CredentialSet(string) bool { return true }

// outcomes are the consultation records of every task, whatever their
// origin (advisor.Circuit keeps this origin's), in each task's order.
func (a *flapAvail) outcomes(ctx context.Context) ([]advisor.Outcome, error) {
	tasks, err := a.store.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	var out []advisor.Outcome
	for _, th := range tasks {
		_, recs, err := a.store.Load(ctx, th.Task)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			if r.Kind != record.KindConsultation {
				continue
			}
			var c record.Consultation
			if err := json.Unmarshal(r.Body, &c); err != nil {
				return nil, fmt.Errorf("read consultation %s: %w", r.ID, err)
			}
			at, err := time.Parse(time.RFC3339Nano, r.Created)
			if err != nil {
				return nil, fmt.Errorf("read consultation %s: created time: %w", r.ID, err)
			}
			o := advisor.Outcome{Advisor: c.Advisor, Origin: r.Origin, Status: c.Status, At: at}
			if c.Failure != nil {
				o.FailureKind, o.RetryAfterS = advisor.FailureKind(c.Failure.Kind), c.Failure.RetryAfterS
			}
			out = append(out, o)
		}
	}
	return out, nil
}

func (a *flapAvail) Snapshot(ctx context.Context) (policy.Profile, []policy.Advisor, error) {
	outs, err := a.outcomes(ctx)
	if err != nil {
		return policy.Profile{}, nil, err
	}
	snap := advisor.Availability([]advisor.Declaration{a.decl}, advisor.Inputs{Env: presentEnv{}, Mode: policy.ModeNormal,
		Origin: a.origin, Outcomes: outs, Now: a.clock.Now()})
	return policy.Profile{Name: "default", Mode: policy.ModeNormal}, snap, nil
}

// circuitModel is the expectation: the circuit rules of DESIGN.md written
// out again, independently of advisor.Circuit. Until zero means closed.
type circuitModel struct {
	cooldown  time.Duration
	transient int
	until     time.Time
	opened    int // times a failure opened (or re-opened) it
}

func (m *circuitModel) observe(at time.Time, kind string, retryAfter int) {
	if kind == "malformed" || kind == "empty" {
		return // an answer that did not read: nothing of availability
	}
	open := !m.until.IsZero() && at.Before(m.until)
	halfOpen := !m.until.IsZero() && !open
	if kind == "completed" {
		if !open {
			m.until, m.transient = time.Time{}, 0
		}
		return
	}
	d := m.cooldown
	switch {
	case kind == "authentication":
		d = time.Hour
	case kind == "rate_limit" && retryAfter > 0:
		d = min(time.Duration(retryAfter)*time.Second, m.cooldown)
	}
	end := at.Add(d)
	switch {
	case open:
		if end.After(m.until) {
			m.until = end
		}
	case halfOpen, kind == "rate_limit", kind == "authentication":
		m.until, m.transient = end, 0
		m.opened++
	default: // timeout, unavailable: two in a row open it
		if m.transient++; m.transient == 2 {
			m.until, m.transient = end, 0
			m.opened++
		}
	}
}

func (m *circuitModel) status(now time.Time) (policy.Status, time.Time) {
	switch {
	case m.until.IsZero():
		return policy.StatusAvailable, time.Time{}
	case now.Before(m.until):
		return policy.StatusOpen, m.until
	}
	return policy.StatusRecovering, time.Time{}
}

// flapFigures are what the run counts, for the log and the document.
type flapFigures struct {
	rounds, served, recorded, teammate, openAtPlan, recoveringAtPlan, opened, tasks int
	kinds                                                                           map[string]int
	span                                                                            time.Duration
}

func TestAdvisorFlaps(t *testing.T) {
	harness.NeedGit(t)
	n := 40
	switch {
	case long():
		n = 200
	case testing.Short(): // every act once (see flapSchedule), one timeout among them
		n = len(flapActs)
	}
	seed := uint64(5)
	if s, err := strconv.ParseUint(os.Getenv("FAULTS_SEED"), 10, 64); err == nil {
		seed = s
	}
	rng := rand.New(rand.NewPCG(seed, 6))
	start := time.Now()

	root := t.TempDir()
	newHome(t, root)
	repoDir := filepath.Join(root, "repo")
	env := gitEnv(root, nil)
	if r := runIn(t, root, env, "git", "init", "-q", repoDir); r.code != 0 {
		t.Fatalf("git init: %s", r.stderr)
	}
	store, err := gitstore.Open(repoDir)
	if err != nil {
		t.Fatal(err)
	}
	index := gitstore.Index{Store: store}

	srv := newFlapServer(t, flapSchedule(n, rng))
	t.Setenv("FAULTS_FLAP_KEY", "flap-key-not-a-secret")
	decl := advisor.Declaration{ID: "adv-flap", Transport: "api", Adapter: "chat_completions", BaseURL: srv.URL + "/v1",
		Credential: "FAULTS_FLAP_KEY", Vendor: "fz_flap_maker", Model: "made-up-flap-model", Capabilities: []string{"reasoning"},
		Cooldown: advisor.Duration(10 * time.Minute), Timeout: advisor.Duration(2 * time.Second)}
	const origin = "origin-flap"
	t0 := time.Date(2031, 3, 1, 9, 0, 0, 0, time.UTC)
	clock := &fakeClock{now: t0}
	avail := &flapAvail{store: store, decl: decl, origin: origin, clock: clock}
	w := &record.Writer{Store: store, Index: index, Avail: avail, Actor: "Rel Tester <rel@example.invalid>", Origin: origin, Now: clock.Now}
	mate := &record.Writer{Store: store, Index: index, Avail: avail, Actor: "Mate <mate@example.invalid>", Origin: "origin-teammate", Now: clock.Now}

	ctx := context.Background()
	model := &circuitModel{cooldown: decl.CooldownOrDefault()}
	fig := flapFigures{kinds: map[string]int{}}
	var task string
	var assessment *record.Entry
	for round := 0; round < n; round++ {
		if round%25 == 0 { // a new task now and then: circuits span tasks
			fig.tasks++
			task = fmt.Sprintf("flap-%02d", fig.tasks)
			a, err := w.Append(ctx, task, record.KindAssessment, []byte(`{"subject":"retry budget `+strconv.Itoa(fig.tasks)+`","question":"retry 5xx answers?","materiality":"material","reversibility":"costly","evidence":[{"kind":"note","summary":"outage log"}]}`))
			if err != nil {
				t.Fatalf("assess %s: %v", task, err)
			}
			assessment = a.Entry
		}
		plan := flapPlan(t, w, task, assessment, model, clock, &fig)

		before := len(srv.served())
		results := advisor.Consult(ctx, w, advisor.Run{Task: task, Plan: plan, Assessment: assessment, Advisors: []advisor.Declaration{decl}}).Results
		served := srv.served()
		if len(served) != before+1 {
			t.Fatalf("round %d: the server served %d requests for one consultation", round, len(served)-before)
		}
		act := served[len(served)-1]
		fig.kinds[act.kind]++
		if len(results) != 1 || results[0].Err != nil || results[0].Record == "" {
			t.Fatalf("round %d (%s): consult results %+v", round, act.name, results)
		}
		checkRecorded(t, store, task, results[0].Record, act, decl, round)
		model.observe(clock.Now(), act.kind, act.retryAfter)

		if round%7 == 3 { // a teammate's failure on my plan, under their origin
			c := &record.Consultation{Plan: plan.ID, Advisor: decl.ID, Status: "failed", Transport: "api",
				Failure: &record.Failure{Kind: "authentication"}}
			if _, err := mate.AppendConsultation(ctx, task, c, nil); err != nil {
				t.Fatalf("round %d: teammate's outcome: %v", round, err)
			}
			fig.teammate++
		}
		compareCircuit(t, avail, decl, model, clock.Now(), fmt.Sprintf("round %d after %s", round, act.name))
		clock.Set(clock.Now().Add([]time.Duration{time.Second, 45 * time.Second, 3 * time.Minute, 11 * time.Minute, 65 * time.Minute}[rng.IntN(5)]))
		compareCircuit(t, avail, decl, model, clock.Now(), fmt.Sprintf("round %d, later", round))
		fig.rounds++
	}
	fig.opened, fig.span, fig.served = model.opened, clock.Now().Sub(t0), len(srv.served())

	// Nothing lost, nothing duplicated: this origin's consultations are
	// the requests served, one for one and in order.
	outs, err := avail.outcomes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var mine []advisor.Outcome
	for _, o := range outs {
		if o.Origin == origin {
			mine = append(mine, o)
		}
	}
	sort.SliceStable(mine, func(i, j int) bool { return mine[i].At.Before(mine[j].At) })
	fig.recorded = len(mine)
	if len(mine) != fig.served || fig.served != n {
		t.Errorf("%d consultations recorded by this origin, %d requests served, %d rounds", len(mine), fig.served, n)
	}
	for i, act := range srv.served() {
		if i < len(mine) && outcomeKind(mine[i]) != act.kind {
			t.Errorf("request %d: the server did %s (%s), the record says %s", i, act.name, act.kind, outcomeKind(mine[i]))
		}
	}

	verifyClean(t, store, root, repoDir, env)
	t.Logf("flap (seed %d): %d rounds over %d tasks, %d requests served, %d consultations recorded (+%d by a teammate), outcomes %v; circuit opened %d times, open at planning %d times, recovering at planning %d times; fake time %s, wall %s",
		seed, fig.rounds, fig.tasks, fig.served, fig.recorded, fig.teammate, fig.kinds, fig.opened, fig.openAtPlan, fig.recoveringAtPlan, fig.span.Round(time.Minute), time.Since(start).Round(time.Millisecond))
}

func outcomeKind(o advisor.Outcome) string {
	if o.Status == advisor.OutcomeCompleted {
		return "completed"
	}
	return string(o.FailureKind)
}

// flapPlan plans the assessment at the clock's time. When the model says
// the circuit is open, that plan must pass over the advisor with the
// snapshot saying open until the model's time; the clock then moves to that
// moment and the plan is made again. The plan returned selects the advisor,
// with the snapshot status the model expects.
func flapPlan(t *testing.T, w *record.Writer, task string, a *record.Entry, m *circuitModel, clock *fakeClock, fig *flapFigures) *record.Entry {
	t.Helper()
	ctx := context.Background()
	body := []byte(`{"assessment":"` + a.ID + `"}`)
	for attempt := 0; ; attempt++ {
		want, until := m.status(clock.Now())
		p, err := w.Append(ctx, task, record.KindPlan, body)
		if err != nil {
			t.Fatalf("plan: %v", err)
		}
		pd := p.Derived.(*record.PlanDerived)
		if len(pd.Snapshot) != 1 || pd.Snapshot[0].Status != string(want) {
			t.Fatalf("plan at %s: snapshot %+v, the model says %s", clock.Now().Format(time.RFC3339), pd.Snapshot, want)
		}
		if want != policy.StatusOpen {
			if len(pd.Selected) != 1 || pd.Selected[0] != "adv-flap" {
				t.Fatalf("plan at %s: selected %v while the advisor is %s", clock.Now().Format(time.RFC3339), pd.Selected, want)
			}
			if want == policy.StatusRecovering {
				fig.recoveringAtPlan++
			}
			return p.Entry
		}
		fig.openAtPlan++
		if len(pd.Selected) != 0 || pd.Snapshot[0].Until != until.UTC().Format(time.RFC3339) {
			t.Fatalf("plan while open: selected %v, until %q; want none, until %s", pd.Selected, pd.Snapshot[0].Until, until.UTC().Format(time.RFC3339))
		}
		if attempt > 0 {
			t.Fatalf("the circuit is still open at %s, its own end", clock.Now())
		}
		clock.Set(until)
	}
}

// checkRecorded compares the stored consultation with what the server did.
func checkRecorded(t *testing.T, store *gitstore.Store, task, id string, act flapAct, d advisor.Declaration, round int) {
	t.Helper()
	st, _ := storetest.State(t, store, task)
	e := st.Get(id)
	if e == nil || e.Kind != record.KindConsultation {
		t.Fatalf("round %d: consultation %s is not on %s", round, id, task)
	}
	c, md := e.Body.(*record.Consultation), e.Derived.(*record.ConsultationDerived)
	where := fmt.Sprintf("round %d (%s)", round, act.name)
	switch {
	case act.kind == "completed":
		wantModel := record.Model{Name: act.model, Source: "reported"}
		if act.model == "" {
			wantModel = record.Model{Name: d.Model, Source: "declared"}
		}
		if c.Status != "completed" || c.Conclusion == nil || md.Model == nil || *md.Model != wantModel {
			t.Errorf("%s: recorded %s %+v, model %+v; want completed by %+v", where, c.Status, c.Failure, md.Model, wantModel)
		}
	case c.Status != "failed" || c.Failure == nil || c.Failure.Kind != act.kind:
		t.Errorf("%s: recorded %s %+v, want failed %s", where, c.Status, c.Failure, act.kind)
	case c.Failure.RetryAfterS != act.retryAfter:
		t.Errorf("%s: retry_after_s %d, want %d", where, c.Failure.RetryAfterS, act.retryAfter)
	}
}

// compareCircuit holds advisor.Circuit over the recorded outcomes to the
// model at now.
func compareCircuit(t *testing.T, a *flapAvail, d advisor.Declaration, m *circuitModel, now time.Time, where string) {
	t.Helper()
	outs, err := a.outcomes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got, why, until := advisor.Circuit(d, a.origin, outs, now)
	want, wantUntil := m.status(now)
	if got != want || !until.Equal(wantUntil) {
		t.Fatalf("%s: advisor.Circuit says %s until %s (%s); the model says %s until %s",
			where, got, until.Format(time.RFC3339), why, want, wantUntil.Format(time.RFC3339))
	}
}

// verifyClean replays every task through gitstore.Store.Verify, then runs
// 'git reason verify' (the real binary) and 'git fsck --strict'.
func verifyClean(t *testing.T, store *gitstore.Store, root, repo string, env []string) {
	t.Helper()
	ctx := context.Background()
	tasks, err := store.Tasks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range tasks {
		found, err := store.Verify(ctx, th.Task, th.Head)
		if err != nil {
			t.Fatalf("verify %s: %v", th.Task, err)
		}
		for _, f := range found {
			t.Errorf("verify: %s", f)
		}
	}
	if _, err := exec.LookPath("go"); err == nil {
		bin := buildBinary(t)
		r := runIn(t, repo, gitEnv(root, []string{bin}), "git", "reason", "verify")
		if r.code != 0 {
			t.Errorf("git reason verify exited %d:\n%s%s", r.code, r.stdout, r.stderr)
		}
	}
	if r := runIn(t, repo, env, "git", "fsck", "--strict", "--no-dangling"); r.code != 0 {
		t.Errorf("git fsck --strict exited %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
}
