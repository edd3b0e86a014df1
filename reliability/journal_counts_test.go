package reliability

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"git-reason/gitstore/git"
	"git-reason/reliability/harness"
)

// countedJournals are the journals under .git/reason/ whose appends a
// command after one new record is held to: the signature summaries and
// the status table's rows, an entry per task each.
var countedJournals = []string{"signature-summaries.journal", "status-rows.journal"}

// taskFilesDir holds a file per task whose writes a command after new
// records is held to: the remembered verifications (gitstore.Remembered).
const taskFilesDir = "verified.d/"

// journalWrites is what one command did to the files under .git/reason/:
// the bytes it appended to each of countedJournals, the files of
// taskFilesDir it wrote, and each file that held more than rewrittenMin
// bytes before and that it changed other than by appending (a file that
// grows with the tasks, rewritten whole).
type journalWrites struct {
	appended  map[string]int
	taskFiles int
	rewritten []string
}

// rewrittenMin is the size above which a file rewritten by a command
// after one record counts as one that grows with the tasks: every file
// that holds an entry per task is larger at 1,000 tasks, and no file of
// one task of a few records is.
const rewrittenMin = 16 << 10

// reasonFiles is every file under .git/reason/ with its content.
func (s *sandbox) reasonFiles() map[string][]byte {
	s.t.Helper()
	out := map[string][]byte{}
	root := filepath.Join(s.gitDir(), "reason")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return out
}

// watched runs do and returns what it did to the files under
// .git/reason/.
func (s *sandbox) watched(do func()) journalWrites {
	s.t.Helper()
	before := s.reasonFiles()
	do()
	after := s.reasonFiles()
	w := journalWrites{appended: map[string]int{}}
	for name, now := range after {
		was, ok := before[name]
		if strings.HasPrefix(name, taskFilesDir) && !bytes.Equal(was, now) {
			w.taskFiles++
		}
		if !ok || bytes.Equal(was, now) {
			continue
		}
		if bytes.HasPrefix(now, was) {
			for _, j := range countedJournals {
				if name == j {
					w.appended[name] = len(now) - len(was)
				}
			}
			continue
		}
		if len(was) > rewrittenMin {
			w.rewritten = append(w.rewritten, fmt.Sprintf("%s (%d bytes, then %d)", name, len(was), len(now)))
		}
	}
	for _, j := range countedJournals {
		if _, ok := before[j]; !ok && after[j] != nil {
			w.rewritten = append(w.rewritten, fmt.Sprintf("%s (made, %d bytes)", j, len(after[j])))
		}
	}
	return w
}

// webPage is a running 'git reason web' in s: get fetches a path with the
// page's cookie. It is stopped with Ctrl-C when the test ends.
type webPage struct {
	base string
	c    *http.Client
}

func (s *sandbox) startWeb() *webPage {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	cmd := s.cmd(ctx, "git", "reason", "web", "--listen", "127.0.0.1:0")
	// Ctrl-C to the process group: git and the git-reason serving.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) }
	cmd.WaitDelay = 10 * time.Second
	errs, err := cmd.StderrPipe()
	if err != nil {
		s.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(errs)
		re := regexp.MustCompile(`(http://127\.0\.0\.1:\d+)/\?token=[0-9a-f]{64}$`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[0]
			}
		}
		_, _ = io.Copy(io.Discard, errs)
	}()
	var start string
	select {
	case start = <-found:
	case <-time.After(time.Minute):
		s.t.Fatal("git reason web printed no address within a minute")
	}
	w := &webPage{base: start[:strings.Index(start, "/?")], c: harness.PageClient(time.Minute)}
	w.get(s.t, start[len(w.base):])
	return w
}

func (w *webPage) get(t testing.TB, path string) string {
	t.Helper()
	return harness.GetPage(t, w.c, w.base+path)
}

