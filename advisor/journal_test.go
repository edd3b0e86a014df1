package advisor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"git-reason/advisor/transport"
)

// Concurrent appends from many writers never interleave within a line, and
// every outcome reads back.
func TestJournalConcurrentAppends(t *testing.T) {
	j := Journal{Path: JournalPath(t.TempDir())}
	const writers, each = 8, 50
	var wg sync.WaitGroup
	at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				o := Outcome{Advisor: fmt.Sprintf("adv-%d", w), Origin: "me", Status: OutcomeFailed,
					FailureKind: transport.RateLimit, RetryAfterS: i, At: at.Add(time.Duration(i) * time.Second)}
				if err := j.Append(o, "T", ""); err != nil {
					t.Error(err)
				}
			}
		}(w)
	}
	wg.Wait()
	got, err := j.Read()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != writers*each {
		t.Fatalf("read %d outcomes, want %d", len(got), writers*each)
	}
	per := map[string]int{}
	for _, o := range got {
		if o.RetryAfterS != per[o.Advisor] {
			t.Fatalf("%s: outcome %d out of order or lost (got retry %d)", o.Advisor, per[o.Advisor], o.RetryAfterS)
		}
		per[o.Advisor]++
	}
}

// Reading is bounded to the journal's tail, and a line that does not parse
// is skipped rather than fatal.
func TestJournalReadBoundedAndTolerant(t *testing.T) {
	j := Journal{Path: JournalPath(t.TempDir())}
	if got, err := j.Read(); err != nil || got != nil {
		t.Fatalf("missing journal: %v, %v", got, err)
	}
	if err := os.MkdirAll(filepath.Dir(j.Path), 0o777); err != nil {
		t.Fatal(err)
	}
	// 4 MiB of old lines, a torn line, garbage, then one real outcome.
	old := `{"at":"2000-01-01T00:00:00Z","advisor":"adv-old","status":"failed","failure":"timeout"}` + "\n"
	junk := strings.Repeat(old, (4<<20)/len(old)) + `{"at":"2000-01-01T00:00:00Z","advi` + "\n\x1b[2J not json\n"
	if err := os.WriteFile(j.Path, []byte(junk), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(Outcome{Advisor: "adv-new", Status: OutcomeCompleted, At: time.Now()}, "T", "R"); err != nil {
		t.Fatal(err)
	}
	got, err := j.Read()
	if err != nil {
		t.Fatal(err)
	}
	if max := JournalTail / len(old); len(got) > max+1 {
		t.Fatalf("read %d outcomes from a tail of %d bytes: reading is not bounded", len(got), JournalTail)
	}
	if last := got[len(got)-1]; last.Advisor != "adv-new" || last.Status != OutcomeCompleted {
		t.Fatalf("last outcome %+v, want adv-new completed", last)
	}
}
