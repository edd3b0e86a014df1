package gitstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"git-reason/gitstore/git"
	"git-reason/record"
	"git-reason/reliability/harness"
)

// TestRememberedAfterAnEmptyKey: a verified.key left empty (a process
// that died between creating it and writing the key, before the key was
// written through its lock) is made again by the next save, which then
// remembers, instead of failing on "unreadable verified.key" in every
// command from then on.
func TestRememberedAfterAnEmptyKey(t *testing.T) {
	t.Parallel()
	r := discoverT(t, initRepo(t))
	key := filepath.Join(r.CommonDir, "reason", "verified.key")
	harness.WriteFile(t, key, "")
	x := strings.Repeat("a", 40)
	m := OpenRemembered(r)
	m.Add("T", x, oneCommit)
	if err := m.Save(); err != nil {
		t.Fatalf("save over an empty key: %v", err)
	}
	if fi, err := os.Stat(key); err != nil || fi.Size() != 32 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file after the save: %v, %v", fi, err)
	}
	if !OpenRemembered(r).Has("T", x) {
		t.Fatal("the head saved is not remembered")
	}
}

// oneCommit is the totals of a one-commit history of no records: what a
// test that remembers made-up heads says they count for.
var oneCommit = Totals{Commits: 1}

// TestRememberedTotals: a head is remembered with what its history counts
// for against the limits (Totals), under its MAC, and read back with them;
// an entry of the format before (no totals, a MAC of "verified v2") and
// one whose totals were edited are not remembered (the history is
// replayed whole), and a head remembered again keeps the lesser totals.
func TestRememberedTotals(t *testing.T) {
	t.Parallel()
	r := discoverT(t, initRepo(t))
	x, y := strings.Repeat("a", 40), strings.Repeat("b", 40)
	want := Totals{Bytes: 5000, Entries: 12, Commits: 7}
	m := OpenRemembered(r)
	m.Add("T", x, want)
	m.Add("T", y, Totals{}) // no totals: not remembered
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	got := OpenRemembered(r)
	if tt, ok := got.Totals("T", x); !ok || tt != want || got.Has("T", y) {
		t.Fatalf("read back: %v %v, y remembered %v", tt, ok, got.Has("T", y))
	}
	path := got.taskPath("T")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, from, to string }{
		{"totals edited", `"bytes":5000`, `"bytes":500`},
		{"the format before", fmt.Sprintf(`"mac":%q,"bytes":5000,"entries":12,"commits":7`, got.mac("T", x, want)),
			fmt.Sprintf(`"mac":%q`, keyedMAC(got.key, "git-reason verified v2\x00"+release()+"\x00T\x00"+x, nil))},
	} {
		edited := strings.Replace(string(data), c.from, c.to, 1)
		if edited == string(data) {
			t.Fatalf("%s: %q is not in the file:\n%s", c.name, c.from, data)
		}
		harness.WriteFile(t, path, reframe(t, edited))
		if OpenRemembered(r).Has("T", x) {
			t.Errorf("%s: the head is remembered", c.name)
		}
	}
	harness.WriteFile(t, path, string(data))
	m = OpenRemembered(r)
	m.Add("T", x, Totals{Bytes: 9000, Entries: 10, Commits: 7})
	if tt, _ := m.Totals("T", x); tt != (Totals{Bytes: 5000, Entries: 10, Commits: 7}) {
		t.Errorf("remembered again: %+v, want the lesser of each", tt)
	}
}

// TestRememberedOnlyItsOwnEntries: what one process remembers and saves
// another reads back; an entry edited, moved to another task or another
// task's file, or kept after its key changed is not remembered; a file
// that does not parse remembers nothing.
func TestRememberedOnlyItsOwnEntries(t *testing.T) {
	t.Parallel()
	r := discoverT(t, initRepo(t))
	x, y := strings.Repeat("a", 40), strings.Repeat("b", 40)
	m := rememberTU(t, r, x, y)
	key := filepath.Join(r.CommonDir, "reason", "verified.key")
	if fi, err := os.Stat(key); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, %v", fi, err)
	}
	if got := OpenRemembered(r); !got.Has("T", x) || !got.Has("U", y) || got.Has("T", y) {
		t.Fatalf("read back: T %v, U %v", got.Heads("T"), got.Heads("U"))
	}

	pathT, pathU, pathV := m.taskPath("T"), m.taskPath("U"), m.taskPath("V")
	origT := harness.ReadFile(t, pathT)
	origU := harness.ReadFile(t, pathU)
	// Each edit is made as a forger who knows the format would make it:
	// the entry's framing (length, CRC) is made to match again, so that
	// only the MACs stand between the edit and the memo. Each returns
	// the files T, U and V then hold ("" for none).
	for name, edit := range map[string]func(ts, us string) (string, string, string){
		"head edited": func(ts, us string) (string, string, string) {
			return reframe(t, strings.Replace(ts, x, strings.Repeat("c", 40), -1)), us, ""
		},
		"moved to a task": func(ts, us string) (string, string, string) {
			return "", us, reframe(t, strings.Replace(ts, "\nT ", "\nV ", 1))
		},
		"copied to another's file": func(ts, us string) (string, string, string) { return "", us, ts },
		"cut short":                func(ts, us string) (string, string, string) { return ts[:len(ts)-20], us, "" },
		"another version": func(ts, us string) (string, string, string) {
			return strings.Replace(ts, "verified v1", "verified v9", 1), strings.Replace(us, "verified v1", "verified v9", 1), ""
		},
		"MAC of the other": func(ts, us string) (string, string, string) {
			a, b := swapMACs(t, ts+us)
			return reframe(t, a), reframe(t, b), ""
		},
		"forged entry after": func(ts, us string) (string, string, string) {
			return forgedAfter(ts, "T", strings.Repeat("c", 40)), us, ""
		},
		"unchanged control": func(ts, us string) (string, string, string) { return ts, us, "" },
	} {
		ts, us, vs := edit(string(origT), string(origU))
		for path, content := range map[string]string{pathT: ts, pathU: us, pathV: vs} {
			os.Remove(path)
			if content == "" {
				continue
			}
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			if j := parseJournal([]byte(content), rememberedMagic); name != "cut short" && name != "another version" && (!j.whole || j.n != 1) {
				// The edit must reach the MACs: a file whose framing
				// does not read proves nothing of them.
				t.Fatalf("%s: a task file reads %d entries (whole: %v), want one", name, j.n, j.whole)
			}
		}
		got := OpenRemembered(r)
		total := len(got.Heads("T")) + len(got.Heads("U")) + len(got.Heads("V"))
		switch name {
		case "unchanged control":
			if total != 2 {
				t.Errorf("%s: %d heads remembered, want 2", name, total)
			}
		case "head edited", "moved to a task", "copied to another's file", "cut short", "forged entry after":
			if total != 1 || len(got.Heads("U")) != 1 || got.Has("V", x) || got.Has("T", strings.Repeat("c", 40)) {
				t.Errorf("%s: remembered T %v, U %v, V %v; want only U's own entry", name, got.Heads("T"), got.Heads("U"), got.Heads("V"))
			}
		default:
			if total != 0 {
				t.Errorf("%s: %d heads remembered, want none", name, total)
			}
		}
	}

	// A new key (the old one gone) makes every old entry void.
	os.Remove(pathV)
	for path, content := range map[string][]byte{pathT: origT, pathU: origU} {
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(key); err != nil {
		t.Fatal(err)
	}
	if got := OpenRemembered(r); len(got.Heads("T"))+len(got.Heads("U")) != 0 {
		t.Fatalf("with the key gone: T %v, U %v", got.Heads("T"), got.Heads("U"))
	}
	n := OpenRemembered(r)
	n.Add("W", y, oneCommit)
	if err := n.Save(); err != nil {
		t.Fatal(err)
	}
	if got := OpenRemembered(r); len(got.Heads("T"))+len(got.Heads("U")) != 0 || !got.Has("W", y) {
		t.Fatalf("entries of the old key under a new one: T %v, U %v; W %v", got.Heads("T"), got.Heads("U"), got.Heads("W"))
	}
}

