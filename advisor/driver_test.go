package advisor_test

// Tests of the consult driver (Consult, Conflicting, OpenDisagreement)
// against the real writer over an in-memory store, with fake advisors:
// httptest servers speaking chat_completions and small shell scripts for
// exec. Every advisor, vendor and model name here is made up.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"git-reason/advisor"
	"git-reason/policy"
	"git-reason/record"
	"git-reason/record/storetest"
)

const task = "T-drv"

// criticalBody is an assessment that requires review by two advisors.
const criticalBody = `{"subject":"queue backend","question":"keep the queue in the database?","materiality":"critical","reversibility":"costly","needs":["reasoning"],"evidence":[{"kind":"note","summary":"peak load measured at 2k msg/s"}]}`

// fixture is one task, assessed and planned, ready to be consulted.
type fixture struct {
	store      *record.MemStore
	w          *record.Writer
	assessment *record.Entry
	plan       *record.Entry
}

// planned assesses a critical decision and plans it with every id in ids
// available, in that order, and returns the task ready to consult. Policy
// selects at most two advisors; for more, the writer's plan is copied with
// its selection widened to ids (the driver consults whatever a plan
// selected, and the writer admits consultations by that selection), and the
// copy is checked against the record schemas before it is stored.
func planned(t testing.TB, ids ...string) *fixture {
	t.Helper()
	ctx := context.Background()
	avail := &storetest.Avail{}
	for _, id := range ids {
		avail.Advisors = append(avail.Advisors, policy.Advisor{ID: id, Status: policy.StatusAvailable,
			Reason: "ready", Capabilities: []string{"reasoning"}})
	}
	f := &fixture{store: record.NewMemStore()}
	f.w = storetest.Writer(f.store, avail)
	a, err := f.w.Append(ctx, task, record.KindAssessment, []byte(criticalBody))
	if err != nil {
		t.Fatalf("assess: %v", err)
	}
	p, err := f.w.Append(ctx, task, record.KindPlan, []byte(fmt.Sprintf(`{"assessment":%q}`, a.ID)))
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	f.assessment, f.plan = a.Entry, p.Entry
	pd := p.Derived.(*record.PlanDerived)
	if len(ids) <= len(pd.Selected) {
		if strings.Join(pd.Selected, ",") != strings.Join(ids, ",") {
			t.Fatalf("plan selected %v, want %v", pd.Selected, ids)
		}
		return f
	}
	// Widen the selection on a copy of the two records in a fresh store.
	_, recs, err := f.store.Load(ctx, task)
	if err != nil {
		t.Fatal(err)
	}
	wide := *recs[1]
	d := *pd
	d.Selected, d.Wanted = append([]string{}, ids...), len(ids)
	if wide.Derived, err = json.Marshal(&d); err != nil {
		t.Fatal(err)
	}
	if err := record.CheckRecord(&wide); err != nil {
		t.Fatalf("widened plan does not validate: %v", err)
	}
	f.store = record.NewMemStore()
	f.w = storetest.Writer(f.store, avail)
	head, err := f.store.Append(ctx, task, "", recs[0])
	if err == nil {
		_, err = f.store.Append(ctx, task, head, &wide)
	}
	if err != nil {
		t.Fatal(err)
	}
	st := f.state(t)
	f.assessment, f.plan = st.Get(recs[0].ID), st.Get(wide.ID)
	return f
}

func (f *fixture) state(t testing.TB) *record.State {
	t.Helper()
	st, _ := storetest.State(t, f.store, task)
	return st
}

func (f *fixture) run(decls ...advisor.Declaration) advisor.Run {
	return advisor.Run{Task: task, Plan: f.plan, Assessment: f.assessment, Advisors: decls}
}

// consultations checks every record on the task against its schemas and
// returns the consultations in the order they were stored.
func (f *fixture) consultations(t testing.TB) []*record.Entry {
	t.Helper()
	_, recs, err := f.store.Load(context.Background(), task)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := record.CheckRecord(r); err != nil {
			t.Errorf("stored %s %s does not validate: %v", r.Kind, r.ID, err)
		}
	}
	var out []*record.Entry
	for _, e := range f.state(t).Entries {
		if e.Kind == record.KindConsultation {
			out = append(out, e)
		}
	}
	return out
}

