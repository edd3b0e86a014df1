// Command verify-bench times whole-process `git reason verify TASK` of one
// task whose history holds -records records and -merges merge commits, as
// two clones that append in turns and merge each other's work produce.
//
// The history is written in-process with go-git plumbing, as a fetched one
// would arrive: each round appends records on two divergent branches from
// the same head (Lamport clocks, unique subjects, trivial assessments that
// replay clean), then a merge commit whose tree is the union of both. The
// program checks that the history verifies clean, then runs verify -runs
// times and prints the median, min and max wall time and the target (1 s
// for 2,000 records and 100 merges), and the same of the CPU time.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/oklog/ulid/v2"

	"git-reason/gitstore"
	"git-reason/record"
	"git-reason/reliability/harness"
)

type options struct {
	records, merges, runs int
	dir                   string
	baseline              string // a git-reason binary timed in the same rounds
	cold                  bool   // each verify without what earlier ones kept: every record read and checked
}

func main() {
	o := options{}
	flag.IntVar(&o.records, "records", 2000, "records in the task's history")
	flag.IntVar(&o.merges, "merges", 100, "merge commits in the task's history")
	flag.IntVar(&o.runs, "runs", 11, "timed runs of verify")
	flag.StringVar(&o.dir, "dir", "", "work directory (default: a temporary one, removed)")
	flag.StringVar(&o.baseline, "baseline-bin", "", "a git-reason binary (another build) to time in the same rounds, alternating")
	flag.BoolVar(&o.cold, "cold", false, "remove what git reason keeps (the repository's reason/) before each verify, so that each replays every record")
	flag.Parse()
	harness.ExitOn("verify-bench", run(o, os.Stdout))
}

func run(o options, out *os.File) error {
	if o.records < 2*o.merges+1 || o.runs < 1 {
		return fmt.Errorf("-records must be above twice -merges, -runs at least 1")
	}
	dir, bin, remove, err := harness.InstalledWorkDir(o.dir, "verify-bench-")
	if err != nil {
		return err
	}
	defer remove()
	// A repository made by an earlier run with the same shape is reused
	// (-dir): generating one takes minutes on a loaded machine.
	repo := filepath.Join(dir, fmt.Sprintf("repo-%d-%d", o.records, o.merges))
	if harness.RunGit(nil, repo, "rev-parse", "-q", "--verify", "refs/reasoning/tasks/T") != nil {
		os.RemoveAll(repo)
		if err := harness.RunGit(nil, dir, "init", "-q", "--bare", repo); err != nil {
			return err
		}
		start := time.Now()
		if err := generate(repo, o.records, o.merges); err != nil {
			return err
		}
		// Packed, as a fetched history arrives.
		if err := harness.RunGit(nil, repo, "repack", "-a", "-d", "-q"); err != nil {
			return err
		}
		fmt.Fprintf(out, "# generated and packed %d records with %d merges in %s\n", o.records, o.merges, time.Since(start).Round(time.Millisecond))
	}
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "GIT_DIR="+repo)
	// verify returns the wall time and the CPU time (user and system, of
	// the process and the git processes it ran) of one verify by exe.
	verify := func(exe string) (time.Duration, time.Duration, error) {
		if o.cold {
			if err := os.RemoveAll(filepath.Join(repo, "reason")); err != nil {
				return 0, 0, err
			}
		}
		cmd := exec.Command(exe, "verify", "T")
		cmd.Env = env
		t, err := harness.Timed(cmd)
		if err != nil {
			return t.Wall, 0, fmt.Errorf("%w\n%s", err, firstLines(string(t.Out), 5))
		}
		return t.Wall, t.CPU, nil
	}
	exes := []string{filepath.Join(bin, "git-reason")}
	if o.baseline != "" {
		exes = append(exes, o.baseline)
	}
	times, cpus := make([][]time.Duration, len(exes)), make([][]time.Duration, len(exes))
	for i := -1; i < o.runs; i++ { // run -1 is the warm-up
		for k, exe := range exes {
			d, cpu, err := verify(exe)
			if err != nil {
				return err
			}
			if i >= 0 {
				times[k], cpus[k] = append(times[k], d), append(cpus[k], cpu)
			}
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(out, "# %s/%s, %d CPUs, %s; load average %s\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version(),
		strings.Join(strings.Fields(string(load))[:3], " "))
	var meds, cpuMeds []time.Duration
	for k := range exes {
		slices.Sort(times[k])
		slices.Sort(cpus[k])
		med := times[k][len(times[k])/2]
		meds, cpuMeds = append(meds, med), append(cpuMeds, cpus[k][len(cpus[k])/2])
		name := "git reason verify"
		if k > 0 {
			name = "baseline " + exes[k] + " verify"
		}
		fmt.Fprintf(out, "%s (%d records, %d merges): median %s, min %s, max %s over %d runs; target 1s: %s\n", name,
			o.records, o.merges, med.Round(time.Millisecond), times[k][0].Round(time.Millisecond),
			times[k][len(times[k])-1].Round(time.Millisecond), o.runs, verdict(med < time.Second))
		// On a loaded machine the wall time mostly measures the wait for a
		// core; the CPU time is what the work costs.
		fmt.Fprintf(out, "  CPU time (user+system, with the git processes it runs): median %s, min %s, max %s\n",
			cpuMeds[k].Round(time.Millisecond), cpus[k][0].Round(time.Millisecond), cpus[k][len(cpus[k])-1].Round(time.Millisecond))
	}
	if len(exes) > 1 {
		fmt.Fprintf(out, "this build / baseline: wall %.2fx, CPU %.2fx\n",
			float64(meds[0])/float64(meds[1]), float64(cpuMeds[0])/float64(cpuMeds[1]))
	}
	return nil
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "missed"
}

func firstLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "")
}

