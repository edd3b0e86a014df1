package gitstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"git-reason/gitstore"
	"git-reason/record"
	"git-reason/record/storetest"
	"git-reason/reliability/harness"
)

// TestSavedStateIsTheReplay walks random histories (every kind of record
// the writer admits, refusals skipped, the task's ref moved back so that a
// saved head leaves its history, and merges of two branches of the task),
// and after every few records compares what a status shows from the
// state saved at an earlier head (gitstore.Store.DeriveSaved: the records
// after it replayed) with the task loaded and derived whole by a store of
// its own (Load, DeriveVerified): the same summary, report and timeline,
// whatever the history. The saved state must also have been used: a walk
// that never went on from one proves nothing.
//
// The walks together must make every kind of step (savedStepKinds), or
// the test fails: a change that stops them reaching one is seen. With
// -short it walks seeds 2 and 3 only, which together make every kind the
// four make (each seed's walk costs about 3.5 s of CPU, most of it the
// whole loads it compares against).
func TestSavedStateIsTheReplay(t *testing.T) {
	t.Parallel()
	seeds := []uint64{0, 1, 2, 3}
	if testing.Short() {
		seeds = seeds[2:]
	}
	var (
		mu    sync.Mutex
		steps = map[string]int{}
	)
	t.Cleanup(func() { // after every seed's walk
		if t.Failed() {
			return
		}
		for _, kind := range savedStepKinds {
			if steps[kind] == 0 {
				t.Errorf("the walks of seeds %v made no %s step (%v): walk more seeds or steps", seeds, kind, steps)
			}
		}
	})
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel()
			h := newForgHistory(t)
			walk := &savedWalk{h: h, rnd: rand.New(rand.NewPCG(seed, 26)), steps: map[string]int{}}
			defer func() {
				mu.Lock()
				defer mu.Unlock()
				for k, n := range walk.steps {
					steps[k] += n
				}
			}()
			used := 0
			for step := 0; step < 60; step++ {
				walk.step()
				if walk.rnd.IntN(3) == 0 {
					continue // the next status goes on over several records
				}
				if walk.compare() {
					used++
				}
			}
			if used < 10 {
				t.Fatalf("the saved state was used %d times in 60 steps", used)
			}
			t.Logf("%d records, %d merges, %d rewinds; the saved state used %d times; steps %v", walk.records, walk.merges, walk.rewinds, used, walk.steps)
		})
	}
}

// savedStepKinds are the kinds of step the walks make: a record of each
// kind the writer admitted, a rewind of the ref, a merge. A resolution
// is not among them: no seed's walk has reached one (it needs an open
// disagreement, which one walk of the four makes, and then 1 step in 20).
var savedStepKinds = []string{
	string(record.KindAssessment), string(record.KindPlan), string(record.KindConsultation),
	string(record.KindDisagreement), string(record.KindConclusion),
	string(record.KindValidation), string(record.KindAttempt), string(record.KindWithdrawal),
	string(record.KindClosure), string(record.KindReopening), "rewind", "merge",
}

type savedWalk struct {
	h                        *forgHistory
	rnd                      *rand.Rand
	records, merges, rewinds int
	steps                    map[string]int // savedStepKinds made
	branch                   string         // a head the ref moved back from, to merge later
	saved                    string         // the head the last compare left a state saved at
}

func (w *savedWalk) state() *record.State {
	st, err := w.h.w.State(context.Background(), forgTask)
	if err != nil {
		w.h.t.Fatal(err)
	}
	return st
}

func (w *savedWalk) head() string { return strings.TrimSpace(w.h.git("", "rev-parse", forgRef)) }

