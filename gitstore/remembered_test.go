package gitstore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRememberedOnlyItsOwnEntries: what one process remembers and saves
// another reads back; an entry edited, moved to another task, or kept
// after its key changed is not remembered; a file that does not parse
// remembers nothing.
func TestRememberedOnlyItsOwnEntries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q")
	r, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	x, y := strings.Repeat("a", 40), strings.Repeat("b", 40)
	m := OpenRemembered(r)
	m.Add("T", x)
	m.Add("U", y)
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(r.CommonDir, "reason", "verified.key")
	if fi, err := os.Stat(key); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, %v", fi, err)
	}
	if got := OpenRemembered(r); !got.Has("T", x) || !got.Has("U", y) || got.Has("T", y) {
		t.Fatalf("read back: T %v, U %v", got.Heads("T"), got.Heads("U"))
	}

	path := filepath.Join(r.CommonDir, "reason", "verified.journal")
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Each edit is made as a forger who knows the format would make it:
	// the journal's framing (length, CRC) is made to match again, so that
	// only the MACs stand between the edit and the memo.
	for name, edit := range map[string]func(string) string{
		"head edited":        func(s string) string { return reframe(t, strings.Replace(s, x, strings.Repeat("c", 40), -1)) },
		"moved to a task":    func(s string) string { return reframe(t, strings.Replace(s, "\nT ", "\nV ", 1)) },
		"cut short":          func(s string) string { return s[:len(s)-20] },
		"another version":    func(s string) string { return strings.Replace(s, "verified v1", "verified v9", 1) },
		"MAC of the other":   func(s string) string { return reframe(t, swapMACs(t, s)) },
		"forged entry after": func(s string) string { return forgedAfter(s, "T", strings.Repeat("c", 40)) },
		"unchanged control":  func(s string) string { return s },
	} {
		if err := os.WriteFile(path, []byte(edit(string(orig))), 0o644); err != nil {
			t.Fatal(err)
		}
		if j := readJournalAs(path, rememberedMagic); name != "cut short" && name != "another version" && (!j.whole || len(j.entries) != 2) {
			// The edit must reach the MACs: a journal whose framing
			// does not read proves nothing of them.
			t.Fatalf("%s: the journal reads %d entries (whole: %v), want both", name, len(j.entries), j.whole)
		}
		got := OpenRemembered(r)
		total := len(got.Heads("T")) + len(got.Heads("U")) + len(got.Heads("V"))
		switch name {
		case "unchanged control":
			if total != 2 {
				t.Errorf("%s: %d heads remembered, want 2", name, total)
			}
		case "head edited", "moved to a task", "cut short", "forged entry after":
			// Only U's own entry (the last one written, U, is what a
			// write cut short loses: then only T's).
			want := "U"
			if name == "cut short" {
				want = "T"
			}
			if total != 1 || len(got.Heads(want)) != 1 || got.Has("V", x) || got.Has("T", strings.Repeat("c", 40)) {
				t.Errorf("%s: remembered T %v, U %v, V %v; want only %s's own entry", name, got.Heads("T"), got.Heads("U"), got.Heads("V"), want)
			}
		default:
			if total != 0 {
				t.Errorf("%s: %d heads remembered, want none", name, total)
			}
		}
	}

	// A new key (the old one gone) makes every old entry void.
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(key); err != nil {
		t.Fatal(err)
	}
	if got := OpenRemembered(r); len(got.Heads("T"))+len(got.Heads("U")) != 0 {
		t.Fatalf("with the key gone: T %v, U %v", got.Heads("T"), got.Heads("U"))
	}
	n := OpenRemembered(r)
	n.Add("W", y)
	if err := n.Save(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := OpenRemembered(r); len(got.Heads("T"))+len(got.Heads("U")) != 0 {
		t.Fatalf("entries of the old key under a new one: T %v, U %v", got.Heads("T"), got.Heads("U"))
	}
}

// reframe makes the journal s read again after an edit of its entries'
// data: each entry's length and CRC recomputed, as a forger would.
func reframe(t *testing.T, s string) string {
	t.Helper()
	magic, rest, _ := strings.Cut(s, "\n")
	out := []byte(magic + "\n")
	lines := strings.Split(strings.TrimSuffix(rest, "\n"), "\n")
	if len(lines)%2 != 0 {
		t.Fatalf("a journal of entries of one line each expected:\n%s", s)
	}
	for i := 0; i < len(lines); i += 2 {
		f := strings.Fields(lines[i])
		out = appendJournalEntry(out, f[0], f[1], []byte(lines[i+1]))
	}
	return string(out)
}

