package gitstore_test

// The forgery corpus: an honest task history is written by the real writer,
// then each kind of forgery that replay verification must catch is made
// with git plumbing alone (hash-object, mktree, commit-tree, update-ref),
// as someone without git reason, or with a grudge, would make it. Each test
// requires Store.Verify to report exactly the expected finding codes, on
// the forged commit only, and nothing on the honest history it grew from.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/oklog/ulid/v2"

	"git-reason/gitstore"
	"git-reason/policy"
	"git-reason/record"
	"git-reason/record/storetest"
	"git-reason/reliability/harness"
)

const (
	forgTask  = "T"
	forgRef   = "refs/reasoning/tasks/" + forgTask
	forgActor = "Test Person <test@example.invalid>"
)

// forgAdvisors are the two advisors the honest plan selects.
var forgAdvisors = []policy.Advisor{
	{ID: "adv-one", Status: policy.StatusAvailable, Reason: "ready", Capabilities: []string{"reasoning"}},
	{ID: "adv-two", Status: policy.StatusAvailable, Reason: "ready", Capabilities: []string{"reasoning"}},
}

// forgHistory is one repository with an honest task written by the real
// writer, and the plumbing to forge on top of it.
type forgHistory struct {
	t      *testing.T
	dir    string
	env    []string
	w      *record.Writer
	res    map[string]*record.Result // step name -> the admitted record
	commit map[string]string         // step name -> the commit it was stored in
}

// forgClock is a writer clock that advances one second per record, so that
// commit dates differ and ids sort in the order records were written. It
// starts after ticks seconds (a writer continuing a history goes on from
// its last record) and counts them in ticks.
func forgClock(ticks *atomic.Int64) func() time.Time {
	base := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	return func() time.Time { return base.Add(time.Duration(ticks.Add(1)) * time.Second) }
}

// forgEnv is the environment every git command of the corpus runs in: no
// system or user configuration, a fixed identity.
func forgEnv(t *testing.T) []string {
	home := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(home, "none"),
		"GIT_AUTHOR_NAME=Plumber", "GIT_AUTHOR_EMAIL=plumber@example.invalid",
		"GIT_COMMITTER_NAME=Plumber", "GIT_COMMITTER_EMAIL=plumber@example.invalid")
}

// forgGit runs git in env and dir with stdin and returns its trimmed
// stdout; it fails the test when git fails.
func forgGit(t *testing.T, env []string, dir, stdin string, args ...string) string {
	t.Helper()
	out, err := harness.GitOutput(env, dir, stdin, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// newForgRepo makes an empty repository and a writer over it.
func newForgRepo(t *testing.T, env []string, origin string) (string, *record.Writer) {
	t.Helper()
	harness.NeedGit(t)
	dir := t.TempDir()
	forgGit(t, env, dir, "", "init", "-q")
	return dir, forgWriter(t, dir, origin)
}

func forgWriter(t *testing.T, dir, origin string) *record.Writer {
	t.Helper()
	s := openStore(t, dir)
	w := storetest.Writer(s, &storetest.Avail{Advisors: forgAdvisors})
	w.Origin = origin
	w.Surface = record.SurfaceCLI
	w.Now = forgClock(new(atomic.Int64))
	return w
}

// honest is the honest history every forgery starts from, written once per
// test binary by the real writer and copied into each test's own
// repository: writing it is most of a forgery test's time, and each test
// changes only its copy.
var honest struct {
	once   sync.Once
	dir    string                    // the repository; TestMain removes it
	res    map[string]*record.Result // as in forgHistory
	commit map[string]string
	ticks  int64 // how far its writer's clock went
	ok     bool  // written and verified clean
}

// newForgHistory gives the test a repository of its own holding the honest
// history (see writeHonest) and a writer that continues it.
func newForgHistory(t *testing.T) *forgHistory {
	t.Helper()
	harness.NeedGit(t)
	honest.once.Do(func() { writeHonest(t) })
	if !honest.ok {
		t.Fatal("the honest history could not be written (see the first forgery test's failure)")
	}
	env := forgEnv(t)
	dir := filepath.Join(t.TempDir(), "repo")
	if err := os.CopyFS(dir, os.DirFS(honest.dir)); err != nil {
		t.Fatalf("copy the honest history: %v", err)
	}
	w := forgWriter(t, dir, "origin-test")
	ticks := new(atomic.Int64)
	ticks.Store(honest.ticks)
	w.Now = forgClock(ticks)
	h := &forgHistory{t: t, dir: dir, env: env, w: w, res: map[string]*record.Result{}, commit: map[string]string{}}
	for name, r := range honest.res {
		h.res[name], h.commit[name] = r, honest.commit[name]
	}
	return h
}

// writeHonest writes the honest history into honest.dir: an assessment, a
// plan selecting both advisors, a failed and two completed consultations
// through the driver's path, the disagreement the driver opens on their
// conflicting stances, its resolution, a conclusion weighing both, and a
// validation; and requires it to verify clean.
func writeHonest(t *testing.T) {
	t.Helper()
	env := forgEnv(t)
	dir, err := os.MkdirTemp("", "gitstore-forgery-")
	if err != nil {
		t.Fatal(err)
	}
	honest.dir = dir
	// No template (see newRepo): each test copies this repository.
	forgGit(t, env, dir, "", "init", "-q", "--template=")
	w := forgWriter(t, dir, "origin-test")
	ticks := new(atomic.Int64)
	w.Now = forgClock(ticks)
	h := &forgHistory{t: t, dir: dir, env: env, w: w, res: map[string]*record.Result{}, commit: map[string]string{}}
	h.add("a", record.KindAssessment, `{"subject":"schema migration","question":"online or offline?","materiality":"critical","reversibility":"irreversible","needs":["reasoning"],"evidence":[{"kind":"file","ref":"db/schema.sql","summary":"current schema"}]}`)
	h.add("p", record.KindPlan, `{"assessment":"{a}"}`)
	if got := h.res["p"].Derived.(*record.PlanDerived).Selected; strings.Join(got, ",") != "adv-one,adv-two" {
		t.Fatalf("the honest plan selected %v, want both advisors", got)
	}
	h.consult("f", "adv-one", "")
	h.consult("c1", "adv-one", "endorse")
	h.consult("c2", "adv-two", "oppose")
	res, err := h.w.AppendDriverDisagreement(context.Background(), forgTask, &record.Disagreement{
		Assessment: h.id("a"), Cites: []string{h.id("c1"), h.id("c2")}, Summary: "online or offline"})
	if err != nil {
		t.Fatalf("driver disagreement: %v", err)
	}
	h.keep("d", res)
	h.add("r", record.KindResolution, `{"disagreement":"{d}","decision":"online, in two steps","evidence":[{"kind":"note","summary":"load test of the two-step migration"}]}`)
	h.add("k", record.KindConclusion, `{"assessment":"{a}","decision":"online","weighed":[{"consultation":"{c1}","treatment":"adopted","reason":"sound"},{"consultation":"{c2}","treatment":"rejected","reason":"the load test answers it"}]}`)
	if d := h.res["k"].Derived.(*record.ConclusionDerived); d.ReviewCount != 2 {
		t.Fatalf("the honest conclusion counts %d reviews, want 2", d.ReviewCount)
	}
	h.add("v", record.KindValidation, `{"conclusion":"{k}","method":"manual","result":"pass","evidence":[{"kind":"note","summary":"ran on staging"}]}`)
	h.requireClean(h.commit["v"])
	honest.res, honest.commit, honest.ticks = h.res, h.commit, ticks.Load()
	honest.ok = true
}

func (h *forgHistory) id(name string) string { return h.res[name].ID }

func (h *forgHistory) keep(name string, res *record.Result) {
	h.res[name] = res
	h.commit[name] = res.Commit
}

func (h *forgHistory) expand(s string) string {
	for name, r := range h.res {
		s = strings.ReplaceAll(s, "{"+name+"}", r.ID)
	}
	return s
}

func (h *forgHistory) add(name string, kind record.Kind, body string) {
	h.t.Helper()
	res, err := h.w.Append(context.Background(), forgTask, kind, []byte(h.expand(body)))
	if err != nil {
		h.t.Fatalf("honest %s (%s): %v", name, kind, err)
	}
	h.keep(name, res)
}

// consult records an outcome as the consult driver does: a stance makes it
// completed with a declared model, none makes it a timeout.
func (h *forgHistory) consult(name, advisor, stance string) {
	h.t.Helper()
	c, m := storetest.DriverConsultation(h.id("p"), advisor, stance, record.Model{Name: "model-x", Source: "declared"})
	res, err := h.w.AppendConsultation(context.Background(), forgTask, c, m)
	if err != nil {
		h.t.Fatalf("honest consultation %s: %v", name, err)
	}
	h.keep(name, res)
}

func (h *forgHistory) git(stdin string, args ...string) string {
	h.t.Helper()
	return forgGit(h.t, h.env, h.dir, stdin, args...)
}

// forgReads keeps what git printed for a read of an object ("cat-file
// blob C:P" or "ls-tree C:records"): objects are named by their content, so
// a read of one commit says the same in every copy of the history, and
// each test need not start git again to read the honest records.
var forgReads sync.Map

// gitRead runs a git command that only reads objects named by commit id,
// once per test binary.
func (h *forgHistory) gitRead(args ...string) string {
	h.t.Helper()
	key := strings.Join(args, " ")
	if out, ok := forgReads.Load(key); ok {
		return out.(string)
	}
	out := h.git("", args...)
	forgReads.Store(key, out)
	return out
}

// rec reads the record a step stored, as a generic JSON object a forger
// can edit.
func (h *forgHistory) rec(name string) map[string]any {
	h.t.Helper()
	r := h.res[name]
	data := h.gitRead("cat-file", "blob", h.commit[name]+":records/"+r.FileName())
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		h.t.Fatal(err)
	}
	return m
}

// files lists a commit's records/ tree: entry name -> blob.
func (h *forgHistory) files(commit string) map[string]string {
	h.t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(h.gitRead("ls-tree", commit+":records"), "\n") {
		if line == "" {
			continue
		}
		meta, name, _ := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		out[name] = f[2]
	}
	return out
}

// blob writes a record with git hash-object and returns its entry name
// (from its clock, kind and id, as the writer names it) and blob.
func (h *forgHistory) blob(rec map[string]any) (string, string) {
	h.t.Helper()
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		h.t.Fatal(err)
	}
	clock, err := rec["clock"].(json.Number).Int64()
	if err != nil {
		h.t.Fatal(err)
	}
	name := fmt.Sprintf("%010d-%s-%s.json", clock, rec["kind"], rec["id"])
	return name, h.git(string(data)+"\n", "hash-object", "-w", "--stdin")
}