// step writes one record of a random kind (a refused one writes nothing),
// or moves the ref back, or merges the branch left by that.
func (w *savedWalk) step() {
	ctx := context.Background()
	st := w.state()
	s := st.Summarize()
	last := func(kind record.Kind) string {
		for i := len(st.Entries) - 1; i >= 0; i-- {
			if st.Entries[i].Kind == kind {
				return st.Entries[i].ID
			}
		}
		return ""
	}
	pick := func(xs ...string) string { return xs[w.rnd.IntN(len(xs))] }
	var err error
	var res *record.Result
	switch n := w.rnd.IntN(20); {
	case n < 3:
		mat := pick("trivial", "minor", "material", "critical")
		res, err = w.h.w.Append(ctx, forgTask, record.KindAssessment, []byte(fmt.Sprintf(
			`{"subject":"subject %d","question":"q?","materiality":%q,"reversibility":%q,"needs":["reasoning"],"evidence":[{"kind":"note","summary":"seen"}]}`,
			w.rnd.IntN(4), mat, pick("reversible", "costly", "irreversible"))))
	case n < 5:
		res, err = w.h.w.Append(ctx, forgTask, record.KindPlan, []byte(fmt.Sprintf(`{"assessment":%q}`, s.Assessment)))
	case n < 8:
		c, m := storetest.DriverConsultation(last(record.KindPlan), pick("adv-one", "adv-two"),
			pick("", "endorse", "oppose", "endorse_with_changes"), record.Model{Name: "model-x", Source: "declared"})
		res, err = w.h.w.AppendConsultation(ctx, forgTask, c, m)
	case n < 9:
		var cites []string
		for _, e := range st.Completed(s.Assessment) {
			cites = append(cites, e.ID)
		}
		if len(cites) >= 2 {
			res, err = w.h.w.AppendDriverDisagreement(ctx, forgTask, &record.Disagreement{Assessment: s.Assessment, Cites: cites[:2], Summary: "they differ"})
		}
	case n < 10 && len(s.OpenDisagreements) > 0:
		res, err = w.h.w.Append(ctx, forgTask, record.KindResolution, []byte(fmt.Sprintf(
			`{"disagreement":%q,"decision":"this way","evidence":[{"kind":"note","summary":"why"}]}`, s.OpenDisagreements[0])))
	case n < 12:
		var weighed, local []string
		for _, e := range st.Completed(s.Assessment) {
			weighed = append(weighed, fmt.Sprintf(`{"consultation":%q,"treatment":%q,"reason":"r"}`, e.ID, pick("adopted", "rejected")))
		}
		for _, item := range s.LocalReview {
			local = append(local, fmt.Sprintf(`{"item":%q,"answer":"yes"}`, item))
		}
		res, err = w.h.w.Append(ctx, forgTask, record.KindConclusion, []byte(fmt.Sprintf(
			`{"assessment":%q,"decision":"d%d","weighed":[%s],"local_review":[%s]}`, s.Assessment, w.rnd.IntN(9),
			strings.Join(weighed, ","), strings.Join(local, ","))))
	case n < 13:
		res, err = w.h.w.Append(ctx, forgTask, record.KindValidation, []byte(fmt.Sprintf(
			`{"conclusion":%q,"method":"manual","result":%q,"evidence":[{"kind":"note","summary":"looked"}]}`, last(record.KindConclusion), pick("pass", "fail"))))
	case n < 14:
		res, err = w.h.w.Append(ctx, forgTask, record.KindAttempt, []byte(fmt.Sprintf(
			`{"conclusion":%q,"commits":["0123456789abcdef0123456789abcdef01234567"],"outcome":%q}`, last(record.KindConclusion), pick("succeeded", "failed"))))
	case n < 15:
		target := last(record.Kind(pick(string(record.KindValidation), string(record.KindAttempt))))
		res, err = w.h.w.Append(ctx, forgTask, record.KindWithdrawal, []byte(fmt.Sprintf(`{"record":%q,"reason":"wrong directory"}`, target)))
	case n < 16:
		if c := last(record.KindClosure); c != "" && w.rnd.IntN(2) == 0 {
			res, err = w.h.w.Append(ctx, forgTask, record.KindReopening, []byte(fmt.Sprintf(`{"closure":%q}`, c)))
		} else {
			res, err = w.h.w.Append(ctx, forgTask, record.KindClosure, []byte(fmt.Sprintf(`{"outcome":%q}`, pick("abandoned", "done"))))
		}
	case n < 18 && w.branch == "" && len(st.Entries) > 12:
		// Back a few records: what was written after stays on a branch,
		// merged later; a state saved there is off the new history.
		w.branch = w.head()
		back := strings.TrimSpace(w.h.git("", "rev-parse", fmt.Sprintf("%s~%d", forgRef, 1+w.rnd.IntN(3))))
		w.h.git("", "update-ref", forgRef, back)
		w.rewinds++
		w.steps["rewind"]++
	case n < 20 && w.branch != "":
		local := w.head()
		merge, conflicts, err := w.h.w.Store.(*gitstore.Store).MergeHistories(forgTask, local, w.branch, func() (gitstore.Signature, error) {
			return gitstore.Signature{Name: "Test Person", Email: "test@example.invalid", When: time.Now()}, nil
		})
		if err != nil || len(conflicts) > 0 {
			w.h.t.Fatalf("merge of %s and %s: %v %v", local, w.branch, err, conflicts)
		}
		w.h.git("", "update-ref", forgRef, merge, local)
		w.branch = ""
		w.merges++
		w.steps["merge"]++
	}
	if err == nil && res != nil {
		w.records++
		w.steps[string(res.Kind)]++
	}
}

