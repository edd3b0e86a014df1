package gitstore_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"git-reason/gitstore"
	"git-reason/record"
)

// The numbers issue 2 fixes: 8 OS processes, 100 records each, one task.
const (
	concWriters   = 8
	concPerWriter = 100
	concTask      = "T-conc"
	concRef       = "refs/reasoning/tasks/" + concTask
)

// TestConcurrentWritersWithPackRefsAndGC runs the real binary, through git's
// subcommand dispatch, as 8 concurrent writers of 100 assessments each on one
// task, while one loop runs `git pack-refs --all` and another `git gc --auto`
// (with thresholds low enough that gc repacks, prunes packed loose objects
// and consolidates packs under the writers). Afterwards every record must be
// on the task's first-parent chain exactly once, each commit adding exactly
// one record with the next clock, no writer may have failed, and git fsck
// --strict must be clean.
func TestConcurrentWritersWithPackRefsAndGC(t *testing.T) {
	if testing.Short() {
		t.Skip("concurrency test: 800 processes against pack-refs and gc; skipped with -short")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	start := time.Now()
	bin := concBuild(t)
	dir := t.TempDir()
	env := concEnv(t, bin)
	concGit(t, env, dir, "init", "-q")
	for _, kv := range [][2]string{
		{"user.name", "Conc Test"}, {"user.email", "conc@example.com"},
		{"gc.auto", "50"},          // gc --auto repacks once a few loose objects pile up
		{"gc.autoPackLimit", "4"},  // and often consolidates (deletes) the packs it made
		{"gc.autoDetach", "false"}, // so the loop waits for each gc to finish
		{"maintenance.auto", "false"},
	} {
		concGit(t, env, dir, "config", kv[0], kv[1])
	}
	t.Logf("built %s in %v", bin, time.Since(start).Round(time.Millisecond))

	ctx, stop := context.WithCancel(context.Background())
	var loops sync.WaitGroup
	packRefs := concLoop(ctx, &loops, env, dir, concPackedOnly, "pack-refs", "--all")
	gc := concLoop(ctx, &loops, env, dir, concPacksChanged, "gc", "--auto", "--quiet")

	writeStart := time.Now()
	fails := concRunWriters(t, env, dir)
	writeTime := time.Since(writeStart)
	stop()
	loops.Wait()
	t.Logf("%d writers x %d records in %v (%.1f ms per record); %d writer processes failed",
		concWriters, concPerWriter, writeTime.Round(time.Millisecond),
		float64(writeTime.Milliseconds())/float64(concWriters*concPerWriter), len(fails))
	for _, l := range []*concLoopStats{packRefs, gc} {
		t.Logf("git %s: %d runs (%d failed), %d did the work (%s)",
			l.name, l.runs.Load(), l.failed.Load(), l.worked.Load(), l.workDesc)
		if msg, _ := l.firstErr.Load().(string); msg != "" {
			t.Logf("  first failure of git %s: %s", l.name, msg)
		}
	}
	if gc.worked.Load() == 0 || packRefs.worked.Load() == 0 {
		t.Errorf("the maintenance loops never did any work under the writers: the test proved nothing")
	}
	for i, f := range fails {
		if i == 10 {
			t.Errorf("... and %d more writer failures", len(fails)-10)
			break
		}
		t.Errorf("writer failed: %s", f)
	}

	concCheckChain(t, env, dir)
	retries := concFsck(t, env, dir)
	t.Logf("compare-and-swap retries seen as dangling record commits: %d", retries)
	for _, lock := range []string{concRef + ".lock", "packed-refs.lock"} {
		if _, err := os.Stat(filepath.Join(dir, ".git", lock)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("lock left behind: .git/%s (%v)", lock, err)
		}
	}
	t.Logf("total %v", time.Since(start).Round(time.Millisecond))
}

// concBuild builds the real binary once into a temporary directory.
func concBuild(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(t.TempDir(), "git-reason")
	out, err := exec.Command(goBin, "build", "-o", bin, "git-reason/cmd/git-reason").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// concEnv is the environment of every process the test starts: the built
// binary first on PATH, a HOME of its own, and no git setting of this machine.
func concEnv(t *testing.T, bin string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "HOME=") &&
			!strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1",
		"PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func concGit(t *testing.T, env []string, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return string(out)
}

// concRunWriters starts concWriters goroutines, each running concPerWriter
// `git reason assess` processes one after another, and returns a line for
// every process that did not exit 0. Writers stop starting processes a
// minute before the test's deadline, so that a slow machine fails the test
// with the chain and fsck checked rather than panicking in go test's alarm.
func concRunWriters(t *testing.T, env []string, dir string) []string {
	var (
		mu    sync.Mutex
		fails []string
		times []time.Duration
		wg    sync.WaitGroup
	)
	stopAt, hasDeadline := t.Deadline()
	stopAt = stopAt.Add(-time.Minute)
	for p := range concWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range concPerWriter {
				if hasDeadline && time.Now().After(stopAt) {
					mu.Lock()
					fails = append(fails, fmt.Sprintf("%s: not run: out of time (run go test with -timeout 30m)", concSubject(p, n)))
					mu.Unlock()
					continue
				}
				// No per-process timeout: killing git would orphan git-reason,
				// which still appends. A hung writer hangs the test until
				// go test -timeout, whose dump shows it.
				cmd := exec.Command("git", "reason", "assess", concTask,
					"--subject", concSubject(p, n), "--question", "q",
					"--materiality", "trivial", "--reversibility", "reversible")
				cmd.Dir, cmd.Env = dir, env
				began := time.Now()
				out, err := cmd.CombinedOutput()
				took := time.Since(began)
				mu.Lock()
				times = append(times, took)
				if err != nil {
					fails = append(fails, fmt.Sprintf("%s: %v: %s", concSubject(p, n), err, bytes.TrimSpace(out)))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(times) > 0 {
		slices.Sort(times)
		t.Logf("git reason assess processes run: %d; each took median %v, 90th percentile %v, max %v",
			len(times), times[len(times)/2].Round(time.Millisecond),
			times[len(times)*9/10].Round(time.Millisecond), times[len(times)-1].Round(time.Millisecond))
	}
	return fails
}

func concSubject(p, n int) string { return fmt.Sprintf("s %d-%d", p, n) }

// concLoopStats counts what one maintenance loop did.
type concLoopStats struct {
	name     string
	workDesc string
	runs     atomic.Int64
	failed   atomic.Int64
	worked   atomic.Int64
	firstErr atomic.Value
}

// concLoop runs git args in dir until ctx is done, never interrupting a run
// (a killed gc proves nothing). worked reports, from a snapshot taken before
// and after each run, whether that run changed what the test cares about.
func concLoop(ctx context.Context, wg *sync.WaitGroup, env []string, dir string, worked concProbe, args ...string) *concLoopStats {
	s := &concLoopStats{name: strings.Join(args, " "), workDesc: worked.desc}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			before := worked.snap(dir)
			cmd := exec.Command("git", args...)
			cmd.Dir, cmd.Env = dir, env
			out, err := cmd.CombinedOutput()
			s.runs.Add(1)
			if err != nil {
				s.failed.Add(1)
				s.firstErr.CompareAndSwap(nil, fmt.Sprintf("%v: %s", err, bytes.TrimSpace(out)))
				time.Sleep(10 * time.Millisecond)
				continue
			}
			if worked.did(before, worked.snap(dir)) {
				s.worked.Add(1)
			}
		}
	}()
	return s
}

// concProbe tells whether a maintenance run did work.
type concProbe struct {
	desc string
	snap func(dir string) string
	did  func(before, after string) bool
}

// concPackedOnly: after the run the task's ref lived only in packed-refs,
// so writers had to find (and check) it there.
var concPackedOnly = concProbe{
	desc: "runs after which the task ref was packed and its loose file gone",
	snap: func(dir string) string {
		if _, err := os.Stat(filepath.Join(dir, ".git", concRef)); err == nil {
			return "loose"
		}
		data, _ := os.ReadFile(filepath.Join(dir, ".git", "packed-refs"))
		if bytes.Contains(data, []byte(" "+concRef+"\n")) {
			return "packed"
		}
		return "none"
	},
	did: func(_, after string) bool { return after == "packed" },
}

// concPacksChanged: the run wrote or deleted packs.
var concPacksChanged = concProbe{
	desc: "runs that wrote or deleted packs",
	snap: func(dir string) string {
		names, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack"))
		return strings.Join(names, "\n")
	},
	did: func(before, after string) bool { return before != after },
}

// concRecord is the part of a stored record the test checks.
type concRecord struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	Task  string `json:"task"`
	Clock int    `json:"clock"`
	Body  struct {
		Subject string `json:"subject"`
	} `json:"body"`
}