// forgCommit is a commit a forger writes.
type forgCommit struct {
	parents []string
	files   map[string]string // records/ entry name -> blob
	msg     string
	when    time.Time
	author  string // "Name <email>"
}

// on returns the commit the writer would have made for rec on parent:
// parent's records plus rec, its trailers, its actor and date. A test
// changes what its forgery needs before writing it.
func (h *forgHistory) on(parent string, rec map[string]any) *forgCommit {
	h.t.Helper()
	files := h.files(parent)
	name, blob := h.blob(rec)
	files[name] = blob
	created, err := time.Parse(time.RFC3339Nano, rec["created"].(string))
	if err != nil {
		h.t.Fatal(err)
	}
	return &forgCommit{
		parents: []string{parent},
		files:   files,
		msg: fmt.Sprintf("%s: forged\n\nReason-Task: %s\nReason-Kind: %s\nReason-Record: %s\n",
			rec["kind"], rec["task"], rec["kind"], rec["id"]),
		when:   created,
		author: rec["actor"].(string),
	}
}

// forgRoot writes, with one git mktree --batch, the records/ tree of the
// ls-tree lines given and the root tree holding it, and returns the root.
// The root names the records/ tree by the id git printed for it, so the
// two are written one after the other through the process's pipes.
func forgRoot(t *testing.T, env []string, dir string, lines []string) string {
	t.Helper()
	cmd := exec.Command("git", "mktree", "--batch")
	cmd.Dir = dir
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	in, out := harness.StartPiped(t, cmd)
	r := bufio.NewReader(out)
	tree := func(entries string) string {
		if _, err := io.WriteString(in, entries+"\n"); err != nil {
			t.Fatalf("git mktree: %v", err)
		}
		line, err := r.ReadString('\n')
		if err != nil {
			cmd.Wait()
			t.Fatalf("git mktree: %v\n%s", err, stderr.String())
		}
		return strings.TrimSpace(line)
	}
	records := tree(strings.Join(lines, "\n") + "\n")
	root := tree("040000 tree " + records + "\trecords\n")
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("git mktree: %v\n%s", err, stderr.String())
	}
	return root
}

