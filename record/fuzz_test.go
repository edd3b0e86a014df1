package record_test

// Fuzz targets of the single writer:
//
//   - FuzzAppendBody appends arbitrary bytes as the body of each kind to a
//     fixed world of two tasks. The writer must never panic; a refusal is
//     bad input or a rule's refusal and stores nothing; an admitted record
//     passes CheckRecord and its task's history replays clean.
//   - FuzzAdmission runs a fuzzed sequence of operations (every writer
//     path: caller bodies, the driver's consultations and disagreements,
//     observed validations, availability changes) against an empty store.
//     After every operation: a refused append left both tasks unchanged, an
//     admitted one added exactly one valid record, and Derive of what is
//     stored never fails. At the end a replay of each task's linear history
//     through record.Checked.Replay finds nothing.
//
// Seeds live in testdata/fuzz/<FuzzName>/; plain 'go test' runs them. Long
// runs: go test ./record/ -run '^$' -fuzz FuzzAppendBody -fuzztime 5m (see
// docs/RELIABILITY-FAULTS.md). Bodies may name the world's records as
// {name} (full id) or {name:N} (its first N characters, lower case), so that
// seeds stay meaningful although ids are made anew in every process.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"git-reason/policy"
	"git-reason/record"
	"git-reason/record/storetest"
)

// fuzzAvail is the availability the fuzzed writer plans with: three made-up
// advisors and a capability vocabulary. Its statuses may change between
// operations (FuzzAdmission), never during one.
type fuzzAvail struct {
	mu       sync.Mutex
	advisors []policy.Advisor
}

func newFuzzAvail() *fuzzAvail {
	return &fuzzAvail{advisors: []policy.Advisor{
		{ID: "adv-one", Status: policy.StatusAvailable, Reason: "ready", Capabilities: []string{"reasoning", "code_review"}},
		{ID: "adv-two", Status: policy.StatusAvailable, Reason: "ready", Capabilities: []string{"reasoning"}},
		{ID: "adv-three", Status: policy.StatusOpen, Reason: "circuit open", Until: "2031-01-01T00:00:00Z", Capabilities: []string{"reasoning"}},
	}}
}

func (a *fuzzAvail) Snapshot(context.Context) (policy.Profile, []policy.Advisor, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return policy.Profile{Name: "default", Mode: policy.ModeNormal}, append([]policy.Advisor(nil), a.advisors...), nil
}

func (a *fuzzAvail) KnownCapability(_ context.Context, c string) (bool, error) {
	return c == "reasoning" || c == "code_review" || c == "security", nil
}

func (a *fuzzAvail) set(i int, st policy.Status) {
	a.mu.Lock()
	defer a.mu.Unlock()
	adv := &a.advisors[i%len(a.advisors)]
	adv.Status, adv.Until = st, ""
	if st == policy.StatusOpen {
		adv.Until = "2031-01-01T00:00:00Z"
	}
}

// fuzzWriter is a writer whose clock moves 37 minutes on every reading, so
// that the ids it makes differ in their first six characters and a short
// prefix can name a record.
func fuzzWriter(s record.Store, avail record.Availability) *record.Writer {
	var mu sync.Mutex
	now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	return &record.Writer{Store: s, Avail: avail, Actor: "Fuzz Person <fuzz@example.invalid>", Origin: "origin-fuzz",
		Now: func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			now = now.Add(37 * time.Minute)
			return now
		}}
}

// fuzzTasks are the two tasks of the fixed world.
var fuzzTasks = []string{"T-open", "T-done"}

// fuzzWorld is the fixed world FuzzAppendBody appends to: its records, and
// the ids of the named ones per task.
type fuzzWorld struct {
	recs map[string][]*record.Record
	ids  map[string]map[string]string
}

var (
	worldOnce sync.Once
	world     *fuzzWorld
	worldErr  error
)

