package gitstore_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"git-reason/gitstore"
	"git-reason/record"
	"git-reason/reliability/harness"
)

// TestSubjectIndexForged: the subject index (.git/reason/subjects/) tells
// the writer which standing conclusions a new assessment may reuse, and a
// reuse spares the review its plan would ask for. A file written by a
// stranger that lists task X, at X's real head, as standing on another
// subject with a critical, irreversible conclusion (X concluded a
// trivial question on logging) must not make the writer record a
// critical assessment of that subject as reusing X's conclusion: the
// writer would admit what its own replay refuses ("its subject differs")
// and plan no review. Without the MAC on each entry the forged entry is
// used and this test fails.
func TestSubjectIndexForged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := newRepo(t)
	_, c := concludedLogging(t, dir)
	subjects := filepath.Join(dir, ".git", "reason", "subjects")
	file := func(key string) string {
		sum := sha256.Sum256([]byte(key))
		return filepath.Join(subjects, hex.EncodeToString(sum[:16])+".json")
	}
	honest := harness.ReadFile(t, file("logging format"))
	// The honest file of X's subject, rewritten as the file of another
	// subject: the same task, head, conclusion and MAC, another subject and
	// a demanding assessment.
	const key = "database migration strategy"
	var f map[string]any
	if err := json.Unmarshal(honest, &f); err != nil {
		t.Fatal(err)
	}
	f["key"] = key
	entry := f["tasks"].(map[string]any)["X"].(map[string]any)
	for _, st := range entry["standing"].([]any) {
		m := st.(map[string]any)
		if m["conclusion"] != c.ID {
			t.Fatalf("X's entry names %v, not its conclusion %s", m["conclusion"], c.ID)
		}
		m["subject_key"], m["materiality"], m["reversibility"] = key, "critical", "irreversible"
	}
	forged, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file(key), forged, 0o600); err != nil {
		t.Fatal(err)
	}
	w2 := indexedWriter(openStore(t, dir), "Subject")
	y, err := w2.Append(ctx, "Y", record.KindAssessment, []byte(migrationAssessment))
	if err != nil {
		t.Fatal(err)
	}
	if d := y.Derived.(*record.AssessmentDerived); d.Reuses != "" {
		t.Errorf("the forged subject index made the writer record a reuse of %s of task %s", d.Reuses, d.ReusesTask)
	}
	// The honest index still serves: a new assessment of X's own subject,
	// no more demanding, reuses X's conclusion.
	z, err := w2.Append(ctx, "Z", record.KindAssessment, []byte(`{"subject":"Logging format","question":"json still?","materiality":"trivial","reversibility":"reversible"}`))
	if err != nil {
		t.Fatal(err)
	}
	if d := z.Derived.(*record.AssessmentDerived); d.Reuses != c.ID {
		t.Errorf("an honest reuse: Z reuses %q, want %s", d.Reuses, c.ID)
	}
}

// TestSubjectIndexOfAnotherRelease: what the subject index lists of a
// task (the standing conclusions it derived at the task's head) is what
// the release that derived it made of the task's records; another
// release may derive them otherwise (a subject normalised otherwise, a
// rule of what stands). An entry another release wrote, at the task's
// real head and under this repository's key, that lists task X (which
// concluded a trivial question on logging) as standing on another
// subject, critical and irreversible, must not make this release's
// writer record a critical assessment of that subject as reusing X's
// conclusion: the writer would admit what its own replay refuses ("its
// subject differs") and plan no review. The same entry written by this
// release is this release's derivation, and is used as it is.
func TestSubjectIndexOfAnotherRelease(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	a, c := concludedLogging(t, dir)
	s := openStore(t, dir)
	head, recs, err := s.Load(ctx, "X")
	if err != nil {
		t.Fatal(err)
	}
	// X's records as the other release read them: its assessment of
	// another subject, critical and irreversible.
	other := make([]*record.Record, len(recs))
	for i, r := range recs {
		rec := *r
		if rec.ID == a.ID {
			edit := func(b []byte) []byte {
				for _, p := range [][2]string{{"Logging format", "Database migration strategy"}, {"logging format", "database migration strategy"},
					{`"trivial"`, `"critical"`}, {`"reversible"`, `"irreversible"`}} {
					b = bytes.ReplaceAll(b, []byte(p[0]), []byte(p[1]))
				}
				return b
			}
			rec.Body, rec.Derived = edit(rec.Body), edit(rec.Derived)
		}
		other[i] = &rec
	}
	assess := func(task string) string {
		t.Helper()
		res, err := indexedWriter(openStore(t, dir), "Subject").Append(ctx, task, record.KindAssessment,
			[]byte(migrationAssessment))
		if err != nil {
			t.Fatal(err)
		}
		return res.Derived.(*record.AssessmentDerived).Reuses
	}

	restore := gitstore.AsRelease("v0.0.1 0123abcd false")
	err = openStore(t, dir).NoteStandingAt("X", head, other)
	restore()
	if err != nil {
		t.Fatal(err)
	}
	if reuses := assess("Y"); reuses != "" {
		t.Errorf("the subject index another release wrote made the writer record a reuse of %s", reuses)
	}

	// Written by this release, the entry is this release's own word.
	if err := openStore(t, dir).NoteStandingAt("X", head, other); err != nil {
		t.Fatal(err)
	}
	if reuses := assess("Z"); reuses != c.ID {
		t.Errorf("the subject index this release wrote: the writer reuses %q, want %s (the entry unused)", reuses, c.ID)
	}
}

// migrationAssessment is a critical, irreversible assessment of another
// subject than X's: the writer may record it as reusing X's trivial
// conclusion only when the subject index lists X under its subject.
const migrationAssessment = `{"subject":"Database migration strategy","question":"Big bang?","materiality":"critical","reversibility":"irreversible","evidence":[{"kind":"note","summary":"two options"}]}`

// concludedLogging writes task X in dir through a writer that keeps the
// subject index: a trivial, reversible assessment of the logging format,
// its plan and its conclusion, which it returns.
func concludedLogging(t *testing.T, dir string) (assessment, conclusion *record.Result) {
	t.Helper()
	ctx := context.Background()
	w := indexedWriter(openStore(t, dir), "Subject")
	a, err := w.Append(ctx, "X", record.KindAssessment, []byte(`{"subject":"Logging format","question":"json?","materiality":"trivial","reversibility":"reversible"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append(ctx, "X", record.KindPlan, []byte(`{"assessment":"`+a.ID+`"}`)); err != nil {
		t.Fatal(err)
	}
	c, err := w.Append(ctx, "X", record.KindConclusion, []byte(`{"assessment":"`+a.ID+`","decision":"json"}`))
	if err != nil {
		t.Fatal(err)
	}
	return a, c
}
