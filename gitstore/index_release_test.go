package gitstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"git-reason/gitstore"
	"git-reason/record"
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

// TestInterruptedReadKeepsWhatItRead: the first read of every task in a
// clone (no caches yet) derives and replays each task, which takes
// seconds at thousands of tasks, and a person may well stop it. What it
// had derived was thrown away, and the next command started again from
// the first task. The tasks read before the interrupt are kept, in the
// status index and as verdicts, and the next read derives the rest.
func TestInterruptedReadKeepsWhatItRead(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	w := indexedWriter(openStore(t, dir), "Cache")
	const tasks, stopAt = 12, 5
	for i := range tasks {
		assessTrivially(t, w, fmt.Sprintf("T%02d", i), fmt.Sprintf("subject %d", i))
	}
	// A clone: the refs, and nothing under .git/reason yet.
	if err := os.RemoveAll(filepath.Join(dir, ".git", "reason")); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.OnProgress = func(_ string, done, _ int) {
		if done == stopAt {
			cancel() // Ctrl-C while the task at stopAt is read
		}
	}
	if _, _, err := (gitstore.Index{Store: s}).Tasks(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted read: %v, want context.Canceled", err)
	}
	kept := func() (n int) {
		j := gitstore.OpenSealed(s.Repo, "status.journal", "index")
		for i := range tasks {
			if _, _, ok := j.Entry(fmt.Sprintf("T%02d", i)); ok {
				n++
			}
		}
		return n
	}
	if n := kept(); n != stopAt {
		t.Fatalf("after the interrupt the status index holds %d tasks, want the %d read before it", n, stopAt)
	}
	next := openStore(t, dir)
	for i := range tasks {
		task := fmt.Sprintf("T%02d", i)
		head, err := next.Repo.ReadRef(gitstore.TaskRef(task))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := next.KnownClean(task, head), i < stopAt; got != want {
			t.Errorf("%s known clean without a replay: %v, want %v", task, got, want)
		}
	}
	ths, entries, err := (gitstore.Index{Store: next}).Tasks(context.Background())
	if err != nil || len(ths) != tasks || len(entries) != tasks {
		t.Fatalf("the read after: %d tasks, %d entries, %v; want %d", len(ths), len(entries), err, tasks)
	}
	if n := kept(); n != tasks {
		t.Errorf("after the next read the status index holds %d tasks, want %d", n, tasks)
	}
}

// TestFirstReadValidatesEachRecordOnce: the first read of a clone reads
// each task's records (each validated against its schemas as it is read)
// and then replays the task's history, which validated every record
// again: the schemas' share of a first status at thousands of tasks
// twice over. The replay takes the records the read checked. Not
// parallel: record.Validations counts the whole process.
func TestFirstReadValidatesEachRecordOnce(t *testing.T) {
	dir := newRepo(t)
	w := indexedWriter(openStore(t, dir), "Cache")
	const tasks, each = 4, 3
	for i := range tasks {
		for j := range each {
			assessTrivially(t, w, fmt.Sprintf("T%d", i), fmt.Sprintf("subject %d.%d", i, j))
		}
	}
	// A clone: the refs, and nothing under .git/reason yet (nor the
	// writer's list of the records it validated).
	if err := os.RemoveAll(filepath.Join(dir, ".git", "reason")); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, dir)
	before := record.Validations()
	ths, _, err := gitstore.Index{Store: s}.Tasks(context.Background())
	if err != nil || len(ths) != tasks {
		t.Fatalf("first read: %d tasks, %v", len(ths), err)
	}
	for _, th := range ths {
		if !s.KnownClean(th.Task, th.Head) {
			t.Errorf("%s: not replayed clean", th.Task)
		}
	}
	// A record's envelope, body and derived fields: three documents.
	if got, want := record.Validations()-before, int64(3*tasks*each); got != want {
		t.Errorf("the first read validated %d documents, want %d (each record's three, once)", got, want)
	}
}

// The writer's check of the head it appends on (CheckBase) takes a head
// this clone's writer made from the end of its list, replaying nothing,
// in a process that has no verdict of it; a head the list does not hold
// is replayed (and so known clean after).
func TestCheckBaseTakesTheWritersOwnHead(t *testing.T) {
	dir := newRepo(t)
	w := indexedWriter(openStore(t, dir), "Cache")
	assessTrivially(t, w, "T", "first")
	assessTrivially(t, w, "T", "second")
	ctx := context.Background()
	for _, own := range []bool{true, false} {
		if !own {
			// The list gone: the head is no longer known as the writer's.
			if err := os.RemoveAll(filepath.Join(dir, ".git", "reason", "written.d")); err != nil {
				t.Fatal(err)
			}
		}
		s := openStore(t, dir) // another process: no verdict yet
		head, err := s.Head("T")
		if err != nil {
			t.Fatal(err)
		}
		if s.KnownClean("T", head) {
			t.Fatalf("own %v: the head is known clean before the check; the test cannot tell a replay", own)
		}
		if f, err := s.CheckBase(ctx, "T", head); f != nil || err != nil {
			t.Fatalf("own %v: CheckBase: %v, %v", own, f, err)
		}
		if replayed := s.KnownClean("T", head); replayed == own {
			t.Errorf("own %v: replayed %v, want %v", own, replayed, !own)
		}
	}
}

// A release before the writer checked the head it appends on wrote on a
// forged history fetched by plain git, and listed the commit it made as
// its own (written.d, version 1). Its list says who wrote the commit, not
// that its history replays clean: the check replays it, and the writer
// refuses to write on it. The line still counts as this clone's write.
func TestCheckBaseReplaysAnOlderWritersHead(t *testing.T) {
	h := newForgHistory(t)
	forged, _ := h.unselectedAdvisor()
	if found := h.forge(forged); len(found) == 0 {
		t.Fatal("the forged history verifies; the test cannot tell")
	}
	// What the older writer made on it: one more record, as the writer's.
	rec := h.fresh(h.rec("a"), "v")
	head := h.write(h.on(forged, rec))
	h.git("", "update-ref", "refs/reasoning/tasks/"+forgTask, head)
	s := openStore(t, h.dir)
	if err := gitstore.NoteWrittenByOlderRelease(s, forgTask, head); err != nil {
		t.Fatal(err)
	}
	if !s.WrittenHere(forgTask, []string{head})[head] {
		t.Fatal("the older release's line does not count as this clone's write")
	}
	f, err := s.CheckBase(context.Background(), forgTask, head)
	if err != nil {
		t.Fatal(err)
	}
	if f == nil {
		t.Fatal("CheckBase took a head an older release listed as its own; its history does not verify")
	}
	w := forgWriter(t, h.dir, "origin-test")
	_, err = w.Append(context.Background(), forgTask, record.KindAssessment,
		[]byte(`{"subject":"s","question":"q","materiality":"trivial","reversibility":"reversible"}`))
	if err == nil || !strings.Contains(err.Error(), "nothing is written on top of a history that breaks the rules") {
		t.Fatalf("append on the forged history: %v, want a refusal", err)
	}
	if got := strings.TrimSpace(h.gitRead("rev-parse", "refs/reasoning/tasks/"+forgTask)); got != head {
		t.Errorf("the task moved to %s after a refused append", got)
	}
}

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
		rem.Add(forgTask, forged, gitstore.Totals{Commits: 1})
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
