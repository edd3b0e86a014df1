// Command handover-bench times `git reason handover`, warm, over a
// generated repository of -tasks tasks holding -records records in all
// (target: 1,000 tasks and 50,000 records within 1 s).
//
// Every record is admitted by the real writer (see generate for how the
// repository is written fast), then the repository is packed by `git gc`
// as a real one is. Each
// task repeats one cycle of ten records: a critical assessment with
// evidence, its plan (two advisors), a failed consultation, two answers
// that conflict, the driver's disagreement, its resolution, a conclusion
// weighing both answers, a validation and an attempt (every other one
// failed). Task i first writes i%10 assessments of earlier questions, so
// the tasks end at every point of the cycle: every phase, open
// disagreements, failed consultations and advisors not asked yet.
//
// The first `git reason handover` is reported on its own (with -cold,
// after removing every cache under .git/reason/); after one more untimed
// run, markdown and --json runs alternate, -runs
// each, and the program prints each one's median, min and max and what
// the output held (open and settled tasks), so the figure is over the
// content a user would read.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"git-reason/gitstore"
	"git-reason/policy"
	"git-reason/record"
	"git-reason/reliability/harness"
)

type options struct {
	tasks, records, runs int
	dir                  string
	target               time.Duration
	cold                 bool
}

func main() {
	o := &options{}
	flag.IntVar(&o.tasks, "tasks", 1000, "tasks in the generated repository")
	flag.IntVar(&o.records, "records", 50000, "records in all, spread evenly over the tasks")
	flag.IntVar(&o.runs, "runs", 11, "timed runs of each form")
	flag.StringVar(&o.dir, "dir", "", "where to build and generate; kept and reused across runs when set (default: a temporary directory, removed)")
	flag.DurationVar(&o.target, "target", time.Second, "the warm median to meet")
	flag.BoolVar(&o.cold, "cold", false, "remove the caches under .git/reason/ first, so the first run builds them all from the packs")
	flag.Parse()
	harness.ExitOn("handover-bench", run(o, os.Stdout))
}