// write makes the commit with mktree and commit-tree.
func (h *forgHistory) write(c *forgCommit) string {
	h.t.Helper()
	var lines []string
	for name, blob := range c.files {
		lines = append(lines, fmt.Sprintf("100644 blob %s\t%s", blob, name))
	}
	root := forgRoot(h.t, h.env, h.dir, lines)
	args := []string{"commit-tree", root}
	for _, p := range c.parents {
		args = append(args, "-p", p)
	}
	sig := gitstore.ParseActor(c.author, c.when)
	date := fmt.Sprintf("@%d +0000", c.when.Unix())
	cmd := exec.Command("git", append(args, "-F", "-")...)
	cmd.Dir = h.dir
	cmd.Env = append(append([]string(nil), h.env...),
		"GIT_AUTHOR_NAME="+sig.Name, "GIT_AUTHOR_EMAIL="+sig.Email, "GIT_AUTHOR_DATE="+date,
		"GIT_COMMITTER_NAME="+sig.Name, "GIT_COMMITTER_EMAIL="+sig.Email, "GIT_COMMITTER_DATE="+date)
	cmd.Stdin = strings.NewReader(c.msg)
	out, err := cmd.Output()
	if err != nil {
		h.t.Fatalf("git commit-tree: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// forge points the task's ref at commit with git update-ref and returns
// what verification finds there.
func (h *forgHistory) forge(commit string) []record.Finding {
	h.t.Helper()
	h.git("", "update-ref", forgRef, commit)
	return forgVerify(h.t, h.dir, forgTask)
}

// forgVerify verifies a task as 'git reason verify' does, with a store
// opened afresh.
func forgVerify(t *testing.T, dir, task string) []record.Finding {
	t.Helper()
	s := openStore(t, dir)
	head, err := s.Repo.ReadRef(gitstore.TaskRef(task))
	if err != nil || head == "" {
		t.Fatalf("read %s: %q, %v", task, head, err)
	}
	found, err := s.Verify(context.Background(), task, head)
	if err != nil {
		t.Fatalf("verify %s: %v", task, err)
	}
	// The reader of long histories (git rev-list and cat-file) must find
	// exactly what the in-process one finds; so must a store reading the
	// objects packed, as in a repository of large packs (each object
	// asked of git cat-file before go-git indexes a pack).
	for _, reader := range []struct {
		name  string
		setup func(*gitstore.Store)
	}{
		{"the long-history reader (git rev-list and cat-file)", gitstore.ReadHistoriesAsLong},
		{"packed, read through git cat-file", func(s *gitstore.Store) {
			// -k keeps in the pack what no ref reaches any more: -ad
			// alone deletes it, and a test that goes on to write a
			// commit over an object its last forgery left unreferenced
			// (a parent's history the ref moved off) would find it
			// gone; git gc keeps such objects for two weeks.
			if _, err := harness.GitTry(dir, "repack", "-adkq"); err != nil {
				t.Fatalf("git repack: %v", err)
			}
			gitstore.ReadPacksThroughGit(s)
		}},
	} {
		other := openStore(t, dir)
		reader.setup(other)
		got, err := other.Verify(context.Background(), task, head)
		if err != nil {
			t.Fatalf("verify %s, %s: %v", task, reader.name, err)
		}
		if a, b := forgSorted(found), forgSorted(got); a != b {
			t.Errorf("the readers disagree on %s:\nin process:\n%s\n%s:\n%s", task, a, reader.name, b)
		}
	}
	forgVerifyRemembered(t, dir, task, head, found)
	return found
}

// forgVerifyRemembered requires a replay that goes on from remembered
// heads (the clean ancestors of head nearest to it) to find exactly what
// the whole replay found, with both history readers.
func forgVerifyRemembered(t *testing.T, dir, task, head string, want []record.Finding) {
	t.Helper()
	s := openStore(t, dir)
	rem := gitstore.OpenRemembered(s.Repo)
	// The parents of head and their first parents (forgCandidates), each
	// remembered only when its own whole replay is clean, as only a replay
	// may say.
	candidates := forgCandidates(s, head)
	for _, c := range candidates {
		found, err := s.Verify(context.Background(), task, c)
		if err == nil && len(found) == 0 {
			rem.Add(task, c, gitstore.Totals{Commits: 1})
		}
	}
	if len(rem.Heads(task)) == 0 {
		return
	}
	for _, long := range []bool{false, true} {
		r := openStore(t, dir)
		if long {
			gitstore.ReadHistoriesAsLong(r)
		}
		if n, bases, err := gitstore.ReplayedFrom(r, rem, task, head); err == nil && bases == 0 {
			t.Errorf("%s: the replay from remembered heads reached none of them (%d commits)", task, n)
		}
		r.Share(&gitstore.Shared{Remembered: rem})
		got, err := r.Verify(context.Background(), task, head)
		if err != nil {
			t.Fatalf("verify %s from remembered heads: %v", task, err)
		}
		if a, b := forgSorted(want), forgSorted(got); a != b {
			t.Errorf("a replay from remembered heads disagrees on %s (long reader %v):\nwhole:\n%s\nfrom remembered:\n%s", task, long, a, b)
		}
	}
	// As verify calls it: from the remembered heads, then again with what
	// the first call remembered (the head, its reuses checked), and again
	// from the memo as saved and read back: each must find what the whole
	// replay found.
	for i := range 3 {
		if i == 2 {
			if err := rem.Save(); err != nil {
				t.Fatal(err)
			}
			rem = gitstore.OpenRemembered(s.Repo)
			// Read back, the file goes: the next case of the corpus
			// chooses its remembered heads itself.
			dir := filepath.Join(s.Repo.CommonDir, "reason", "verified.d")
			if _, err := os.Stat(dir); err != nil {
				t.Fatalf("the remembered verifications were not saved: %v", err)
			}
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.VerifyRemembered(context.Background(), task, head, rem)
		if err != nil {
			t.Fatalf("verify %s as verify does (call %d): %v", task, i+1, err)
		}
		if a, b := forgSorted(want), forgSorted(got); a != b {
			t.Errorf("verify as the command does disagrees on %s (call %d):\nwhole:\n%s\nremembered:\n%s", task, i+1, a, b)
		}
	}
}

// forgCandidates lists the commits git rev-list --max-count=4
// --first-parent head^@ lists (the four newest on the first-parent lines
// from head's parents, newest first by committer date), then head's
// parents; nothing for a root commit or one whose parents do not read.
// It reads the commits in this process (go-git), not with git: which
// commits are remembered is the test's choice, not a result it checks.
func forgCandidates(s *gitstore.Store, head string) []string {
	st := s.Repo.Storage()
	c, err := object.GetCommit(st, plumbing.NewHash(head))
	if err != nil {
		return nil
	}
	var queue []*object.Commit
	var parents []string
	seen := map[plumbing.Hash]bool{}
	for _, p := range c.ParentHashes {
		pc, err := object.GetCommit(st, p)
		if err != nil {
			return nil
		}
		parents = append(parents, p.String())
		if !seen[p] {
			seen[p] = true
			queue = append(queue, pc)
		}
	}
	var out []string
	for len(out) < 4 && len(queue) > 0 {
		newest := 0
		for i, q := range queue {
			if q.Committer.When.After(queue[newest].Committer.When) {
				newest = i
			}
		}
		n := queue[newest]
		queue = append(queue[:newest], queue[newest+1:]...)
		out = append(out, n.Hash.String())
		if len(n.ParentHashes) > 0 && !seen[n.ParentHashes[0]] {
			seen[n.ParentHashes[0]] = true
			if pc, err := object.GetCommit(st, n.ParentHashes[0]); err == nil {
				queue = append(queue, pc)
			}
		}
	}
	return append(out, parents...)
}

// forgSorted lists findings one a line, sorted: replay reports the
// findings of one commit in no fixed order.
func forgSorted(found []record.Finding) string {
	lines := make([]string, len(found))
	for i, f := range found {
		lines[i] = fmt.Sprintf("%s %s %s %s: %s", f.Commit, f.Code, f.Record, f.Task, f.Message)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// requireClean fails unless the history at commit verifies clean.
func (h *forgHistory) requireClean(commit string) {
	h.t.Helper()
	s := openStore(h.t, h.dir)
	found, err := s.Verify(context.Background(), forgTask, commit)
	if err != nil {
		h.t.Fatal(err)
	}
	if len(found) > 0 {
		h.t.Fatalf("the honest history has findings:\n%s", forgList(found))
	}
}

func forgList(found []record.Finding) string {
	var b strings.Builder
	for _, f := range found {
		fmt.Fprintf(&b, "  %s\n", f)
	}
	return b.String()
}

// wantFindings requires the findings to be on the forged commit only and
// their codes to be exactly want; it returns them for closer checks.
func wantFindings(t *testing.T, found []record.Finding, forged string, want ...string) []record.Finding {
	t.Helper()
	codes := map[string]bool{}
	for _, f := range found {
		codes[f.Code] = true
		if f.Commit != forged {
			t.Errorf("finding on %s, not on the forged commit %s: %s", f.Commit, forged, f)
		}
		if f.Task != forgTask {
			t.Errorf("finding names task %q: %s", f.Task, f)
		}
	}
	var got []string
	for c := range codes {
		got = append(got, c)
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("finding codes %v, want %v; findings:\n%s", got, want, forgList(found))
	}
	return found
}

// wantMessage requires a finding with code whose record is rec and whose
// message contains frag.
func wantMessage(t *testing.T, found []record.Finding, code, rec, frag string) {
	t.Helper()
	for _, f := range found {
		if f.Code == code && (rec == "" || f.Record == rec) && strings.Contains(f.Message, frag) {
			return
		}
	}
	t.Errorf("no %s finding for record %q containing %q in:\n%s", code, rec, frag, forgList(found))
}

// fresh gives a copied record a new id, the next clock after the step
// named after, and the envelope of a new record.
func (h *forgHistory) fresh(rec map[string]any, after string) map[string]any {
	rec["id"] = ulid.Make().String()
	rec["clock"] = json.Number(fmt.Sprint(h.res[after].Clock + 1))
	return rec
}

func obj(v any) map[string]any { return v.(map[string]any) }

// forgeOn writes, on top of the commit of step at, a fresh copy of the
// record of step like (fresh) that edit changes, and returns the forged
// commit and the record.
func (h *forgHistory) forgeOn(like, at string, edit func(r map[string]any)) (string, map[string]any) {
	h.t.Helper()
	r := h.fresh(h.rec(like), at)
	edit(r)
	return h.write(h.on(h.commit[at], r)), r
}

// unselectedAdvisor forges consultation c2 again as adv-three's, an
// advisor the plan did not select: a record replay finds inadmissible.
func (h *forgHistory) unselectedAdvisor() (string, map[string]any) {
	return h.forgeOn("c2", "c2", func(r map[string]any) { obj(r["body"])["advisor"] = "adv-three" })
}

// numberMateriality forges, after validation v, a copy of assessment a
// whose materiality is a number: a record that fails its schema, which
// no admission rule of a later assessment reads.
func (h *forgHistory) numberMateriality() (string, map[string]any) {
	return h.forgeOn("a", "v", func(r map[string]any) { obj(r["body"])["materiality"] = 5 })
}

// appendAfterForgery appends a trivial assessment to the forged task
// through s, as Ann, and returns the writer's error.
func appendAfterForgery(ctx context.Context, s record.Store) error {
	w := &record.Writer{Store: s, Actor: "Ann <ann@example.com>", Origin: "o"}
	_, err := w.Append(ctx, forgTask, record.KindAssessment,
		[]byte(`{"subject":"after the forgery","question":"q","materiality":"trivial","reversibility":"reversible"}`))
	return err
}

// (a) A body, derived part or envelope that fails its schema.
func TestForgerySchema(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		edit func(h *forgHistory, r map[string]any)
		frag string
	}{
		{"bad enum", func(h *forgHistory, r map[string]any) { obj(r["body"])["result"] = "probably" }, "/result"},
		{"caller claims a review", func(h *forgHistory, r map[string]any) { obj(r["body"])["reviewed_by"] = "adv-one" }, "reviewed_by"},
		{"missing required field", func(h *forgHistory, r map[string]any) { delete(obj(r["body"]), "conclusion") }, "conclusion"},
		{"derived with an extra field", func(h *forgHistory, r map[string]any) { obj(r["derived"])["verified_by"] = "adv-two" }, "verified_by"},
		// The envelope fails before the record names its kind: the file name
		// names it (it was said as an assessment's), and its violations
		// follow on the same line.
		{"envelope without origin", func(h *forgHistory, r map[string]any) { delete(r, "origin") },
			"validation envelope does not match its schema (see 'git reason schema validation'): /: missing properties: 'origin'"},
		{"unknown surface", func(h *forgHistory, r map[string]any) { obj(r["derived"])["surface"] = "web" }, "/surface"},
		{"answered by someone else", func(h *forgHistory, r map[string]any) { obj(r["derived"])["answered_by"] = "advisor" }, "answered_by"},
		{"envelope with an extra field", func(h *forgHistory, r map[string]any) { r["reviewed_by"] = "adv-one" }, "reviewed_by"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := newForgHistory(t)
			forged, r := h.forgeOn("v", "v", func(r map[string]any) { c.edit(h, r) })
			found := h.forge(forged)
			wantFindings(t, found, forged, record.FindSchema)
			wantMessage(t, found, record.FindSchema, r["id"].(string), c.frag)
		})
	}
	// A blob that is not JSON at all.
	t.Run("not json", func(t *testing.T) {
		t.Parallel()
		h := newForgHistory(t)
		c := h.on(h.commit["v"], h.fresh(h.rec("v"), "v"))
		for name := range c.files {
			if _, ok := h.files(h.commit["v"])[name]; !ok {
				c.files[name] = h.git("{\"id\": \"unterminated\n", "hash-object", "-w", "--stdin")
			}
		}
		forged := h.write(c)
		wantFindings(t, h.forge(forged), forged, record.FindUnreadable)
	})
}

// The surface (and who answered a checklist) is the writer's word, which
// replay cannot recompute: any value of its type, or none (records written
// before surfaces were recorded), replays clean.
func TestForgerySurfaceIsTheWritersWord(t *testing.T) {
	t.Parallel()
	for _, surface := range []string{"", "cli", "mcp", "serve", "sync"} {
		t.Run("surface "+surface, func(t *testing.T) {
			t.Parallel()
			h := newForgHistory(t)
			r := h.fresh(h.rec("v"), "v")
			if got := obj(r["derived"])["surface"]; got != "cli" {
				t.Fatalf("the honest validation's surface is %v, want the writer's cli", got)
			}
			if surface == "" {
				delete(obj(r["derived"]), "surface")
			} else {
				obj(r["derived"])["surface"] = surface
			}
			h.requireClean(h.write(h.on(h.commit["v"], r)))
		})
	}
}

// (b) A consultation naming an advisor its plan did not select.
func TestForgeryConsultationOfUnselectedAdvisor(t *testing.T) {
	t.Parallel()
	h := newForgHistory(t)
	forged, r := h.unselectedAdvisor()
	found := wantFindings(t, h.forge(forged), forged, record.FindInadmissible)
	wantMessage(t, found, record.FindInadmissible, r["id"].(string), `advisor "adv-three" was not selected`)
}

// (c) A plan whose derived selection differs from what policy computes
// from the snapshot stored in it.
func TestForgeryPlanSelection(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		edit func(d map[string]any)
	}{
		{"an advisor added", func(d map[string]any) {
			d["selected"] = []any{"adv-one", "adv-two", "adv-three"}
		}},
		{"an advisor dropped", func(d map[string]any) { d["selected"] = []any{"adv-two"} }},
		{"preference order changed", func(d map[string]any) { d["selected"] = []any{"adv-two", "adv-one"} }},
		{"snapshot says unavailable, selection unchanged", func(d map[string]any) {
			snap := d["snapshot"].([]any)
			e := obj(snap[1])
			e["status"], e["reason"] = "disabled", "disabled by reason.disable"
		}},
		{"review lowered", func(d map[string]any) { d["review"] = "recommended" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := newForgHistory(t)
			r := h.rec("p")
			r["id"] = ulid.Make().String()
			c.edit(obj(r["derived"]))
			forged := h.write(h.on(h.commit["a"], r))
			found := wantFindings(t, h.forge(forged), forged, record.FindDerived)
			wantMessage(t, found, record.FindDerived, r["id"].(string), "the writer computes")
		})
	}
}

// (d) A conclusion whose review count (or advisors) is not what the writer
// computes from the admitted consultations.
func TestForgeryConclusionReviewCount(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		edit func(d map[string]any)
	}{
		{"count raised", func(d map[string]any) { d["review_count"] = json.Number("5") }},
		{"count lowered", func(d map[string]any) { d["review_count"] = json.Number("1") }},
		{"advisors changed", func(d map[string]any) { d["advisors"] = []any{"adv-one"} }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := newForgHistory(t)
			r := h.rec("k")
			c.edit(obj(r["derived"]))
			forged := h.write(h.on(h.commit["r"], r))
			found := wantFindings(t, h.forge(forged), forged, record.FindDerived)
			wantMessage(t, found, record.FindDerived, h.id("k"), `"review_count":2`)
		})
	}
}

// A command validation claiming a pass its recorded exit status denies:
// another derived field the writer computes.
func TestForgeryValidationResult(t *testing.T) {
	t.Parallel()
	h := newForgHistory(t)
	r := h.fresh(h.rec("v"), "v")
	r["body"] = map[string]any{"conclusion": h.id("k"), "method": "command", "command": "make test"}
	r["derived"] = map[string]any{"exit_code": json.Number("1"), "duration_ms": json.Number("900"),
		"output_sha256": strings.Repeat("ab", 32), "result": "pass"}
	forged := h.write(h.on(h.commit["v"], r))
	found := wantFindings(t, h.forge(forged), forged, record.FindDerived)
	wantMessage(t, found, record.FindDerived, r["id"].(string), `"result":"fail"`)
}

// (e) A conclusion recorded while its disagreement is still open: the
// honest conclusion, moved before the resolution.
func TestForgeryConclusionWhileDisagreementOpen(t *testing.T) {
	t.Parallel()
	h := newForgHistory(t)
	r := h.fresh(h.rec("k"), "d")
	forged := h.write(h.on(h.commit["d"], r))
	found := wantFindings(t, h.forge(forged), forged, record.FindInadmissible)
	wantMessage(t, found, record.FindInadmissible, r["id"].(string), "disagreement "+h.id("d")[:10]+" is open")
}

// (f) A commit whose tree changes an earlier record while adding a new,
// admissible one: the honest validation commit, with the assessment's
// question rewritten and the plan's selection widened in place.
func TestForgeryChangesEarlierRecord(t *testing.T) {
	t.Parallel()
	for _, step := range []string{"a", "p", "c2"} {
		t.Run(step, func(t *testing.T) {
			t.Parallel()
			h := newForgHistory(t)
			r := h.rec(step)
			switch step {
			case "a":
				obj(r["body"])["question"] = "was it ever in doubt?"
			case "p":
				obj(r["derived"])["selected"] = []any{"adv-one"}
			case "c2":
				obj(obj(r["body"])["conclusion"])["stance"] = "endorse"
			}
			name, blob := h.blob(r)
			c := h.on(h.commit["k"], h.rec("v"))
			if _, ok := c.files[name]; !ok {
				t.Fatalf("%s is not in the tree", name)
			}
			c.files[name] = blob
			forged := h.write(c)
			found := wantFindings(t, h.forge(forged), forged, record.FindChanged)
			wantMessage(t, found, record.FindChanged, h.id(step), name)
		})
	}
}

// (g) A commit that drops an earlier record: the disagreement and its
// resolution vanish from the tree the validation commit carries.
func TestForgeryDropsEarlierRecord(t *testing.T) {
	t.Parallel()
	h := newForgHistory(t)
	c := h.on(h.commit["k"], h.rec("v"))
	for _, step := range []string{"d", "r"} {
		delete(c.files, h.res[step].FileName())
	}
	forged := h.write(c)
	found := wantFindings(t, h.forge(forged), forged, record.FindDropped)
	wantMessage(t, found, record.FindDropped, h.id("d"), h.res["d"].FileName())
	wantMessage(t, found, record.FindDropped, h.id("r"), h.res["r"].FileName())

	// A commit that only drops, adding nothing, is also not one record.
	h2 := newForgHistory(t)
	files := h2.files(h2.commit["v"])
	delete(files, h2.res["c1"].FileName())
	forged = h2.write(&forgCommit{parents: []string{h2.commit["v"]}, files: files, msg: "assessment: tidy\n", when: time.Now(), author: forgActor})
	wantFindings(t, h2.forge(forged), forged, record.FindDropped, record.FindNotOne)
}

// (h) A clock that does not advance by one, and envelopes that disagree
// with the commit that stores them.
func TestForgeryClockAndEnvelope(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		edit  func(h *forgHistory, r map[string]any, c *forgCommit)
		codes []string
		frag  string
	}{
		{"clock repeats", func(h *forgHistory, r map[string]any, c *forgCommit) {
			r["clock"] = json.Number(fmt.Sprint(h.res["k"].Clock))
		}, []string{record.FindClock}, "want 9"},
		{"clock goes back", func(h *forgHistory, r map[string]any, c *forgCommit) { r["clock"] = json.Number("2") },
			[]string{record.FindClock}, "clock 2 follows 8"},
		{"clock jumps", func(h *forgHistory, r map[string]any, c *forgCommit) { r["clock"] = json.Number("12") },
			[]string{record.FindClock}, "clock 12 follows 8"},
		{"trailer names another kind", func(h *forgHistory, r map[string]any, c *forgCommit) {
			c.msg = strings.Replace(c.msg, "Reason-Kind: validation", "Reason-Kind: conclusion", 1)
		}, []string{record.FindEnvelope}, "Reason-Kind"},
		{"trailer names another record", func(h *forgHistory, r map[string]any, c *forgCommit) {
			c.msg = strings.Replace(c.msg, "Reason-Record: "+r["id"].(string), "Reason-Record: "+h.id("k"), 1)
		}, []string{record.FindEnvelope}, "Reason-Record"},
		{"no trailers", func(h *forgHistory, r map[string]any, c *forgCommit) { c.msg = "validation: looks fine\n" },
			[]string{record.FindEnvelope}, "Reason-Task"},
		{"commit dated elsewhere", func(h *forgHistory, r map[string]any, c *forgCommit) { c.when = c.when.Add(-72 * time.Hour) },
			[]string{record.FindEnvelope}, "commit dated"},
		{"file named for another kind", func(h *forgHistory, r map[string]any, c *forgCommit) {
			for name, blob := range c.files {
				if strings.Contains(name, r["id"].(string)) {
					delete(c.files, name)
					c.files[strings.Replace(name, "-validation-", "-attempt-", 1)] = blob
				}
			}
		}, []string{record.FindFileName}, "want 0000000009-validation-"},
		{"id of an earlier record", func(h *forgHistory, r map[string]any, c *forgCommit) {
			delete(c.files, h.res["v"].FileName())
			r["id"] = h.id("k")
			name, blob := h.blob(r)
			c.files[name] = blob
			c.msg = strings.Replace(c.msg, "Reason-Record: "+h.id("v"), "Reason-Record: "+h.id("k"), 1)
		}, []string{record.FindDuplicate}, "appears twice"},
		{"commit authored by someone else", func(h *forgHistory, r map[string]any, c *forgCommit) {
			c.author = "Mallory <mallory@example.invalid>"
		}, []string{record.FindEnvelope}, "Mallory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := newForgHistory(t)
			r := h.rec("v")
			var fc *forgCommit
			if strings.HasPrefix(c.name, "clock") {
				c.edit(h, r, nil)
				fc = h.on(h.commit["k"], r)
			} else {
				fc = h.on(h.commit["k"], r)
				c.edit(h, r, fc)
			}
			forged := h.write(fc)
			if forged == h.commit["v"] {
				t.Fatal("the forgery made the honest commit")
			}
			found := h.forge(forged)
			wantFindings(t, found, forged, c.codes...)
			wantMessage(t, found, c.codes[0], r["id"].(string), c.frag)
		})
	}
}