// compare shows the task as status does, from the saved state when there
// is one to go on from, and as a store of its own loads and derives it;
// they must agree. It reports whether the saved state was used.
func (w *savedWalk) compare() bool {
	t := w.h.t
	t.Helper()
	ctx := context.Background()
	head := w.head()
	whole, err := gitstore.Open(w.h.dir)
	if err != nil {
		t.Fatal(err)
	}
	want := wholeState(t, whole, head)
	got, used := statusState(t, w.h.dir, head)
	found, err := whole.Verify(ctx, forgTask, head)
	if err != nil {
		t.Fatal(err)
	}
	_, notAncestor := harness.GitTry(w.h.dir, "merge-base", "--is-ancestor", w.saved, head)
	if !used && w.saved != "" && notAncestor == nil && len(found) == 0 {
		t.Fatalf("at %s, a clean history after the state saved at %s: the saved state was not used", head, w.saved)
	}
	if len(found) == 0 {
		w.saved = head
	}
	if a, b := jsonOf(t, got.Summarize()), jsonOf(t, want.Summarize()); a != b {
		t.Fatalf("at %s (saved state used: %v), the summary is\n%s\nwhole:\n%s", head, used, a, b)
	}
	// Every question the state answers by links (record/links.go), asked
	// of the saved state's records before they are decoded.
	if a, b := questions(t, got), questions(t, want); a != b {
		t.Fatalf("at %s (saved state used: %v), the state's answers are\n%s\nwhole:\n%s", head, used, a, b)
	}
	if err := got.Decoded(); err != nil {
		t.Fatal(err)
	}
	if a, b := got.Report(), want.Report(); a != b {
		t.Fatalf("at %s (saved state used: %v), the report is\n%s\nwhole:\n%s", head, used, a, b)
	}
	if a, b := jsonOf(t, got.Timeline()), jsonOf(t, want.Timeline()); a != b {
		t.Fatalf("at %s (saved state used: %v), the timeline differs", head, used)
	}
	return used
}

// statusState is the state of the task at head as status derives it in a
// process of its own (ops.Session.savedState): gone on from the saved
// state when there is one to go on from (true), else loaded and derived
// whole, its state then saved.
func statusState(t *testing.T, dir, head string) (*record.State, bool) {
	t.Helper()
	ctx := context.Background()
	s, err := gitstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st, ok := s.DeriveSaved(ctx, forgTask, head); ok {
		return st, true
	}
	st := wholeState(t, s, head)
	s.SaveVerdicts()
	s.SaveState(forgTask, head, st)
	return st, false
}

// wholeState is the task at head loaded and derived whole by s (Load,
// DeriveVerified).
func wholeState(t *testing.T, s *gitstore.Store, head string) *record.State {
	t.Helper()
	ctx := context.Background()
	_, recs, err := s.Load(ctx, forgTask)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.DeriveVerified(ctx, forgTask, head, recs)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// savedFile is the one saved state of the repository at dir.
func savedFile(t *testing.T, dir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, ".git", "reason", "states", "*.state"))
	if err != nil || len(files) != 1 {
		t.Fatalf("saved states: %v %v, want one", files, err)
	}
	return files[0]
}