// fakeChat is a chat_completions server that answers content after delay,
// reporting model ("" reports none). It gives up when the client does, so
// that a hanging fake (delay of an hour) ends with the request.
func fakeChat(t testing.TB, delay time.Duration, model, content string) *httptest.Server {
	t.Helper()
	return fakeChatWhen(t, func() <-chan struct{} {
		c := make(chan struct{})
		time.AfterFunc(delay, func() { close(c) })
		return c
	}, model, content)
}

// fakeChatWhen is fakeChat answering when the channel ready gives, called
// as each request arrives, is closed.
func fakeChatWhen(t testing.TB, ready func() <-chan struct{}, model, content string) *httptest.Server {
	t.Helper()
	closing := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Reading the body to its end lets the server notice a client
		// that hangs up, which ends r.Context().
		_, _ = io.Copy(io.Discard, r.Body)
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		select {
		case <-ready():
		case <-r.Context().Done():
			return
		case <-closing:
			return
		}
		resp := map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}}}
		if model != "" {
			resp["model"] = model
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(closing) }) // runs first: no handler outlives the test
	return srv
}

func answer(stance string) string {
	return fmt.Sprintf(`{"stance":%q,"summary":"fake view: %s","confidence":0.8}`, stance, stance)
}

// chatAdvisor declares an api advisor reached at srv.
func chatAdvisor(id string, srv *httptest.Server, model string) advisor.Declaration {
	return advisor.Declaration{ID: id, Transport: "api", Adapter: "chat_completions", BaseURL: srv.URL + "/v1",
		Vendor: "fakevendor", Model: model, Capabilities: []string{"reasoning"}, Timeout: advisor.Duration(30 * time.Second)}
}

// execAdvisor declares a cli advisor running a shell script.
func execAdvisor(t testing.TB, id, script string) advisor.Declaration {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake advisor is a shell script")
	}
	p := filepath.Join(t.TempDir(), id+".sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	return advisor.Declaration{ID: id, Transport: "cli", Adapter: "exec", Executable: p, Command: []string{p},
		Vendor: "fakevendor", Model: "fake-model-x", Capabilities: []string{"reasoning"}, Timeout: advisor.Duration(30 * time.Second)}
}

func ids(rs []advisor.Result) string {
	var s []string
	for _, r := range rs {
		s = append(s, r.Advisor)
	}
	return strings.Join(s, ",")
}

// Three advisors are asked at once: each fake answers only once all three
// have been asked, so that asked one after another the first waits in
// vain until its timeout. (Timing three fakes of a second each against a
// 2 s bound failed on a loaded machine, where storing the records took
// the rest.)
func TestConsultAsksConcurrently(t *testing.T) {
	f := planned(t, "adv-a", "adv-b", "adv-c")
	var asked atomic.Int32
	all := make(chan struct{})
	ready := func() <-chan struct{} {
		if asked.Add(1) == 3 {
			close(all)
		}
		return all
	}
	var decls []advisor.Declaration
	for i, id := range []string{"adv-a", "adv-b", "adv-c"} {
		d := chatAdvisor(id, fakeChatWhen(t, ready, "", answer("endorse")), fmt.Sprintf("fake-model-%d", i+1))
		d.Timeout = advisor.Duration(20 * time.Second)
		decls = append(decls, d)
	}
	res := advisor.Consult(context.Background(), f.w, f.run(decls...)).Results
	if n := asked.Load(); n != 3 {
		t.Errorf("%d requests reached the fakes, want 3", n)
	}
	for _, r := range res {
		if r.Err != nil || !r.Completed() || r.Record == "" {
			t.Errorf("%s: completed %v, record %q, err %v", r.Advisor, r.Completed(), r.Record, r.Err)
		}
	}
	if got := f.consultations(t); len(got) != 3 {
		t.Errorf("%d consultations stored, want 3", len(got))
	}
}

