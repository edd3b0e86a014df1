package gitstore_test

import (
	"bytes"
	"context"
	"testing"

	"git-reason/gitstore"
	"git-reason/record"
)

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
			[]byte(`{"subject":"Database migration strategy","question":"Big bang?","materiality":"critical","reversibility":"irreversible","evidence":[{"kind":"note","summary":"two options"}]}`))
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