// theWorld builds the world once per process:
//
//	T-open: a critical assessment (evidence, needs reasoning), p its plan
//	        (adv-one, adv-two), c1 endorse, c2 oppose, c3 a failed one, d the
//	        driver's disagreement over c1 and c2, m a minor irreversible
//	        assessment with no plan yet.
//	T-done: a material costly assessment, p its plan (adv-one), c1 endorse,
//	        k the conclusion weighing c1, v a manual validation that passed,
//	        x an attempt, s an assessment needing security (no advisor has
//	        it), q its plan: the local review.
func theWorld(tb testing.TB) *fuzzWorld {
	worldOnce.Do(func() { world, worldErr = buildWorld() })
	if worldErr != nil {
		tb.Fatalf("build the fuzz world: %v", worldErr)
	}
	return world
}

func buildWorld() (*fuzzWorld, error) {
	ctx := context.Background()
	s := record.NewMemStore()
	w := fuzzWriter(s, newFuzzAvail())
	fw := &fuzzWorld{recs: map[string][]*record.Record{}, ids: map[string]map[string]string{}}
	var err error
	add := func(task, name string, kind record.Kind, body string) {
		if err != nil {
			return
		}
		var res *record.Result
		res, err = w.Append(ctx, task, kind, []byte(fw.expand(task, []byte(body))))
		if err != nil {
			err = fmt.Errorf("%s %s: %w", task, name, err)
			return
		}
		fw.ids[task][name] = res.ID
	}
	consult := func(task, name, advisor, stance string) {
		if err != nil {
			return
		}
		c, m := storetest.DriverConsultation(fw.ids[task]["p"], advisor, stance, record.Model{Name: "made-up-model", Source: "reported"})
		var res *record.Result
		if res, err = w.AppendConsultation(ctx, task, c, m); err == nil {
			fw.ids[task][name] = res.ID
		}
	}
	for _, task := range fuzzTasks {
		fw.ids[task] = map[string]string{}
	}
	add("T-open", "a", record.KindAssessment, `{"subject":"queue backend","question":"keep the queue in the database?","materiality":"critical","reversibility":"costly","needs":["reasoning"],"evidence":[{"kind":"note","summary":"peak load 2k msg/s"}]}`)
	add("T-open", "p", record.KindPlan, `{"assessment":"{a}"}`)
	consult("T-open", "c1", "adv-one", "endorse")
	consult("T-open", "c2", "adv-two", "oppose")
	consult("T-open", "c3", "adv-one", "")
	if err == nil {
		var res *record.Result
		res, err = w.AppendDriverDisagreement(ctx, "T-open", &record.Disagreement{Assessment: fw.ids["T-open"]["a"],
			Cites: []string{fw.ids["T-open"]["c1"], fw.ids["T-open"]["c2"]}, Summary: "advisors take conflicting stances"})
		if err == nil {
			fw.ids["T-open"]["d"] = res.ID
		}
	}
	add("T-open", "m", record.KindAssessment, `{"subject":"flag name","question":"rename the flag?","materiality":"minor","reversibility":"irreversible"}`)

	add("T-done", "a", record.KindAssessment, `{"subject":"cache layout","question":"one file or many?","materiality":"material","reversibility":"costly","evidence":[{"kind":"file","ref":"cache/layout.go","summary":"current layout"}]}`)
	add("T-done", "p", record.KindPlan, `{"assessment":"{a}"}`)
	consult("T-done", "c1", "adv-one", "endorse_with_changes")
	add("T-done", "k", record.KindConclusion, `{"assessment":"{a}","decision":"many files","weighed":[{"consultation":"{c1}","treatment":"adopted","reason":"sound"}]}`)
	add("T-done", "v", record.KindValidation, `{"conclusion":"{k}","method":"manual","result":"pass","evidence":[{"kind":"note","summary":"looked"}]}`)
	add("T-done", "x", record.KindAttempt, `{"conclusion":"{k}","commits":["0123456789abcdef0123456789abcdef01234567"],"outcome":"succeeded"}`)
	add("T-done", "s", record.KindAssessment, `{"subject":"token storage","question":"keep tokens in the keyring?","materiality":"material","reversibility":"irreversible","needs":["security"],"evidence":[{"kind":"note","summary":"audit asked"}]}`)
	add("T-done", "q", record.KindPlan, `{"assessment":"{s}"}`)
	if err != nil {
		return nil, err
	}
	for _, task := range fuzzTasks {
		_, recs, lerr := s.Load(ctx, task)
		if lerr != nil {
			return nil, lerr
		}
		fw.recs[task] = recs
	}
	return fw, nil
}

