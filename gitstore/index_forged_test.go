package gitstore_test

import (
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"git-reason/gitstore"
	"git-reason/record"
	"git-reason/reliability/harness"
)

// reframeJournal rewrites every entry of the journal file data with edit
// applied to its data, framed again as the writer frames it (a new CRC
// and length): what a stranger who edits a cache writes.
func reframeJournal(t *testing.T, data []byte, edit func([]byte) []byte) []byte {
	t.Helper()
	magic, rest, ok := bytes.Cut(data, []byte{'\n'})
	if !ok {
		t.Fatalf("no journal: %q", data)
	}
	out := append(append([]byte(nil), magic...), '\n')
	for len(rest) > 0 {
		line, next, _ := bytes.Cut(rest, []byte{'\n'})
		f := bytes.Fields(line)
		if len(f) < 4 {
			t.Fatalf("entry line %q", line)
		}
		n, err := strconv.Atoi(string(f[len(f)-1]))
		if err != nil {
			t.Fatal(err)
		}
		body := edit(bytes.Clone(next[:n]))
		head := bytes.Join(f[:len(f)-2], []byte{' '})
		out = fmt.Appendf(out, "%s %s %d\n%s\n", head, strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 16), len(body), body)
		rest = next[n+1:]
	}
	return out
}

// TestIndexJournalForged: the index journals under .git/reason/
// (status.journal, handover.journal), which `status --json`, `handover
// --mine` and the Reasoning page read whole, hold each task's status and
// handover as derived at its head. An entry edited to say the task is
// concluded after three reviews, framed again with a good CRC, must not
// reach a surface: what Index gives is what the refs derive. Without a
// MAC on the entries (a CRC only) the forged status is served and this
// test fails.
func TestIndexJournalForged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := newRepo(t)
	assessTrivially(t, indexedWriter(openStore(t, dir), "Index"), "T", "s")
	status := func() record.Status {
		t.Helper()
		x := gitstore.Index{Store: openStore(t, dir)}
		tasks, entries, err := x.Tasks(ctx)
		if err != nil || len(tasks) != 1 {
			t.Fatalf("Tasks: %v, %v", tasks, err)
		}
		return entries["T"].Status
	}
	handover := func() record.Handover {
		t.Helper()
		hs, err := gitstore.Index{Store: openStore(t, dir)}.Handovers(ctx)
		if err != nil || len(hs) != 1 {
			t.Fatalf("Handovers: %v, %v", hs, err)
		}
		return hs[0]
	}
	truth, truthH := status(), handover()
	if truth.Phase == record.PhaseConcluded || truth.ReviewCount != 0 || truthH.Phase == record.PhaseConcluded {
		t.Fatalf("the truth already says concluded: %+v %+v", truth, truthH)
	}
	phase := []byte(`"phase":"` + string(truth.Phase) + `"`)
	forge := func(data []byte) []byte {
		data = bytes.Replace(data, phase, []byte(`"phase":"concluded"`), 1)
		return bytes.Replace(data, []byte(`"review_count":0`), []byte(`"review_count":3`), 1)
	}
	for _, name := range []string{"status.journal", "handover.journal"} {
		path := filepath.Join(dir, ".git", "reason", name)
		honest := harness.ReadFile(t, path)
		forged := reframeJournal(t, honest, forge)
		if bytes.Equal(forged, honest) || !bytes.Contains(forged, []byte(`"phase":"concluded"`)) {
			t.Fatalf("%s: the forgery changed nothing:\n%s", name, honest)
		}
		if err := os.WriteFile(path, forged, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got := status(); got.Phase != truth.Phase || got.ReviewCount != truth.ReviewCount {
		t.Errorf("forged status.journal: Tasks gave phase %s, %d reviews; the refs say %s, %d", got.Phase, got.ReviewCount, truth.Phase, truth.ReviewCount)
	}
	if got := handover(); got.Phase != truthH.Phase {
		t.Errorf("forged handover.journal: Handovers gave phase %s; the refs say %s", got.Phase, truthH.Phase)
	}
}
