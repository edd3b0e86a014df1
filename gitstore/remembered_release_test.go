package gitstore_test

import (
	"context"
	"testing"

	"git-reason/gitstore"
	"git-reason/record"
)

// TestVerdictOfAnotherRelease: a verdict that another release of git
// reason kept (a head whose whole history its replay found clean, in
// verified.d/, and the state it saved at that head, in states/) says what
// that release's rules found; this release's may find a rule broken
// there (a release that closes a hole in replay). Kept by this release,
// the verdict stands, and neither verify nor a read surface replays the
// history again; kept by another, verify as the command does
// (VerifyRemembered), the verdict read surfaces show (Verdict) and the
// saved state status goes on from (DeriveSaved) all replay it with this
// release's rules and find the forgery.
func TestVerdictOfAnotherRelease(t *testing.T) {
	ctx := context.Background()
	h := newForgHistory(t)
	forged, _ := h.unselectedAdvisor()
	want := wantFindings(t, h.forge(forged), forged, record.FindInadmissible)

	// keep remembers forged clean and saves the state at it, as a
	// release whose replay found nothing there would.
	keep := func() {
		rem := gitstore.OpenRemembered(openStore(t, h.dir).Repo)
		rem.Add(forgTask, forged)
		if err := rem.Save(); err != nil {
			t.Fatal(err)
		}
		s := openStore(t, h.dir)
		_, recs, err := s.Load(ctx, forgTask)
		if err != nil {
			t.Fatal(err)
		}
		st, err := record.Derive(forgTask, recs)
		if err != nil {
			t.Fatal(err)
		}
		s.SaveState(forgTask, forged, st)
	}
	// check returns what verify, the verdict and the saved state say of
	// forged now.
	check := func() (found []record.Finding, verdict *record.Finding, saved bool) {
		s := openStore(t, h.dir)
		found, err := s.VerifyRemembered(ctx, forgTask, forged, gitstore.OpenRemembered(s.Repo))
		if err != nil {
			t.Fatal(err)
		}
		if verdict, err = openStore(t, h.dir).Verdict(ctx, forgTask, forged); err != nil {
			t.Fatal(err)
		}
		_, saved = openStore(t, h.dir).DeriveSaved(ctx, forgTask, forged)
		return found, verdict, saved
	}

	// This release's own verdict stands: what it kept is not replayed.
	keep()
	if found, verdict, saved := check(); len(found) != 0 || verdict != nil || !saved {
		t.Fatalf("kept by this release: verify found %v, verdict %v, saved state read %v; want the kept verdict and state used", found, verdict, saved)
	}

	// Another release's: replayed, and the forgery found.
	restore := gitstore.AsRelease("v0.0.1 0123abcd false")
	keep()
	restore()
	found, verdict, saved := check()
	if forgSorted(found) != forgSorted(want) {
		t.Errorf("kept by another release, verify found:\n%s\nwant:\n%s", forgSorted(found), forgSorted(want))
	}
	if verdict == nil || verdict.Code != record.FindInadmissible {
		t.Errorf("kept by another release, the verdict read surfaces show is %v, want %s", verdict, record.FindInadmissible)
	}
	if saved {
		t.Error("kept by another release, a status went on from its saved state")
	}
}