var placeholder = regexp.MustCompile(`\{([a-z][a-z0-9]?)(?::([0-9]{1,2}))?\}`)

// expand replaces {name} by the full id of the task's record of that name
// and {name:N} by its first N characters in lower case. Unknown names stay.
func (fw *fuzzWorld) expand(task string, body []byte) []byte {
	return placeholder.ReplaceAllFunc(body, func(m []byte) []byte {
		sub := placeholder.FindSubmatch(m)
		id, ok := fw.ids[task][string(sub[1])]
		if !ok {
			return m
		}
		if len(sub[2]) > 0 {
			n, _ := strconv.Atoi(string(sub[2]))
			return []byte(strings.ToLower(id[:min(n, len(id))]))
		}
		return []byte(id)
	})
}

// fresh returns a new store holding the world's records.
func (fw *fuzzWorld) fresh(t *testing.T) *record.MemStore {
	t.Helper()
	s := record.NewMemStore()
	for _, task := range fuzzTasks {
		head := ""
		for _, r := range fw.recs[task] {
			cp := *r
			var err error
			if head, err = s.Append(context.Background(), task, head, &cp); err != nil {
				t.Fatalf("copy the world: %v", err)
			}
		}
	}
	return s
}

// taskHead is a task's head, record count and record ids.
type taskHead struct {
	head string
	n    int
	ids  string
}

// heads is each task's head and records, to tell whether anything moved.
func heads(t *testing.T, s record.Store) map[string]taskHead {
	t.Helper()
	out := map[string]taskHead{}
	for _, task := range fuzzTasks {
		head, recs, err := s.Load(context.Background(), task)
		if err != nil {
			t.Fatalf("load %s: %v", task, err)
		}
		ids := make([]string, len(recs))
		for i, r := range recs {
			ids[i] = r.ID
		}
		out[task] = taskHead{head: head, n: len(recs), ids: strings.Join(ids, ",")}
	}
	return out
}

// replayLinear replays recs, in the order stored, as the linear history
// the git store would have written: one commit per record, each tree the
// records so far, trailers and dates as the store writes them.
func replayLinear(ctx context.Context, task string, recs []*record.Record) []record.Finding {
	blobs := map[string]*record.Record{}
	files := map[string]string{}
	var commits []*record.Commit
	for i, r := range recs {
		next := make(map[string]string, len(files)+1)
		for k, v := range files {
			next[k] = v
		}
		next[r.FileName()] = r.ID
		files = next
		blobs[r.ID] = r
		when, _ := time.Parse(time.RFC3339Nano, r.Created)
		c := &record.Commit{Hash: fmt.Sprintf("commit-%05d", i), Files: files, When: when,
			Trailers: map[string]string{"Reason-Task": task, "Reason-Kind": string(r.Kind), "Reason-Record": r.ID}}
		if i > 0 {
			c.Parents = []string{commits[i-1].Hash}
		}
		commits = append(commits, c)
	}
	found, _, _ := new(record.Checked).Replay(ctx, task, commits, func(h string) (*record.Record, error) {
		if r, ok := blobs[h]; ok {
			return r, nil
		}
		return nil, errors.New("no such blob")
	})
	return found
}

// classified reports whether err is one a caller is told apart: bad input
// (exit 2) or a rule's refusal (exit 3). Anything else from a writer over
// a memory store is a bug of the writer.
func classified(err error) bool {
	return errors.Is(err, record.ErrInput) || errors.Is(err, record.ErrRefused)
}