// (i) A record of task U stored under task T.
func TestForgeryRecordOfAnotherTask(t *testing.T) {
	t.Parallel()
	h := newForgHistory(t)
	u, err := h.w.Append(context.Background(), "U", record.KindAssessment,
		[]byte(`{"subject":"cache layout","question":"which layout?","materiality":"minor","reversibility":"reversible"}`))
	if err != nil {
		t.Fatal(err)
	}
	ublob := h.git("", "rev-parse", u.Commit+":records/"+u.FileName())

	t.Run("U's record on T's tip", func(t *testing.T) {
		r := map[string]any{}
		dec := json.NewDecoder(strings.NewReader(h.git("", "cat-file", "blob", ublob)))
		dec.UseNumber()
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		r["clock"] = json.Number(fmt.Sprint(h.res["v"].Clock + 1))
		c := h.on(h.commit["v"], r)
		// The trailers say T, as a forger hiding the move would write them.
		c.msg = strings.Replace(c.msg, "Reason-Task: U", "Reason-Task: T", 1)
		forged := h.write(c)
		found := wantFindings(t, h.forge(forged), forged, record.FindWrongTask)
		wantMessage(t, found, record.FindWrongTask, u.ID, "record of task U stored under task T")
	})
	t.Run("T's ref pointed at U's history", func(t *testing.T) {
		found := h.forge(u.Commit)
		codes := map[string]bool{}
		for _, f := range found {
			codes[f.Code] = true
		}
		if !codes[record.FindWrongTask] || !codes[record.FindEnvelope] {
			t.Errorf("T's ref at U's commit: findings\n%s\nwant wrong_task and envelope", forgList(found))
		}
	})
}

