package gitstore_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

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
	y, err := w2.Append(ctx, "Y", record.KindAssessment, []byte(`{"subject":"Database migration strategy","question":"Big bang?","materiality":"critical","reversibility":"irreversible","evidence":[{"kind":"note","summary":"two options"}]}`))
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
