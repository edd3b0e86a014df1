package reliability

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"git-reason/record"
	"git-reason/reliability/harness"
)

// TestStatusCounts holds `status TASK` to what changed, with counts that
// do not depend on timing (bench/status times it): a status of a head
// shown before reads no record at all (its memo), and a status after one
// new record, written by git reason or fetched by plain git, replays that
// record alone, from the head remembered clean before it: as many record
// blobs read from git for a task of 120 records as for one of 40, and as
// many records decoded (the state saved at the head shown before is gone
// on from: the new record and the few the summary selects by the saved
// records' links). A cost
// that grows with the task's records fails here.
func TestStatusCounts(t *testing.T) {
	t.Parallel()
	const task = "T-long"
	type counts struct{ warm, written, writtenWarm, planned, fetched cost }
	measure := func(n int) counts {
		s := newSandbox(t)
		harness.BulkTaskT(t, s.dir, task, n)
		fullFanout(t, s)
		s.mustReason("status", task) // the whole history replayed, once
		var got counts
		got.warm = s.costed("status", task)
		s.mustReason("assess", task, "--subject", "one more", "--question", "q?", "--materiality", "trivial", "--reversibility", "reversible")
		got.written = s.costed("status", task)
		got.writtenWarm = s.costed("status", task)
		s.mustReason("plan", task)
		got.planned = s.costed("status", task)
		// One record written elsewhere, fetched by hand straight into the
		// task's ref (no pull, nothing verified it).
		other := &sandbox{t: t, dir: filepath.Join(t.TempDir(), "other"), home: s.home, env: s.env}
		s.git("clone", "-q", s.dir, other.dir)
		other.git("fetch", "-q", "origin", "+refs/reasoning/tasks/*:refs/reasoning/tasks/*")
		other.mustReason("assess", task, "--subject", "from elsewhere", "--question", "q?", "--materiality", "trivial", "--reversibility", "reversible")
		s.git("fetch", "-q", other.dir, "+refs/reasoning/tasks/*:refs/reasoning/tasks/*")
		got.fetched = s.costed("status", task)
		if out := s.mustReason("status", task); !strings.Contains(out, "from elsewhere") || strings.Contains(out, "does not verify") {
			t.Errorf("%d records: status after a fetch does not show the fetched record as verified:\n%s", n, out)
		}
		return got
	}
	small, large := measure(40), measure(120)
	// What the statuses after a record allocate grows little with the
	// task: the saved records are taken as read (no copy each), each
	// record's name is made once, and the verifier's maps are made at
	// their size. Together the statuses after a write and after a plan
	// allocated 1,240 to 1,290 objects more at 120 records than at 40
	// (about 8 a record a status), now 765 to 780 (under 5): at most
	// 1,000. (After a fetch the count varies by hundreds between runs.)
	// Both repositories' packs fill every one of the pack index's 256
	// fanout slots (fullFanout), so that go-git's decoding of the index,
	// three slices a slot that holds an object (at most 256 whatever the
	// history), is the same in both: with a pack of the task's objects
	// alone, 40 records fill about 120 slots and 120 records about 220,
	// and that ramp alone put the figure at 920 to 1,006 (one CI run
	// failed on it); with every slot filled it is 645 to 660.
	if grown := int64(large.written.Allocs+large.planned.Allocs) - int64(small.written.Allocs+small.planned.Allocs); grown > 1000 {
		t.Errorf("the statuses after a write and after a plan allocated %d objects more at 120 records than at 40, want at most 1,000 (about 6 a record a status)", grown)
	}
	for _, c := range []struct {
		what         string
		small, large cost
	}{{"warm", small.warm, large.warm}, {"after a write", small.written, large.written},
		{"warm after a write", small.writtenWarm, large.writtenWarm}, {"after a plan", small.planned, large.planned},
		{"after a fetch", small.fetched, large.fetched}} {
		t.Logf("status %s: %+v at 40 records, %+v at 120", c.what, c.small, c.large)
		switch c.what {
		case "warm", "warm after a write":
			if c.large.Histories != 0 || c.large.Tasks != 0 || c.large.Records != 0 || c.large.Blobs != 0 || c.large.Memos != 1 {
				t.Errorf("status %s of a head shown before: %+v, want its memo alone (no history, task or blob read)", c.what, c.large)
			}
		default:
			if c.large.Histories != 1 || c.large.Blobs > 2 || c.large.Blobs != c.small.Blobs {
				t.Errorf("status %s: %+v at 120 records, %+v at 40: want one history replayed and the new record read (at most twice), whatever the task's size", c.what, c.large, c.small)
			}
			// The replay goes on from the state saved at the head shown
			// before (gitstore/saved.go), loading no task: it decodes the
			// new record and what the summary reads, which the saved
			// records' links select (record/links.go): after a plan the
			// latest assessment and its plan, after a new assessment that
			// assessment alone, never the task's other plans (a scan of
			// them decoded n/2 records here), as many at 120 records as at
			// 40. Without the saved state every record is decoded (n + 1).
			// The signatures: the end of the task's signature log read and
			// the new commit's check appended (gitstore/siglog.go), as
			// many bytes at 120 records as at 40 (but for the digits of
			// its counts); read and written whole they grew with the task
			// (about 160 bytes a record, twice).
			if d := c.large.SignatureBytes - c.small.SignatureBytes; c.large.SignatureBytes == 0 || d < -16 || d > 16 {
				t.Errorf("status %s read and wrote %d bytes of signature log at 120 records, %d at 40: want the log's end and the new check, whatever the task's size",
					c.what, c.large.SignatureBytes, c.small.SignatureBytes)
			}
			// A record this build's writer wrote is replayed as it
			// checked it: its schemas are not compiled again
			// (gitstore/checked.go), and the list that says so is read
			// from its end, as many bytes at 120 records as at 40. A
			// record fetched from elsewhere is validated.
			switch c.what {
			case "after a write":
				if c.large.Schemas != 0 || c.small.Schemas != 0 || c.large.CheckedBytes == 0 || c.large.CheckedBytes != c.small.CheckedBytes {
					t.Errorf("status %s of a record written here: %+v at 120 records, %+v at 40: want no schema compiled and the same bytes of the writer's list read",
						c.what, c.large, c.small)
				}
			case "after a fetch":
				if c.large.Schemas == 0 {
					t.Errorf("status %s compiled no schema: %+v: a record from elsewhere must be validated", c.what, c.large)
				}
			}
			// The new head's records/ tree is parsed from the first entry
			// it does not share with the saved head's (saved.go keeps that
			// tree): the one new record's entry, as many at 120 records as
			// at 40. Parsed whole it was the task's records, and the test
			// of whether the history is short once parsed it a second time.
			if c.large.TreeEntries == 0 || c.large.TreeEntries > 2 || c.large.TreeEntries != c.small.TreeEntries {
				t.Errorf("status %s parsed %d records/ tree entries at 120 records, %d at 40: want the new record's entry alone, whatever the task's size",
					c.what, c.large.TreeEntries, c.small.TreeEntries)
			}
			limit, same := int64(4), true
			if c.large.Decodes == 0 || c.large.Decodes > limit || (same && c.large.Decodes != c.small.Decodes) || c.large.Tasks != 0 {
				t.Errorf("status %s decoded %d records of a task of 120 (%d of 40), loaded %d tasks: want the new record and the few the summary reads, whatever the task's size, and no task loaded",
					c.what, c.large.Decodes, c.small.Decodes, c.large.Tasks)
			}
		}
	}
}