// concCommit is one commit of the task's first-parent history with the
// tree entries it added, changed or removed relative to its first parent.
type concCommit struct {
	hash, trailer string
	parents       int
	changes       []string // raw diff lines: ":old new oldsha newsha X\tpath"
}

// concCheckChain walks the task's first-parent history with git and checks
// that commit i (from 1) adds exactly one record, with clock i, and changes
// nothing else; that every writer's every subject is there exactly once; and
// that each commit's Reason-Record trailer names the record it added.
func concCheckChain(t *testing.T, env []string, dir string) {
	t.Helper()
	commits := concLog(t, env, dir)
	total := concWriters * concPerWriter
	if len(commits) != total {
		t.Errorf("first-parent history of %s has %d commits, want %d", concRef, len(commits), total)
	}
	var blobs []string
	for i, c := range commits {
		if c.parents > 1 || (i == 0) != (c.parents == 0) {
			t.Errorf("commit %d (%s) has %d parents", i+1, c.hash[:12], c.parents)
		}
		if len(c.changes) != 1 || strings.Fields(c.changes[0])[4] != "A" {
			t.Errorf("commit %d (%s) must add exactly one record and change nothing else; its diff: %q", i+1, c.hash[:12], c.changes)
			blobs = append(blobs, "")
			continue
		}
		blobs = append(blobs, strings.Fields(c.changes[0])[3])
	}
	recs := concCatBlobs(t, env, dir, blobs)
	seen := map[string]int{}
	for i, c := range commits {
		rec, ok := recs[blobs[i]]
		if !ok {
			continue
		}
		path := c.changes[0][strings.IndexByte(c.changes[0], '\t')+1:]
		want := fmt.Sprintf("records/%010d-assessment-%s.json", i+1, rec.ID)
		if rec.Clock != i+1 || path != want || rec.Task != concTask || rec.Kind != "assessment" {
			t.Errorf("commit %d (%s) added %s holding clock %d of %s/%s; want %s with clock %d",
				i+1, c.hash[:12], path, rec.Clock, rec.Task, rec.Kind, want, i+1)
		}
		if c.trailer != rec.ID {
			t.Errorf("commit %d (%s) has Reason-Record %q, but added record %s", i+1, c.hash[:12], c.trailer, rec.ID)
		}
		seen[rec.Body.Subject]++
	}
	missing, dup := 0, 0
	for p := range concWriters {
		for n := range concPerWriter {
			switch seen[concSubject(p, n)] {
			case 0:
				if missing++; missing <= 5 {
					t.Errorf("record %q is missing", concSubject(p, n))
				}
			case 1:
			default:
				if dup++; dup <= 5 {
					t.Errorf("record %q is stored %d times", concSubject(p, n), seen[concSubject(p, n)])
				}
			}
			delete(seen, concSubject(p, n))
		}
	}
	for s := range seen {
		t.Errorf("unexpected record subject %q", s)
	}
	head := strings.Count(concGit(t, env, dir, "ls-tree", "-r", "--name-only", concRef), "\n")
	t.Logf("chain: %d first-parent commits, %d records in the head tree, %d missing, %d duplicated",
		len(commits), head, missing, dup)
	if head != total {
		t.Errorf("head tree holds %d records, want %d", head, total)
	}
}