// gen writes the history of task T.
type gen struct {
	objs  *filesystem.Storage
	n     int
	at    time.Time
	actor string
}

// branch is one line of history: its head and its records/ tree entries.
type branch struct {
	head  plumbing.Hash
	files map[string]plumbing.Hash
	clock int64
}

func generate(repoDir string, records, merges int) error {
	r, err := gitstore.Discover(repoDir)
	if err != nil {
		return err
	}
	g := &gen{objs: r.Storage(), at: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), actor: "Bench <bench@example.com>"}
	main := &branch{files: map[string]plumbing.Hash{}}
	// Each round: k records on each side of a fork, then a merge; the rest
	// are linear.
	k := records / (2*merges + 1)
	for m := 0; m < merges; m++ {
		side := &branch{head: main.head, files: clone(main.files), clock: main.clock}
		for i := 0; i < k; i++ {
			if err := g.appendTo(main); err != nil {
				return err
			}
			if err := g.appendTo(side); err != nil {
				return err
			}
		}
		if err := g.merge(main, side); err != nil {
			return err
		}
	}
	for g.n < records {
		if err := g.appendTo(main); err != nil {
			return err
		}
	}
	return r.UpdateRef(gitstore.TaskRef("T"), "", main.head.String())
}

func clone(m map[string]plumbing.Hash) map[string]plumbing.Hash {
	out := make(map[string]plumbing.Hash, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// appendTo adds one trivial assessment as the branch's next commit.
func (g *gen) appendTo(b *branch) error {
	g.n++
	g.at = g.at.Add(time.Second)
	b.clock++
	subject := fmt.Sprintf("subject %06d", g.n)
	body, _ := json.Marshal(&record.Assessment{Subject: subject, Question: "q", Materiality: "trivial", Reversibility: "reversible"})
	derived, _ := json.Marshal(&record.AssessmentDerived{SubjectKey: record.SubjectKey(subject)})
	rec := &record.Record{ID: ulid.MustNew(ulid.Timestamp(g.at), ulid.DefaultEntropy()).String(), Kind: record.KindAssessment,
		Task: "T", Created: g.at.Format(record.TimeLayout), Actor: g.actor, Origin: "bench", Clock: b.clock, Body: body, Derived: derived}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	blob, err := g.write(plumbing.BlobObject, append(data, '\n'))
	if err != nil {
		return err
	}
	b.files[rec.FileName()] = blob
	entry, err := record.Decode(rec)
	if err != nil {
		return err
	}
	var parents []plumbing.Hash
	if !b.head.IsZero() {
		parents = []plumbing.Hash{b.head}
	}
	b.head, err = g.commit(b.files, parents, record.Message(entry), g.at)
	return err
}

// merge makes a merge commit on main of main and side, whose tree is the
// union of both.
func (g *gen) merge(main, side *branch) error {
	for name, h := range side.files {
		main.files[name] = h
	}
	main.clock = max(main.clock, side.clock)
	g.at = g.at.Add(time.Second)
	var err error
	main.head, err = g.commit(main.files, []plumbing.Hash{main.head, side.head}, "merge: union of two histories\n", g.at)
	return err
}

func (g *gen) commit(files map[string]plumbing.Hash, parents []plumbing.Hash, msg string, when time.Time) (plumbing.Hash, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	entries := make([]object.TreeEntry, 0, len(names))
	for _, n := range names {
		entries = append(entries, object.TreeEntry{Name: n, Mode: filemode.Regular, Hash: files[n]})
	}
	records, err := g.tree(entries)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	root, err := g.tree([]object.TreeEntry{{Name: gitstore.RecordsDir, Mode: filemode.Dir, Hash: records}})
	if err != nil {
		return plumbing.ZeroHash, err
	}
	sig := gitstore.ParseActor(g.actor, when)
	c := &object.Commit{Author: object.Signature(sig), Committer: object.Signature(sig), Message: msg, TreeHash: root, ParentHashes: parents}
	obj := g.objs.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return g.objs.SetEncodedObject(obj)
}

func (g *gen) tree(entries []object.TreeEntry) (plumbing.Hash, error) {
	obj := g.objs.NewEncodedObject()
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return g.objs.SetEncodedObject(obj)
}

func (g *gen) write(t plumbing.ObjectType, data []byte) (plumbing.Hash, error) {
	obj := g.objs.NewEncodedObject()
	obj.SetType(t)
	obj.SetSize(int64(len(data)))
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return g.objs.SetEncodedObject(obj)
}