// checkStored checks what every admitted record must satisfy: it is the
// task's new last record, it validates, the task still derives and its
// history replays clean.
func checkStored(t *testing.T, s record.Store, task string, res *record.Result, before int) {
	t.Helper()
	ctx := context.Background()
	head, recs, err := s.Load(ctx, task)
	if err != nil {
		t.Fatalf("load %s: %v", task, err)
	}
	if len(recs) != before+1 {
		t.Fatalf("an admitted append left %d records in %s, want %d", len(recs), task, before+1)
	}
	last := recs[len(recs)-1]
	if last.ID != res.ID || head != res.Commit {
		t.Fatalf("stored record %s at head %s, the writer acknowledged %s at %s", last.ID, head, res.ID, res.Commit)
	}
	if err := record.CheckRecord(last); err != nil {
		t.Fatalf("stored %s record does not validate: %v\nbody: %s", last.Kind, err, last.Body)
	}
	if _, err := record.Derive(task, recs); err != nil {
		t.Fatalf("Derive of %s failed after an admitted append: %v", task, err)
	}
	if found := replayLinear(ctx, task, recs); len(found) > 0 {
		t.Fatalf("replay of %s finds %d problems, first: %s\nbody: %s", task, len(found), found[0], last.Body)
	}
}

func FuzzAppendBody(f *testing.F) {
	fw := theWorld(f)
	f.Add(uint8(0), uint8(0), []byte(`{"subject":"s","question":"q","materiality":"minor","reversibility":"reversible"}`))
	f.Fuzz(func(t *testing.T, taskSel, kindSel uint8, body []byte) {
		task := fuzzTasks[int(taskSel)%len(fuzzTasks)]
		kind := record.Kinds[int(kindSel)%len(record.Kinds)]
		s := fw.fresh(t)
		w := fuzzWriter(s, newFuzzAvail())
		before := heads(t, s)
		_, recs, _ := s.Load(context.Background(), task)
		res, err := w.Append(context.Background(), task, kind, fw.expand(task, body))
		if err != nil {
			t.Logf("%s on %s refused: %.200s", kind, task, err)
			if !classified(err) {
				t.Errorf("%s body refused with an error that is neither bad input nor a refusal: %v", kind, err)
			}
			if after := heads(t, s); after[fuzzTasks[0]] != before[fuzzTasks[0]] || after[fuzzTasks[1]] != before[fuzzTasks[1]] {
				t.Errorf("a refused %s append changed the store:\nbefore %v\nafter  %v", kind, before, after)
			}
			return
		}
		t.Logf("%s on %s admitted as %s", kind, task, res.ID)
		if kind == record.KindConsultation {
			t.Errorf("a caller's consultation body was admitted: %s", body)
		}
		checkStored(t, s, task, res, len(recs))
		for _, other := range fuzzTasks {
			if other != task && heads(t, s)[other] != before[other] {
				t.Errorf("an append to %s changed %s", task, other)
			}
		}
	})
}

// admission is the state of one FuzzAdmission run.
type admission struct {
	t      *testing.T
	s      *record.MemStore
	w      *record.Writer
	avail  *fuzzAvail
	task   int  // index into fuzzTasks
	prefix bool // name records by a 12-character prefix
	ops    []string
}

const unknownID = "01ARZ3NDEKTSV4RRFFQ69G5FAV"

// state derives a task; Derive of what is stored must never fail.
func (x *admission) state(task string) *record.State {
	x.t.Helper()
	_, recs, err := x.s.Load(context.Background(), task)
	if err != nil {
		x.t.Fatalf("load %s: %v", task, err)
	}
	st, err := record.Derive(task, recs)
	if err != nil {
		x.t.Fatalf("Derive of %s failed after ops %v: %v", task, x.ops, err)
	}
	return st
}

func (x *admission) current() string { return fuzzTasks[x.task] }