// (j) A resolution of a disagreement that is already resolved, and one of
// a record that is not a disagreement.
func TestForgeryResolution(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		at   string // the step the forged resolution follows
		edit func(h *forgHistory, body map[string]any)
		want string
	}{
		{"already resolved", "r", func(_ *forgHistory, b map[string]any) { b["decision"] = "offline after all" }, "already resolved"},
		{"not a disagreement", "d", func(h *forgHistory, b map[string]any) { b["disagreement"] = h.id("c2") }, "not a disagreement"},
		{"nothing of the task", "d", func(_ *forgHistory, b map[string]any) { b["disagreement"] = ulid.Make().String() }, "no record"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := newForgHistory(t)
			forged, r := h.forgeOn("r", c.at, func(r map[string]any) { c.edit(h, obj(r["body"])) })
			found := wantFindings(t, h.forge(forged), forged, record.FindInadmissible)
			wantMessage(t, found, record.FindInadmissible, r["id"].(string), c.want)
		})
	}
}

// diverge writes, through the real writer, a record on a second branch that
// leaves step from: the ref is moved back to from, the record appended,
// and the ref left at the new commit.
func (h *forgHistory) diverge(from string, kind record.Kind, body string) *record.Result {
	h.t.Helper()
	h.git("", "update-ref", forgRef, h.commit[from])
	res, err := h.w.Append(context.Background(), forgTask, kind, []byte(h.expand(body)))
	if err != nil {
		h.t.Fatalf("diverging %s: %v", kind, err)
	}
	return res
}