// TestStatusMemoTrust: a status memo edited by hand, or one whose head the
// ref no longer points at, shows nothing of itself: the task is read and
// replayed as if there were none.
func TestStatusMemoTrust(t *testing.T) {
	t.Parallel()
	const task = "T-memo"
	s := newSandbox(t)
	harness.BulkTaskT(t, s.dir, task, 4)
	s.mustReason("status", task)
	memos, err := filepath.Glob(filepath.Join(s.gitDir(), "reason", "memo", "status", "*.memo"))
	if err != nil || len(memos) != 1 {
		t.Fatalf("status wrote %d memos (%v), want 1", len(memos), err)
	}
	data := harness.ReadFile(t, memos[0])
	forged := strings.Replace(string(data), `"review_count":0`, `"review_count":5`, 1)
	if forged == string(data) {
		t.Fatalf("the memo holds no review count of 0:\n%s", data)
	}
	if err := os.WriteFile(memos[0], []byte(forged), 0o600); err != nil {
		t.Fatal(err)
	}
	// The task's state is derived again: from the state saved at that
	// head (gitstore/saved.go, no task loaded), which the summary decodes.
	if c := s.costed("status", task); c.Memos != 0 || (c.Tasks != 1 && c.Decodes == 0) {
		t.Errorf("status with an edited memo: %+v, want the memo ignored and the task derived", c)
	}
	if out := s.mustReason("status", task); !strings.Contains(out, "review count: 0") {
		t.Errorf("status shows an edited memo's claim:\n%s", out)
	}
}

