package gitstore_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"git-reason/gitstore"
	"git-reason/reliability/harness"
)

// TestJournalOfAnotherRelease: handover.journal is keyed by each task's
// head, so a journal written by another release of git reason (whose rules
// derived differently) was served as is until the head moved. A journal
// naming another release, or another version, is rebuilt.
func TestJournalOfAnotherRelease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := newRepo(t)
	s := openStore(t, dir)
	assessTrivially(t, indexedWriter(s, "Cache"), "T", "s")
	hs, err := gitstore.Index{Store: s}.Handovers(ctx)
	if err != nil || len(hs) != 1 {
		t.Fatalf("handovers: %v, %v", hs, err)
	}
	honest := hs[0].Next
	path := filepath.Join(dir, ".git", "reason", "handover.journal")
	data := harness.ReadFile(t, path)
	// The journal as written: its first line, one entry's line, its data
	// (sealed: the entry's MAC, then the entry).
	lines := bytes.SplitN(data, []byte("\n"), 3)
	if len(lines) != 3 || !bytes.Contains(lines[2], []byte(`"next":`)) {
		t.Fatalf("handover.journal is not one entry:\n%s", data)
	}
	first, fields := string(lines[0]), bytes.Fields(lines[1])
	// What an older release derived and sealed with this repository's
	// key: another next step, at the same head.
	at := bytes.IndexByte(lines[2], '{')
	stale := bytes.Replace(bytes.TrimSuffix(lines[2][at:], []byte("\n")), []byte(strconv.Quote(honest)), []byte(`"stale"`), 1)
	j := gitstore.OpenSealed(s.Repo, "handover.journal", "index")
	j.Put(string(fields[0]), string(fields[1]), stale)
	j.Save([]string{string(fields[0])})
	written := harness.ReadFile(t, path)
	_, entry, _ := bytes.Cut(written, []byte("\n"))
	entry = entry[bytes.LastIndex(entry[:len(entry)-1], []byte("\n"+string(fields[0])+" "))+1:]
	if !bytes.Contains(entry, []byte(`"next":"stale"`)) {
		t.Fatalf("the stale entry is not the journal's last:\n%s", written)
	}
	var v int
	var rel, scope string
	if _, err := fmt.Sscanf(first, "git reason journal 1 v%d %q %q", &v, &rel, &scope); err != nil {
		t.Fatalf("first line %q: %v", first, err)
	}
	for _, c := range []struct {
		name, first string
		served      bool
	}{
		{"this release", first, true},
		{"another release", fmt.Sprintf("git reason journal 1 v%d %q %q", v, "v0.0.1 0123abcd false", scope), false},
		{"another version", fmt.Sprintf("git reason journal 1 v%d %q %q", v-1, rel, scope), false},
	} {
		if err := os.WriteFile(path, append([]byte(c.first+"\n"), entry...), 0o600); err != nil {
			t.Fatal(err)
		}
		hs, err := gitstore.Index{Store: s}.Handovers(ctx)
		if err != nil || len(hs) != 1 {
			t.Fatalf("%s: handovers: %v, %v", c.name, hs, err)
		}
		if got := hs[0].Next == "stale"; got != c.served {
			t.Errorf("%s: next %q; the journal served: %v, want %v (honest %q)", c.name, hs[0].Next, got, c.served, honest)
		}
	}
}