// TestSavedStateForgedIsIgnored: a saved state edited by hand (a
// conclusion's decision changed, its framing kept, in its record or in the
// facts kept beside it), signed for another task, or under another
// repository's key is never gone on from: the task
// is loaded and replayed whole, and what it shows is the history's, not the
// file's. Without the MAC check the edited decision is what status shows.
func TestSavedStateForgedIsIgnored(t *testing.T) {
	t.Parallel()
	h := newForgHistory(t)
	status := func() (*record.State, bool) {
		t.Helper()
		return statusState(t, h.dir, strings.TrimSpace(h.git("", "rev-parse", forgRef)))
	}
	decision := func(st *record.State) string {
		var out []string
		for _, c := range st.Standing() {
			out = append(out, c.Decision)
		}
		return strings.Join(out, ",")
	}
	if _, used := status(); used {
		t.Fatal("a first status went on from a saved state")
	}
	path := savedFile(t, h.dir)
	orig := harness.ReadFile(t, path)
	if !strings.Contains(string(orig), `"decision": "online"`) {
		t.Fatalf("the saved state holds no conclusion deciding online:\n%.400s", orig)
	}
	savedHead := strings.TrimSpace(h.git("", "rev-parse", forgRef))
	h.add("x", record.KindAttempt, `{"conclusion":"{k}","commits":["0123456789abcdef0123456789abcdef01234567"],"outcome":"succeeded"}`)
	otherKey := make([]byte, 32)
	for name, edit := range map[string]func() ([]byte, string){
		"decision edited": func() ([]byte, string) {
			return []byte(strings.Replace(string(orig), `"decision": "online"`, `"decision": "ONLINE"`, 1)), path
		},
		"signed for another task": func() ([]byte, string) {
			key := harness.ReadFile(t, filepath.Join(h.dir, ".git", "reason", "verified.key"))
			return gitstore.ResignSavedState(orig, key, "U", "ONLINE"), path
		},
		"signed under another key": func() ([]byte, string) {
			return gitstore.ResignSavedState(orig, otherKey, forgTask, "ONLINE"), path
		},
		"unchanged control": func() ([]byte, string) { return orig, path },
		// Three section lengths whose sum overflows an int64 to a
		// small number: the bound check passed, and cutting the
		// sections panicked, before any MAC was checked, in every
		// status of the task.
		"section lengths overflowing": func() ([]byte, string) {
			magic, rest, _ := strings.Cut(string(orig), "\n")
			line, body, _ := strings.Cut(rest, "\n")
			f := strings.Split(line, " ")
			if len(f) != 8 {
				t.Fatalf("the saved state's first segment line %q has %d fields, want 8", line, len(f))
			}
			f[5], f[6], f[7] = "4611686018427387904", "4611686018427387904", "4611686018427387904"
			return []byte(magic + "\n" + strings.Join(f, " ") + "\n" + body), path
		},
		// The facts the standing conclusions read (record/facts.go),
		// kept beside the records under the same MAC.
		"a fact edited, signed under another key": func() ([]byte, string) {
			return gitstore.ResignSavedFacts(orig, otherKey, forgTask, "6:online", "6:ONLINE"), path
		},
		"a fact edited, signed under the repository's key (control)": func() ([]byte, string) {
			key := harness.ReadFile(t, filepath.Join(h.dir, ".git", "reason", "verified.key"))
			return gitstore.ResignSavedFacts(orig, key, forgTask, "6:online", "6:ONLINE"), path
		},
		"an appended segment signed under another key": func() ([]byte, string) {
			// What the attempt's status appends, its outcome changed and
			// signed under another key after the real first segment: the
			// state ends where the real segments do, at the head before
			// the attempt, and goes on from there (used, the same
			// answers as the whole task's).
			_ = os.WriteFile(path, orig, 0o600)
			status()
			grown, err := os.ReadFile(path)
			if err != nil || len(grown) <= len(orig) {
				t.Fatalf("the status after the attempt did not append to the saved state: %d -> %d bytes, %v", len(orig), len(grown), err)
			}
			return gitstore.ResignSavedTail(grown, len(orig), otherKey, forgTask, `"outcome": "succeeded"`, `"outcome": "abandoned"`), path
		},
	} {
		t.Run(name, func(t *testing.T) {
			data, to := edit()
			_ = os.Remove(path)
			if err := os.WriteFile(to, data, 0o600); err != nil {
				t.Fatal(err)
			}
			defer os.Remove(to)
			if strings.HasSuffix(name, "(control)") {
				// The facts are what the standing conclusions of the
				// saved head show (after the attempt its rule decodes the
				// conclusion): the MAC alone keeps another key's edit
				// above out.
				st, used := statusState(t, h.dir, savedHead)
				if !used || decision(st) != "ONLINE" {
					t.Fatalf("a saved state with %s: used %v, decision %q, want the edited fact", name, used, decision(st))
				}
				return
			}
			st, used := status()
			if strings.HasPrefix(name, "an appended segment") {
				whole, err := gitstore.Open(h.dir)
				if err != nil {
					t.Fatal(err)
				}
				want := wholeState(t, whole, strings.TrimSpace(h.git("", "rev-parse", forgRef)))
				if err := st.Decoded(); err != nil {
					t.Fatal(err)
				}
				if !used || st.Report() != want.Report() {
					t.Fatalf("a saved state with %s: used %v, the report is\n%s\nwhole:\n%s", name, used, st.Report(), want.Report())
				}
				return
			}
			if name == "unchanged control" {
				if !used || decision(st) != "online" {
					t.Fatalf("the saved state as written: used %v, decision %q", used, decision(st))
				}
				return
			}
			if used || decision(st) != "online" {
				t.Fatalf("a saved state %s: used %v, status shows the decision %q", name, used, decision(st))
			}
		})
	}
}