// Results come back in plan order; records are stored as answers arrive.
func TestConsultResultsInPlanOrder(t *testing.T) {
	f := planned(t, "adv-a", "adv-b", "adv-c")
	// The first advisor answers last and the last first: adv-b answers
	// once adv-c's answer is recorded, adv-a once adv-b's is. Gaps of
	// time (1.2 s, 2.4 s) were outlasted on a loaded machine.
	cDone, bDone := make(chan struct{}), make(chan struct{})
	a := chatAdvisor("adv-a", fakeChatWhen(t, func() <-chan struct{} { return bDone }, "", answer("endorse")), "fake-model-1")
	b := chatAdvisor("adv-b", fakeChatWhen(t, func() <-chan struct{} { return cDone }, "", answer("endorse_with_changes")), "fake-model-2")
	c := execAdvisor(t, "adv-c", `cat >/dev/null; echo '`+answer("insufficient_information")+`'`)
	var mu sync.Mutex
	var events []string
	run := f.run(a, b, c)
	run.Progress = func(ev advisor.Event) {
		mu.Lock()
		defer mu.Unlock()
		if ev.Asked != nil {
			events = append(events, ev.Advisor)
			switch ev.Advisor {
			case "adv-c":
				close(cDone)
			case "adv-b":
				close(bDone)
			}
		}
	}
	res := advisor.Consult(context.Background(), f.w, run).Results
	if got := ids(res); got != "adv-a,adv-b,adv-c" {
		t.Errorf("results in order %s, want plan order adv-a,adv-b,adv-c", got)
	}
	want := map[string]string{"adv-a": "endorse", "adv-b": "endorse_with_changes", "adv-c": "insufficient_information"}
	for _, r := range res {
		if !r.Completed() || r.Conclusion.Stance != want[r.Advisor] {
			t.Errorf("%s: %+v, want stance %s", r.Advisor, r.Asked, want[r.Advisor])
		}
	}
	// The records, and the progress events, follow arrival: fastest first.
	var stored []string
	byID := map[string]string{}
	for _, e := range f.consultations(t) {
		adv := e.Body.(*record.Consultation).Advisor
		stored = append(stored, adv)
		byID[e.ID] = adv
	}
	if got := strings.Join(stored, ","); got != "adv-c,adv-b,adv-a" {
		t.Errorf("records stored in order %s, want arrival order adv-c,adv-b,adv-a", got)
	}
	if got := strings.Join(events, ","); got != "adv-c,adv-b,adv-a" {
		t.Errorf("progress reported %s, want arrival order adv-c,adv-b,adv-a", got)
	}
	for _, r := range res {
		if byID[r.Record] != r.Advisor {
			t.Errorf("result of %s names record %s, which is %q's", r.Advisor, r.Record, byID[r.Record])
		}
	}
}

// hangs is a chat server that never answers before the client gives up.
func hangs(t testing.TB) *httptest.Server { return fakeChat(t, time.Hour, "", answer("endorse")) }

// checkFailed requires exactly one stored consultation per advisor, each
// valid, and the failure kind given for every advisor in failed (the others
// completed).
func checkFailed(t *testing.T, f *fixture, res []advisor.Result, n int, failed map[string]string) {
	t.Helper()
	got := f.consultations(t)
	if len(got) != n {
		t.Fatalf("%d consultations stored, want exactly %d", len(got), n)
	}
	for _, e := range got {
		c := e.Body.(*record.Consultation)
		kind, ok := failed[c.Advisor]
		switch {
		case ok && (c.Status != "failed" || c.Failure == nil || c.Failure.Kind != kind || c.Conclusion != nil):
			t.Errorf("%s stored as %s %+v, want failed: %s", c.Advisor, c.Status, c.Failure, kind)
		case ok && e.Derived.(*record.ConsultationDerived).Model != nil:
			t.Errorf("%s failed but names a model", c.Advisor)
		case !ok && (c.Status != "completed" || c.Conclusion == nil):
			t.Errorf("%s stored as %s %+v, want completed", c.Advisor, c.Status, c.Failure)
		}
	}
	for _, r := range res {
		if r.Err != nil || r.Record == "" {
			t.Errorf("%s: record %q, err %v", r.Advisor, r.Record, r.Err)
		}
		if kind, ok := failed[r.Advisor]; ok && (r.Failure == nil || r.Failure.Kind != kind) {
			t.Errorf("%s: result failure %+v, want %s", r.Advisor, r.Failure, kind)
		}
	}
}

// The run's deadline ends the advisors still waiting: recorded as timeout.
func TestConsultDeadlineRecordsTimeout(t *testing.T) {
	f := planned(t, "adv-a", "adv-b", "adv-c")
	decls := []advisor.Declaration{
		chatAdvisor("adv-a", hangs(t), "fake-model-1"),
		chatAdvisor("adv-b", fakeChat(t, 0, "", answer("endorse")), "fake-model-2"),
		execAdvisor(t, "adv-c", "cat >/dev/null; sleep 30; echo '"+answer("endorse")+"'"),
	}
	// 3 s: adv-b, answering at once, must complete first; under load it
	// did not within the 400 ms first given ("stored as failed timeout").
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	start := time.Now()
	res := advisor.Consult(ctx, f.w, f.run(decls...)).Results
	// Within 20 s: the exec fake sleeps 30 s and the HTTP one hangs, so
	// this still shows that the deadline ended them; a loaded machine
	// took more than the 3 s first allowed to start and stop a process.
	if wall := time.Since(start); wall > 20*time.Second {
		t.Errorf("the run took %v after a 3 s deadline", wall)
	}
	checkFailed(t, f, res, 3, map[string]string{"adv-a": "timeout", "adv-c": "timeout"})
}