// pick names a record of the current task by b: one of its records, an id
// of the other task (b = 255), or an unknown id.
func (x *admission) pick(b byte) string {
	st := x.state(x.current())
	if b == 255 {
		other := x.state(fuzzTasks[1-x.task])
		if len(other.Entries) > 0 {
			return other.Entries[len(other.Entries)-1].ID
		}
	}
	n := len(st.Entries)
	if i := int(b) % (n + 1); i < n {
		id := st.Entries[i].ID
		if x.prefix {
			return strings.ToLower(id[:12])
		}
		return id
	}
	return unknownID
}

// pickKind names the last record of kind k before position b, or picks.
func (x *admission) pickKind(k record.Kind, b byte) string {
	st := x.state(x.current())
	var of []*record.Entry
	for _, e := range st.Entries {
		if e.Kind == k {
			of = append(of, e)
		}
	}
	if len(of) == 0 || b&0x80 != 0 {
		return x.pick(b)
	}
	return of[len(of)-1-int(b)%len(of)].ID
}

var (
	stances  = []string{"endorse", "endorse_with_changes", "oppose", "insufficient_information"}
	failures = []string{"timeout", "rate_limit", "authentication", "malformed", "empty", "unavailable", "cancelled"}
	subjects = []string{"queue backend", "Queue-Backend!", "cache layout", "token storage"}
	assessed = []string{
		`{"subject":%q,"question":"which?","materiality":"critical","reversibility":"costly","needs":["reasoning"],"evidence":[{"kind":"note","summary":"measured"}]}`,
		`{"subject":%q,"question":"which?","materiality":"material","reversibility":"irreversible","evidence":[{"kind":"url","ref":"https://example.invalid/x","summary":"spec"}],"new_evidence":true}`,
		`{"subject":%q,"question":"which?","materiality":"material","reversibility":"costly"}`,
		`{"subject":%q,"question":"which?","materiality":"minor","reversibility":"reversible"}`,
		`{"subject":%q,"question":"which?","materiality":"minor","reversibility":"irreversible","needs":["security"]}`,
		`{"subject":%q,"question":"which?","materiality":"trivial","reversibility":"reversible","needs":["no_such_capability"]}`,
	}
)

