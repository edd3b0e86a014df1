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
)

// reasonBin is the git-reason binary TestMain builds once for every test.
var reasonBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "reliability-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "reliability:", err)
		os.Exit(1)
	}
	reasonBin = filepath.Join(dir, "git-reason")
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	if out, err := exec.Command(goBin, "build", "-o", reasonBin, "git-reason/cmd/git-reason").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "reliability: go build: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// long reports whether the long form was asked for (GIT_REASON_LONG=1).
func long() bool {
	v := os.Getenv("GIT_REASON_LONG")
	return v != "" && v != "0"
}

// form returns quick or, in the long form, full; and the form's name.
func form(quick, full int) (int, string) {
	if long() {
		return full, "long form"
	}
	return quick, "quick form (GIT_REASON_LONG=1 for the long one)"
}

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
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	home := t.TempDir()
	gitconfig := "[user]\n\tname = Rel Tester\n\temail = rel@example.invalid\n" +
		"[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "GIT_"), name == "HOME", name == "PATH", name == "CI",
			name == "XDG_CONFIG_HOME", name == "EMAIL", name == "LC_ALL", name == "TZ":
			continue
		}
		env = append(env, kv)
	}
	dir := filepath.Join(t.TempDir(), "repo")
	env = append(env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir), "LC_ALL=C", "TZ=UTC",
		"PATH="+filepath.Dir(reasonBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
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

// reason runs git reason ARGS through git's subcommand dispatch.
func (s *sandbox) reason(args ...string) result {
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
	path string
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
		rec.path = paths[i]
		recs = append(recs, rec)
		out = out[nl+1+size+1:]
	}
	return recs
}

// checkChain checks with git that the task's first-parent history has one
// commit per record of its head tree and that the clocks run 1..n, each
// stored under its own name.
func (s *sandbox) checkChain(task string, recs []storedRecord) {
	s.t.Helper()
	var n int
	fmt.Sscan(s.git("rev-list", "--first-parent", "--count", taskRef(task)), &n)
	if n != len(recs) {
		s.t.Errorf("%s: %d first-parent commits for %d records", task, n, len(recs))
	}
	clocks := make([]int, 0, len(recs))
	for _, r := range recs {
		if want := fmt.Sprintf("records/%010d-%s-%s.json", r.Clock, r.Kind, r.ID); r.path != want || r.Task != task {
			s.t.Errorf("%s: %s holds clock %d of task %q; want %s", task, r.path, r.Clock, r.Task, want)
		}
		clocks = append(clocks, r.Clock)
	}
	slices.Sort(clocks)
	for i, c := range clocks {
		if c != i+1 {
			s.t.Errorf("%s: clocks are not 1..%d: position %d holds %d", task, len(clocks), i+1, c)
			break
		}
	}
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