// concLog lists the task's first-parent history, oldest first, with each
// commit's raw diff against its first parent.
func concLog(t *testing.T, env []string, dir string) []concCommit {
	t.Helper()
	out := concGit(t, env, dir, "log", "--first-parent", "--reverse", "--root", "--raw",
		"--no-abbrev", "--no-renames", "--diff-merges=first-parent",
		"--format=commit %H|%(trailers:key=Reason-Record,valueonly,separator=%x2C)|%P", concRef)
	var commits []concCommit
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "commit "):
			f := strings.Split(strings.TrimPrefix(line, "commit "), "|")
			if len(f) != 3 {
				t.Fatalf("unexpected git log line %q", line)
			}
			commits = append(commits, concCommit{hash: f[0], trailer: f[1], parents: len(strings.Fields(f[2]))})
		case strings.HasPrefix(line, ":") && len(commits) > 0:
			c := &commits[len(commits)-1]
			c.changes = append(c.changes, line)
		}
	}
	return commits
}

// concCatBlobs reads the records stored in blobs with one git cat-file.
func concCatBlobs(t *testing.T, env []string, dir string, blobs []string) map[string]concRecord {
	t.Helper()
	var in bytes.Buffer
	for _, b := range blobs {
		if b != "" {
			fmt.Fprintln(&in, b)
		}
	}
	cmd := exec.Command("git", "cat-file", "--batch")
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file --batch: %v", err)
	}
	recs := map[string]concRecord{}
	for len(out) > 0 {
		var hash, typ string
		var size int
		nl := bytes.IndexByte(out, '\n')
		if _, err := fmt.Sscan(string(out[:nl]), &hash, &typ, &size); err != nil || typ != "blob" {
			t.Fatalf("git cat-file --batch: unexpected header %q", out[:nl])
		}
		var rec concRecord
		if err := json.Unmarshal(out[nl+1:nl+1+size], &rec); err != nil {
			t.Errorf("blob %s is not a record: %v", hash, err)
		}
		recs[hash] = rec
		out = out[nl+1+size+1:]
	}
	return recs
}