// step runs the operation op with parameters p; wrote is false for the
// operations that append nothing.
func (x *admission) step(op byte, p [3]byte) (res *record.Result, err error, wrote bool) {
	ctx := context.Background()
	task := x.current()
	switch op % 14 {
	case 0: // assess
		body := fmt.Sprintf(assessed[int(p[0])%len(assessed)], subjects[int(p[1])%len(subjects)])
		res, err = x.w.Append(ctx, task, record.KindAssessment, []byte(body))
	case 1: // plan
		res, err = x.w.Append(ctx, task, record.KindPlan, []byte(fmt.Sprintf(`{"assessment":%q}`, x.pickKind(record.KindAssessment, p[0]))))
	case 2: // the driver records an outcome
		c := &record.Consultation{Plan: x.pickKind(record.KindPlan, p[0]), Advisor: newFuzzAvail().advisors[int(p[1])%3].ID,
			Transport: "api", DurationMS: int64(p[2]) * 7}
		var m *record.Model
		if k := int(p[2]) % 11; k < len(stances) {
			c.Status = "completed"
			c.Conclusion = &record.Answer{Stance: stances[k], Summary: "view " + strconv.Itoa(k), Confidence: float64(p[2]) / 255,
				Recommendations: []string{"measure first"}}
			if p[1]&0x40 == 0 {
				m = &record.Model{Name: "made-up-model", Source: []string{"reported", "declared"}[p[2]&1]}
			}
		} else {
			c.Status = "failed"
			c.Failure = &record.Failure{Kind: failures[k-len(stances)], Detail: "made-up failure", RetryAfterS: int(p[1]) % 5 * 30}
		}
		res, err = x.w.AppendConsultation(ctx, task, c, m)
	case 3, 4: // a disagreement, by a caller or by the driver
		d := &record.Disagreement{Assessment: x.pickKind(record.KindAssessment, p[0]),
			Cites: []string{x.pickKind(record.KindConsultation, p[1]), x.pickKind(record.KindConsultation, p[2])}, Summary: "they differ"}
		if op%14 == 3 {
			raw, _ := json.Marshal(d)
			res, err = x.w.Append(ctx, task, record.KindDisagreement, raw)
		} else {
			res, err = x.w.AppendDriverDisagreement(ctx, task, d)
		}
	case 5: // resolve
		ev := `[{"kind":"command","ref":"make load","summary":"holds"}]`
		if p[1]&1 == 1 {
			ev = `[]`
		}
		res, err = x.w.Append(ctx, task, record.KindResolution,
			[]byte(fmt.Sprintf(`{"disagreement":%q,"decision":"settled","evidence":%s}`, x.pickKind(record.KindDisagreement, p[0]), ev)))
	case 6: // conclude
		res, err = x.w.Append(ctx, task, record.KindConclusion, x.conclusion(p))
	case 7: // a manual validation
		res, err = x.w.Append(ctx, task, record.KindValidation, []byte(fmt.Sprintf(`{"conclusion":%q,"method":"manual","result":%q}`,
			x.pickKind(record.KindConclusion, p[0]), []string{"pass", "fail"}[p[1]&1])))
	case 8: // a validation the tool ran
		code, dur := int(p[1])%3, int64(p[2])
		obs := record.ValidationDerived{ExitCode: &code, DurationMS: &dur, OutputSHA256: strings.Repeat("ab", 32)}
		res, err = x.w.AppendRunValidation(ctx, task, []byte(fmt.Sprintf(`{"conclusion":%q,"method":"command","command":"make test"}`,
			x.pickKind(record.KindConclusion, p[0]))), func(*record.Validation) (record.ValidationDerived, error) { return obs, nil })
	case 9: // an attempt
		res, err = x.w.Append(ctx, task, record.KindAttempt, []byte(fmt.Sprintf(`{"conclusion":%q,"outcome":%q}`,
			x.pickKind(record.KindConclusion, p[0]), []string{"succeeded", "failed", "abandoned", "maybe"}[p[1]%4])))
	case 10:
		x.task = 1 - x.task
		return nil, nil, false
	case 11:
		x.avail.set(int(p[0]), []policy.Status{policy.StatusAvailable, policy.StatusOpen, policy.StatusRecovering, policy.StatusDisabled}[p[1]%4])
		return nil, nil, false
	case 12:
		x.prefix = !x.prefix
		return nil, nil, false
	case 13: // a caller tries a driver-only kind or field
		res, err = x.w.Append(ctx, task, record.Kinds[int(p[0])%len(record.Kinds)],
			[]byte(fmt.Sprintf(`{"plan":%q,"advisor":"adv-one","status":"completed","conclusion":{"stance":"endorse","summary":"s","confidence":1},"transport":"api","duration_ms":1}`, x.pick(p[1]))))
	}
	return res, err, true
}

// conclusion builds a conclusion body: it weighs the completed
// consultations of the picked assessment (p[2] bit 0 drops one, bit 1 adds
// a stranger) and answers the local review unless bit 2 is set.
func (x *admission) conclusion(p [3]byte) []byte {
	st := x.state(x.current())
	a := x.pickKind(record.KindAssessment, p[0])
	body := map[string]any{"assessment": a, "decision": "go ahead", "rationale": "weighed"}
	var weighed []map[string]string
	full := a
	if e, err := st.Resolve(a); err == nil {
		full = e.ID
	}
	for _, e := range st.Completed(full) {
		weighed = append(weighed, map[string]string{"consultation": e.ID,
			"treatment": []string{"adopted", "partially_adopted", "rejected"}[int(p[1])%3], "reason": "because"})
	}
	if p[2]&1 == 1 && len(weighed) > 0 {
		weighed = weighed[1:]
	}
	if p[2]&2 == 2 {
		weighed = append(weighed, map[string]string{"consultation": x.pickKind(record.KindConsultation, p[1]), "treatment": "rejected", "reason": "r"})
	}
	if weighed != nil {
		body["weighed"] = weighed
	}
	if plan := st.LatestPlan(full); plan != nil && p[2]&4 == 0 {
		var answers []map[string]string
		for _, item := range plan.Derived.(*record.PlanDerived).LocalReview {
			answers = append(answers, map[string]string{"item": item, "answer": "considered"})
		}
		if answers != nil {
			body["local_review"] = answers
		}
	}
	raw, _ := json.Marshal(body)
	return raw
}