// An advisor's own declared timeout ends it even when the run has time.
func TestConsultAdvisorTimeout(t *testing.T) {
	f := planned(t, "adv-a", "adv-b")
	slow := chatAdvisor("adv-a", hangs(t), "fake-model-1")
	slow.Timeout = advisor.Duration(200 * time.Millisecond)
	res := advisor.Consult(context.Background(), f.w, f.run(slow, chatAdvisor("adv-b", fakeChat(t, 0, "", answer("endorse")), "fake-model-2"))).Results
	checkFailed(t, f, res, 2, map[string]string{"adv-a": "timeout"})
}

// Ctrl-C (the context cancelled mid-flight) is recorded as cancelled, for
// HTTP and exec advisors alike, and nothing is left half-written.
func TestConsultCancelRecordsCancelled(t *testing.T) {
	f := planned(t, "adv-a", "adv-b", "adv-c")
	decls := []advisor.Declaration{
		chatAdvisor("adv-a", hangs(t), "fake-model-1"),
		execAdvisor(t, "adv-b", "cat >/dev/null; sleep 30; echo '"+answer("endorse")+"'"),
		chatAdvisor("adv-c", fakeChat(t, 0, "", answer("oppose")), "fake-model-3"),
	}
	ctx, cancel := context.WithCancel(context.Background())
	run := f.run(decls...)
	var once sync.Once
	run.Progress = func(ev advisor.Event) {
		// Cancel once the fast advisor's answer is recorded: the other two
		// are then certainly in flight.
		if ev.Asked != nil && ev.Advisor == "adv-c" {
			once.Do(func() { time.AfterFunc(100*time.Millisecond, cancel) })
		}
	}
	start := time.Now()
	res := advisor.Consult(ctx, f.w, run).Results
	cancel()
	if wall := time.Since(start); wall > 20*time.Second { // the fakes hang or sleep 30 s
		t.Errorf("the run took %v after being cancelled", wall)
	}
	checkFailed(t, f, res, 3, map[string]string{"adv-a": "cancelled", "adv-b": "cancelled"})
}

// Conflicting stances make the driver open a disagreement (opened_by
// driver) itself, citing both answers, once; the conclusion is refused
// until it is resolved.
func TestConsultConflictOpensDisagreement(t *testing.T) {
	ctx := context.Background()
	f := planned(t, "adv-a", "adv-b")
	rep := advisor.Consult(ctx, f.w, f.run(
		chatAdvisor("adv-a", fakeChat(t, 0, "", answer("endorse")), "fake-model-1"),
		chatAdvisor("adv-b", fakeChat(t, 0, "", answer("oppose")), "fake-model-2")))
	res, d := rep.Results, rep.Disagreement
	if rep.Err != nil || d == nil {
		t.Fatalf("Consult over endorse and oppose: disagreement %v, err %v; want a disagreement", d, rep.Err)
	}
	if by := d.Derived.(*record.DisagreementDerived).OpenedBy; by != "driver" {
		t.Errorf("opened_by %q, want driver", by)
	}
	cites := d.Body.(*record.Disagreement).Cites
	if len(cites) != 2 || !(contains(cites, res[0].Record) && contains(cites, res[1].Record)) {
		t.Errorf("cites %v, want both consultations %s and %s", cites, res[0].Record, res[1].Record)
	}
	st := f.state(t)
	if open := st.OpenDisagreements(f.assessment.ID); len(open) != 1 || open[0].ID != d.ID {
		t.Fatalf("open disagreements on the task: %d, want exactly the driver's %s", len(open), d.ID)
	}
	// Asked again, the driver opens nothing new.
	if again, err := advisor.OpenDisagreement(ctx, f.w, st, f.plan); err != nil || again != nil {
		t.Errorf("second OpenDisagreement = %v, %v; want nothing", again, err)
	}
	conclusion := fmt.Sprintf(`{"assessment":%q,"decision":"keep it in the database","weighed":[`+
		`{"consultation":%q,"treatment":"adopted","reason":"sound"},{"consultation":%q,"treatment":"rejected","reason":"load is low"}]}`,
		f.assessment.ID, res[0].Record, res[1].Record)
	if _, err := f.w.Append(ctx, task, record.KindConclusion, []byte(conclusion)); !errors.Is(err, record.ErrRefused) {
		t.Fatalf("conclusion with the disagreement open: %v, want refused", err)
	}
	resolution := fmt.Sprintf(`{"disagreement":%q,"decision":"keep it","evidence":[{"kind":"note","summary":"load test at 3x peak"}]}`, d.ID)
	if _, err := f.w.Append(ctx, task, record.KindResolution, []byte(resolution)); err != nil {
		t.Fatalf("resolve: %v", err)
	}
	c, err := f.w.Append(ctx, task, record.KindConclusion, []byte(conclusion))
	if err != nil {
		t.Fatalf("conclusion after the resolution: %v", err)
	}
	if n := c.Derived.(*record.ConclusionDerived).ReviewCount; n != 2 {
		t.Errorf("review_count %d, want 2", n)
	}
	f.consultations(t) // every record validates
}