// TestNewClonePullSeedsCaches holds the first read after the first pull
// of a new clone (git init, git remote add, git reason pull) to the files
// the pull wrote: the pull's replay read and checked every record of each
// task it integrated, and it caches each task from them (Store.SeedTask),
// so a status after it reads no record blob and writes no task cache.
// Before, the pull kept no task cache and the status read every task's
// records from git again and wrote a cache per task (at 5,000 tasks,
// 3.9 s and 5,004 files). The caches the pull wrote, of tasks it
// created, fast-forwarded from a head remembered clean and merged, are
// byte for byte the ones a read of the tasks from git writes.
func TestNewClonePullSeedsCaches(t *testing.T) {
	harness.SkipShort(t, "generates tasks")
	const n = 30
	world := scaleWorld(t, n)
	c := newSandbox(t)
	c.git("remote", "add", "origin", strings.TrimSpace(world.git("remote", "get-url", "origin")))
	c.mustReason("pull")
	pulled := c.reasonFiles()
	seeded := 0
	for name := range pulled {
		if strings.HasPrefix(name, "tasks/") {
			seeded++
		}
	}
	if seeded != n {
		t.Errorf("the first pull of a new clone of %d tasks left %d task caches, want %d", n, seeded, n)
	}
	got := c.costed("status")
	t.Logf("the first status after the pull: %+v", got)
	if got.Blobs != 0 {
		t.Errorf("the first status after the pull read %d record blobs from git, want 0: the pull checked them all", got.Blobs)
	}
	for name, now := range c.reasonFiles() {
		if was, ok := pulled[name]; strings.HasPrefix(name, "tasks/") && (!ok || !bytes.Equal(was, now)) {
			t.Errorf("the first status after the pull wrote the task cache %s", name)
		}
	}
	// A pull that fast-forwards a task from the head the first pull
	// remembered clean, and one that merges a task written here too.
	moved := []string{"T-000001", "T-000002"}
	for _, task := range moved {
		world.mustReason("assess", task, "--subject", "moved elsewhere "+task, "--question", "q", "--materiality", "trivial", "--reversibility", "reversible")
		world.git("push", "-q", "--no-verify", "origin", taskRef(task)+":"+taskRef(task))
	}
	c.mustReason("assess", "T-000002", "--subject", "written here", "--question", "q", "--materiality", "trivial", "--reversibility", "reversible")
	c.mustReason("pull")
	if parents := strings.Fields(c.git("log", "-1", "--format=%P", taskRef("T-000002"))); len(parents) != 2 {
		t.Fatalf("the pull did not merge T-000002: its head has parents %v", parents)
	}
	pulled = c.reasonFiles()
	for _, task := range moved {
		head := strings.TrimSpace(c.git("rev-parse", taskRef(task)))
		if cache := pulled["tasks/"+task+".records"]; !bytes.Contains(cache, []byte(" "+head+" ")) {
			t.Errorf("the pull did not cache %s at its new head %s: %q", task, head, cache)
		}
	}
	// Every cache but the repository key gone: the status reads each
	// task from git and caches it under the same key.
	reasonDir := filepath.Join(c.gitDir(), "reason")
	ents, err := os.ReadDir(reasonDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != "verified.key" {
			if err := os.RemoveAll(filepath.Join(reasonDir, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := c.costed("status"); got.Blobs < 2*n {
		t.Fatalf("a status with no cache read %d record blobs, want every task's %d at least", got.Blobs, 2*n)
	}
	read := c.reasonFiles()
	for name, was := range pulled {
		if strings.HasPrefix(name, "tasks/") && !bytes.Equal(was, read[name]) {
			t.Errorf("the pull's cache %s is not the one a read of the task from git writes:\n%q\n%q", name, was, read[name])
		}
	}
}

// The first pull of a new clone of many tasks seeds their caches into
// one pack, not a file each (as the first status does), and the status
// after it reads them from the pack: no record blob from git.
func TestNewClonePullPacksCaches(t *testing.T) {
	harness.SkipShort(t, "generates tasks")
	const n = 70 // past the least a save packs
	world := scaleWorld(t, n)
	c := newSandbox(t)
	c.git("remote", "add", "origin", strings.TrimSpace(world.git("remote", "get-url", "origin")))
	c.mustReason("pull")
	files := 0
	for name := range c.reasonFiles() {
		if strings.HasPrefix(name, "tasks/") {
			files++
		}
	}
	if _, err := os.Stat(filepath.Join(c.gitDir(), "reason", "tasks.pack")); files != 0 || err != nil {
		t.Errorf("the first pull of a new clone of %d tasks wrote %d task cache files (tasks.pack: %v), want none and the pack", n, files, err)
	}
	if got := c.costed("status"); got.Blobs != 0 {
		t.Errorf("the first status after the pull read %d record blobs from git, want 0: the pull's caches are in the pack", got.Blobs)
	}
	// Tasks moved one a command after the pack took them in get their
	// own files again; the 64th folds them into the pack (as git's gc
	// --auto counts loose objects): no file left, and the pack holds
	// every one at its new head.
	// Before, only a read that itself wrote 64 caches packed, which
	// single-task commands never are: 64 files, one per task moved.
	loose := func() int {
		ents, _ := os.ReadDir(filepath.Join(c.gitDir(), "reason", "tasks"))
		return len(ents)
	}
	for i := range 64 {
		c.mustReason("assess", fmt.Sprintf("T-%06d", i), "--subject", "moved here", "--question", "q", "--materiality", "trivial", "--reversibility", "reversible")
		if i == 62 && loose() != 63 {
			t.Fatalf("%d task cache files after 63 tasks moved one a command, want 63", loose())
		}
	}
	if got := loose(); got != 0 {
		t.Errorf("%d task cache files after 64 tasks moved one a command, want none: folded into the pack", got)
	}
	pack := harness.ReadFile(t, filepath.Join(c.gitDir(), "reason", "tasks.pack"))
	for i := range 64 {
		task := fmt.Sprintf("T-%06d", i)
		if head := strings.TrimSpace(c.git("rev-parse", taskRef(task))); !bytes.Contains(pack, []byte(" "+head+" ")) {
			t.Errorf("the pack after the fold does not hold %s at its new head %s", task, head)
		}
	}
}

// TestLogAfterPullWritesCounts holds log of every task to files that
// grow with what moved: in a clone whose status has run, after a pull
// that moved k of n tasks, the first log of every task writes at most k
// signature logs and one journal under .git/reason/, and a second log
// none. Before, each task's record signatures were kept in a signature
// log of its own, so the first log wrote one for every task: n files.
func TestLogAfterPullWritesCounts(t *testing.T) {
	const n, k = 60, 3
	c := pulledWorld(t, n, k)
	c.writesOnce(fmt.Sprintf("after a pull moved %d of %d tasks", k, n), k+1, "log")
}

// TestVerifyAfterPullWritesCounts holds the first verify of every task
// in a clone whose status has run to files that grow with what moved:
// after a pull that moved k of n tasks, it writes at most k+2 files
// under .git/reason/ (the bulk memo verified.all, the signature journal,
// the moved tasks' files, which the pull writes), and a second verify
// none. Before, each task's file of verified.d/ was written again to add
// that its reuses were checked clean, which verified.all says for a
// verification of every task: n files. A verify of one task, which does
// not read verified.all, then checks its reuses again and keeps them in
// its own file, once.
func TestVerifyAfterPullWritesCounts(t *testing.T) {
	const n, k = 60, 3
	c := pulledWorld(t, n, k)
	c.writesOnce(fmt.Sprintf("after a pull moved %d of %d tasks", k, n), k+2, "verify")
	c.writesOnce("after a verify of every task", 1, "verify", fmt.Sprintf("T-%06d", n-1))
}

// pulledWorld is a scaleWorld of n tasks whose status has run, and then
// a pull that moved k of them.
func pulledWorld(t *testing.T, n, k int) *sandbox {
	harness.SkipShort(t, "generates tasks and moves them")
	c := scaleWorld(t, n)
	c.mustReason("status")
	moveOnOrigin(c, k)
	c.mustReason("pull")
	return c
}

// writesOnce requires git reason args, run first (when), to write at
// most most files under .git/reason/, and run again none.
func (s *sandbox) writesOnce(when string, most int, args ...string) {
	s.t.Helper()
	cmd := strings.Join(args, " ")
	got := s.filesWritten(args...)
	s.t.Logf("the first %s %s wrote %d files", cmd, when, got)
	if got > most {
		s.t.Errorf("the first %s %s wrote %d files under .git/reason, want at most %d: what moved, not every task", cmd, when, got, most)
	}
	if got := s.filesWritten(args...); got != 0 {
		s.t.Errorf("a second %s wrote %d files under .git/reason, want none", cmd, got)
	}
}

// filesWritten runs git reason with args and returns how many files
// under .git/reason/ it created or rewrote (modified since it started).
func (s *sandbox) filesWritten(args ...string) int {
	s.t.Helper()
	s.pastRacy()
	start := time.Now()
	s.mustReason(args...)
	files := 0
	filepath.WalkDir(filepath.Join(s.dir, ".git", "reason"), func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil && !fi.ModTime().Before(start) {
				files++
			}
		}
		return nil
	})
	return files
}

// pastRacy waits until no file under .git was modified within git's
// racy-git window (git.Recent): the catch-up writes its stamps again
// when the refs they stand for changed too lately for a stat to tell,
// which is the command's timing, not what it must write.
func (s *sandbox) pastRacy() {
	for {
		var newest time.Time
		filepath.WalkDir(filepath.Join(s.dir, ".git"), func(_ string, d os.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if fi, err := d.Info(); err == nil && fi.ModTime().After(newest) {
				newest = fi.ModTime()
			}
			return nil
		})
		if !git.Recent(newest, time.Now()) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
