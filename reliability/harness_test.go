package reliability

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"git-reason/reliability/harness"
)

// reasonBin is the git-reason binary the shared harness builds, once for
// every package of a go test run.
var reasonBin string

// TestMain builds git-reason (or finds it built) for the package's tests,
// which make their repositories on a memory file system where there is
// one (harness.MemoryTemp).
//
// The tests -short runs that count (read calls, processes, bytes, schemas
// compiled) or check a forged history run in parallel: each has its own
// repositories, its counts do not depend on the clock, and they mostly
// wait for the processes they start. Tests bounded by the clock
// (TestBadInput's time limits, the racing and killing tests,
// TestCatchUpRecentChange's change within the catch-up's tick) stay
// serial, so that go test runs each alone before it releases the parallel
// ones. So do the counting tests only the full run runs: the suite waits
// for cmd/git-reason's tests whatever they do, so running them side by
// side would shorten nothing.
func TestMain(m *testing.M) {
	harness.MemoryTemp()
	bin, err := harness.Binary()
	harness.ExitOn("reliability", err)
	reasonBin = bin
	os.Exit(harness.CheckRaces(m.Run()))
}

func long() bool { return harness.Long() }

func form(quick, full int) (int, string) { return harness.Form(quick, full) }

// sandbox is a real repository and the environment every process the test
// starts in it gets: the built binary first on PATH, a HOME of its own with
// an identity, and none of this machine's git or git reason settings.
type sandbox struct {
	t    testing.TB
	dir  string // the work tree
	home string // HOME of every process
	env  []string
}

// newSandbox makes a repository with one empty commit on main; config holds
// extra repository settings, key then value.
func newSandbox(t testing.TB, config ...string) *sandbox {
	t.Helper()
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the suite kills process groups and reads lock files the unix way")
	}
	harness.NeedGit(t)
	home := t.TempDir()
	if err := harness.WriteHome(home, ""); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "repo")
	env := harness.Env(home, filepath.Dir(dir), []string{filepath.Dir(reasonBin)})
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := &sandbox{t: t, dir: dir, home: home, env: env}
	s.git("init", "-q")
	for i := 0; i+1 < len(config); i += 2 {
		s.git("config", config[i], config[i+1])
	}
	s.git("commit", "-q", "--allow-empty", "-m", "initial commit")
	return s
}

// cmd prepares a process in the sandbox's work tree, in a process group
// of its own: when ctx ends the whole group is killed, so that git's child
// git-reason does not outlive a killed git.
func (s *sandbox) cmd(ctx context.Context, name string, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, name, args...)
	c.Dir, c.Env = s.dir, s.env
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	c.WaitDelay = 5 * time.Second
	return c
}

// git runs git and fails the test if it does not exit 0.
func (s *sandbox) git(args ...string) string {
	s.t.Helper()
	r := s.run(context.Background(), nil, "git", args...)
	if r.err != nil {
		s.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), r.err, r.stderr)
	}
	return r.stdout
}

// result is what one process did.
type result struct {
	code           int // exit status; -1 when killed or not started
	stdout, stderr string
	took           time.Duration
	err            error
}

// run runs a process to completion with stdin (may be nil).
func (s *sandbox) run(ctx context.Context, stdin []byte, name string, args ...string) result {
	c := s.cmd(ctx, name, args...)
	if stdin != nil {
		c.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	start := time.Now()
	err := c.Run()
	r := result{code: 0, stdout: out.String(), stderr: errb.String(), took: time.Since(start), err: err}
	if err != nil {
		r.code = -1
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			r.code = ee.ExitCode()
		}
	}
	return r
}

// reason runs git-reason ARGS as git's subcommand dispatch starts it
// (harness.DispatchEnv), without the git process the dispatch costs
// each command; viaGit runs it through git's dispatch, where the test
// reads what git itself records (trace2's tree of processes).
func (s *sandbox) reason(args ...string) result {
	return s.reasonCtx(context.Background(), args...)
}

// reasonCtx is reason, ended with ctx.
func (s *sandbox) reasonCtx(ctx context.Context, args ...string) result {
	env, err := harness.DispatchEnv(s.env)
	if err != nil {
		s.t.Fatal(err)
	}
	direct := &sandbox{t: s.t, dir: s.dir, home: s.home, env: env}
	return direct.run(ctx, nil, reasonBin, args...) // the one PATH would find first
}

