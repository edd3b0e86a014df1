package gitstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"git-reason/gitstore"
	"git-reason/record"
	"git-reason/record/storetest"
	"git-reason/reliability/harness"
)

// newRepo makes an empty repository (gitstore.NewEmptyRepoIn).
func newRepo(t *testing.T) string {
	t.Helper()
	return gitstore.NewEmptyRepoIn(t, t.TempDir())
}

// openStore opens the store of the repository at dir; it fails the test
// when that fails.
func openStore(t testing.TB, dir string) *gitstore.Store {
	t.Helper()
	s, err := gitstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStoreContract(t *testing.T) {
	t.Parallel()
	storetest.Run(t, newContractRepos(t).open)
}

// TestStoreContractUnderFaults runs the contract suite and the writer's
// fault cases through storetest.Faulty over the git store. With -short the
// in-memory store's run (package record) stands for it: the writer's
// behaviour does not depend on the store, and this run costs the contract
// suite's time again.
func TestStoreContractUnderFaults(t *testing.T) {
	harness.SkipShort(t, "the contract suite again, through faults")
	t.Parallel()
	storetest.RunFaults(t, newContractRepos(t).open)
}

// contractRepos gives each case of a contract suite a store in an empty
// repository of its own, and when the suite is done requires git to accept
// everything the stores wrote.
type contractRepos struct {
	t    *testing.T
	root string // the suite's; each case's repository is below it
	mu   sync.Mutex
	dirs []string
}

func newContractRepos(t *testing.T) *contractRepos {
	c := &contractRepos{t: t, root: t.TempDir()}
	t.Cleanup(c.fsck)
	return c
}

func (c *contractRepos) open(t *testing.T) record.Store {
	t.Helper()
	dir := gitstore.NewEmptyRepoIn(t, c.root)
	s := openStore(t, dir)
	c.mu.Lock()
	c.dirs = append(c.dirs, dir)
	c.mu.Unlock()
	return s
}

// fsck runs one git fsck --strict over the objects and refs of every
// case's repository, and fails on any complaint. They are gathered into
// one repository (their object directories as its alternates, which fsck
// checks in full, their refs as its refs, which git update-ref accepts only
// for objects that exist), so that git starts three times, not once per
// case.
func (c *contractRepos) fsck() {
	t := c.t
	if len(c.dirs) == 0 {
		return
	}
	all := filepath.Join(c.root, "all")
	harness.Git(t, "", "init", "-q", "--bare", all)
	var alternates, refs strings.Builder
	for i, dir := range c.dirs {
		fmt.Fprintln(&alternates, filepath.Join(dir, ".git", "objects"))
		repo, err := gitstore.Discover(dir)
		if err != nil {
			t.Fatal(err)
		}
		list, err := repo.ListRefs("refs/")
		if err != nil {
			t.Fatal(err)
		}
		for _, ref := range list {
			fmt.Fprintf(&refs, "create refs/case-%d/%s %s\n", i, strings.TrimPrefix(ref.Name, "refs/"), ref.Hash)
		}
	}
	if err := os.WriteFile(filepath.Join(all, "objects", "info", "alternates"), []byte(alternates.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	harness.GitInput(t, all, refs.String(), "update-ref", "--stdin")
	if refs.Len() == 0 {
		t.Fatalf("the %d cases wrote no ref: nothing for git fsck to check", len(c.dirs))
	}
	fsck(t, all)
}

// fsck runs git fsck --strict on the repository and fails on any complaint.
// (Without commit-graph and multi-pack-index files, fsck is told so and
// starts no verifier for them: for the contract suite's gathered
// repository that was two processes per case.)
func fsck(t *testing.T, dir string) {
	t.Helper()
	args := append(append([]string{"-C", dir}, harness.FsckConfig(dir)...), "fsck", "--strict", "--no-dangling")
	cmd := exec.Command("git", args...)
	out, err := cmd.CombinedOutput()
	complaints := 0
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		if len(line) > 0 && !bytes.HasPrefix(line, []byte("notice: ")) {
			complaints++
		}
	}
	if err != nil || complaints > 0 {
		t.Errorf("git fsck --strict: %v\n%s", err, out)
	}
}

// indexedWriter is a writer through s that keeps the index, as the
// command line's does; who names its actor and origin.
func indexedWriter(s *gitstore.Store, who string) *record.Writer {
	return &record.Writer{Store: s, Index: gitstore.Index{Store: s},
		Actor: who + " Test <" + strings.ToLower(who) + "@example.com>", Origin: "origin-" + strings.ToLower(who)}
}

// trivialAssessment is the body of a trivial, reversible assessment of
// subject.
func trivialAssessment(subject string) []byte {
	return fmt.Appendf(nil, `{"subject":%q,"question":"q","materiality":"trivial","reversibility":"reversible"}`, subject)
}

// TestReadFromARememberedHeadCountsItsHistory: a head remembered clean
// keeps what its history counts for against reason.maxTaskBytes, and a
// read of the commits after it counts from that: the same totals as a
// read of the whole history (nothing counted twice, so nothing grows
// with each head remembered), and past a limit the read is refused
// though the commits after the head are few: records' bytes, entries,
// and commits (a history of 8,191 commits at the head, 2 after it, under
// 1 MiB: 8,192 allowed).
func TestReadFromARememberedHeadCountsItsHistory(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	w := indexedWriter(openStore(t, dir), "Ada")
	head := func() string { return strings.TrimSpace(harness.Git(t, dir, "rev-parse", "refs/reasoning/tasks/T")) }
	for i := range 3 {
		assessTrivially(t, w, "T", fmt.Sprintf("s%d", i))
	}
	base := head()
	s := openStore(t, dir)
	rem := gitstore.OpenRemembered(s.Repo)
	s.Share(&gitstore.Shared{Remembered: rem})
	if found, err := s.Verify(context.Background(), "T", base); err != nil || len(found) > 0 {
		t.Fatalf("verify: %v %v", found, err)
	}
	at, ok := rem.Totals("T", base)
	if whole, _, err := gitstore.HistoryTotals(openStore(t, dir), nil, "T", base); !ok || err != nil || at != whole || at.Commits != 3 || at.Entries != 3 || at.Bytes < 3*64 {
		t.Fatalf("remembered %+v (%v), the whole history %+v (%v)", at, ok, whole, err)
	}
	for i := range 2 {
		assessTrivially(t, w, "T", fmt.Sprintf("t%d", i))
	}
	for _, long := range []bool{false, true} {
		s := openStore(t, dir)
		if long {
			gitstore.ReadHistoriesAsLong(s)
		}
		whole, _, err1 := gitstore.HistoryTotals(s, nil, "T", head())
		from, bases, err2 := gitstore.HistoryTotals(s, rem, "T", head())
		if err1 != nil || err2 != nil || bases != 1 || from != whole || whole.Commits != 5 {
			t.Errorf("long %v: from the remembered head %+v (%d bases, %v), whole %+v (%v)", long, from, bases, err2, whole, err1)
		}
	}
	for _, c := range []struct {
		name string
		at   gitstore.Totals
		want string
	}{
		{"as remembered", at, ""},
		{"records", gitstore.Totals{Bytes: 1<<20 - 100, Entries: 3, Commits: 3}, "its records total"},
		{"entries", gitstore.Totals{Bytes: at.Bytes, Entries: 1<<14 - 1, Commits: 3}, "records/ entries"},
		{"commits", gitstore.Totals{Bytes: at.Bytes, Entries: 3, Commits: 8191}, "its history holds more than 8192 commits"},
	} {
		s := openStore(t, dir)
		s.Limits = func() gitstore.ReadLimits { return gitstore.ReadLimits{TaskBytes: 1 << 20, PullBytes: 1 << 30} }
		m := gitstore.OpenRemembered(s.Repo)
		m.Add("T", base, c.at)
		_, bases, err := gitstore.HistoryTotals(s, m, "T", head())
		switch {
		case c.want == "" && (err != nil || bases != 1):
			t.Errorf("%s: %v (%d bases)", c.name, err, bases)
		case c.want != "" && (!errors.Is(err, gitstore.ErrTooLarge) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

// assessTrivially appends a trivial assessment of subject to task
// through w; it fails the test when the write fails.
func assessTrivially(t testing.TB, w *record.Writer, task, subject string) {
	t.Helper()
	if _, err := w.Append(context.Background(), task, record.KindAssessment, trivialAssessment(subject)); err != nil {
		t.Fatal(err)
	}
}

// A write waiting for its task ref's lock, which another process holds,
// ends when its context does (a server told to stop), not after the
// lock's 10 s wait: the error says the write was stopped, not that the
// lock should be removed, and nothing is written.
func TestWriteStopsWaitingForAHeldRefLock(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	s := openStore(t, dir)
	a, err := indexedWriter(s, "Ada").Append(context.Background(), "T-1", record.KindAssessment, trivialAssessment("held"))
	if err != nil {
		t.Fatal(err)
	}
	held := filepath.Join(dir, ".git", "refs", "reasoning", "tasks", "T-1.lock")
	if err := os.WriteFile(held, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The context is cancelled once the store has the write: past the
	// writer's own look at it, so that only the lock's wait can see it.
	entered := make(chan struct{})
	w := indexedWriter(s, "Ada")
	w.Store = &enteredStore{Store: s, entered: entered}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := w.Append(ctx, "T-1", record.KindPlan, fmt.Appendf(nil, `{"assessment":%q}`, a.ID))
		done <- err
	}()
	<-entered
	cancel()
	select {
	case err = <-done:
	case <-time.After(3 * time.Second): // the lock's wait is 10 s
		t.Fatal("the write still waits for the held lock 3 s after its context was cancelled")
	}
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "the write was stopped") || strings.Contains(err.Error(), "remove it") {
		t.Fatalf("got %v, want the write stopped (context canceled)", err)
	}
	if _, err := os.Stat(held); err != nil {
		t.Fatalf("the other process's lock was removed: %v", err)
	}
	if head, _ := harness.GitTry(dir, "rev-parse", "refs/reasoning/tasks/T-1"); head != a.Commit {
		t.Fatalf("the task's ref is %s, want %s as before the stopped write", head, a.Commit)
	}
}

// enteredStore closes entered when Append is first called.
type enteredStore struct {
	*gitstore.Store
	entered chan struct{}
	once    sync.Once
}

func (s *enteredStore) Append(ctx context.Context, task, head string, rec *record.Record) (string, error) {
	s.once.Do(func() { close(s.entered) })
	return s.Store.Append(ctx, task, head, rec)
}