// forgedAfter appends to the journal s an entry of task remembering head
// with a MAC made up, framed as the writer frames one.
func forgedAfter(s, task, head string) string {
	data := fmt.Sprintf(`{"heads":[{"head":%q,"mac":%q}]}`, head, strings.Repeat("0", 64))
	return string(appendJournalEntry([]byte(s), task, head, []byte(data)))
}

// swapMACs gives each of the file's two entries the other's MAC.
func swapMACs(t *testing.T, s string) string {
	t.Helper()
	i := strings.Index(s, `"mac":"`)
	j := strings.LastIndex(s, `"mac":"`)
	if i < 0 || i == j {
		t.Fatalf("two MACs expected in %s", s)
	}
	a, b := s[i+7:i+7+64], s[j+7:j+7+64]
	return strings.NewReplacer(a, b, b, a).Replace(s)
}

// TestRememberedAppends: remembering a head of one task among 1,000
// appends that task's entry to the journal (the bytes before it are
// untouched), and a journal read back remembers every task; the file of
// the releases before the journal (verified.json) is read once, written
// into the journal and removed.
func TestRememberedAppends(t *testing.T) {
	// Not parallel: it counts the bytes this process writes.
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q")
	r, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	head := func(i, round int) string { return fmt.Sprintf("%020x%020x", i, round) }
	const n = 1000
	m := OpenRemembered(r)
	for i := range n {
		m.Add(fmt.Sprintf("T-%04d", i), head(i, 0))
	}
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(r.CommonDir, "reason", "verified.journal")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for round := 1; round <= 3; round++ {
		m := OpenRemembered(r)
		m.Add("T-0500", head(500, round))
		w := costs.written.Load()
		if err := m.Save(); err != nil {
			t.Fatal(err)
		}
		after, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(after), string(before)) || len(after)-len(before) > 1024 || costs.written.Load()-w != int64(len(after)-len(before)) {
			t.Fatalf("round %d: one head remembered took the journal from %d to %d bytes (appended: %v), want one entry appended",
				round, len(before), len(after), strings.HasPrefix(string(after), string(before)))
		}
		before = after
	}
	// Many rounds of heads remembered: the journal is compacted now and
	// then, and stays within twice what it holds.
	compacted, last := 0, len(before)
	for round := 1; round <= 12; round++ {
		m := OpenRemembered(r)
		for i := round * 300 % n; i < round*300%n+300 && i < n; i++ {
			if i != 500 {
				m.Add(fmt.Sprintf("T-%04d", i), head(i, round))
			}
		}
		if err := m.Save(); err != nil {
			t.Fatal(err)
		}
		j := readJournalAs(path, rememberedMagic)
		if !j.whole || len(j.entries) != n || j.size > 2*j.live+journalMin {
			t.Fatalf("round %d: the journal is %d bytes holding %d in %d entries (whole %v)", round, j.size, j.live, len(j.entries), j.whole)
		}
		if j.size < last {
			compacted++
		}
		last = j.size
	}
	if compacted == 0 {
		t.Errorf("12 rounds of 300 heads remembered among 1,000 tasks never compacted the journal")
	}
	got := OpenRemembered(r)
	for _, i := range []int{0, 499, 501, n - 1} {
		if task := fmt.Sprintf("T-%04d", i); !got.Has(task, head(i, 0)) || len(got.Heads(task)) < 2 && i != 0 {
			t.Errorf("%s: %v remembered, want %s", task, got.Heads(task), head(i, 0))
		}
	}
	if hs := got.Heads("T-0500"); len(hs) != 4 || hs[3] != head(500, 3) {
		t.Errorf("T-0500 remembers %v, want its four heads", hs)
	}

	// The file before the journal: its entries are remembered, and the
	// first save moves them into the journal.
	old := filepath.Join(r.CommonDir, "reason", "verified.json")
	doc := fmt.Sprintf(`{"version":1,"tasks":{"A":[{"head":%q,"mac":%q}],"B":[{"head":%q,"mac":"forged"}]}}`,
		head(1, 9), got.mac("A", head(1, 9)), head(2, 9))
	if err := os.WriteFile(old, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	m = OpenRemembered(r)
	if !m.Has("A", head(1, 9)) || m.Has("B", head(2, 9)) {
		t.Fatalf("from verified.json: A %v, B %v; want A's head alone", m.Heads("A"), m.Heads("B"))
	}
	m.Add("C", head(3, 9))
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("verified.json is still there after the journal was written: %v", err)
	}
	if got := OpenRemembered(r); !got.Has("A", head(1, 9)) || !got.Has("C", head(3, 9)) || got.Has("B", head(2, 9)) {
		t.Errorf("the journal after verified.json: A %v, B %v, C %v", got.Heads("A"), got.Heads("B"), got.Heads("C"))
	}
}