// viaGit runs git reason ARGS through git's subcommand dispatch.
func (s *sandbox) viaGit(args ...string) result {
	return s.run(context.Background(), nil, "git", append([]string{"reason"}, args...)...)
}

// mustReason runs git reason and fails the test unless it exits 0.
func (s *sandbox) mustReason(args ...string) string {
	s.t.Helper()
	r := s.reason(args...)
	if r.code != 0 {
		s.t.Fatalf("git reason %s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
	}
	return r.stdout
}

// recordID runs a writing command with --json and returns the stored id.
func (s *sandbox) recordID(args ...string) string {
	s.t.Helper()
	var rec struct{ ID string }
	out := s.mustReason(append(args, "--json")...)
	if err := json.Unmarshal([]byte(out), &rec); err != nil || rec.ID == "" {
		s.t.Fatalf("git reason %s --json: no id in %q (%v)", strings.Join(args, " "), out, err)
	}
	return rec.ID
}

// gitDir is the repository's .git directory.
func (s *sandbox) gitDir() string { return filepath.Join(s.dir, ".git") }

func taskRef(task string) string { return "refs/reasoning/tasks/" + task }

// storedRecord is the part of a stored record the suite checks, read with
// git alone (not with the tool under test).
type storedRecord struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	Task  string `json:"task"`
	Clock int    `json:"clock"`
	Body  struct {
		Subject string `json:"subject"`
	} `json:"body"`
	path string // in the head tree
	blob string
}

// records lists the records in the head tree of task's ref, with plain git
// (ls-tree and cat-file): what any clone would see.
func (s *sandbox) records(task string) []storedRecord {
	s.t.Helper()
	var blobs, paths []string
	for _, line := range strings.Split(strings.TrimSpace(s.git("ls-tree", "-r", taskRef(task))), "\n") {
		meta, path, ok := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[1] != "blob" {
			s.t.Fatalf("git ls-tree %s: unexpected line %q", taskRef(task), line)
		}
		blobs, paths = append(blobs, f[2]), append(paths, path)
	}
	c := s.cmd(context.Background(), "git", "cat-file", "--batch")
	c.Stdin = strings.NewReader(strings.Join(blobs, "\n") + "\n")
	out, err := c.Output()
	if err != nil {
		s.t.Fatalf("git cat-file --batch: %v", err)
	}
	recs := make([]storedRecord, 0, len(blobs))
	for i := range blobs {
		var hash, typ string
		var size int
		nl := bytes.IndexByte(out, '\n')
		if _, err := fmt.Sscan(string(out[:nl]), &hash, &typ, &size); err != nil || typ != "blob" {
			s.t.Fatalf("git cat-file --batch: unexpected header %q", out[:nl])
		}
		var rec storedRecord
		if err := json.Unmarshal(out[nl+1:nl+1+size], &rec); err != nil {
			s.t.Errorf("%s in %s is not a record: %v", paths[i], taskRef(task), err)
		}
		rec.path, rec.blob = paths[i], blobs[i]
		recs = append(recs, rec)
		out = out[nl+1+size+1:]
	}
	return recs
}

// checkChain walks the task's first-parent history with git and checks
// that it is one commit per record of the head tree (recs), oldest first:
// commit i has one parent (none for the first), adds exactly the blob
// of the record with clock i under records/<clock>-<kind>-<id>.json and
// changes nothing else, and its Reason-Record trailer names that record.
// Clocks 1..n, no record lost from or added twice to the chain, and no
// append that rewrote an earlier record all follow.
func (s *sandbox) checkChain(task string, recs []storedRecord) {
	s.t.Helper()
	byPath := make(map[string]storedRecord, len(recs))
	for _, r := range recs {
		byPath[r.path] = r
	}
	commits := s.firstParents(task)
	if len(commits) != len(recs) {
		s.t.Errorf("%s: %d first-parent commits for %d records in the head tree", task, len(commits), len(recs))
	}
	bad := 0
	fail := func(format string, args ...any) {
		if bad++; bad <= 10 {
			s.t.Errorf(task+": "+format, args...)
		}
	}
	for i, c := range commits {
		n := i + 1
		if c.parents != min(i, 1) {
			fail("commit %d (%.12s) has %d parents", n, c.hash, c.parents)
		}
		f := []string{}
		if len(c.changes) == 1 {
			f = strings.Fields(c.changes[0])
		}
		if len(f) != 6 || f[4] != "A" {
			fail("commit %d (%.12s) must add exactly one record and change nothing else; its diff: %q", n, c.hash, c.changes)
			continue
		}
		path, blob := f[5], f[3]
		r, ok := byPath[path]
		if !ok || r.blob != blob {
			fail("commit %d (%.12s) adds %s (blob %.12s), which the head tree does not hold", n, c.hash, path, blob)
			continue
		}
		if want := fmt.Sprintf("records/%010d-%s-%s.json", n, r.Kind, r.ID); path != want || r.Clock != n || r.Task != task {
			fail("commit %d (%.12s) adds %s holding clock %d of task %q; want %s", n, c.hash, path, r.Clock, r.Task, want)
		}
		if c.trailer != r.ID {
			fail("commit %d (%.12s) has Reason-Record %q but adds record %s", n, c.hash, c.trailer, r.ID)
		}
	}
	if bad > 10 {
		s.t.Errorf("%s: ... and %d more chain errors", task, bad-10)
	}
}