func run(o *options, w io.Writer) error {
	if o.tasks < 1 || o.records < o.tasks || o.runs < 1 {
		return errors.New("need -tasks >= 1, -records >= -tasks, -runs >= 1")
	}
	dir, remove, err := harness.WorkDir(o.dir, "handover-bench-")
	if err != nil {
		return err
	}
	defer remove()
	dir, err = filepath.Abs(dir)
	if err != nil {
		return err
	}
	env, err := environment(dir)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := harness.Install(filepath.Join(dir, "bin")); err != nil {
		return err
	}
	fmt.Fprintf(w, "# built git-reason in %.1f s\n", time.Since(start).Seconds())
	repo := filepath.Join(dir, fmt.Sprintf("repo-%d-%d", o.tasks, o.records))
	if err := prepare(w, repo, env, o); err != nil {
		return err
	}
	gitVersion, _ := exec.Command("git", "version").Output()
	fmt.Fprintf(w, "# %s, %s/%s, %d CPUs, %s, %s\n", strings.TrimSpace(string(gitVersion)), runtime.GOOS, runtime.GOARCH,
		runtime.NumCPU(), runtime.Version(), harness.LoadAverage())

	if o.cold {
		if err := os.RemoveAll(filepath.Join(repo, ".git", "reason")); err != nil {
			return err
		}
	}
	md := []string{"reason", "handover"}
	js := []string{"reason", "handover", "--json"}
	cold, _, err := timed(repo, env, md)
	if err != nil {
		return err
	}
	if _, _, err := timed(repo, env, js); err != nil { // warm-up
		return err
	}
	// The startup floor, timed in the same rounds: on a loaded machine
	// the wall time of any process is mostly waiting for a CPU.
	ver := []string{"reason", "--version"}
	var tmd, tjs, tver, cmd, cjs, cver []time.Duration
	var out []byte
	for range o.runs {
		d, _, err := timed(repo, env, md, &cmd)
		if err != nil {
			return err
		}
		tmd = append(tmd, d)
		d, got, err := timed(repo, env, js, &cjs)
		if err != nil {
			return err
		}
		tjs, out = append(tjs, d), got
		d, _, err = timed(repo, env, ver, &cver)
		if err != nil {
			return err
		}
		tver = append(tver, d)
	}
	var rep struct {
		Open, Settled []struct {
			Phase         string `json:"phase"`
			Disagreements []any  `json:"open_disagreements"`
			Failed        []any  `json:"failed_consultations"`
			Missing       []any  `json:"missing_advisors"`
		}
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		return fmt.Errorf("handover --json: %v", err)
	}
	phases := map[string]int{}
	var disputes, failed, missing int
	for _, h := range rep.Open {
		phases[h.Phase]++
		disputes += len(h.Disagreements)
		failed += len(h.Failed)
		missing += len(h.Missing)
	}
	fmt.Fprintf(w, "# output: %d open (%s; %d open disagreements, %d failed advisors, %d not asked), %d settled\n",
		len(rep.Open), phaseList(phases), disputes, failed, missing, len(rep.Settled))
	what := "caches under .git/reason/ as found"
	if o.cold {
		what = "no cache under .git/reason/: every task read from the packs"
	}
	fmt.Fprintf(w, "first run (%s): %s\n", what, ms(cold))
	for _, c := range []struct {
		name     string
		wall, cp []time.Duration
		target   bool
	}{{"git reason handover", tmd, cmd, true}, {"git reason handover --json", tjs, cjs, true}, {"git reason --version (floor)", tver, cver, false}} {
		med := harness.Median(c.wall)
		fmt.Fprintf(w, "%-30s wall median %s (min %s, max %s), CPU median %s, over %d runs", c.name, ms(med),
			ms(slices.Min(c.wall)), ms(slices.Max(c.wall)), ms(harness.Median(c.cp)), len(c.wall))
		if c.target {
			verdict := "met"
			if med > o.target {
				verdict = "MISSED"
			}
			fmt.Fprintf(w, "; target wall <= %s: %s", o.target, verdict)
		}
		fmt.Fprintln(w)
	}
	return nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func phaseList(m map[string]int) string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// timed runs git with args in dir and returns its wall time and stdout;
// the CPU time (user and system, of git and the git-reason it waited for)
// goes to cpu when it is not nil.
func timed(dir string, env, args []string, cpu ...*[]time.Duration) (time.Duration, []byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, env
	t, err := harness.Timed(cmd)
	if err != nil {
		return 0, nil, err
	}
	for _, c := range cpu {
		*c = append(*c, t.CPU)
	}
	return t.Wall, t.Out, nil
}

// environment is a HOME of the benchmark's own (harness.BenchEnv) with
// the built binary first on PATH.
func environment(dir string) ([]string, error) {
	env, err := harness.BenchEnv(filepath.Join(dir, "home"))
	if err != nil {
		return nil, err
	}
	return append(env, "PATH="+filepath.Join(dir, "bin")+string(os.PathListSeparator)+os.Getenv("PATH")), nil
}

// genVersion changes whenever generated repositories would differ.
const genVersion = 1

// prepare generates the repository in dir unless a complete one of the
// same shape is there already.
func prepare(w io.Writer, dir string, env []string, o *options) error {
	marker := filepath.Join(dir, ".git", "handover-bench")
	want := fmt.Sprintf("version %d tasks %d records %d\n", genVersion, o.tasks, o.records)
	if data, err := os.ReadFile(marker); err == nil && string(data) == want {
		fmt.Fprintf(w, "# reusing %s\n", dir)
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	git := func(args ...string) (string, error) {
		in := filepath.Dir(dir)
		if _, err := os.Stat(dir); err == nil {
			in = dir
		}
		return harness.GitOutput(env, in, "", args...)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	if _, err := git("init", "-q", dir); err != nil {
		return err
	}
	if _, err := git("commit", "-q", "--allow-empty", "-m", "base"); err != nil {
		return err
	}
	base, err := git("rev-parse", "HEAD")
	if err != nil {
		return err
	}
	start := time.Now()
	if err := generate(dir, base, o.tasks, o.records); err != nil {
		return err
	}
	gen := time.Since(start)
	start = time.Now()
	if _, err := git("gc", "--quiet"); err != nil {
		return err
	}
	fmt.Fprintf(w, "# generated %d records in %d tasks in %.1f s, git gc in %.1f s\n", o.records, o.tasks, gen.Seconds(), time.Since(start).Seconds())
	return os.WriteFile(marker, []byte(want), 0o644)
}

// templateTask names the template tasks' records until they are copied.
const templateTask = "TEMPLATE0TASK"

// generate writes the tasks. The writer admits ten template tasks (one per
// starting offset of the cycle) in memory; each task is then a copy of
// its template with the task's name and fresh record ids, written by one
// git fast-import as the store would have written it: one commit per
// record whose records/ tree holds the task's records so far, with the
// store's message, author and date. Admitting 50,000 records one append
// at a time costs minutes on a loaded machine; the copies cost seconds
// and read back exactly as written ones (the benchmark's first handover
// reads and checks every one).
func generate(dir, commit string, tasks, records int) error {
	templates := make([][]*record.Record, 10)
	for k := range templates {
		store := record.NewMemStore()
		wr := &record.Writer{Store: store, Index: noIndex{}, Avail: twoAdvisors{},
			Actor: fmt.Sprintf("Bench %d <bench%d@example.com>", k%3, k%3), Origin: "handover-bench"}
		if err := fill(wr, templateTask, k, records/tasks+1, commit); err != nil {
			return err
		}
		var err error
		if _, templates[k], err = store.Load(context.Background(), templateTask); err != nil {
			return err
		}
	}
	entropy := ulid.DefaultEntropy()
	return harness.FastImport(context.Background(), dir, nil, func(w *bufio.Writer) error {
		for t := range tasks {
			n := records / tasks
			if t < records%tasks {
				n++
			}
			if err := copyTask(w, fmt.Sprintf("T-%05d", t), templates[t%10][:n], entropy); err != nil {
				return err
			}
		}
		return nil
	})
}

// copyTask writes recs, renamed to task with fresh ids, as the commits of
// refs/reasoning/tasks/<task>.
func copyTask(w *bufio.Writer, task string, recs []*record.Record, entropy io.Reader) error {
	// The subject key is the subject normalised: its copy of the name too.
	pairs := []string{templateTask, task, record.SubjectKey(templateTask), record.SubjectKey(task)}
	for _, r := range recs {
		when, err := time.Parse(time.RFC3339Nano, r.Created)
		if err != nil {
			return err
		}
		pairs = append(pairs, r.ID, ulid.MustNew(ulid.Timestamp(when), entropy).String())
	}
	rename := strings.NewReplacer(pairs...)
	for _, r := range recs {
		blob, err := r.Blob()
		if err != nil {
			return err
		}
		var rec record.Record
		data := rename.Replace(string(blob))
		if err := json.Unmarshal([]byte(data), &rec); err != nil {
			return err
		}
		entry, err := record.Decode(&rec)
		if err != nil {
			return fmt.Errorf("%s: %w", task, err)
		}
		when, _ := time.Parse(time.RFC3339Nano, rec.Created)
		sig := gitstore.ParseActor(rec.Actor, when)
		ident := fmt.Sprintf("%s <%s> %d +0000", sig.Name, sig.Email, when.Unix())
		msg := record.Message(entry)
		fmt.Fprintf(w, "commit %s\nauthor %s\ncommitter %s\ndata %d\n%s\n", gitstore.TaskRef(task), ident, ident, len(msg), msg)
		fmt.Fprintf(w, "M 100644 inline %s/%s\ndata %d\n%s\n", gitstore.RecordsDir, rec.FileName(), len(data), data)
	}
	return nil
}

// noIndex finds no standing conclusion: every generated subject is its
// task's own, so a real index would find none of another task either.
type noIndex struct{}

func (noIndex) Standing(context.Context, string, string) ([]record.Standing, error) { return nil, nil }

// twoAdvisors is a snapshot of two available advisors that can review.
type twoAdvisors struct{}

func (twoAdvisors) Snapshot(context.Context) (policy.Profile, []policy.Advisor, error) {
	return policy.Profile{Name: "bench", Mode: policy.ModeNormal}, []policy.Advisor{
		{ID: "adv-a", Status: policy.StatusAvailable, Capabilities: []string{policy.DefaultCapability}},
		{ID: "adv-b", Status: policy.StatusAvailable, Capabilities: []string{policy.DefaultCapability}},
	}, nil
}

// fill writes n records to task: i%10 earlier assessments, then the cycle
// until n are written.
func fill(w *record.Writer, task string, i, n int, commit string) error {
	ctx := context.Background()
	written := 0
	var last string
	step := func(what string, f func() (*record.Result, error)) bool {
		if written == n {
			return false
		}
		res, err := f()
		if err != nil {
			panic(fmt.Sprintf("%s record %d (%s): %v", task, written, what, err))
		}
		written++
		last = res.ID
		return true
	}
	body := func(format string, args ...any) []byte { return []byte(fmt.Sprintf(format, args...)) }
	for k := range i % 10 {
		step("earlier assessment", func() (*record.Result, error) {
			return w.Append(ctx, task, record.KindAssessment, body(`{"subject":"%s: earlier question %d","question":"which way?","materiality":"trivial","reversibility":"reversible"}`, task, k))
		})
	}
	for cycle := 0; written < n; cycle++ {
		var a, p, c1, c2, d, c string
		ok := step("assessment", func() (*record.Result, error) {
			return w.Append(ctx, task, record.KindAssessment, body(`{"subject":"%s: decision %d","question":"which way should %s go, and why?","materiality":"critical","reversibility":"costly","evidence":[{"kind":"note","summary":"measured under load"}]}`, task, cycle, task))
		})
		a = last
		ok = ok && step("plan", func() (*record.Result, error) {
			return w.Append(ctx, task, record.KindPlan, body(`{"assessment":"%s"}`, a))
		})
		p = last
		ok = ok && step("failed consultation", func() (*record.Result, error) {
			return w.AppendConsultation(ctx, task, &record.Consultation{Plan: p, Advisor: "adv-a", Status: "failed",
				Failure: &record.Failure{Kind: "timeout", Detail: "no answer within 2m0s"}, Transport: "cli", DurationMS: 120000}, nil)
		})
		ok = ok && step("consultation", func() (*record.Result, error) {
			return w.AppendConsultation(ctx, task, &record.Consultation{Plan: p, Advisor: "adv-a", Status: "completed",
				Conclusion: &record.Answer{Stance: "endorse", Summary: "go ahead", Confidence: 0.7}, Transport: "cli", DurationMS: 900},
				&record.Model{Name: "model-a", Source: "declared"})
		})
		c1 = last
		ok = ok && step("consultation", func() (*record.Result, error) {
			return w.AppendConsultation(ctx, task, &record.Consultation{Plan: p, Advisor: "adv-b", Status: "completed",
				Conclusion: &record.Answer{Stance: "oppose", Summary: "too risky", Risks: []string{"lock contention"}, Confidence: 0.6}, Transport: "cli", DurationMS: 1100},
				&record.Model{Name: "model-b", Source: "reported"})
		})
		c2 = last
		ok = ok && step("disagreement", func() (*record.Result, error) {
			return w.AppendDriverDisagreement(ctx, task, &record.Disagreement{Assessment: a, Cites: []string{c1, c2},
				Summary: "advisors take conflicting stances"})
		})
		d = last
		ok = ok && step("resolution", func() (*record.Result, error) {
			return w.Append(ctx, task, record.KindResolution, body(`{"disagreement":"%s","decision":"go ahead behind a flag","evidence":[{"kind":"note","summary":"the flag bounds the risk"}]}`, d))
		})
		ok = ok && step("conclusion", func() (*record.Result, error) {
			return w.Append(ctx, task, record.KindConclusion, body(`{"assessment":"%s","decision":"go ahead behind a flag","rationale":"bounded risk","weighed":[{"consultation":"%s","treatment":"adopted","reason":"sound"},{"consultation":"%s","treatment":"partially_adopted","reason":"the flag answers it"}]}`, a, c1, c2))
		})
		c = last
		ok = ok && step("validation", func() (*record.Result, error) {
			return w.AppendRunValidation(ctx, task, body(`{"conclusion":"%s","method":"command","command":"go test ./..."}`, c),
				func(*record.Validation) (record.ValidationDerived, error) {
					code, dur := 0, int64(4200)
					return record.ValidationDerived{ExitCode: &code, DurationMS: &dur, OutputSHA256: strings.Repeat("ab", 32), Commit: commit, Result: "pass"}, nil
				})
		})
		outcome := []string{"succeeded", "failed"}[(i/10+cycle)%2]
		_ = ok && step("attempt", func() (*record.Result, error) {
			return w.Append(ctx, task, record.KindAttempt, body(`{"conclusion":"%s","commits":["%s"],"outcome":"%s"}`, c, commit, outcome))
		})
	}
	return nil
}