func union(parts ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, p := range parts {
		for k, v := range p {
			out[k] = v
		}
	}
	return out
}

// (k) A merge whose tree is not the union of its parents'; and the honest
// merge of the same two branches, which verifies clean.
func TestForgeryMerge(t *testing.T) {
	t.Parallel()
	h := newForgHistory(t)
	att := h.diverge("k", record.KindAttempt, `{"conclusion":"{k}","commits":["0123456789abcdef0123456789abcdef01234567"],"outcome":"succeeded"}`)
	h.requireClean(att.Commit)
	left, right := h.files(h.commit["v"]), h.files(att.Commit)
	merge := func(files map[string]string) string {
		return h.write(&forgCommit{parents: []string{h.commit["v"], att.Commit}, files: files,
			msg: "merge: task T from two clones\n", when: time.Now(), author: forgActor})
	}

	t.Run("honest union", func(t *testing.T) {
		m := merge(union(left, right))
		if found := h.forge(m); len(found) > 0 {
			t.Fatalf("an honest merge has findings:\n%s", forgList(found))
		}
	})
	t.Run("drops a parent's record", func(t *testing.T) {
		m := merge(left)
		found := wantFindings(t, h.forge(m), m, record.FindMerge)
		wantMessage(t, found, record.FindMerge, att.ID, "drops or changes")
	})
	t.Run("changes a record", func(t *testing.T) {
		files := union(left, right)
		r := h.rec("k")
		obj(r["derived"])["review_count"] = json.Number("7")
		name, blob := h.blob(r)
		files[name] = blob
		m := merge(files)
		found := h.forge(m)
		wantMessage(t, found, record.FindMerge, h.id("k"), "drops or changes")
		for _, f := range found {
			if f.Commit != m {
				t.Errorf("finding off the merge: %s", f)
			}
		}
	})
	t.Run("adds a record no parent has", func(t *testing.T) {
		files := union(left, right)
		r := h.fresh(h.rec("v"), "v")
		name, blob := h.blob(r)
		files[name] = blob
		m := merge(files)
		found := wantFindings(t, h.forge(m), m, record.FindMerge)
		wantMessage(t, found, record.FindMerge, r["id"].(string), "which no parent has")
	})
	// A parent from another task's history, its records in the merge or
	// left out: replay reads the other task's commits as this task's.
	t.Run("a parent of another task", func(t *testing.T) {
		res, err := h.w.Append(context.Background(), "U", record.KindAssessment,
			[]byte(`{"subject":"other","question":"which?","materiality":"trivial","reversibility":"reversible"}`))
		if err != nil {
			t.Fatal(err)
		}
		for _, files := range []map[string]string{union(left, h.files(res.Commit)), left} {
			m := h.write(&forgCommit{parents: []string{h.commit["v"], res.Commit}, files: files,
				msg: "merge: task T from two clones\n", when: time.Now(), author: forgActor})
			wantMessage(t, h.forge(m), record.FindWrongTask, res.ID, "record of task U stored under task T")
		}
	})
	// Each side replays clean alone; the merge keeps the second side's
	// record of the first side's name (the union's last parent wins), so
	// the honest conclusion k, which v validated, would read "offline,
	// tonight" with no finding.
	t.Run("a name with two contents", func(t *testing.T) {
		r := h.rec("k")
		obj(r["body"])["decision"] = "offline, tonight"
		other := h.write(h.on(h.commit["r"], r))
		h.requireClean(other)
		name, blob := h.blob(r)
		files := h.files(h.commit["v"])
		files[name] = blob
		m := h.write(&forgCommit{parents: []string{h.commit["v"], other}, files: files,
			msg: "merge: task T from two clones\n", when: time.Now(), author: forgActor})
		found := wantFindings(t, h.forge(m), m, record.FindMerge)
		wantMessage(t, found, record.FindMerge, h.id("k"), "with different content")
	})
	// One id under two names, one on each side (an attempt given v's id
	// beside v): each side holds it once, the merge twice.
	t.Run("an id under two names", func(t *testing.T) {
		r := h.rec("k")
		r = h.fresh(r, "k")
		r["id"] = h.id("v")
		r["kind"] = string(record.KindAttempt)
		r["body"] = map[string]any{"conclusion": h.id("k"), "commits": []any{"0123456789abcdef0123456789abcdef01234567"}, "outcome": "succeeded"}
		r["derived"] = map[string]any{}
		other := h.write(h.on(h.commit["k"], r))
		h.requireClean(other)
		for _, parents := range [][]string{{h.commit["v"], other}, {other, h.commit["v"]}} {
			m := h.write(&forgCommit{parents: parents, files: union(h.files(h.commit["v"]), h.files(other)),
				msg: "merge: task T from two clones\n", when: time.Now(), author: forgActor})
			found := wantFindings(t, h.forge(m), m, record.FindDuplicate)
			wantMessage(t, found, record.FindDuplicate, h.id("v"), "appears twice")
		}
	})
	// Last, after the ref has left the attempt's history for other
	// tasks' and sides': its commit and record must still be there for
	// a merge to be written over them. Each forge packs the repository
	// (forgVerify), and a pack that dropped what no ref reached lost
	// them, so any subtest after these that merged the attempt failed
	// in git mktree.
	t.Run("the attempt outlives the ref", func(t *testing.T) {
		merge(union(left, right))
	})
}