// rememberTU remembers head x of task T and y of U in r, saved.
func rememberTU(t *testing.T, r *Repo, x, y string) *Remembered {
	t.Helper()
	m := OpenRemembered(r)
	m.Add("T", x, oneCommit)
	m.Add("U", y, oneCommit)
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestReusesWithHeads holds what a push's verification remembers of its
// reuse checks (Remembered.AddReusesWithHeads) to the one write of the
// task's file for a head added to it: a task whose head was remembered
// before is not written again for it (reliability.TestScaleCounts: a
// sync wrote a second file of verified.d/), and a task whose head is
// added has it in the same file, read back under its MAC. A memo edited
// (the reused head, the head it is of, its MAC) or moved to another task,
// its framing made to match again, is ignored: with the MAC check taken
// out of load, the edits are read back as checked.
func TestReusesWithHeads(t *testing.T) {
	t.Parallel()
	r := discoverT(t, initRepo(t))
	x, y, y2 := strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("d", 40)
	h, forged := strings.Repeat("1", 40), strings.Repeat("2", 40)
	m := rememberTU(t, r, x, y)
	pathT, pathU := m.taskPath("T"), m.taskPath("U")
	origT := string(harness.ReadFile(t, pathT))

	m = OpenRemembered(r)
	m.AddReusesWithHeads("T", x, map[string]string{"H": h})
	m.Add("U", y2, oneCommit)
	m.AddReusesWithHeads("U", y2, map[string]string{"H": h})
	if _, ok := m.ReusesChecked("T", x); !ok {
		t.Errorf("T's reuse check at a head remembered before is not held in the process")
	}
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	if got := string(harness.ReadFile(t, pathT)); got != origT {
		t.Errorf("T's file written again for a reuse check alone, no head added:\n%s", got)
	}
	origU := string(harness.ReadFile(t, pathU))
	if reused, ok := OpenRemembered(r).ReusesChecked("U", y2); !ok || reused["H"] != h {
		t.Fatalf("U's reuse check, saved with its new head, read back: %v, %v\n%s", reused, ok, origU)
	}

	// edit rewrites the entry of U's file as a forger who knows the
	// format would: its data changed, its framing made to match again.
	edit := func(task string, change func(e *rememberedTask)) string {
		magic, rest, _ := strings.Cut(origU, "\n")
		line, data, _ := strings.Cut(rest, "\n")
		var e rememberedTask
		if err := json.Unmarshal([]byte(strings.TrimSuffix(data, "\n")), &e); err != nil || e.Reuses == nil {
			t.Fatalf("U's file holds no reuse memo (%v):\n%s", err, origU)
		}
		change(&e)
		out, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		line = strings.Replace(line, "U ", task+" ", 1)
		return reframe(t, magic+"\n"+line+"\n"+string(out)+"\n")
	}
	for _, c := range []struct {
		name, task, file string
		held             bool
	}{
		{"unchanged control", "U", edit("U", func(e *rememberedTask) {}), true},
		{"reused head edited", "U", edit("U", func(e *rememberedTask) { e.Reuses.Reused["H"] = forged }), false},
		{"reused task added", "U", edit("U", func(e *rememberedTask) { e.Reuses.Reused["V"] = forged }), false},
		{"moved to the older head", "U", edit("U", func(e *rememberedTask) { e.Reuses.Head = y }), false},
		{"MAC made up", "U", edit("U", func(e *rememberedTask) { e.Reuses.MAC = strings.Repeat("0", 64) }), false},
		{"copied to another task", "T", edit("T", func(e *rememberedTask) {
			e.Heads = []rememberedEntry{{Head: x, MAC: OpenRemembered(r).mac("T", x, oneCommit), Totals: oneCommit}}
			e.Reuses.Head = x
		}), false},
	} {
		path := pathU
		if c.task == "T" {
			path = pathT
		}
		if err := os.WriteFile(path, []byte(c.file), 0o644); err != nil {
			t.Fatal(err)
		}
		got := OpenRemembered(r)
		head := y2
		if c.task == "T" {
			head = x
		}
		if !got.Has(c.task, head) {
			t.Fatalf("%s: %s's head is not remembered: the edit did not reach the reuse memo's MAC\n%s", c.name, c.task, c.file)
		}
		if _, ok := got.ReusesChecked(c.task, head); ok != c.held {
			t.Errorf("%s: %s's reuse check read back %v, want %v", c.name, c.task, ok, c.held)
		}
		if c.task == "T" {
			if err := os.WriteFile(pathT, []byte(origT), 0o644); err != nil {
				t.Fatal(err)
			}
		}
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

// swapMACs gives each of the two task files, s their contents one after
// the other, the other's MAC, and returns the two files.
func swapMACs(t *testing.T, s string) (string, string) {
	t.Helper()
	i := strings.Index(s, `"mac":"`)
	j := strings.LastIndex(s, `"mac":"`)
	if i < 0 || i == j {
		t.Fatalf("two MACs expected in %s", s)
	}
	a, b := s[i+7:i+7+64], s[j+7:j+7+64]
	s = strings.NewReplacer(a, b, b, a).Replace(s)
	k := strings.Index(s[1:], rememberedMagic) + 1
	return s[:k], s[k:]
}

// TestSealedOnlyItsOwnEntries holds what a sealed journal (the signature
// checks verify trusts) gives back to its MAC: an entry read back whole is
// used; one whose data was edited (framed again, as the writer frames),
// moved to another task or head, read under another scope or name, or
// with the repository key replaced, is not. Without the MAC check the
// edited entries are used and this test fails.
func TestSealedOnlyItsOwnEntries(t *testing.T) {
	t.Parallel()
	r := discoverT(t, initRepo(t))
	const x, y = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	s := OpenSealed(r, "test.journal", "scope a")
	s.Put("T", x, []byte("unsigned line"))
	s.Put("U", y, []byte("good line"))
	s.Save(nil)
	path := filepath.Join(r.CommonDir, "reason", "test.journal")
	if got, ok := OpenSealed(r, "test.journal", "scope a").Get("T", x); !ok || string(got) != "unsigned line" {
		t.Fatalf("an entry read back: %q, %v", got, ok)
	}
	for name, c := range map[string]struct {
		task, head, scope string
	}{
		"another head":  {"T", y, "scope a"},
		"another task":  {"U", x, "scope a"},
		"another scope": {"T", x, "scope b"},
	} {
		if got, ok := OpenSealed(r, "test.journal", c.scope).Get(c.task, c.head); ok {
			t.Errorf("%s: entry %q used", name, got)
		}
	}
	// Edited: T's data changed and framed again; U's entry copied to T
	// with its own MAC.
	old := harness.ReadFile(t, path)
	j := readJournalAs(path, scopedJournalHead("sealed scope a"))
	te, _ := j.lookup("T")
	ue, _ := j.lookup("U")
	for name, forged := range map[string][]byte{
		"data edited": appendJournalEntry(nil, "T", x, bytes.Replace(te.data, []byte("unsigned"), []byte("good"), 1)),
		"moved":       appendJournalEntry(nil, "T", x, ue.data),
	} {
		if err := os.WriteFile(path, append(append([]byte(nil), old...), forged...), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, ok := OpenSealed(r, "test.journal", "scope a").Get("T", x); ok {
			t.Errorf("%s: entry %q used", name, got)
		}
	}
	if err := os.WriteFile(path, old, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.CommonDir, "reason", "verified.key"), bytes.Repeat([]byte{7}, 32), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, ok := OpenSealed(r, "test.journal", "scope a").Get("T", x); ok {
		t.Errorf("another key: entry %q used", got)
	}
}

// TestRememberedPerTask: remembering the heads of 1,000 tasks at once
// (a clone's first catch-up) writes one file, the pack, not a file per
// task; remembering a head of one task among them then writes that
// task's file alone (every other file untouched), which is read over
// the pack; a lookup reads the one task's file or pack entry; and the
// files of the releases before (verified.journal, a journal of every
// task, and verified.json before it) are not read, and removed.
func TestRememberedPerTask(t *testing.T) {
	t.Parallel()
	r := discoverT(t, initRepo(t))
	head := func(i, round int) string { return fmt.Sprintf("%020x%020x", i, round) }
	const n = 1000
	m := OpenRemembered(r)
	for i := range n {
		m.Add(fmt.Sprintf("T-%04d", i), head(i, 0), oneCommit)
	}
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	files := func() map[string]string {
		out := map[string]string{}
		ents, err := os.ReadDir(filepath.Join(r.CommonDir, "reason", rememberedDir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			data := harness.ReadFile(t, filepath.Join(r.CommonDir, "reason", rememberedDir, e.Name()))
			out[e.Name()] = string(data)
		}
		return out
	}
	if got := len(files()); got != 0 {
		t.Fatalf("%d task files for %d tasks remembered at once, want none: the pack holds them", got, n)
	}
	if _, err := os.Stat(filepath.Join(r.CommonDir, "reason", rememberedPackFile)); err != nil {
		t.Fatalf("no pack for %d tasks remembered at once: %v", n, err)
	}
	for round := 1; round <= 10; round++ {
		before := files()
		m := OpenRemembered(r)
		m.Add("T-0500", head(500, round), oneCommit)
		if err := m.Save(); err != nil {
			t.Fatal(err)
		}
		if m.reads != 1 {
			t.Fatalf("round %d: remembering one task's head read %d task files, want 1", round, m.reads)
		}
		after := files()
		var changed []string
		for name, data := range after {
			if before[name] != data {
				changed = append(changed, name)
			}
		}
		if len(changed) != 1 || len(after) != 1 || filepath.Base(m.taskPath("T-0500")) != changed[0] || len(after[changed[0]]) > 2048 {
			t.Fatalf("round %d: one head remembered changed %v (%d bytes), want T-0500's file alone", round, changed, len(after[filepath.Base(m.taskPath("T-0500"))]))
		}
	}
	got := OpenRemembered(r)
	for _, i := range []int{0, 499, 501, n - 1} {
		if task := fmt.Sprintf("T-%04d", i); !got.Has(task, head(i, 0)) || len(got.Heads(task)) != 1 {
			t.Errorf("%s: %v remembered, want %s", task, got.Heads(task), head(i, 0))
		}
	}
	if hs := got.Heads("T-0500"); len(hs) != rememberedPerTask || hs[len(hs)-1] != head(500, 10) {
		t.Errorf("T-0500 remembers %v, want its latest %d heads", hs, rememberedPerTask)
	}
	if got.reads != 5 {
		t.Errorf("five tasks asked about read %d task files", got.reads)
	}

	// The files of the releases before (verified.journal, a journal of
	// every task, and verified.json before it) hold another release's
	// verdicts: nothing of them is remembered, even under a MAC this
	// release would make, and they go when the task files are first
	// written.
	reason := filepath.Join(r.CommonDir, "reason")
	if err := os.RemoveAll(filepath.Join(reason, rememberedDir)); err != nil {
		t.Fatal(err)
	}
	journal := appendJournalEntry([]byte(rememberedMagic), "A", head(1, 9),
		[]byte(fmt.Sprintf(`{"heads":[{"head":%q,"mac":%q}]}`, head(1, 9), got.mac("A", head(1, 9), oneCommit))))
	old := filepath.Join(reason, rememberedOld)
	doc := fmt.Sprintf(`{"version":1,"tasks":{"C":[{"head":%q,"mac":%q}]}}`, head(3, 9), got.mac("C", head(3, 9), oneCommit))
	if err := os.WriteFile(filepath.Join(reason, rememberedJournal), journal, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	m = OpenRemembered(r)
	if m.Has("A", head(1, 9)) || m.Has("C", head(3, 9)) {
		t.Fatalf("the files of the releases before are remembered: A %v, C %v", m.Heads("A"), m.Heads("C"))
	}
	m.Add("E", head(5, 9), oneCommit)
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{rememberedJournal, rememberedOld} {
		if _, err := os.Stat(filepath.Join(reason, name)); !os.IsNotExist(err) {
			t.Errorf("%s is still there after the task files were written: %v", name, err)
		}
	}
	if !OpenRemembered(r).Has("E", head(5, 9)) {
		t.Error("E's head, saved, is not remembered")
	}
}

// TestRememberedPack: the pack that a save of many tasks writes is read
// as the task files are: a second save of many tasks keeps the first's
// entries, in another process or the same one; a task's file in verified.d/ is its entry over the pack's, and
// a save of many tasks that holds it removes it; and nothing a stranger
// writes into the pack is remembered: another task's entry under a
// task's name, an entry reframed for another task or with a head
// edited, an index or header that points past the file, or a pack cut
// short, which read as no entry, without a panic.
func TestRememberedPack(t *testing.T) {
	t.Parallel()
	r := discoverT(t, initRepo(t))
	head := func(i, round int) string { return fmt.Sprintf("%020x%020x", i, round) }
	task := func(prefix string, i int) string { return fmt.Sprintf("%s-%03d", prefix, i) }
	save := func(prefix string, n, round int) {
		t.Helper()
		m := OpenRemembered(r)
		for i := range n {
			m.Add(task(prefix, i), head(i, round), oneCommit)
		}
		if err := m.Save(); err != nil {
			t.Fatal(err)
		}
	}
	reason := filepath.Join(r.CommonDir, "reason")
	pack := filepath.Join(reason, rememberedPackFile)
	save("P", packedMin+36, 0)
	save("Q", packedMin, 0)
	m := OpenRemembered(r)
	for _, c := range []struct{ task, head string }{{"P-000", head(0, 0)}, {"P-099", head(99, 0)}, {"Q-000", head(0, 0)}, {"Q-063", head(63, 0)}} {
		if !m.Has(c.task, c.head) {
			t.Errorf("%s: %v remembered after two saves of many tasks, want %s", c.task, m.Heads(c.task), c.head)
		}
	}
	if ents, err := os.ReadDir(filepath.Join(reason, rememberedDir)); err != nil || len(ents) != 0 {
		t.Fatalf("task files after saves of many tasks: %v, %v", ents, err)
	}

	// A save of many tasks keeps what the pack holds when it writes, not
	// when this process first read it: another process's save of many
	// tasks in between (late, opened before the pack had R's entries), or
	// this process's own save before (twice, which read no pack at all).
	late := OpenRemembered(r)
	late.Heads("S-000") // the pack is read: P's and Q's entries
	save("R", packedMin, 0)
	twice := OpenRemembered(r)
	for round, prefix := range []string{"U", "V"} {
		for i := range packedMin {
			twice.Add(task(prefix, i), head(i, round), oneCommit)
		}
		if err := twice.Save(); err != nil {
			t.Fatal(err)
		}
	}
	for i := range packedMin {
		late.Add(task("S", i), head(i, 0), oneCommit)
	}
	if err := late.Save(); err != nil {
		t.Fatal(err)
	}
	m = OpenRemembered(r)
	for _, c := range []struct{ task, head string }{{"P-099", head(99, 0)}, {"R-000", head(0, 0)}, {"R-063", head(63, 0)}, {"S-000", head(0, 0)}, {"U-000", head(0, 0)}, {"U-063", head(63, 0)}, {"V-000", head(0, 1)}} {
		if !m.Has(c.task, c.head) {
			t.Errorf("%s: %v remembered after the saves of many tasks that followed its own, want %s", c.task, m.Heads(c.task), c.head)
		}
	}

	// A task's file is its entry; a save of many tasks that holds the
	// task takes its heads into the pack and removes the file.
	save("P", 1, 1)
	if hs := OpenRemembered(r).Heads("P-000"); len(hs) != 2 || hs[1] != head(0, 1) {
		t.Fatalf("P-000 remembers %v after one head added in its file, want its packed head and %s", hs, head(0, 1))
	}
	m = OpenRemembered(r)
	entry, _, _ := m.entryData("P-000") // from its file
	lone := appendJournalEntry([]byte(rememberedMagic), "P-001", head(1, 7), []byte(strings.ReplaceAll(string(entry), head(0, 0), head(1, 7))))
	harness.WriteFile(t, m.taskPath("P-001"), string(lone))
	if hs := OpenRemembered(r).Heads("P-001"); len(hs) != 0 {
		t.Errorf("P-001's file holding a forged entry: %v remembered, want none (its file is its entry, over the pack's)", hs)
	}
	save("P", packedMin, 2)
	for _, name := range []string{"P-000", "P-001"} {
		if _, err := os.Stat(m.taskPath(name)); !os.IsNotExist(err) {
			t.Errorf("%s's file is still there after a save of many tasks took it into the pack: %v", name, err)
		}
	}
	if hs := OpenRemembered(r).Heads("P-000"); len(hs) != 3 || hs[2] != head(0, 2) {
		t.Errorf("P-000 remembers %v, want its three heads", hs)
	}

	// A stranger's pack.
	good := harness.ReadFile(t, pack)
	p := readNamedPack(pack, rememberedPackMagic)
	dataOf := func(name string) []byte {
		d, ok := packEntry(p, name)
		if !ok {
			t.Fatalf("%s has no entry in the pack", name)
		}
		return bytes.Clone(d) // p's mapping goes with p
	}
	p5, p6 := dataOf("P-005"), dataOf("P-006")
	edited := []byte(strings.ReplaceAll(string(p5), head(5, 2), head(5, 9)))
	for name, c := range map[string]struct {
		entries map[string][]byte
		raw     func(b []byte) []byte
	}{
		"another's entry under its name": {entries: map[string][]byte{fileName("P-006"): appendJournalEntry(nil, "P-005", head(5, 2), p5)}},
		"reframed for another task":      {entries: map[string][]byte{fileName("P-006"): appendJournalEntry(nil, "P-006", head(6, 2), p5)}},
		"a head edited":                  {entries: map[string][]byte{fileName("P-005"): appendJournalEntry(nil, "P-005", head(5, 9), edited)}},
		"cut short":                      {raw: func(b []byte) []byte { return b[:len(b)/2] }},
		"an offset past the file": {raw: func(b []byte) []byte {
			i := p.index // the first index line
			return append(append(append([]byte(nil), b[:i+33]...), "9999999999"...), b[i+43:]...)
		}},
		"a count past the file": {raw: func(b []byte) []byte {
			return []byte(strings.Replace(string(b), fmt.Sprintf("%s%d\n", rememberedPackMagic, p.n), rememberedPackMagic+"99999\n", 1))
		}},
	} {
		if c.raw != nil {
			harness.WriteFile(t, pack, string(c.raw(good)))
		} else {
			harness.WriteFile(t, pack, string(good))
			if err := writeNamedPack(pack, rememberedPackMagic, c.entries, 0); err != nil {
				t.Fatal(err)
			}
		}
		m := OpenRemembered(r)
		for i := range packedMin + 36 {
			for _, hd := range m.Heads(task("P", i)) {
				if hd != head(i, 0) && hd != head(i, 1) && hd != head(i, 2) {
					t.Errorf("%s: %s remembers %s, a head never saved for it", name, task("P", i), hd)
				}
			}
		}
		want := map[string][]string{
			"another's entry under its name": {"P-006"}, "reframed for another task": {"P-006"},
			"a count past the file": {"P-005", "P-006", "P-007"},
		}[name]
		if hs := m.Heads("P-005"); name == "a head edited" && !reflect.DeepEqual(hs, []string{head(5, 0)}) {
			t.Errorf("%s: P-005 remembers %v, want its one head whose MAC holds, %s", name, hs, head(5, 0))
		}
		for _, none := range want {
			if hs := m.Heads(none); len(hs) != 0 {
				t.Errorf("%s: %s remembers %v, want none", name, none, hs)
			}
		}
	}
	if err := os.Remove(pack); err != nil {
		t.Fatal(err)
	}
	harness.WriteFile(t, pack, string(good))
	if !OpenRemembered(r).Has("P-006", head(6, 2)) || len(p6) == 0 {
		t.Error("the pack put back: P-006's head is not remembered")
	}
}

// TestTaskFiles: what SaveQuarantines remembers another
// Store reads back, by task; a file of another version, one that does
// not parse, or one without tasks reads as nothing remembered, and the
// next save starts it again.
func TestTaskFiles(t *testing.T) {
	t.Parallel()
	dir := initRepo(t)
	s := openT(t, dir)
	commit := "1111111111111111111111111111111111111111"
	found := []record.Finding{{Task: "T", Commit: commit, Code: "inadmissible", Message: "m"}}
	q := Quarantine{Remote: "origin", Fetched: commit, Codes: []string{"forged"}, Findings: found}
	if err := s.SaveQuarantines(map[string]Quarantine{"U": q}, nil); err != nil {
		t.Fatal(err)
	}
	again := openT(t, dir)
	if got := again.LoadQuarantines(); !reflect.DeepEqual(got, map[string]Quarantine{"U": q}) {
		t.Errorf("quarantines read back %+v, want U: %+v", got, q)
	}
	for _, bad := range []string{`{"version":2,"tasks":{"T":{"head":"x","refusals":[{"code":"c"}]},"U":{"remote":"origin"}}}`,
		`{"version":1,"tasks":`, `{"version":1}`} {
		if err := os.WriteFile(s.quarantinePath(), []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := again.LoadQuarantines(); got == nil || len(got) != 0 {
			t.Errorf("quarantine.json %s read as %#v, want an empty map", bad, got)
		}
	}
	if err := s.SaveQuarantines(map[string]Quarantine{"V": q}, nil); err != nil {
		t.Fatal(err)
	}
	if got := again.LoadQuarantines(); !reflect.DeepEqual(got, map[string]Quarantine{"V": q}) {
		t.Errorf("a save over a file without tasks: %+v, want V alone", got)
	}
}

// TestQuarantineForged: quarantine.json says which fetched histories a
// pull held back and why, for the Reasoning page. An entry a stranger
// writes (a task said held back that is not) or edits (another reason,
// another fetched head) must not be read back; the entries SaveQuarantines
// wrote still are. Without the MAC on each entry the forged ones are read
// and this test fails.
func TestQuarantineForged(t *testing.T) {
	t.Parallel()
	dir := initRepo(t)
	s := openT(t, dir)
	commit := "1111111111111111111111111111111111111111"
	q := Quarantine{Remote: "origin", Fetched: commit, Codes: []string{"forged"},
		Findings: []record.Finding{{Task: "T", Commit: commit, Code: "forged", Message: "m"}}}
	if err := s.SaveQuarantines(map[string]Quarantine{"T": q, "V": q}, nil); err != nil {
		t.Fatal(err)
	}
	data := harness.ReadFile(t, s.quarantinePath())
	var f map[string]any
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	tasks := f["tasks"].(map[string]any)
	// U: T's entry, MAC and all, given to a task nothing held back.
	tasks["U"] = tasks["T"]
	// T: another reason, with T's MAC.
	tasks["T"].(map[string]any)["codes"] = []string{"signature"}
	// W: an entry written without a MAC.
	tasks["W"] = map[string]any{"remote": "origin", "fetched": commit, "codes": []string{"forged"}}
	forged, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.quarantinePath(), forged, 0o644); err != nil {
		t.Fatal(err)
	}
	got := openT(t, dir).LoadQuarantines()
	if !reflect.DeepEqual(got, map[string]Quarantine{"V": q}) {
		t.Errorf("forged quarantine.json read back %+v, want V alone: %+v", got, q)
	}
}

// TestTaskCachePack: the task caches a read across many tasks writes
// (HoldCaches: a clone's first status reads every task) go into one pack,
// tasks.pack, not a file each, and are read as the files are: a task's
// own file over the pack's entry, which a save of many tasks holding the
// task removes; a second save keeps the first's entries, whichever store
// read the pack when; a cache read from the pack is appended to by no
// one (no file holds it); a pack another process is writing leaves the
// save to the files; and nothing a stranger writes into the pack is read
// as a task's cache: another task's entry under its name, an entry whose
// head is edited, an index or header pointing past the file, a pack cut
// short.
func TestTaskCachePack(t *testing.T) {
	t.Parallel()
	dir := initRepo(t)
	head := func(i, round int) string { return fmt.Sprintf("%020x%020x", i, round) }
	task := func(prefix string, i int) string { return fmt.Sprintf("%s-%03d", prefix, i) }
	cache := func(tk string, i, round int) *taskCache {
		rec := &record.Record{ID: fmt.Sprintf("r-%s-%d", tk, round), Kind: "assessment", Task: tk, Body: []byte(`{"subject":"s"}`)}
		return &taskCache{Head: head(i, round), Entries: []cacheEntry{{Name: "0001.json", Blob: head(i+1, round), Rec: rec}}}
	}
	var tasks []string
	for _, prefix := range []string{"P", "Q", "R", "U", "V", "W"} {
		for i := range packedMin + 36 {
			tasks = append(tasks, task(prefix, i))
		}
	}
	taskRefsT(t, dir, tasks...)
	reason := filepath.Join(discoverT(t, dir).CommonDir, "reason")
	pack := filepath.Join(reason, taskPackFile)
	files := func() []string {
		ents, _ := os.ReadDir(filepath.Join(reason, "tasks"))
		var out []string
		for _, e := range ents {
			out = append(out, e.Name())
		}
		return out
	}
	save := func(s *Store, prefix string, n, round int) {
		t.Helper()
		write := s.HoldCaches()
		for i := range n {
			// As a read (taskAt): the cache made replaces the task's
			// own file it read.
			c := cache(task(prefix, i), i, round)
			_, c.file = s.readTaskCacheFile(task(prefix, i))
			s.writeTaskCache(task(prefix, i), c)
		}
		if c := s.readTaskCache(task(prefix, 0)); c == nil || c.Head != head(0, round) {
			t.Fatalf("%s: the cache held back does not read back: %v", task(prefix, 0), c)
		}
		write()
	}
	at := func(tk string) string {
		if c := openT(t, dir).readTaskCache(tk); c != nil {
			return c.Head
		}
		return ""
	}
	save(openT(t, dir), "P", packedMin+36, 0)
	if got := files(); len(got) != 0 {
		t.Fatalf("%d task cache files after a read that wrote %d tasks' caches, want none: the pack holds them", len(got), packedMin+36)
	}
	if _, err := os.Stat(pack); err != nil {
		t.Fatalf("no task pack after a read that wrote %d tasks' caches: %v", packedMin+36, err)
	}
	for _, i := range []int{0, 50, packedMin + 35} {
		if got := at(task("P", i)); got != head(i, 0) {
			t.Errorf("%s reads at %q from the pack, want %s", task("P", i), got, head(i, 0))
		}
	}
	c := openT(t, dir).readTaskCache("P-001")
	if c == nil || c.size.Load() != 0 || c.segments.Load() != 0 || len(c.Entries) != 1 || c.Entries[0].Rec.Task != "P-001" {
		t.Fatalf("P-001 read from the pack: %+v, want its one record, no file size (nothing appends to it)", c)
	}

	// A few tasks' caches are a file each, read over the pack; a save of
	// many tasks that holds one removes its file. A later save keeps the
	// pack's entries: another store's (late read the pack before it) or
	// its own before.
	s := openT(t, dir)
	s.writeTaskCache("P-002", cache("P-002", 2, 1))
	save(s, "Q", 3, 0)
	if got := files(); len(got) != 4 || at("P-002") != head(2, 1) || at("Q-001") != head(1, 0) {
		t.Fatalf("files %v, P-002 at %q, Q-001 at %q: want a file each for 4 tasks, P-002 at its file's %s", got, at("P-002"), at("Q-001"), head(2, 1))
	}
	late := openT(t, dir)
	late.readTaskCache("S-000") // the pack read: P's entries
	save(openT(t, dir), "R", packedMin, 0)
	twice := openT(t, dir)
	save(twice, "U", packedMin, 0)
	save(twice, "V", packedMin, 0)
	save(late, "P", packedMin, 2)
	for tk, want := range map[string]string{"P-002": head(2, 2), "P-099": head(99, 0), "R-000": head(0, 0), "U-063": head(63, 0), "V-000": head(0, 0), "Q-002": head(2, 0)} {
		if got := at(tk); got != want {
			t.Errorf("%s at %q after the saves of many tasks that followed, want %s", tk, got, want)
		}
	}
	if got := files(); len(got) != 3 || slices.Contains(got, "P-002.records") {
		t.Errorf("task files %v after a save of many tasks took P-002 into the pack, want Q's three alone", got)
	}

	// A task deleted: its entry goes from the pack, the others stay.
	if err := openT(t, dir).dropTaskCache("P-003"); err != nil {
		t.Fatal(err)
	}
	if at("P-003") != "" || at("P-004") != head(4, 2) || bytes.Contains(harness.ReadFile(t, pack), []byte("r-P-003-")) {
		t.Errorf("after P-003 was deleted: P-003 at %q, P-004 at %q (want none, %s), its record in the pack: %v", at("P-003"), at("P-004"), head(4, 2), bytes.Contains(harness.ReadFile(t, pack), []byte("r-P-003-")))
	}
	// A task deleted while another process writes the pack (a fold, a
	// save of many tasks): the delete waits for it, as for a ref's lock,
	// rather than failing once the task's ref is gone.
	harness.WriteFile(t, pack+".lock", "")
	released := make(chan error, 1)
	go func() {
		time.Sleep(200 * time.Millisecond) // the other process's write
		released <- os.Remove(pack + ".lock")
	}()
	if err := openT(t, dir).dropTaskCache("P-004"); err != nil {
		t.Fatalf("delete of P-004 while another process wrote the pack: %v, want it to wait for the pack", err)
	}
	if err := <-released; err != nil {
		t.Fatal(err)
	}
	if at("P-004") != "" || bytes.Contains(harness.ReadFile(t, pack), []byte("r-P-004-")) {
		t.Errorf("P-004, deleted while the pack was locked, still reads at %q from the pack", at("P-004"))
	}

	// A pack another process is writing: the save writes the files.
	harness.WriteFile(t, pack+".lock", "")
	save(openT(t, dir), "W", packedMin, 0)
	if got := len(files()); got != 3+packedMin || at("W-010") != head(10, 0) {
		t.Errorf("%d task files with the pack locked, W-010 at %q: want W's %d too", got, at("W-010"), packedMin)
	}
	if err := os.Remove(pack + ".lock"); err != nil {
		t.Fatal(err)
	}

	// A stranger's pack.
	good := harness.ReadFile(t, pack)
	p := readNamedPack(pack, taskPackMagic)
	p5, ok := p.lookup("P-005")
	if !ok {
		t.Fatal("P-005 has no entry in the pack")
	}
	p5 = bytes.Clone(p5) // p's mapping goes with p
	for name, c := range map[string]struct {
		entries map[string][]byte
		raw     func(b []byte) []byte
	}{
		"another's entry under its name": {entries: map[string][]byte{fileName("P-006"): p5}},
		"a head edited":                  {entries: map[string][]byte{fileName("P-005"): []byte(strings.Replace(string(p5), head(5, 2), head(5, 9), 1))}},
		"cut short":                      {raw: func(b []byte) []byte { return b[:len(b)/2] }},
		"an offset past the file": {raw: func(b []byte) []byte {
			return append(append(append([]byte(nil), b[:p.index+33]...), "9999999999"...), b[p.index+43:]...)
		}},
		"a count past the file": {raw: func(b []byte) []byte {
			return []byte(strings.Replace(string(b), fmt.Sprintf("%s%d\n", taskPackMagic, p.n), taskPackMagic+"99999\n", 1))
		}},
	} {
		harness.WriteFile(t, pack, string(good))
		if c.raw != nil {
			harness.WriteFile(t, pack, string(c.raw(good)))
		} else if err := writeNamedPack(pack, taskPackMagic, c.entries, 0); err != nil {
			t.Fatal(err)
		}
		s := openT(t, dir)
		for i := range packedMin + 36 {
			if c := s.readTaskCache(task("P", i)); c != nil && c.Head != head(i, 0) && c.Head != head(i, 2) {
				t.Errorf("%s: %s reads at %s, a head never cached for it", name, task("P", i), c.Head)
			}
		}
		for _, none := range map[string][]string{"another's entry under its name": {"P-006"}, "a head edited": {"P-005"}, "a count past the file": {"P-000", "P-050"}}[name] {
			if got := at(none); got != "" {
				t.Errorf("%s: %s reads at %s, want no cache", name, none, got)
			}
		}
	}
}

// TestLooseCachesFold: tasks that move one at a time after the pack
// took them in (a command of one task each) are written to their own
// files again, and once packedMin of them are, the files are folded
// into the pack: the task caches' tasks/ and the remembered
// verifications' verified.d/ are empty again, and every task reads at
// its newest head, the folded entry's, never the older one the pack held
// before. Before, only a save of packedMin tasks at once packed, which
// single-task commands never make: the files grew one per task moved.
func TestLooseCachesFold(t *testing.T) {
	t.Parallel()
	dir := initRepo(t)
	r := discoverT(t, dir)
	reason := filepath.Join(r.CommonDir, "reason")
	head := func(i, round int) string { return fmt.Sprintf("%020x%020x", i, round) }
	task := func(i int) string { return fmt.Sprintf("P-%03d", i) }
	count := func(sub string) int {
		ents, _ := os.ReadDir(filepath.Join(reason, sub))
		return len(ents)
	}
	const n = packedMin + 6
	var tasks []string
	for i := range (2048 + n) / packFraction { // every task this test moves
		tasks = append(tasks, task(i))
	}
	taskRefsT(t, dir, tasks...)
	cache := func(i, round int) *taskCache {
		rec := &record.Record{ID: fmt.Sprintf("r-%d-%d", i, round), Kind: "assessment", Task: task(i), Body: []byte(`{"subject":"s"}`)}
		return &taskCache{Head: head(i, round), Entries: []cacheEntry{{Name: "0001.json", Blob: head(i+1, round), Rec: rec}}}
	}
	s := openT(t, dir)
	write := s.HoldCaches()
	m := OpenRemembered(r)
	for i := range n {
		s.writeTaskCache(task(i), cache(i, 0))
		m.Add(task(i), head(i, 0), oneCommit)
	}
	write()
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	if count("tasks") != 0 || count(rememberedDir) != 0 {
		t.Fatalf("%d task cache files, %d of %s after a save of %d tasks, want none: the packs hold them", count("tasks"), count(rememberedDir), rememberedDir, n)
	}
	// One task a command, each moved after the pack took it in: P-000
	// twice (its second file replaces its first, one file).
	moves := append([]int{0}, func() []int {
		var all []int
		for i := range packedMin {
			all = append(all, i)
		}
		return all
	}()...)
	newest := map[int]int{}
	for k, i := range moves {
		round := newest[i] + 1
		newest[i] = round
		openT(t, dir).writeTaskCache(task(i), cache(i, round))
		m := OpenRemembered(r)
		m.Add(task(i), head(i, round), oneCommit)
		if err := m.Save(); err != nil {
			t.Fatal(err)
		}
		if k == len(moves)-2 && (count("tasks") != packedMin-1 || count(rememberedDir) != packedMin-1) {
			t.Fatalf("%d task cache files, %d of %s after %d tasks moved one at a time, want %d each", count("tasks"), count(rememberedDir), rememberedDir, packedMin-1, packedMin-1)
		}
	}
	if got, gotV := count("tasks"), count(rememberedDir); got != 0 || gotV != 0 {
		t.Errorf("%d task cache files, %d of %s after %d tasks moved one at a time, want none: folded into the packs", got, gotV, rememberedDir, packedMin)
	}
	m = OpenRemembered(r)
	for i := range n {
		want := head(i, newest[i])
		if c := openT(t, dir).readTaskCache(task(i)); c == nil || c.Head != want || c.Entries[0].Rec.ID != fmt.Sprintf("r-%d-%d", i, newest[i]) {
			t.Errorf("%s's cache read %+v after the fold, want its newest, at %s", task(i), c, want)
		}
		if hs := m.Heads(task(i)); len(hs) == 0 || hs[len(hs)-1] != want {
			t.Errorf("%s remembers %v after the fold, want its newest head %s last", task(i), hs, want)
		}
	}
	if list, err := os.ReadFile(filepath.Join(reason, taskPackFile+".loose")); err != nil || len(list) != 0 {
		t.Errorf("the loose list after the fold: %q, %v; want it empty", list, err)
	}

	// A large pack is folded into, or written by a save of many tasks,
	// only for a packFraction-th part of its tasks: each rewrite of the
	// whole pack is paid for by as many tasks moved, however large it
	// grows. 2,048 more tasks: packAt is 132 tasks.
	packPath := filepath.Join(reason, taskPackFile)
	others := map[string][]byte{}
	for i := range 2048 {
		others[fileName(fmt.Sprintf("Q-%04d", i))] = []byte("an entry of another task")
	}
	if err := writeNamedPack(packPath, taskPackMagic, others, 0); err != nil {
		t.Fatal(err)
	}
	least := (2048 + n) / packFraction
	packed, _ := os.Stat(packPath)
	s = openT(t, dir) // a save of packedMin tasks at once
	write = s.HoldCaches()
	for i := range packedMin {
		newest[i]++
		s.writeTaskCache(task(i), cache(i, newest[i]))
	}
	write()
	if now, _ := os.Stat(packPath); count("tasks") != packedMin || !now.ModTime().Equal(packed.ModTime()) || fileIdentity(now) != fileIdentity(packed) {
		t.Fatalf("a save of %d tasks at once left %d task cache files and rewrote the pack of %d tasks, want a file each and the pack as it was", packedMin, count("tasks"), 2048+n)
	}
	for i := packedMin; i < least; i++ {
		round := newest[i] + 1
		newest[i] = round
		openT(t, dir).writeTaskCache(task(i), cache(i, round))
		if i == least-2 && count("tasks") != least-1 {
			t.Fatalf("%d task cache files after %d tasks moved into a pack of %d tasks, want %d: the pack is rewritten only for %d", count("tasks"), least-1, 2048+n, least-1, least)
		}
	}
	if got := count("tasks"); got != 0 {
		t.Errorf("%d task cache files after %d tasks moved into a pack of %d tasks, want none: folded into the pack", got, least, 2048+n)
	}
	for i := range least {
		if c := openT(t, dir).readTaskCache(task(i)); c == nil || c.Head != head(i, newest[i]) {
			t.Errorf("%s's cache read %+v after the fold into the large pack, want its newest, at %s", task(i), c, head(i, newest[i]))
		}
	}

	// A file written or appended to after the fold read it is newer than
	// the entry the fold packed: it stays; one unchanged goes.
	path := s.taskCachePath("Z")
	for name, change := range map[string]func(){
		"replaced":    func() { harness.WriteFile(t, path, "newer") },
		"appended to": func() { _ = git.AppendAt(path, []byte("+"), 3) },
		"unchanged":   func() {},
	} {
		harness.WriteFile(t, path, "old")
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		change()
		removed := removeUnchanged(path, fi)
		_, err = os.Stat(path)
		if removed != (name == "unchanged") || removed != os.IsNotExist(err) {
			t.Errorf("a file %s since it was read: removed %v (stat: %v), want %v", name, removed, err, name == "unchanged")
		}
	}
}

// BenchmarkFold times one fold of the loose list into a tasks.pack of
// 2,000 and 10,000 tasks whose caches are 4,400 bytes (ten records of
// about 440 bytes each), with m = max(packedMin, n/k) tasks moved, for
// fractions 1/k around packFraction, and the write of one task's own
// file a move makes (write): ns/moved is the fold's time shared among
// the tasks whose moves paid for it, which stays level with the pack's
// size at a fixed fraction and grows with it at the fixed packedMin.
// "refs" is the fold of packedMin that asks, as a task pack's does, each
// task's ref under the lock (Store.taskGone: the n task refs packed, as
// a clone leaves them), against the same fold without (ns/moved of
// both); gone is that check alone, ns/task.
// go test ./gitstore -run '^$' -bench BenchmarkFold -benchtime 5x
func BenchmarkFold(b *testing.B) {
	const size = 4400
	entry := func(task string, round int) []byte {
		e := fmt.Appendf(nil, "%s%s %d\n", taskCacheMagic, task, round)
		return append(e, bytes.Repeat([]byte{'r'}, size-len(e))...)
	}
	for _, n := range []int{2000, 10000} {
		dir := b.TempDir()
		if err := os.Mkdir(filepath.Join(dir, "tasks"), 0o700); err != nil {
			b.Fatal(err)
		}
		pf := packFiles{path: filepath.Join(dir, taskPackFile), magic: taskPackMagic,
			fileOf: func(task string) string { return filepath.Join(dir, "tasks", task+".records") },
			entryOf: func(file []byte) ([]byte, bool) {
				return file, bytes.HasPrefix(file, []byte(taskCacheMagic))
			}}
		task := func(i int) string { return fmt.Sprintf("T-%06d", i) }
		all := map[string][]byte{}
		refs := []byte("# pack-refs with: peeled fully-peeled sorted \n")
		for i := range n {
			all[fileName(task(i))] = entry(task(i), 0)
			refs = fmt.Appendf(refs, "%040x %s\n", i+1, TaskRef(task(i)))
		}
		if err := os.WriteFile(filepath.Join(dir, "packed-refs"), refs, 0o600); err != nil {
			b.Fatal(err)
		}
		s := NewStore(&Repo{GitDir: dir, CommonDir: dir})
		if err := writeNamedPack(pf.path, pf.magic, all, 0); err != nil {
			b.Fatal(err)
		}
		var r packRead
		for _, k := range []int{0, -1, 4, 8, 16, 32} {
			m := max(packedMin, n/max(k, 1))
			name, pf := fmt.Sprintf("packed=%d/moved=1/%d", n, k), pf
			switch k {
			case 0:
				m, name = packedMin, fmt.Sprintf("packed=%d/moved=%d", n, packedMin)
			case -1:
				m, name, pf.gone = packedMin, fmt.Sprintf("packed=%d/moved=%d/refs", n, packedMin), s.taskGone
			}
			b.Run(name, func(b *testing.B) {
				for round := range b.N {
					b.StopTimer()
					var list []byte
					for i := range m {
						if err := os.WriteFile(pf.fileOf(task(i)), entry(task(i), round+1), 0o600); err != nil {
							b.Fatal(err)
						}
						list = append(append(list, task(i)...), '\n')
					}
					if err := os.WriteFile(looseListPath(pf.path), list, 0o600); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					r.fold(pf, m)
					b.StopTimer()
					if ents, _ := os.ReadDir(filepath.Join(dir, "tasks")); len(ents) != 0 {
						b.Fatalf("%d files left after the fold of %d", len(ents), m)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*m), "ns/moved")
			})
		}
		b.Run(fmt.Sprintf("packed=%d/gone", n), func(b *testing.B) {
			for round := range b.N {
				if s.taskGone(task(round % n)) {
					b.Fatalf("%s's ref, packed, is gone", task(round%n))
				}
			}
		})
		b.Run(fmt.Sprintf("packed=%d/write", n), func(b *testing.B) {
			for round := range b.N {
				b.StopTimer()
				_ = os.Remove(pf.fileOf(task(0)))
				_ = os.Remove(looseListPath(pf.path))
				b.StartTimer()
				r.writeLoose(pf, map[string][]byte{task(0): entry(task(0), round)})
			}
		})
	}
}

// TestWriteNamedPackKeepsOld: a pack written over a large one copies the
// old pack's entries from its mapping, which must stay mapped until they
// are copied; before, the old pack could be collected (and unmapped) while
// the new one was built from its entries (a fault, found by BenchmarkFold).
func TestWriteNamedPackKeepsOld(t *testing.T) {
	t.Parallel()
	defer debug.SetGCPercent(debug.SetGCPercent(1))
	path := filepath.Join(t.TempDir(), taskPackFile)
	all := map[string][]byte{}
	for i := range 3000 {
		all[fileName(fmt.Sprintf("T-%04d", i))] = bytes.Repeat([]byte{byte('a' + i%26)}, 4000)
	}
	for round := range 4 {
		one := map[string][]byte{fileName("T-0000"): fmt.Appendf(nil, "round %d", round)}
		if err := writeNamedPack(path, taskPackMagic, one, 0); err != nil {
			t.Fatal(err)
		}
		if round == 0 {
			if err := writeNamedPack(path, taskPackMagic, all, 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	p := readNamedPack(path, taskPackMagic)
	if e, ok := p.lookup("T-0001"); !ok || !bytes.Equal(e, all[fileName("T-0001")]) {
		t.Errorf("T-0001's entry after the pack was written over: %.20q, want its own", e)
	}
	runtime.KeepAlive(p)
}

// TestTaskPackRaces: the task caches' pack raced by other processes.
// A store that read the pack before another process saved into it reads
// the new pack, not the one it first mapped (a long-running server used
// to re-derive every task another process packed); a fold racing a save
// of many tasks, either way round, never leaves a task at the older
// entry the fold read from its own file; and a save of many tasks
// removes a task's own file only while it is the one the save read
// (another process's newer file stays). A task deleted by another
// process never comes back into the pack: not from a save of many tasks
// that read it before the delete, nor from a fold of a file written
// after it, nor when its ref goes after a save of many checked it.
func TestTaskPackRaces(t *testing.T) {
	t.Parallel()
	dir := initRepo(t)
	head := func(i, round int) string { return fmt.Sprintf("%020x%020x", i, round) }
	task := func(i int) string { return fmt.Sprintf("P-%03d", i) }
	var tasks []string
	for i := range packedMin {
		tasks = append(tasks, task(i))
	}
	commit := taskRefsT(t, dir, tasks...)
	cache := func(i, round int) *taskCache {
		rec := &record.Record{ID: fmt.Sprintf("r-%d-%d", i, round), Kind: "assessment", Task: task(i), Body: []byte(`{"subject":"s"}`)}
		return &taskCache{Head: head(i, round), Entries: []cacheEntry{{Name: rec.FileName(), Blob: head(i+1, round), Rec: rec}}}
	}
	pack := filepath.Join(discoverT(t, dir).CommonDir, "reason", taskPackFile)
	saveAll := func(s *Store, round int) {
		write := s.HoldCaches()
		for i := range packedMin {
			s.writeTaskCache(task(i), cache(i, round))
		}
		write()
	}
	packed := func(tk string) string { // the head of tk's entry in the pack
		p := readNamedPack(pack, taskPackMagic)
		e, ok := p.lookup(tk)
		if !ok {
			return ""
		}
		c := parseTaskCache(bytes.Clone(e), openT(t, dir).taskCacheSeal(tk, false))
		runtime.KeepAlive(p)
		if c == nil {
			return ""
		}
		return c.Head
	}
	at := func(tk string) string { // its own file over the pack, as a new process reads it
		if c := openT(t, dir).readTaskCache(tk); c != nil {
			return c.Head
		}
		return ""
	}

	// A store that read the pack, then another process's save.
	saveAll(openT(t, dir), 0)
	server := openT(t, dir)
	if c := server.readTaskCache(task(1)); c == nil || c.Head != head(1, 0) {
		t.Fatalf("P-001 read %+v from the pack, want it at %s", c, head(1, 0))
	}
	saveAll(openT(t, dir), 1)
	if c := server.readTaskCache(task(1)); c == nil || c.Head != head(1, 1) {
		if c == nil {
			c = &taskCache{}
		}
		t.Errorf("a store that read the pack before another process saved into it reads P-001 at %q, want the new pack's %s", c.Head, head(1, 1))
	}

	// A fold reads P-000's own file; another process's save of many
	// tasks, P-000 among them, runs before the fold writes the pack.
	openT(t, dir).writeTaskCache(task(0), cache(0, 2))
	s := openT(t, dir)
	pf := s.taskPackFiles()
	entryOf, raced := pf.entryOf, false
	pf.entryOf = func(file []byte) ([]byte, bool) {
		if !raced {
			raced = true
			saveAll(openT(t, dir), 3)
		}
		return entryOf(file)
	}
	s.taskPack.fold(pf, 1)
	if !raced {
		t.Fatal("the fold read no file")
	}
	if got := at(task(0)); got != head(0, 3) {
		t.Errorf("P-000 reads at %s after a fold raced a save of many tasks, want the save's %s (the fold's is %s)", got, head(0, 3), head(0, 2))
	}

	// A save of many tasks writes the pack; another process's fold reads
	// P-000's own file, older, before the save removes it.
	_ = os.Remove(s.taskCachePath(task(0)))
	openT(t, dir).writeTaskCache(task(0), cache(0, 7)) // listed loose
	saver := openT(t, dir)
	entries := map[string][]byte{}
	for i := range packedMin {
		entries[task(i)] = encodeTaskCache(cache(i, 8), saver.taskCacheSeal(task(i), true))
	}
	folded := false
	fileOf := func(tk string) string {
		if !folded {
			folded = true
			f := openT(t, dir)
			f.taskPack.fold(f.taskPackFiles(), 1)
		}
		return saver.taskCachePath(tk)
	}
	spf := saver.taskPackFiles()
	spf.fileOf = fileOf
	if err := saver.taskPack.saveRead(spf, entries, nil, 0); err != nil {
		t.Fatal(err)
	}
	if got := packed(task(0)); got != head(0, 8) {
		t.Errorf("P-000's entry in the pack is at %s after a fold raced a save of many tasks, want the save's %s (the fold's is %s)", got, head(0, 8), head(0, 7))
	}

	// A save of many tasks removes its tasks' own files only while each
	// is the one it read: P-001's, unchanged since, goes; P-000's,
	// written by another process after the save seeded it, stays.
	for i := range 2 {
		_ = os.Remove(s.taskCachePath(task(i)))
		openT(t, dir).writeTaskCache(task(i), cache(i, 4))
	}
	a := openT(t, dir)
	write := a.HoldCaches()
	for i := range packedMin {
		c := cache(i, 5)
		a.SeedTask(task(i), c.Head, []*record.Record{c.Entries[0].Rec}, []string{c.Entries[0].Blob})
	}
	openT(t, dir).writeTaskCache(task(0), cache(0, 6))
	write()
	if got := at(task(0)); got != head(0, 6) {
		t.Errorf("P-000 reads at %s: a save of many tasks removed the own file another process wrote after the save read it, want that file's %s", got, head(0, 6))
	}
	if _, err := os.Stat(a.taskCachePath(task(1))); !os.IsNotExist(err) || packed(task(1)) != head(1, 5) {
		t.Errorf("P-001's own file, unchanged since the save read it: %v, its entry at %q; want it removed, the entry at %s", err, packed(task(1)), head(1, 5))
	}

	// A task deleted by another process: its entry does not come back.
	deleted := func(what, tk string) {
		t.Helper()
		if got := packed(tk); got != "" {
			t.Errorf("%s: %s's entry is in the pack, at %s, after its delete; want none", what, tk, got)
		}
		if _, err := os.Lstat(a.taskCachePath(tk)); !os.IsNotExist(err) {
			t.Errorf("%s: %s has its own cache file after its delete (%v), want none", what, tk, err)
		}
	}
	// A save of many tasks that read P-010 before the delete.
	write = a.HoldCaches()
	for i := range packedMin {
		a.writeTaskCache(task(i), cache(i, 9))
	}
	if err := openT(t, dir).DeleteTask(t.Context(), task(10), commit); err != nil {
		t.Fatal(err)
	}
	write()
	deleted("a save of many tasks that read it before the delete", task(10))
	// A read that began before P-011's delete writes its own file after
	// it (listed loose); a fold takes the list in.
	if err := openT(t, dir).DeleteTask(t.Context(), task(11), commit); err != nil {
		t.Fatal(err)
	}
	openT(t, dir).writeTaskCache(task(11), cache(11, 9))
	f := openT(t, dir)
	f.taskPack.fold(f.taskPackFiles(), 1)
	deleted("a fold of its file written after the delete", task(11))
	// P-012, no entry in the pack yet, has its ref go after a save of
	// many tasks, holding the pack's lock, found it there: the delete
	// waits for the lock and removes the entry the save wrote (it ran to
	// its end meanwhile, found no entry, and the save wrote one).
	if err := writeNamedPack(pack, taskPackMagic, map[string][]byte{fileName(task(12)): nil}, 0); err != nil {
		t.Fatal(err)
	}
	deleter := openT(t, dir)
	done := make(chan error, 1)
	spf = saver.taskPackFiles()
	checked := spf.gone
	spf.gone = func(tk string) bool {
		g := checked != nil && checked(tk)
		if tk == task(12) {
			go func() { done <- deleter.DeleteTask(t.Context(), tk, commit) }()
			select {
			case err := <-done:
				done <- err
			case <-time.After(500 * time.Millisecond): // waiting for the lock
			}
		}
		return g
	}
	for i := range packedMin {
		entries[task(i)] = encodeTaskCache(cache(i, 10), saver.taskCacheSeal(task(i), true))
	}
	if err := saver.taskPack.saveRead(spf, entries, nil, 0); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	deleted("a save of many tasks that found its ref before the delete", task(12))
}

// TestRememberedPackRaces: the remembered verifications' pack raced by
// other processes, as TestTaskPackRaces: a Remembered that read the pack
// before another process saved into it reads the new one; a save of many
// tasks keeps a task's file another process wrote after the save read
// it.
func TestRememberedPackRaces(t *testing.T) {
	t.Parallel()
	r := discoverT(t, initRepo(t))
	head := func(i, round int) string { return fmt.Sprintf("%020x%020x", i, round) }
	task := func(prefix string, i int) string { return fmt.Sprintf("%s-%03d", prefix, i) }
	save := func(m *Remembered, prefix string, n, round int) {
		t.Helper()
		for i := range n {
			m.Add(task(prefix, i), head(i, round), oneCommit)
		}
		if err := m.Save(); err != nil {
			t.Fatal(err)
		}
	}
	save(OpenRemembered(r), "P", packedMin, 0)
	late := OpenRemembered(r)
	if !late.Has("P-000", head(0, 0)) {
		t.Fatal("P-000's head is not remembered from the pack")
	}
	save(OpenRemembered(r), "R", packedMin, 0)
	if !late.Has("R-000", head(0, 0)) {
		t.Errorf("a Remembered that read the pack before another process saved R into it: R-000 remembers %v, want %s", late.Heads("R-000"), head(0, 0))
	}

	save(OpenRemembered(r), "Q", 1, 0) // Q-000's own file
	m := OpenRemembered(r)
	m.Heads("Q-000")
	save(OpenRemembered(r), "Q", 1, 1) // another process's, after m read it
	save(m, "Q", packedMin, 2)
	if hs := OpenRemembered(r).Heads("Q-000"); !slices.Contains(hs, head(0, 1)) {
		t.Errorf("Q-000 remembers %v: a save of many tasks removed the file another process wrote after the save read it, want %s among them", hs, head(0, 1))
	}
}

// A save of many tasks removes the own file this same Remembered wrote
// by an earlier save of few: that file is the one the save replaces, and
// left there it shadowed the pack's newer entry for every later reader
// (the task verified again).
func TestRememberedPackTakesItsOwnFile(t *testing.T) {
	t.Parallel()
	r := discoverT(t, initRepo(t))
	head := func(i, round int) string { return fmt.Sprintf("%020x%020x", i, round) }
	m := OpenRemembered(r)
	m.Add("S-000", head(0, 0), oneCommit)
	if err := m.Save(); err != nil { // S-000's own file
		t.Fatal(err)
	}
	for i := range packedMin {
		m.Add(fmt.Sprintf("S-%03d", i), head(i, 1), oneCommit)
	}
	if err := m.Save(); err != nil { // into the pack
		t.Fatal(err)
	}
	if _, err := os.Lstat(m.taskPath("S-000")); err == nil {
		t.Errorf("S-000's own file, written by this Remembered's earlier save, is left after its save of many tasks into the pack")
	}
	if !OpenRemembered(r).Has("S-000", head(0, 1)) {
		t.Errorf("S-000 remembers %v, want %s: its older own file shadows the pack's entry", OpenRemembered(r).Heads("S-000"), head(0, 1))
	}
}

// The same for the task caches' pack: a store's own file of a task, written
// by a save of one, goes when the same store saves the task's newer cache
// with many others into the pack.
func TestTaskPackTakesItsOwnFile(t *testing.T) {
	t.Parallel()
	dir := initRepo(t)
	head := func(i, round int) string { return fmt.Sprintf("%020x%020x", i, round) }
	cache := func(i, round int) *taskCache {
		rec := &record.Record{ID: fmt.Sprintf("r-%d-%d", i, round), Kind: "assessment", Task: fmt.Sprintf("S-%03d", i), Body: []byte(`{"subject":"s"}`)}
		return &taskCache{Head: head(i, round), Entries: []cacheEntry{{Name: rec.FileName(), Blob: head(i+1, round), Rec: rec}}}
	}
	tasks := make([]string, packedMin)
	for i := range tasks {
		tasks[i] = fmt.Sprintf("S-%03d", i)
	}
	taskRefsT(t, dir, tasks...) // a save drops the entry of a task whose ref is gone
	s := openT(t, dir)
	s.writeTaskCache("S-000", cache(0, 0)) // its own file
	write := s.HoldCaches()
	for i := range packedMin {
		s.writeTaskCache(fmt.Sprintf("S-%03d", i), cache(i, 1))
	}
	write()
	got := ""
	if c := openT(t, dir).readTaskCache("S-000"); c != nil {
		got = c.Head
	}
	if got != head(0, 1) {
		t.Errorf("S-000 reads at %q, want the pack's %s: the store's own older file was left over it", got, head(0, 1))
	}
}

// Reading a sealed entry allocates nothing: the MAC's parts are not each
// copied into a slice of their own (a table of every task reads 20,000).
func TestSealedGetAllocatesNothing(t *testing.T) {
	r := discoverT(t, initRepo(t))
	const x = "1111111111111111111111111111111111111111"
	s := OpenSealed(r, "test.journal", "scope a")
	s.Put("T", x, []byte("a row"))
	s.Save(nil)
	s = OpenSealed(r, "test.journal", "scope a")
	if allocs := testing.AllocsPerRun(10, func() {
		if _, ok := s.Get("T", x); !ok {
			t.Fatal("the entry does not read")
		}
	}); allocs > 0 {
		t.Errorf("Get made %.0f allocations, want none", allocs)
	}
}

// writeNamedPack writes the pack at path under its lock, as
// replaceNamedPack does. Another process writing it is waited for up to
// wait (0: not at all), then git.ErrLocked.
func writeNamedPack(path, magic string, entries map[string][]byte, wait time.Duration) error {
	lock, err := git.TakeLock(path, wait)
	if err != nil {
		return err
	}
	return replaceNamedPack(lock, path, magic, entries)
}