// TestSavedStateAppends: a status after new records appends them to the
// saved state (the file before it unchanged, byte for byte, as its
// prefix) instead of writing the task's records again, and a status of
// the head saved writes nothing; the state read from the appended file is
// the replay's (the summary the whole task gives).
func TestSavedStateAppends(t *testing.T) {
	t.Parallel()
	h := newForgHistory(t)
	head := func() string { return strings.TrimSpace(h.git("", "rev-parse", forgRef)) }
	if _, used := statusState(t, h.dir, head()); used {
		t.Fatal("a first status went on from a saved state")
	}
	path := savedFile(t, h.dir)
	before := harness.ReadFile(t, path)
	for i := range 3 {
		h.add(fmt.Sprint("attempt ", i), record.KindAttempt, `{"conclusion":"{k}","commits":["0123456789abcdef0123456789abcdef01234567"],"outcome":"succeeded"}`)
		st, used := statusState(t, h.dir, head())
		after := harness.ReadFile(t, path)
		if !used || len(after) <= len(before) || string(after[:len(before)]) != string(before) {
			t.Fatalf("status after attempt %d (saved state used: %v): the saved state went from %d to %d bytes, not appended to", i, used, len(before), len(after))
		}
		if added := len(after) - len(before); added > 2048 {
			t.Errorf("status after one record appended %d bytes to the saved state", added)
		}
		whole, err := gitstore.Open(h.dir)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := jsonOf(t, st.Summarize()), jsonOf(t, wholeState(t, whole, head()).Summarize()); a != b {
			t.Fatalf("after attempt %d, the summary from the appended state is\n%s\nwhole:\n%s", i, a, b)
		}
		before = after
	}
	if _, used := statusState(t, h.dir, head()); !used {
		t.Fatal("the head saved was not read from its saved state")
	}
	if again, _ := os.ReadFile(path); string(again) != string(before) {
		t.Errorf("a status of the head saved wrote the saved state again")
	}
	// A segment that does not read at the end (cut short, or written
	// without the key): appending after it would never be read again, so
	// the next status writes the file anew at its head.
	junk := append(append([]byte{}, before...), []byte(strings.Repeat("0", 40)+" "+strings.Repeat("1", 64)+" 5 0\nhello")...)
	if err := os.WriteFile(path, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	h.add("attempt after junk", record.KindAttempt, `{"conclusion":"{k}","commits":["0123456789abcdef0123456789abcdef01234567"],"outcome":"succeeded"}`)
	if _, used := statusState(t, h.dir, head()); !used {
		t.Fatal("the state before the segment that does not read was not used")
	}
	if after, _ := os.ReadFile(path); strings.HasPrefix(string(after), string(junk)) {
		t.Error("a status appended after a segment that does not read: its state is never read again")
	}
	if _, used := statusState(t, h.dir, head()); !used {
		t.Error("the head after the segment that did not read was not saved")
	}
}

// questions is what st answers about each of its records, by id: of an
// assessment its plans, latest plan, consultations, completed ones, open
// disagreements, conclusions; of a conclusion its latest validation and
// whether it holds; of any record whether it is withdrawn, settled and
// the assessment it is about; then the standing conclusions and the
// closure. Entries are read through the state's methods only (a lazy
// state decodes what they select).
func questions(t *testing.T, st *record.State) string {
	t.Helper()
	ids := func(es []*record.Entry) []string {
		out := []string{}
		for _, e := range es {
			out = append(out, e.ID)
		}
		return out
	}
	id := func(e *record.Entry) string {
		if e == nil {
			return ""
		}
		return e.ID
	}
	out := map[string]any{}
	for _, e := range st.Entries {
		q := map[string]any{"withdrawn": id(st.Withdrawn(e.ID)), "settled": st.Settled(e.ID), "about": st.AssessmentOf(st.Get(e.ID))}
		switch e.Kind {
		case record.KindAssessment:
			q["latest plan"] = id(st.LatestPlan(e.ID))
			q["consultations"], q["completed"] = ids(st.Consultations(e.ID)), ids(st.Completed(e.ID))
			q["open"], q["conclusions"] = ids(st.OpenDisagreements(e.ID)), ids(st.Conclusions(e.ID))
		case record.KindConclusion:
			q["validation"], q["holds"] = id(st.LatestValidation(e.ID)), st.Holds(e.ID)
		case record.KindDisagreement:
			q["open"] = st.IsOpenDisagreement(e.ID)
		}
		out[e.ID] = q
	}
	out["standing"], out["closure"], out["open"] = st.Standing(), id(st.Closure()), ids(st.OpenDisagreements(""))
	return jsonOf(t, out)
}
