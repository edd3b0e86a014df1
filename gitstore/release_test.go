package gitstore_test

import (
	"context"
	"errors"
	"strings"
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

// TestTaskCacheOfAnotherRelease: the task cache keeps a task's records as
// the release that read them checked them (record.ReadStored: the
// schemas, the task, the name), and the writer and every reader take
// them from it without checking them again. A record another release's
// checks admitted may fail this release's (a schema made stricter): a
// cache another release wrote, at the task's real head and under this
// repository's key, that holds such a record must not bring it to the
// writer, which refuses to append on a task whose records do not read,
// as it refuses when git is read (TestForgedRecordRefusesAppendWithoutDecoding).
func TestTaskCacheOfAnotherRelease(t *testing.T) {
	ctx := context.Background()
	h := newForgHistory(t)
	forged, _ := h.numberMateriality()
	h.git("", "update-ref", forgRef, forged)

	restore := gitstore.AsRelease("v0.0.1 0123abcd false")
	err := gitstore.CacheTaskAsRead(openStore(t, h.dir), forgTask, forged)
	restore()
	if err != nil {
		t.Fatal(err)
	}
	s := openStore(t, h.dir)
	if _, _, err := s.Load(ctx, forgTask); !errors.Is(err, record.ErrUnreadable) {
		t.Errorf("load of a task whose cache another release wrote with a record this one refuses: %v, want an unreadable history", err)
	}
	if err := appendAfterForgery(ctx, openStore(t, h.dir)); !errors.Is(err, record.ErrUnreadable) {
		t.Errorf("append on a task whose cache another release wrote with a record this one refuses: %v, want an unreadable history", err)
	}
	if head := strings.TrimSpace(h.git("", "rev-parse", forgRef)); head != forged {
		t.Errorf("the append moved the task to %s", head)
	}
}