// Agreeing stances, and an answer that takes no side, open nothing.
func TestConsultNoConflictNoDisagreement(t *testing.T) {
	ctx := context.Background()
	for _, stances := range [][2]string{{"endorse", "endorse_with_changes"}, {"oppose", "insufficient_information"}} {
		f := planned(t, "adv-a", "adv-b")
		rep := advisor.Consult(ctx, f.w, f.run(
			chatAdvisor("adv-a", fakeChat(t, 0, "", answer(stances[0])), "fake-model-1"),
			chatAdvisor("adv-b", fakeChat(t, 0, "", answer(stances[1])), "fake-model-2")))
		if rep.Err != nil || rep.Disagreement != nil {
			t.Errorf("%v: Consult opened %v (err %v); want nothing", stances, rep.Disagreement, rep.Err)
		}
		st := f.state(t)
		if got := advisor.Conflicting(st, f.plan.ID); got != nil {
			t.Errorf("%v: Conflicting = %d records, want none", stances, len(got))
		}
		if open := st.OpenDisagreements(f.assessment.ID); len(open) != 0 {
			t.Errorf("%v: %d open disagreements, want none", stances, len(open))
		}
	}
}

// The model that answered is recorded as reported when the responder said
// it, else as declared with the declaration's name; never "unknown".
func TestConsultAttribution(t *testing.T) {
	f := planned(t, "adv-a", "adv-b", "adv-c")
	noModel := chatAdvisor("adv-c", fakeChat(t, 0, "", answer("endorse")), "")
	res := advisor.Consult(context.Background(), f.w, f.run(
		chatAdvisor("adv-a", fakeChat(t, 0, "served-model-7", answer("endorse")), "fake-model-1"),
		chatAdvisor("adv-b", fakeChat(t, 0, "", answer("endorse")), "fake-model-2"),
		noModel)).Results
	want := map[string]record.Model{
		"adv-a": {Name: "served-model-7", Source: "reported"},
		"adv-b": {Name: "fake-model-2", Source: "declared"},
		"adv-c": {Name: advisor.DeclaredModel(noModel), Source: "declared"},
	}
	for _, r := range res {
		if r.Model == nil || *r.Model != want[r.Advisor] {
			t.Errorf("%s: result model %+v, want %+v", r.Advisor, r.Model, want[r.Advisor])
		}
	}
	stored := f.consultations(t)
	if len(stored) != 3 {
		t.Fatalf("%d consultations stored, want 3", len(stored))
	}
	for _, e := range stored {
		adv := e.Body.(*record.Consultation).Advisor
		m := e.Derived.(*record.ConsultationDerived).Model
		if m == nil || *m != want[adv] {
			t.Errorf("%s: stored model %+v, want %+v", adv, m, want[adv])
		}
		if m != nil && (m.Name == "" || strings.EqualFold(m.Name, "unknown")) {
			t.Errorf("%s: stored model name %q", adv, m.Name)
		}
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// A disagreement once resolved stays settled: a later run over the same
// plan asks nobody (each advisor already answered it), and opens nothing
// again over the same answers.
func TestOpenDisagreementNotReopenedAfterResolution(t *testing.T) {
	ctx := context.Background()
	f := planned(t, "adv-a", "adv-b")
	var asked atomic.Int32
	count := func(srv *httptest.Server) *httptest.Server {
		inner := srv.Config.Handler
		srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked.Add(1)
			inner.ServeHTTP(w, r)
		})
		return srv
	}
	run := f.run(
		chatAdvisor("adv-a", count(fakeChat(t, 0, "", answer("endorse"))), "fake-model-1"),
		chatAdvisor("adv-b", count(fakeChat(t, 0, "", answer("oppose"))), "fake-model-2"))
	d := advisor.Consult(ctx, f.w, run).Disagreement
	if d == nil {
		t.Fatal("the first run opened no disagreement")
	}
	resolution := fmt.Sprintf(`{"disagreement":%q,"decision":"keep it","evidence":[{"kind":"note","summary":"load test"}]}`, d.ID)
	if _, err := f.w.Append(ctx, task, record.KindResolution, []byte(resolution)); err != nil {
		t.Fatalf("resolve: %v", err)
	}
	again := advisor.Consult(ctx, f.w, run)
	if again.Err != nil {
		t.Fatal(again.Err)
	}
	if again.Disagreement != nil {
		t.Errorf("the driver re-opens a resolved disagreement over the same answers: %s cites %v",
			again.Disagreement.ID, again.Disagreement.Body.(*record.Disagreement).Cites)
	}
	if n := asked.Load(); n != 2 || len(again.Results) != 0 || len(again.Skipped) != 2 {
		t.Errorf("second run: %d requests in all, %d results, skipped %v; want 2 requests (the first run's), none asked again, both skipped",
			n, len(again.Results), again.Skipped)
	}
}