// chainCommit is one commit of a task's first-parent history with the
// tree entries it added, changed or removed relative to its first parent.
type chainCommit struct {
	hash, trailer string
	parents       int
	changes       []string // raw diff lines: ":oldmode newmode oldblob newblob X path"
}

// firstParents lists the task's first-parent history, oldest first.
func (s *sandbox) firstParents(task string) []chainCommit {
	s.t.Helper()
	out := s.git("log", "--first-parent", "--reverse", "--root", "--raw", "--no-abbrev", "--no-renames",
		"--diff-merges=first-parent", "--format=commit %H|%(trailers:key=Reason-Record,valueonly,separator=%x2C)|%P", taskRef(task))
	var commits []chainCommit
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "commit "):
			f := strings.Split(strings.TrimPrefix(line, "commit "), "|")
			if len(f) != 3 {
				s.t.Fatalf("git log %s: unexpected line %q", taskRef(task), line)
			}
			commits = append(commits, chainCommit{hash: f[0], trailer: f[1], parents: len(strings.Fields(f[2]))})
		case strings.HasPrefix(line, ":") && len(commits) > 0:
			c := &commits[len(commits)-1]
			c.changes = append(c.changes, strings.Replace(line, "\t", " ", 1))
		}
	}
	return commits
}

// fsckReport is what git fsck said, sorted into kinds.
type fsckReport struct {
	dangling   map[string]int // by object type
	complaints []string       // anything but dangling objects and notices
	err        error
}

func (f fsckReport) String() string {
	var parts []string
	for _, typ := range []string{"commit", "tree", "blob", "tag"} {
		if n := f.dangling[typ]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, typ))
		}
	}
	if len(parts) == 0 {
		return "no dangling objects"
	}
	return "dangling: " + strings.Join(parts, ", ")
}

// fsck runs git fsck --strict --dangling --no-progress.
func (s *sandbox) fsck() fsckReport {
	r := s.run(context.Background(), nil, "git", "fsck", "--strict", "--dangling", "--no-progress")
	rep := fsckReport{dangling: map[string]int{}, err: r.err}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout+"\n"+r.stderr), "\n") {
		switch {
		case line == "", strings.HasPrefix(line, "notice: "), strings.HasPrefix(line, "Checking "):
		case strings.HasPrefix(line, "dangling "):
			rep.dangling[strings.Fields(line)[1]]++
		default:
			rep.complaints = append(rep.complaints, line)
		}
	}
	return rep
}

// locks lists every *.lock file under .git, relative to it.
func (s *sandbox) locks() []string {
	var out []string
	filepath.WalkDir(s.gitDir(), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lock") {
			rel, _ := filepath.Rel(s.gitDir(), p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

// verify runs git reason verify and fails the test unless it says every
// record is admissible.
func (s *sandbox) verify() {
	s.t.Helper()
	r := s.reason("verify")
	s.t.Logf("git reason verify: exit %d in %v: %s", r.code, r.took.Round(time.Millisecond), strings.TrimSpace(r.stdout+r.stderr))
	if r.code != 0 {
		s.t.Errorf("git reason verify exited %d, want 0:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// percentiles renders the median, 90th percentile and maximum of ds.
func percentiles(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	ds = slices.Clone(ds)
	slices.Sort(ds)
	r := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	return fmt.Sprintf("median %v, p90 %v, max %v", r(ds[len(ds)/2]), r(ds[len(ds)*9/10]), r(ds[len(ds)-1]))
}