// TestForgeryCorpusHonestDivergedClones: two clones of one task append on their
// own, one fetches the other's history, and the two are merged with
// plumbing into a commit whose tree is the union of both records/ trees.
// The union is admissible, so verify flags nothing, before and after the
// writer appends on top of the merge. When the union breaks a rule (both
// clones concluded the same assessment), verify says so on the merge.
func TestForgeryCorpusHonestDivergedClones(t *testing.T) {
	t.Parallel()
	h := newForgHistory(t)
	// The corpus's git reads no configuration of the test home (forgEnv),
	// so each fetch is told not to start git maintenance run --auto.
	clone := func(name, origin string) (string, *record.Writer) {
		dir := filepath.Join(t.TempDir(), name)
		forgGit(t, h.env, filepath.Dir(dir), "", "init", "-q", dir)
		forgGit(t, h.env, dir, "", "fetch", "-q", "--no-auto-maintenance", h.dir, "refs/reasoning/*:refs/reasoning/*")
		return dir, forgWriter(t, dir, origin)
	}
	// Both clones start from the resolution: neither has concluded.
	h.git("", "update-ref", forgRef, h.commit["r"])
	aDir, aw := clone("a", "clone-a")
	bDir, bw := clone("b", "clone-b")
	ctx := context.Background()
	conclude := h.expand(`{"assessment":"{a}","decision":"online","weighed":[{"consultation":"{c1}","treatment":"adopted","reason":"sound"},{"consultation":"{c2}","treatment":"partially_adopted","reason":"half"}]}`)

	mergeInto := func(dir, other string) string {
		forgGit(t, h.env, dir, "", "fetch", "-q", "--no-auto-maintenance", other, "+"+forgRef+":refs/remotes/other/reasoning/"+forgTask)
		ours := forgGit(t, h.env, dir, "", "rev-parse", forgRef)
		theirs := forgGit(t, h.env, dir, "", "rev-parse", "refs/remotes/other/reasoning/"+forgTask)
		// The union with plain git: both records/ trees, sorted, deduplicated.
		lines := map[string]bool{}
		for _, c := range []string{ours, theirs} {
			for _, l := range strings.Split(forgGit(t, h.env, dir, "", "ls-tree", c+":records"), "\n") {
				lines[l] = true
			}
		}
		var list []string
		for l := range lines {
			list = append(list, l)
		}
		sort.Strings(list)
		root := forgRoot(t, h.env, dir, list)
		m := forgGit(t, h.env, dir, "", "commit-tree", root, "-p", ours, "-p", theirs, "-m", "merge: task T from the other clone")
		forgGit(t, h.env, dir, "", "update-ref", forgRef, m, ours)
		return m
	}

	t.Run("admissible union", func(t *testing.T) {
		k, err := aw.Append(ctx, forgTask, record.KindConclusion, []byte(conclude))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := aw.Append(ctx, forgTask, record.KindValidation,
			[]byte(fmt.Sprintf(`{"conclusion":%q,"method":"manual","result":"pass"}`, k.ID))); err != nil {
			t.Fatal(err)
		}
		// Clone b, meanwhile, assesses a second question on the same task.
		if _, err := bw.Append(ctx, forgTask, record.KindAssessment,
			[]byte(`{"subject":"index rebuild","question":"during or after the migration?","materiality":"minor","reversibility":"reversible"}`)); err != nil {
			t.Fatal(err)
		}
		m := mergeInto(bDir, aDir)
		if n := len(strings.Fields(forgGit(t, h.env, bDir, "", "rev-list", "--parents", "-n", "1", m))); n != 3 {
			t.Fatalf("the merge has %d parents, want 2", n-1)
		}
		if found := forgVerify(t, bDir, forgTask); len(found) > 0 {
			t.Fatalf("verify flags an admissible merge:\n%s", forgList(found))
		}
		// The writer continues on top of the merge, with the next clock.
		bw2 := forgWriter(t, bDir, "clone-b")
		res, err := bw2.Append(ctx, forgTask, record.KindAttempt,
			[]byte(fmt.Sprintf(`{"conclusion":%q,"commits":["abcdef0"],"outcome":"succeeded"}`, k.ID)))
		if err != nil {
			t.Fatalf("append after the merge: %v", err)
		}
		if res.Clock != 10 {
			t.Errorf("clock after a merge of clocks 9 and 8 = %d, want 10", res.Clock)
		}
		if found := forgVerify(t, bDir, forgTask); len(found) > 0 {
			t.Fatalf("verify flags an append on top of a merge:\n%s", forgList(found))
		}
	})

	t.Run("union concludes twice", func(t *testing.T) {
		h.git("", "update-ref", forgRef, h.commit["r"])
		aDir, aw := clone("a2", "clone-a")
		bDir, bw := clone("b2", "clone-b")
		if _, err := aw.Append(ctx, forgTask, record.KindConclusion, []byte(conclude)); err != nil {
			t.Fatal(err)
		}
		if _, err := bw.Append(ctx, forgTask, record.KindConclusion, []byte(strings.Replace(conclude, `"online"`, `"offline"`, 1))); err != nil {
			t.Fatal(err)
		}
		m := mergeInto(bDir, aDir)
		found := forgVerify(t, bDir, forgTask)
		if len(found) != 1 || found[0].Code != record.FindMergeRule || found[0].Commit != m || !strings.Contains(found[0].Message, "already concluded") {
			t.Errorf("two conclusions merged: findings\n%s\nwant one merge_refused on the merge saying already concluded", forgList(found))
		}
		// Settled: a conclusion written after the merge that supersedes
		// both. Replay admits the merged history, and one conclusion stands.
		st, err := gitstoreState(ctx, bDir)
		if err != nil {
			t.Fatal(err)
		}
		standing := st.Conclusions(h.id("a"))
		if len(standing) != 2 {
			t.Fatalf("after the merge %d conclusions stand, want 2", len(standing))
		}
		bw2 := forgWriter(t, bDir, "clone-b")
		// A conclusion that supersedes one of the two is refused.
		one := strings.Replace(conclude, `"decision":"online"`, fmt.Sprintf(`"decision":"online","supersedes":[%q]`, standing[0].ID), 1)
		if _, err := bw2.Append(ctx, forgTask, record.KindConclusion, []byte(one)); !errors.Is(err, record.ErrRefused) || !strings.Contains(err.Error(), "also concluded by") {
			t.Fatalf("a conclusion superseding one of two: %v, want refused, also concluded", err)
		}
		both := strings.Replace(conclude, `"decision":"online"`, fmt.Sprintf(`"decision":"online","supersedes":[%q,%q]`, standing[0].ID, standing[1].ID), 1)
		res, err := bw2.Append(ctx, forgTask, record.KindConclusion, []byte(both))
		if err != nil {
			t.Fatalf("the settlement: %v", err)
		}
		if found := forgVerify(t, bDir, forgTask); len(found) > 0 {
			t.Errorf("settled merge: findings\n%s\nwant none", forgList(found))
		}
		if st, err = gitstoreState(ctx, bDir); err != nil {
			t.Fatal(err)
		}
		if got := st.Standing(); len(got) != 1 || got[0].Conclusion != res.ID {
			t.Errorf("standing after the settlement %+v, want only %s", got, res.ID)
		}
		// The other clone, which concluded first, takes the settled history
		// by merging it: nothing new is refused, and verify is clean.
		mergeInto(aDir, bDir)
		if found := forgVerify(t, aDir, forgTask); len(found) > 0 {
			t.Errorf("the first clone merging the settled history: findings\n%s\nwant none", forgList(found))
		}
	})
}

// gitstoreState derives the task's state from the corpus task's ref in dir.
func gitstoreState(ctx context.Context, dir string) (*record.State, error) {
	s, err := gitstore.Open(dir)
	if err != nil {
		return nil, err
	}
	_, recs, err := s.Load(ctx, forgTask)
	if err != nil {
		return nil, err
	}
	return record.Derive(forgTask, recs)
}