// check holds the invariants of one operation: a refusal is classified
// and changed nothing; an admission added exactly one valid record to the
// current task and nothing to the other; every task still derives.
func (x *admission) check(op byte, before map[string]taskHead, res *record.Result, err error, wrote bool) {
	x.t.Helper()
	after := heads(x.t, x.s)
	task := x.current()
	for _, tk := range fuzzTasks {
		x.state(tk)
		if tk != task || err != nil || !wrote {
			if after[tk] != before[tk] {
				x.t.Fatalf("op %d after %v (error %v) changed task %s:\nbefore %+v\nafter  %+v", op%14, x.ops, err, tk, before[tk], after[tk])
			}
		}
	}
	if !wrote {
		return
	}
	if err != nil {
		if !classified(err) {
			x.t.Errorf("op %d after %v: an error that is neither bad input nor a refusal: %v", op%14, x.ops, err)
		}
		return
	}
	_, recs, _ := x.s.Load(context.Background(), task)
	if len(recs) != before[task].n+1 {
		x.t.Fatalf("op %d: an admitted append left %d records in %s, want %d", op%14, len(recs), task, before[task].n+1)
	}
	last := recs[len(recs)-1]
	if last.ID != res.ID {
		x.t.Fatalf("op %d: the last record of %s is %s, the writer acknowledged %s", op%14, task, last.ID, res.ID)
	}
	if err := record.CheckRecord(last); err != nil {
		x.t.Fatalf("op %d: stored %s record does not validate: %v", op%14, last.Kind, err)
	}
}

func FuzzAdmission(f *testing.F) {
	// assess, plan, two outcomes, a disagreement by the driver, resolve,
	// conclude, validate: a whole cycle.
	f.Add([]byte{0, 0, 0, 0, 1, 0, 0, 0, 2, 1, 0, 0, 2, 1, 1, 2, 4, 0, 2, 3, 5, 0, 0, 0, 6, 0, 0, 0, 7, 0, 0, 0})
	f.Fuzz(func(t *testing.T, prog []byte) {
		const maxOps = 48
		s := record.NewMemStore()
		avail := newFuzzAvail()
		x := &admission{t: t, s: s, w: fuzzWriter(s, avail), avail: avail}
		for i := 0; i+4 <= len(prog) && len(x.ops) < maxOps; i += 4 {
			op := prog[i]
			before := heads(t, s)
			x.ops = append(x.ops, strconv.Itoa(int(op%14)))
			res, err, wrote := x.step(op, [3]byte{prog[i+1], prog[i+2], prog[i+3]})
			x.check(op, before, res, err, wrote)
			switch {
			case !wrote:
			case err != nil:
				x.ops[len(x.ops)-1] += "-"
			default:
				x.ops[len(x.ops)-1] += "+"
			}
		}
		t.Logf("ops (+ admitted, - refused): %v", x.ops)
		for _, task := range fuzzTasks {
			_, recs, _ := s.Load(context.Background(), task)
			if found := replayLinear(context.Background(), task, recs); len(found) > 0 {
				t.Fatalf("replay of %s after ops %v finds %d problems, first: %s", task, x.ops, len(found), found[0])
			}
		}
	})
}