// A reported model name is bounded by the record (1..200 characters) and
// must not be blank: an answer whose responder reports a name the record
// cannot hold is still recorded, attributed to a name it can.
func TestConsultOddReportedModel(t *testing.T) {
	t.Run("blank", func(t *testing.T) {
		f := planned(t, "adv-a", "adv-b")
		res := advisor.Consult(context.Background(), f.w, f.run(
			chatAdvisor("adv-a", fakeChat(t, 0, "   ", answer("endorse")), "fake-model-1"))).Results
		if res[0].Err != nil {
			t.Fatalf("not recorded: %v", res[0].Err)
		}
		want := record.Model{Name: "fake-model-1", Source: "declared"}
		if m := f.consultations(t)[0].Derived.(*record.ConsultationDerived).Model; m == nil || *m != want {
			t.Errorf("a blank reported model is recorded as %+v, want %+v", m, want)
		}
	})
	t.Run("overlong", func(t *testing.T) {
		f := planned(t, "adv-a", "adv-b")
		res := advisor.Consult(context.Background(), f.w, f.run(
			chatAdvisor("adv-a", fakeChat(t, 0, strings.Repeat("m", 300), answer("endorse")), "fake-model-1"))).Results
		got := f.consultations(t)
		if res[0].Err != nil || len(got) != 1 {
			t.Fatalf("an answer whose responder reports a 300-character model is not recorded (%d records): %v", len(got), res[0].Err)
		}
		if m := got[0].Derived.(*record.ConsultationDerived).Model; m == nil || m.Name == "" || len(m.Name) > 200 {
			t.Errorf("model %+v: want a name of 1..200 characters", m)
		}
	})
}

// The credential value is never stored, even when a responder echoes it in
// an answer it otherwise gives correctly.
func TestConsultCredentialEchoedInAnswer(t *testing.T) {
	const canary = "CANARY-b7e1-VALUE"
	t.Setenv("FAKE_DRIVER_KEY", canary)
	f := planned(t, "adv-a", "adv-b")
	d := chatAdvisor("adv-a", fakeChat(t, 0, "", `{"stance":"endorse","summary":"ok; your key `+canary+` works","recommendations":["rotate `+canary+`"],"confidence":0.5}`), "fake-model-1")
	d.Credential = "FAKE_DRIVER_KEY"
	res := advisor.Consult(context.Background(), f.w, f.run(d)).Results
	if res[0].Err != nil || res[0].Record == "" {
		t.Fatalf("not recorded: %v", res[0].Err)
	}
	_, recs, err := f.store.Load(context.Background(), task)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		raw, _ := json.Marshal(r)
		if strings.Contains(string(raw), canary) {
			t.Errorf("the credential value is stored in %s %s when the responder echoes it in its answer", r.Kind, r.ID)
		}
	}
}