// TestForgeryCorpusHonestConcurrentWriters: several writers, each with its own
// store as separate processes would have, append to one task at once
// (compare-and-swap retries included), each consultation admitted against
// a plan that other writers' records may have followed. Every acknowledged record is on the
// ref and verify flags nothing.
func TestForgeryCorpusHonestConcurrentWriters(t *testing.T) {
	t.Parallel()
	writers, each := 6, 4
	if testing.Short() {
		// Four writers still race for the ref on every append (the same
		// retry path); the history to verify is a third as long.
		writers, each = 4, 2
	}
	env := forgEnv(t)
	dir, _ := newForgRepo(t, env, "unused")
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, writers*each*3)
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := gitstore.Open(dir)
			if err != nil {
				errs <- err
				return
			}
			w := storetest.Writer(s, &storetest.Avail{Advisors: forgAdvisors[:1]})
			w.Origin = fmt.Sprintf("writer-%d", i)
			for n := 0; n < each; n++ {
				a, err := w.Append(ctx, forgTask, record.KindAssessment,
					[]byte(fmt.Sprintf(`{"subject":"question %d of writer %d","question":"which?","materiality":"material","reversibility":"costly","evidence":[{"kind":"note","summary":"measured"}]}`, n, i)))
				if err != nil {
					errs <- err
					return
				}
				p, err := w.Append(ctx, forgTask, record.KindPlan, []byte(fmt.Sprintf(`{"assessment":%q}`, a.ID)))
				if err != nil {
					errs <- err
					return
				}
				pd := p.Derived.(*record.PlanDerived)
				if len(pd.Selected) > 0 {
					c := &record.Consultation{Plan: p.ID, Advisor: pd.Selected[0], Status: "completed", Transport: "cli",
						Conclusion: &record.Answer{Stance: "endorse", Summary: "fine", Confidence: 0.6}}
					if _, err := w.AppendConsultation(ctx, forgTask, c, &record.Model{Name: "model-x", Source: "reported"}); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a concurrent writer failed: %v", err)
	}
	s := openStore(t, dir)
	_, recs, err := s.Load(ctx, forgTask)
	if err != nil {
		t.Fatal(err)
	}
	// Every acknowledged record is on the ref: an assessment, a plan and
	// the consultation of the one advisor it selects.
	if len(recs) != writers*each*3 {
		t.Fatalf("%d records on the ref, want %d", len(recs), writers*each*3)
	}
	t.Logf("%d records from %d concurrent writers", len(recs), writers)
	if found := forgVerify(t, dir, forgTask); len(found) > 0 {
		t.Fatalf("verify flags a history written by concurrent writers:\n%s", forgList(found))
	}
	if n := forgGit(t, env, dir, "", "rev-list", "--count", forgRef); n != fmt.Sprint(len(recs)) {
		t.Errorf("%s commits for %d records", n, len(recs))
	}
}

// The writer decodes only the records an admission rule reads, trusting
// the store that every record it loads decodes (record.DecodingStore): a
// stored record that would not decode must never reach it. Here the head
// holds an assessment that fails its schema, which no rule of the next
// assessment reads: the append is still refused, because the store does
// not load the task, and the task does not move.
func TestForgedRecordRefusesAppendWithoutDecoding(t *testing.T) {
	t.Parallel()
	h := newForgHistory(t)
	forged, _ := h.numberMateriality()
	h.git("", "update-ref", forgRef, forged)
	if err := appendAfterForgery(context.Background(), openStore(t, h.dir)); !errors.Is(err, record.ErrUnreadable) {
		t.Fatalf("append on a task holding a record that fails its schema: %v, want an unreadable history", err)
	}
	if head := strings.TrimSpace(h.git("", "rev-parse", forgRef)); head != forged {
		t.Errorf("the refused append moved the task to %s", head)
	}
}

// The replays of one run, on several goroutines, each with a Store of
// its own sharing one Shared and one record.Checked, as a pull's
// workers replay: the tasks at a head the run expects more than one task
// at find what each finds replayed alone, and only that head's history is
// held for the run. A head one task names was held too, whole, for the
// rest of the run, though no other task would take it: a pull of 16 refs,
// each a commit of its own on a tree of 200,000 entries, peaked at 1.7 GB
// where one replay at a time took 1.0 GB (bench/manyrefs/run.sh).
func TestReplaysHoldOnlyHeadsOthersShare(t *testing.T) {
	t.Parallel()
	h := newForgHistory(t)
	att := h.diverge("k", record.KindAttempt, `{"conclusion":"{k}","commits":["0123456789abcdef0123456789abcdef01234567"],"outcome":"succeeded"}`)
	merge := h.write(&forgCommit{parents: []string{h.commit["v"], att.Commit},
		files: union(h.files(h.commit["v"]), h.files(att.Commit)), msg: "merge: task T from two clones\n",
		when: time.Now(), author: forgActor})
	alone, many := h.commit["k"], merge
	type replay struct{ task, head string }
	var todo []replay
	for _, task := range []string{forgTask, "X1", "X2", "X3", "X4", "X5"} {
		todo = append(todo, replay{task, many})
	}
	todo = append(todo, replay{"Y", alone})
	want := make([]string, len(todo))
	for i, r := range todo {
		found, _ := openStore(t, h.dir).Replay(context.Background(), r.task, r.head, nil)
		want[i] = forgSorted(found)
	}
	if want[0] != "" || want[1] == "" {
		t.Fatalf("the merge replays as task T with findings %q, as X1 with %q; want none and some", want[0], want[1])
	}

	shared := &gitstore.Shared{}
	heads := make([]string, len(todo))
	for i, r := range todo {
		heads[i] = r.head
	}
	shared.Expect(heads)
	var checked record.Checked
	got := make([]string, len(todo))
	var wg sync.WaitGroup
	for i, r := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := openStore(t, h.dir)
			s.Share(shared)
			found, recs := s.Replay(context.Background(), r.task, r.head, &checked)
			if len(found) == 0 {
				// What a clean replay returns is read on as a pull reads it.
				if _, err := record.Derive(r.task, recs); err != nil {
					t.Errorf("%s: derive: %v", r.task, err)
				}
			}
			got[i] = forgSorted(found)
		}()
	}
	wg.Wait()
	for i, r := range todo {
		if got[i] != want[i] {
			t.Errorf("%s at %s, replayed beside the others, found:\n%s\nreplayed alone:\n%s", r.task, r.head[:7], got[i], want[i])
		}
	}
	if held := gitstore.HeldHistories(shared); len(held) != 0 {
		t.Errorf("the run still holds the histories of %v once every task expected at them was replayed", held)
	}
	// One task after another: the history of the head three tasks name is
	// held while one of them is still to be replayed, and only then; the
	// head one task names is never held. A pull of refs in pairs, each
	// pair a head of its own, held every pair's history to its end.
	seq := &gitstore.Shared{}
	seq.Expect([]string{many, alone, many, many})
	for i, r := range []replay{{"X1", many}, {"Y", alone}, {"X2", many}, {"X3", many}} {
		s := openStore(t, h.dir)
		s.Share(seq)
		s.Replay(context.Background(), r.task, r.head, &record.Checked{})
		want := []string{many}
		if i == 3 {
			want = nil
		}
		if held := gitstore.HeldHistories(seq); !slices.Equal(held, want) {
			t.Errorf("after the replay of %s at %s the run holds the histories of %v, want %v", r.task, r.head[:7], held, want)
		}
	}
	if checked.HeldProbes() == 0 {
		t.Errorf("the run holds what reading no blob gave; the head six tasks are replayed at was to be read once")
	}
	// A head one task is replayed at leaves nothing held by blob either:
	// the blobs of a pull of many such heads would be held for the run.
	s, one := openStore(t, h.dir), &gitstore.Shared{}
	one.Expect([]string{alone, many})
	s.Share(one)
	var k record.Checked
	for _, head := range []string{alone, many} {
		s.Replay(context.Background(), "Y", head, &k)
	}
	if n := k.HeldProbes(); n != 0 {
		t.Errorf("a run replaying heads one task each holds what reading %d blobs gave, want none", n)
	}
}

// (k) A closure that breaks close's own rules, found on replay: the
// finding says what is wrong in the record's fields (by, outcome), as the
// record holds them, not in the flags of a command line nobody typed.
func TestForgeryClosure(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		edit func(body map[string]any)
		want string
	}{
		{"superseded by nothing", func(b map[string]any) { b["outcome"] = "superseded" }, `outcome "superseded" needs by`},
		{"abandoned by a task", func(b map[string]any) { b["by"] = "Other" }, `by goes with outcome "superseded", not "abandoned"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := newForgHistory(t)
			h.add("x", record.KindClosure, `{"outcome":"abandoned"}`)
			forged, r := h.forgeOn("x", "v", func(r map[string]any) { c.edit(obj(r["body"])) })
			found := wantFindings(t, h.forge(forged), forged, record.FindInadmissible)
			wantMessage(t, found, record.FindInadmissible, r["id"].(string), c.want)
			for _, f := range found {
				if strings.Contains(f.Message, "--") {
					t.Errorf("a finding names a command line's flag: %s", f.Message)
				}
			}
		})
	}
}