// concFsck runs git fsck --strict and fails on any complaint. Dangling
// objects are none: a dangling commit is an append that lost a
// compare-and-swap race and was retried (it returns how many there are);
// other dangling objects are what a failed append wrote before failing,
// which git gc prunes in time.
func concFsck(t *testing.T, env []string, dir string) int {
	t.Helper()
	cmd := exec.Command("git", "fsck", "--strict", "--dangling")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	var complaints []string
	dangling, others := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		switch {
		case line == "", strings.HasPrefix(line, "notice: "), strings.HasPrefix(line, "Checking "):
		case strings.HasPrefix(line, "dangling commit "):
			dangling++
		case strings.HasPrefix(line, "dangling "):
			others++
		default:
			complaints = append(complaints, line)
		}
	}
	if err != nil || len(complaints) > 0 {
		t.Errorf("git fsck --strict: %v\n%s", err, strings.Join(slices.Compact(complaints), "\n"))
	}
	if others > 0 {
		t.Logf("git fsck: %d dangling trees or blobs left by failed appends", others)
	}
	return dangling
}

// TestStoreSurvivesRepackAfterOpen is the concurrency test's failure made
// deterministic: a process opens the store and reads (which loads go-git's
// list of packs), then `git gc` packs the loose objects written since and
// deletes them and the old pack, as a concurrent `git gc --auto` does; the
// process must still read the task and append to it, as git itself does by
// rescanning objects/pack when an object is missing.
func TestStoreSurvivesRepackAfterOpen(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	ctx := context.Background()
	dir := t.TempDir()
	env := concEnv(t, filepath.Join(dir, "no-binary"))
	concGit(t, env, dir, "init", "-q")
	writer := func(s *gitstore.Store) *record.Writer {
		return &record.Writer{Store: s, Index: gitstore.Index{Store: s},
			Actor: "Conc Test <conc@example.com>", Origin: "origin-conc"}
	}
	assess := func(w *record.Writer, subject string) error {
		_, err := w.Append(ctx, concTask, record.KindAssessment, []byte(fmt.Sprintf(
			`{"subject":%q,"question":"q","materiality":"trivial","reversibility":"reversible"}`, subject)))
		return err
	}
	open := func() *gitstore.Store {
		s, err := gitstore.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	first := writer(open())
	for i := range 3 {
		if err := assess(first, fmt.Sprintf("packed %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	concGit(t, env, dir, "gc", "--quiet") // pack 1 holds records 1-3
	held := writer(open())
	if err := assess(held, "read through pack 1"); err != nil { // loads the pack list
		t.Fatal(err)
	}
	if err := assess(writer(open()), "loose, then repacked"); err != nil {
		t.Fatal(err)
	}
	concGit(t, env, dir, "gc", "--quiet") // pack 2 replaces pack 1 and the loose objects
	if _, recs, err := held.Store.Load(ctx, concTask); err != nil || len(recs) != 5 {
		t.Errorf("Load after a repack by git gc, on a store opened before it: %d records, %v; want 5, nil", len(recs), err)
	}
	if err := assess(held, "after the repack"); err != nil {
		t.Errorf("append after a repack by git gc, on a store opened before it: %v", err)
	}
}
