package gitstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"git-reason/gitstore"
	"git-reason/record"
)

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