// gitsStarted runs git reason, which must exit 0, with git's trace2
// events written to a file, and returns its output and the command line
// of every git process it started (every trace2 start event but the
// `git reason` that ran it).
func (s *sandbox) gitsStarted(args ...string) (string, []string) {
	s.t.Helper()
	r, started := s.gitsStartedBy(args...)
	if r.code != 0 {
		s.t.Fatalf("git reason %s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
	}
	return r.stdout, started
}

// gitsStartedBy is gitsStarted for a git reason that may fail: its
// result, and every git process it started, theirs included.
func (s *sandbox) gitsStartedBy(args ...string) (result, []string) {
	s.t.Helper()
	trace := filepath.Join(s.t.TempDir(), "trace2.json")
	withTrace := &sandbox{t: s.t, dir: s.dir, home: s.home, env: append(append([]string(nil), s.env...), "GIT_TRACE2_EVENT="+trace)}
	r := withTrace.viaGit(args...) // trace2 shows the dispatch, and git reason's git processes
	data, err := os.ReadFile(trace)
	if err != nil {
		s.t.Fatal(err)
	}
	var started []string
	top := 0
	for _, line := range strings.Split(string(data), "\n") {
		var ev struct {
			Event string
			Argv  []string
		}
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Event != "start" {
			continue
		}
		if len(ev.Argv) > 1 && ev.Argv[1] == "reason" {
			top++
			continue
		}
		started = append(started, strings.Join(ev.Argv, " "))
	}
	if top != 1 {
		s.t.Fatalf("git reason %s: %d trace2 start events of git reason, want 1 (is trace2 written?)", strings.Join(args, " "), top)
	}
	return r, started
}

// TestPartialCloneGitProcesses holds a read in a partial clone (git clone
// --filter=blob:none) whose task refs a plain git fetch brought, without
// their record blobs, to one fetch of what is missing and to the
// command's one git config process. A long history (over 900 records: git
// rev-list and git cat-file read it) had git fetch each missing record by
// itself, one fetch per record, and said nothing of a remote that cannot
// be reached; the promisor remotes were looked up by a git config of
// their own.
func TestPartialCloneGitProcesses(t *testing.T) {
	t.Parallel()
	const long, short = "T-long", "T-short"
	origin := newSandbox(t, "uploadpack.allowFilter", "true", "uploadpack.allowAnySHA1InWant", "true")
	if err := harness.BulkTask(context.Background(), origin.dir, long, 1000); err != nil {
		t.Fatal(err)
	}
	if err := harness.BulkTask(context.Background(), origin.dir, short, 10); err != nil {
		t.Fatal(err)
	}
	partial := func(name string) *sandbox {
		c := &sandbox{t: t, dir: filepath.Join(t.TempDir(), name), home: origin.home, env: origin.env}
		origin.git("clone", "-q", "--filter=blob:none", "file://"+origin.dir, c.dir)
		c.git("fetch", "-q", "origin", "refs/reasoning/tasks/*:refs/reasoning/tasks/*")
		if missing := strings.Count(c.git("rev-list", "--objects", "--missing=print", "--glob=refs/reasoning/tasks/*"), "\n?"); missing < 1000 {
			t.Fatalf("the partial clone misses %d objects, want every record blob", missing)
		}
		return c
	}
	count := func(started []string, what string) int {
		return len(slices.DeleteFunc(slices.Clone(started), func(a string) bool { return !strings.Contains(a, " "+what+" ") }))
	}
	wantOne := func(what string, started []string) {
		t.Helper()
		if n := count(started, "fetch"); n != 1 {
			t.Errorf("%s started %d git fetch, want 1", what, n)
		}
		if n := count(started, "config"); n != 1 {
			t.Errorf("%s started %d git config, want 1 (the settings' listing):\n%s", what, n, strings.Join(slices.DeleteFunc(slices.Clone(started), func(a string) bool { return !strings.Contains(a, " config ") }), "\n"))
		}
	}
	for _, task := range []string{short, long} {
		c := partial(task)
		out, started := c.gitsStarted("status", task)
		wantOne("status "+task, started)
		if !strings.Contains(out, "planned") || strings.Contains(out, "does not read") {
			t.Errorf("status %s:\n%s", task, out)
		}
	}
	// The promisor remote gone: one fetch, and what to run.
	c := partial("away")
	if err := os.Rename(origin.dir, origin.dir+".moved"); err != nil {
		t.Fatal(err)
	}
	r, started := c.gitsStartedBy("log", long)
	if n := count(started, "fetch"); r.code != 3 || n != 1 ||
		!regexp.MustCompile(`not in this partial clone, and its promisor remote origin did not send it \(.*\): once origin can be reached, run the command again, or 'git fetch --refetch --no-filter origin [0-9a-f]{40}'`).MatchString(r.stderr) {
		t.Errorf("log of a long task, its promisor remote gone: exit %d, %d git fetch, want exit 3, 1 fetch and what to run:\n%s", r.code, n, r.stderr)
	}
}

// TestStatusAndLogGitProcesses holds `status TASK` to the two git
// processes every command starts (repository discovery and one `git
// config --list`): a status of a head shown before, the first status
// after a new record (its history read from the head remembered clean,
// its signature judged, in this process), the first status of a task
// just started; `log -n 5` to a pipe, after a status and straight after
// a new record (its commit read in this process, unsigned whatever the
// allowed signers); show, tasks, search and log printing JSON (--json,
// --jq), which list the settings as git's porcelain reads its own
// configuration whatever it prints (a color.ui that does not read is
// their error too); and context, which lists them once.
// Another git process on these paths fails here, whatever its cost.
func TestStatusAndLogGitProcesses(t *testing.T) {
	t.Parallel()
	const task = "T-procs"
	s := newSandbox(t)
	harness.BulkTaskT(t, s.dir, task, 40)
	s.mustReason("status", task) // the whole history replayed, once
	s.mustReason("log", "-n", "5")
	want := func(what string, started []string) {
		t.Helper()
		// The two run side by side (settings.Early): either may start first.
		if len(started) != 2 || !slices.ContainsFunc(started, func(a string) bool { return strings.Contains(a, "rev-parse") }) ||
			!slices.ContainsFunc(started, func(a string) bool { return strings.Contains(a, " config --list") }) {
			t.Errorf("%s started %d git processes, want 2 (discovery and git config --list):\n%s", what, len(started), strings.Join(started, "\n"))
		}
		// Started before discovery answered, it names no git directory.
		for _, a := range started {
			if strings.Contains(a, " config --list") && strings.Contains(a, "--git-dir") {
				t.Errorf("%s: git config --list waited for discovery (%s), want it started beside it", what, a)
			}
		}
	}
	// log's text: discovery and the settings side by side, and the five
	// newest lines.
	wantLog := func(what string, subject string) {
		t.Helper()
		out, started := s.gitsStarted("log", "-n", "5")
		want(what, started)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 5 || !strings.Contains(lines[4], subject) {
			t.Errorf("%s printed %d lines, the last %q; want 5, the newest of subject %q:\n%s", what, len(lines), lines[len(lines)-1], subject, out)
		}
	}
	_, started := s.gitsStarted("status", task)
	want("status of a head shown before", started)
	wantLog("log -n 5", "")
	for i := range 3 {
		s.mustReason("assess", task, "--subject", fmt.Sprintf("one more %d", i), "--question", "q?", "--materiality", "trivial", "--reversibility", "reversible")
		out, started := s.gitsStarted("status", task, "--json")
		want("status after a new record", started)
		var st struct {
			Records       int
			Subject       string
			DoesNotVerify any `json:"does_not_verify"`
			Signatures    struct{ Counts map[string]int }
		}
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("status --json: %v\n%s", err, out)
		}
		if n := 41 + i; st.Records != n || st.Subject != fmt.Sprintf("one more %d", i) || st.DoesNotVerify != nil || st.Signatures.Counts["unsigned"] != n {
			t.Errorf("status after record %d: %d records, subject %q, does not verify %v, signatures %v; want %d records of the new subject, verified, all %d unsigned",
				n, st.Records, st.Subject, st.DoesNotVerify, st.Signatures.Counts, n, n)
		}
		wantLog("log -n 5 after a new record and its status", fmt.Sprintf("one more %d", i))
	}
	s.mustReason("assess", task, "--subject", "straight to log", "--question", "q?", "--materiality", "trivial", "--reversibility", "reversible")
	wantLog("log -n 5 straight after a new record", "straight to log")
	// A task just started: the first status judges its few unsigned
	// commits in this process as well (no git rev-list, cat-file or log).
	s.mustReason("assess", "T-fresh", "--subject", "fresh", "--question", "q?", "--materiality", "trivial", "--reversibility", "reversible")
	s.mustReason("plan", "T-fresh")
	out, started := s.gitsStarted("status", "T-fresh", "--json")
	want("the first status of a task just started", started)
	var st struct {
		Signatures struct{ Counts map[string]int }
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Signatures.Counts["unsigned"] != 2 || len(st.Signatures.Counts) != 1 {
		t.Errorf("status of a task just started: signatures %v (%v), want its 2 records unsigned", st.Signatures.Counts, err)
	}
	// The read verbs printing JSON: discovery and the settings, and what
	// they print is the tasks' (their ids, their subjects).
	var rec struct{ ID string }
	if err := json.Unmarshal([]byte(s.mustReason("log", "T-fresh", "-n", "1", "--json")), &[]any{&rec}); err != nil || rec.ID == "" {
		t.Fatalf("log T-fresh -n 1 --json: %v, id %q", err, rec.ID)
	}
	for _, args := range [][]string{
		{"show", rec.ID, "--json"},
		{"tasks", "--json"},
		{"search", "fresh", "--json"},
		{"log", "T-fresh", "--json"},
		{"log", "-n", "2", "--jq", ".[].task"},
	} {
		out, started := s.gitsStarted(args...)
		want(strings.Join(args, " "), started)
		if !strings.Contains(out, "T-fresh") && !strings.Contains(out, "straight to log") {
			t.Errorf("%s printed neither task:\n%s", strings.Join(args, " "), out)
		}
	}
	// context asks git about commits too; the settings are listed once.
	_, started = s.gitsStarted("context", "--json")
	if n := len(slices.DeleteFunc(slices.Clone(started), func(a string) bool { return !strings.Contains(a, " config --list") })); n != 1 {
		t.Errorf("context --json listed the settings %d times, want once:\n%s", n, strings.Join(started, "\n"))
	}
	// Printing text, the settings are listed beside discovery, as ever.
	_, started = s.gitsStarted("tasks")
	want("tasks", started)
}

// TestStatusReportMemo: `status TASK --report` of a head shown before
// reads its memo alone (no task, history or record blob) and prints what
// the first one derived; a new record is read and replayed, its report
// kept in turn.
func TestStatusReportMemo(t *testing.T) {
	t.Parallel()
	const task = "T-report"
	s := newSandbox(t)
	harness.BulkTaskT(t, s.dir, task, 40)
	first := s.mustReason("status", task, "--report")
	warm := func(what string) {
		t.Helper()
		if c := s.costed("status", task, "--report"); c.Memos != 1 || c.Tasks != 0 || c.Histories != 0 || c.Blobs != 0 {
			t.Errorf("status --report %s: %+v, want its memo alone (no task, history or blob read)", what, c)
		}
	}
	warm("of a head shown before")
	if again := s.mustReason("status", task, "--report"); again != first {
		t.Errorf("status --report from its memo differs from the first:\n%s\nfirst:\n%s", again, first)
	}
	s.mustReason("assess", task, "--subject", "reported anew", "--question", "q?", "--materiality", "trivial", "--reversibility", "reversible")
	if c := s.costed("status", task, "--report"); c.Memos != 0 || c.Histories != 1 {
		t.Errorf("status --report after a new record: %+v, want the history replayed and no memo served", c)
	}
	if out := s.mustReason("status", task, "--report"); !strings.Contains(out, "## reported anew") || !strings.Contains(out, "records: 41") {
		t.Errorf("status --report after a new record does not show it:\n%s", out)
	}
	warm("after a new record, shown once")
}

// TestOneTaskReadsOne holds two read surfaces that name one task or one
// record to that task, with counts: `handover --task T` asks about T's
// signatures alone (it summarised every task's, writing the summaries'
// journal under .git/reason/), and `show ID` decodes the records of the
// task holding ID alone (it derived every task to find ID).
func TestOneTaskReadsOne(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	for _, task := range []string{"T-a", "T-b", "T-c"} {
		harness.BulkTaskT(t, s.dir, task, 20)
		s.mustReason("status", task) // each history replayed, once
	}
	summaries := filepath.Join(s.dir, ".git", "reason", "signature-summaries.journal")
	out := s.mustReason("handover", "--task", "T-b")
	if _, err := os.Stat(summaries); err == nil {
		t.Errorf("handover --task T-b summarised every task's signatures (%s written)", summaries)
	}
	if !strings.Contains(out, "## Open (1)\n\n### `T-b`") {
		t.Errorf("handover --task T-b does not show T-b open:\n%s", out)
	}
	var entries []struct{ ID string }
	if err := json.Unmarshal([]byte(s.mustReason("log", "T-a", "--json")), &entries); err != nil || len(entries) != 20 {
		t.Fatalf("log T-a: %d entries, %v", len(entries), err)
	}
	c := s.costed("show", entries[3].ID)
	t.Logf("show of a record of T-a among three tasks of 20 records: %+v", c)
	if c.Decodes > 20 {
		t.Errorf("show of a record of T-a decoded %d records, more than T-a's 20", c.Decodes)
	}
	// The id index (gitstore/ids.go) names the task holding the id: show
	// reads that task alone (it read every task's records to find the
	// id), also after another task moved (its ids added from its trees,
	// not its records).
	s.mustReason("assess", "T-c", "--subject", "one more", "--question", "q?", "--materiality", "trivial", "--reversibility", "reversible")
	for _, id := range []string{entries[3].ID, entries[5].ID, entries[7].ID} {
		c := s.costed("show", id)
		t.Logf("show %s: %+v", id, c)
		if c.Tasks != 1 || c.Decodes > 20 {
			t.Errorf("show of a record of T-a read %d tasks' records and decoded %d records: want T-a's alone", c.Tasks, c.Decodes)
		}
		if out := s.mustReason("show", id); !strings.Contains(out, "T-a") {
			t.Errorf("show %s does not show it in T-a:\n%s", id, out)
		}
	}
}

// TestStatusReuseCounts holds what status costs of a task R whose latest
// assessment reuses task H's standing conclusion, among other tasks, to
// what moved: R's reuse is shown as H's ref holds it now
// (gitstore.Store.ReuseCheck), and what a status keeps of R keeps H's
// head with it (the memo's Reused, the table row's Reused). A second
// `status R` and a second `status` write no file under .git/reason and
// replay no history: they read H's ref and compare. After H gets an
// honest new record, the table derives H's row and checks R's reuse
// again, and no other task's row. Whether a moved H is seen at all
// (forged, dropped, deleted) is status_reuse_forged.txtar's.
func TestStatusReuseCounts(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	for _, task := range []string{"T-a", "T-b"} {
		harness.BulkTaskT(t, s.dir, task, 20)
	}
	s.mustReason("assess", "H", "--subject", "Cache size", "--question", "How large?", "--materiality", "material", "--reversibility", "costly", "--evidence", "note::load test")
	s.mustReason("plan", "H")
	s.mustReason("conclude", "H", "--decision", "512 MiB", "--local-review", "1=yes", "--local-review", "2=yes", "--local-review", "3=yes", "--local-review", "4=yes")
	if out := s.mustReason("assess", "R", "--subject", "cache size", "--question", "Same for the EU shard?", "--materiality", "minor", "--reversibility", "reversible", "--json"); !strings.Contains(out, `"reuses_task": "H"`) {
		t.Fatalf("R's assessment reuses nothing of H:\n%s", out)
	}
	s.mustReason("status", "R")      // R's memo, its reuse checked
	s.mustReason("status")           // every row, R's with H's head
	s.mustReason("status", "--json") // every task's entry, R's with its reuse check
	s.mustReason("handover")         // every row, R's with H's head
	for _, args := range [][]string{{"status", "R"}, {"status"}, {"handover"}} {
		what := strings.Join(args, " ")
		if n := s.filesWritten(args...); n != 0 {
			t.Errorf("a second %s wrote %d files under .git/reason, want none", what, n)
		}
		c := s.costed(args...)
		t.Logf("a second %s: %+v", what, c)
		if c.Histories != 0 || c.Tasks != 0 || c.Decodes != 0 || c.EntryDecodes != 0 {
			t.Errorf("a second %s: %+v, want no history replayed, no task read and nothing decoded", what, c)
		}
		if out := s.mustReason(args...); strings.Contains(out, "does not verify") {
			t.Errorf("a second %s shows a finding:\n%s", what, out)
		}
	}
	// Every task's status (StatusAll) keeps R's reuse check in R's entry
	// of status.journal with H's head: a second one reads no remembered
	// file of R's (a check per reusing task, each run, read one each).
	if n := s.filesWritten("status", "--json"); n != 0 {
		t.Errorf("a second status --json wrote %d files under .git/reason, want none", n)
	}
	if c := s.costed("status", "--json"); c.RememberedFiles != 0 || c.Tasks != 0 || c.Histories != 0 || c.Decodes != 0 {
		t.Errorf("a second status --json: %+v, want no remembered file read, no task read and no history replayed", c)
	}
	// R's memo holds while H's ref is where R's reuse was checked: status
	// R reads that ref (and R's) and its memo.
	if c := s.costed("status", "R"); c.Memos != 1 || c.RefReads < 2 {
		t.Errorf("a second status R: %+v, want its memo served and H's ref read", c)
	}
	// H moves honestly: the table derives H's row and checks R's reuse
	// again (R's row kept anew with H's new head), no other task's.
	s.mustReason("validate", "H", "--manual", "pass", "--evidence", "note::ran it in staging")
	journal := filepath.Join(s.gitDir(), "reason", "status-rows.journal")
	before := harness.ReadFile(t, journal)
	c := s.costed("status")
	t.Logf("status after H's new record: %+v", c)
	// One history replayed, H's, from its head remembered clean (its new
	// record read): R's reuse check finds H's new head remembered by that
	// replay. The check replayed H's history whole, a second time (2
	// histories, every record of H's read).
	if c.Histories != 1 || c.Blobs > 2 || c.Tasks > 2 {
		t.Errorf("status after H's new record: %+v, want H's history alone replayed from its head remembered (its new record read) and at most R's and H's records loaded", c)
	}
	after := harness.ReadFile(t, journal)
	if !bytes.HasPrefix(after, before) {
		t.Fatalf("status after H's new record rewrote %s (%d bytes, then %d), want its rows appended", journal, len(before), len(after))
	}
	var kept []string
	for _, m := range regexp.MustCompile(`(?m)^(\S+) [0-9a-f]{40} `).FindAllSubmatch(after[len(before):], -1) {
		kept = append(kept, string(m[1]))
	}
	slices.Sort(kept)
	if !slices.Equal(kept, []string{"H", "R"}) {
		t.Errorf("status after H's new record kept the rows of %v, want H's and R's alone", kept)
	}
	if out := s.mustReason("status"); strings.Contains(out, "does not verify") {
		t.Errorf("status after H's honest record shows a finding:\n%s", out)
	}
	if n := s.filesWritten("status"); n != 0 {
		t.Errorf("status after H's new record, then again, wrote %d files under .git/reason, want none", n)
	}
	// Every task's status derives H's entry and R's (its reuse checked
	// against H's new head) again, no other task's; then it reads no
	// remembered file again.
	statuses := filepath.Join(s.gitDir(), "reason", "status.journal")
	before = harness.ReadFile(t, statuses)
	if out := s.mustReason("status", "--json"); strings.Contains(out, "does_not_verify") {
		t.Errorf("status --json after H's honest record shows a finding:\n%s", out)
	}
	after = harness.ReadFile(t, statuses)
	if !bytes.HasPrefix(after, before) {
		t.Fatalf("status --json after H's new record rewrote %s (%d bytes, then %d), want its entries appended", statuses, len(before), len(after))
	}
	kept = nil
	for _, m := range regexp.MustCompile(`(?m)^(\S+) [0-9a-f]{40} `).FindAllSubmatch(after[len(before):], -1) {
		kept = append(kept, string(m[1]))
	}
	slices.Sort(kept)
	if !slices.Equal(kept, []string{"H", "R"}) {
		t.Errorf("status --json after H's new record derived the entries of %v, want H's and R's alone", kept)
	}
	if c := s.costed("status", "--json"); c.RememberedFiles != 0 || c.Tasks != 0 || c.Histories != 0 {
		t.Errorf("status --json after H's new record, then again: %+v, want no remembered file read, no task read", c)
	}
	// H's ref deleted: R's row shows its reuse broken, and is kept so (a
	// missing ref is a head of its own in the row): the next status reads
	// no task, as with H there.
	s.git("update-ref", "-d", "refs/reasoning/tasks/H")
	if out := s.mustReason("status"); !strings.Contains(out, "R: does not verify: reuse: ") {
		t.Errorf("status after H's ref was deleted does not show R's reuse broken:\n%s", out)
	}
	if c := s.costed("status"); c.Tasks != 0 || c.Histories != 0 || c.Decodes != 0 {
		t.Errorf("status after H's ref was deleted, then again: %+v, want no task read (R's row kept)", c)
	}
	// Every task's status shows it too, R's entry derived again (H's
	// head it was checked against is listed no more), and then reads no
	// task and no remembered file.
	if out := s.mustReason("status", "--json"); !strings.Contains(out, `"code": "reuse"`) {
		t.Errorf("status --json after H's ref was deleted does not show R's reuse broken:\n%s", out)
	}
	if c := s.costed("status", "--json"); c.RememberedFiles != 0 || c.Tasks != 0 || c.Histories != 0 {
		t.Errorf("status --json after H's ref was deleted, then again: %+v, want no task read and no remembered file read (R's entry kept)", c)
	}
}

// TestStatusReuseFanInCounts: tasks that reuse one task's conclusion are
// checked against it derived once a run, not once each. H holds 200
// records and a standing conclusion, 30 tasks reuse it (written as a
// clone would push them); after H's one new record every task's status
// checks those 30 reuses again. Each check derived H whole: status
// --json decoded 6,414 records, the table 6,445, and verify 12,834,
// replaying H 31 times (bench/reusefan/run.sh).
func TestStatusReuseFanInCounts(t *testing.T) {
	t.Parallel()
	const n, k = 200, 30
	s := newSandbox(t)
	ctx := context.Background()
	harness.BulkTaskT(t, s.dir, "H", n)
	s.mustReason("assess", "H", "--subject", "Cache size", "--question", "How large?", "--materiality", "critical", "--reversibility", "irreversible", "--evidence", "note::load test")
	s.mustReason("plan", "H")
	s.mustReason("conclude", "H", "--decision", "512 MiB", "--local-review", "1=yes", "--local-review", "2=yes", "--local-review", "3=yes", "--local-review", "4=yes", "--local-review", "5=yes")
	var h struct {
		Standing []record.Standing `json:"standing"`
	}
	if err := json.Unmarshal([]byte(s.mustReason("status", "H", "--json")), &h); err != nil || len(h.Standing) != 1 {
		t.Fatalf("status H --json: %v, standing %+v", err, h.Standing)
	}
	h.Standing[0].Materiality, h.Standing[0].Reversibility = "critical", "irreversible"
	tasks := make([]string, k)
	for i := range tasks {
		tasks[i] = fmt.Sprintf("R-%02d", i)
	}
	if err := harness.BulkReusing(ctx, s.dir, tasks, func(string) []record.Standing { return h.Standing }); err != nil {
		t.Fatal(err)
	}
	if out := s.mustReason("status", "R-07"); !strings.Contains(out, "reuses:       standing conclusion") {
		t.Fatalf("R-07 does not reuse H's standing conclusion:\n%s", out)
	}
	s.mustReason("status", "--json")
	s.mustReason("search", "as in H") // the search index made
	// log and search (the search index, kept by each task's head) check
	// each R's reuse as status does, against H derived once; the index
	// keeps H's head with each R's block, whose reuses are checked again
	// only when H moved, not when another task did.
	for _, args := range [][]string{{"status", "--json"}, {"status"}, {"verify"},
		{"search", "as in H"}, {"log", "--grep", "as in H"}, {"log"}, {"log", "-n", "40"}} {
		what := strings.Join(args, " ")
		s.mustReason("assess", "H", "--subject", "one more "+what, "--question", "q?", "--materiality", "trivial", "--reversibility", "reversible")
		c := s.costed(args...)
		t.Logf("%s after H moved: %+v", what, c)
		// H's records decoded once for the reuse checks (and by
		// verify's replays of H and of each task, by log and the search
		// index for H's own lines), R's few: at most 5n however many
		// tasks reuse H.
		if c.Decodes > 5*n || c.Histories > 2 {
			t.Errorf("%s after H's new record: %d records decoded, %d histories replayed; want H derived once for %d reusing tasks (at most %d decodes, 2 histories)",
				what, c.Decodes, c.Histories, k, 5*n)
		}
		out := s.mustReason(args...)
		if strings.Contains(out, "does not verify") || strings.Contains(out, "does_not_verify") {
			t.Errorf("%s after H's honest record shows a finding:\n%s", what, out)
		}
		if args[0] != "search" && args[0] != "log" {
			continue
		}
		if !strings.Contains(out, "R-07") {
			t.Errorf("%s lists no record of R-07:\n%s", what, out)
		}
		if args[0] == "log" && !slices.Contains(args, "--grep") {
			continue // the others read every history they list
		}
		s.mustReason("assess", "X", "--subject", "other "+what, "--question", "q?", "--materiality", "trivial", "--reversibility", "reversible")
		c = s.costed(args...)
		t.Logf("%s after another task moved: %+v", what, c)
		if c.Decodes >= n || c.Histories > 1 {
			t.Errorf("%s after another task moved: %d records decoded, %d histories replayed; want R's reuses not checked again (H not derived)", what, c.Decodes, c.Histories)
		}
	}
}

// fullFanout adds 1,536 small blobs to the repository of s and packs
// everything into one pack, as a repository of some history is: every
// fanout slot of its index then holds objects (a slot stays empty with
// odds under e^-6), whatever the task's size, and the index stays under
// smallPackIndexes (gitstore/packreads.go: 64 KiB, some 2,300 objects),
// so that go-git decodes it, as in a small repository.
func fullFanout(t *testing.T, s *sandbox) {
	t.Helper()
	err := harness.FastImport(context.Background(), s.dir, nil, func(w *bufio.Writer) error {
		for i := range 1536 {
			data := fmt.Sprintf("filler %d\n", i)
			fmt.Fprintf(w, "blob\ndata %d\n%s\n", len(data), data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s.git("repack", "-a", "-d", "-k", "-q") // -k: the blobs are reachable from nothing
}
