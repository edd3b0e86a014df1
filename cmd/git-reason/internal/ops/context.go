package ops

import (
	"context"
	"errors"
	"path"
	"slices"
	"sort"
	"strings"

	"git-reason/record"
)

// ContextQuery names the commits whose reasoning is wanted.
type ContextQuery struct {
	// Range is "A..B" or "A...B" as git log reads them (an empty side is
	// HEAD), or one revision R, read as R..HEAD (as git format-patch
	// reads it). "" is the default: from the merge base with the
	// upstream, else with the default branch (origin/HEAD, else main,
	// else master, else init.defaultBranch's), to HEAD; with none, HEAD's
	// whole history (see ContextReport.Note).
	Range string
}

// ContextReport is the reasoning behind a range of commits: each task
// linked to one of them, with how it is linked. Links are, strongest
// first: a "Reason-Task:" trailer in a commit's message, an attempt or a
// validation of the task that names a commit of the range, and (weak,
// marked so) evidence of the task citing a file the range changes.
type ContextReport struct {
	Range   string          `json:"range"`    // the range as git log reads it
	BaseRef string          `json:"base_ref"` // what the default range started from ("" when a range was given)
	Base    string          `json:"base"`     // the full hash the range starts from
	Head    string          `json:"head"`     // the full hash it ends at
	Commits []ContextCommit `json:"commits"`  // oldest first
	Files   int             `json:"files"`    // how many files the range changes
	// Note says why the range is empty when that is not for want of
	// linked commits: the branch has no commits yet (Base and Head are
	// then ""); or that it is HEAD's whole history, the default range
	// having found nothing to start from (Base is then "").
	Note  string        `json:"note,omitempty"`
	Tasks []ContextTask `json:"tasks"`
	// Unknown are trailers naming a task this repository has no records
	// of (not pulled yet, or a typo), or no valid task name at all.
	Unknown []ContextUnknown `json:"unknown_tasks"`
	// leftOut counts the local-only tasks LeaveOutLocal took out.
	leftOut int
}

// ContextCommit is one commit of the range and the tasks linked to it.
type ContextCommit struct {
	Commit  string   `json:"commit"`
	Subject string   `json:"subject"`
	Tasks   []string `json:"tasks"`
}

// ContextTask is one linked task: its reasoning, how it is linked, and its
// record graph as a Mermaid flowchart.
type ContextTask struct {
	record.TaskContext
	Links []ContextLink `json:"links"`
	// Weak is set when evidence citing a changed file is the only link.
	Weak    bool   `json:"weak"`
	Mermaid string `json:"mermaid"`
	// Signatures says who signed the task's records (none when git could
	// not be asked).
	Signatures *SignatureSummary `json:"signatures,omitempty"`
	// LocalOnly is set when the repository has remotes and the task is
	// on none of them (never pushed nor fetched): a stranger's commit
	// can name it with a trailer, or change a file its evidence cites,
	// so a comment body leaves it out (LeaveOutLocal).
	LocalOnly bool `json:"local_only,omitempty"`
}

// How a commit or a file links to a task.
const (
	LinkTrailer    = "trailer"    // the commit's message carries Reason-Task: TASK
	LinkAttempt    = "attempt"    // an attempt of the task names the commit
	LinkValidation = "validation" // a validation of the task ran at the commit
	LinkEvidence   = "evidence"   // the task's evidence cites a file the range changes (weak)
)

// linkOrder lists the links strongest first.
var linkOrder = map[string]int{LinkTrailer: 0, LinkAttempt: 1, LinkValidation: 2, LinkEvidence: 3}

// ContextLink is one link of a task to the range: a commit (trailer,
// attempt, validation) or a changed file (evidence), and the record that
// makes it.
type ContextLink struct {
	By     string `json:"by"`
	Commit string `json:"commit,omitempty"`
	Record string `json:"record,omitempty"`
	File   string `json:"file,omitempty"`
}

// ContextUnknown is a trailer that links a commit to no readable task.
type ContextUnknown struct {
	Commit string        `json:"commit"`
	Task   string        `json:"task"`
	Reason string        `json:"reason"`
	said   record.Advice // Reason, and what the MCP tools are told, where it advises a command
}

// unreadTask is why a trailer names a task that has no readable records
// here: fetching them is the person's step, checking them a tool's.
var unreadTask = record.Advice{CLI: "no readable records of this task here: 'git reason pull' fetches them, 'git reason verify' checks them",
	Tools: "no readable records of this task here: 'git reason pull', which the person runs (no tool fetches), fetches them; the verify tool checks them"}

// Context derives the reasoning behind a range of commits from the refs
// and the repository's history. Git resolves the range (one process), lists
// its commits with their trailers (one) and the files it changes (one).
func (e *Session) Context(ctx context.Context, q ContextQuery) (*ContextReport, error) {
	rg, err := e.resolveRange(ctx, q.Range)
	if err != nil {
		return nil, err
	}
	out := &ContextReport{Range: rg.spec, BaseRef: rg.baseRef, Base: rg.base, Head: rg.head,
		Commits: []ContextCommit{}, Tasks: []ContextTask{}, Unknown: []ContextUnknown{}}
	if rg.unborn != "" {
		out.Note = rg.unborn + " has no commits yet: the reasoning behind its commits shows here once it has some"
		return out, nil
	}
	if rg.whole != "" {
		out.Note = rg.whole + " has no upstream and no default branch (origin/HEAD, main, master, init.defaultBranch) to start from: this is its whole history; give a range to see part of it"
	}
	commits, err := e.rangeCommits(ctx, rg)
	if err != nil {
		return nil, err
	}
	if len(commits) == 0 {
		return out, nil
	}
	files, err := e.rangeFiles(ctx, rg)
	if err != nil {
		return nil, err
	}
	out.Files = len(files)
	// What every task's records name comes from the cache keyed by each
	// task's head: only the tasks that link are read whole.
	mentions, err := e.Index.Mentions(ctx)
	if err != nil {
		return nil, err
	}
	links := linkTasks(commits, files, mentions, out)
	st, err := e.Settings()
	if err != nil {
		return nil, err
	}
	states := map[string]*record.State{}
	heads := map[string]string{}
	load := func(task string) (*record.State, error) {
		if st, ok := states[task]; ok {
			return st, nil
		}
		st, head, err := e.State(ctx, task)
		heads[task] = head
		switch {
		case errors.Is(err, record.ErrUnreadable):
			e.Store.Skip(task, err)
			st, err = nil, nil
		case errors.Is(err, ErrUsage): // no such task here (a reused one not pulled)
			st, err = nil, nil
		}
		states[task] = st
		return st, err
	}
	for task := range links {
		if _, err := load(task); err != nil {
			return nil, err
		}
	}
	inRange := map[string]int{}
	for i, c := range commits {
		inRange[c.hash] = i
	}
	for task, ls := range links {
		if states[task] == nil {
			continue // it stopped reading since the cache saw it
		}
		sort.SliceStable(ls, func(i, j int) bool { return linkOrder[ls[i].By] < linkOrder[ls[j].By] })
		t := ContextTask{TaskContext: states[task].Context(), Links: ls, Weak: true,
			Signatures: e.TaskSignatures(ctx, task, heads[task]), LocalOnly: len(st.Remotes) > 0 && e.onNoRemote(st, task)}
		for _, l := range ls {
			t.Weak = t.Weak && l.By == LinkEvidence
		}
		if err := fillReuses(&t.TaskContext, load); err != nil {
			return nil, err
		}
		t.Mermaid = Mermaid(t.Graph)
		out.Tasks = append(out.Tasks, t)
	}
	// Strong links first, in the order of the first commit they name;
	// then the weak ones; by name within each.
	// Each computed once: a stranger's range may hold many thousands of
	// commits naming one task.
	first := map[string]int{}
	for _, t := range out.Tasks {
		n := len(commits)
		for _, l := range t.Links {
			if i, ok := inRange[l.Commit]; ok && i < n {
				n = i
			}
		}
		first[t.Task] = n
	}
	sort.Slice(out.Tasks, func(i, j int) bool {
		a, b := out.Tasks[i], out.Tasks[j]
		if a.Weak != b.Weak {
			return !a.Weak
		}
		if fa, fb := first[a.Task], first[b.Task]; fa != fb {
			return fa < fb
		}
		return a.Task < b.Task
	})
	byCommit := map[string][]string{} // in the tasks' order, each once
	for _, t := range out.Tasks {
		for _, l := range t.Links {
			if l.Commit != "" && !slices.Contains(byCommit[l.Commit], t.Task) {
				byCommit[l.Commit] = append(byCommit[l.Commit], t.Task)
			}
		}
	}
	for _, c := range commits {
		out.Commits = append(out.Commits, ContextCommit{Commit: c.hash, Subject: c.subject, Tasks: append([]string{}, byCommit[c.hash]...)})
	}
	return out, nil
}

// LeaveOutLocal takes the local-only tasks out of the report, for a body
// posted where others read it: the reasoning of a task this clone never
// shared stays here though a stranger's commit names it.
func (r *ContextReport) LeaveOutLocal() {
	kept := r.Tasks[:0]
	for _, t := range r.Tasks {
		if !t.LocalOnly {
			kept = append(kept, t)
			continue
		}
		r.leftOut++
		for i := range r.Commits {
			r.Commits[i].Tasks = slices.DeleteFunc(r.Commits[i].Tasks, func(n string) bool { return n == t.Task })
		}
	}
	r.Tasks = kept
}

// linkTasks finds every link of every task to the range, from the
// trailers of its commits and what every task's records mention, and
// records in out the trailers that name no readable task.
func linkTasks(commits []rangeCommit, files map[string]bool, mentions map[string][]record.Mention, out *ContextReport) map[string][]ContextLink {
	links := map[string][]ContextLink{}
	seen := map[ContextLink]map[string]bool{} // links[task] holds l: seen[l][task]
	add := func(task string, l ContextLink) {
		if seen[l] == nil {
			seen[l] = map[string]bool{}
		}
		if !seen[l][task] {
			seen[l][task] = true
			links[task] = append(links[task], l)
		}
	}
	inRange := map[string]bool{}
	for _, c := range commits {
		inRange[c.hash] = true
		for _, task := range c.tasks {
			_, known := mentions[task]
			switch {
			case record.CheckTask(task) != nil:
				out.Unknown = append(out.Unknown, ContextUnknown{Commit: c.hash, Task: task, Reason: "not a valid task name"})
			case !known:
				out.Unknown = append(out.Unknown, ContextUnknown{Commit: c.hash, Task: task, Reason: unreadTask.String(), said: unreadTask})
			default:
				add(task, ContextLink{By: LinkTrailer, Commit: c.hash})
			}
		}
	}
	for task, ms := range mentions {
		for _, m := range ms {
			switch m.By {
			case LinkAttempt, LinkValidation:
				if inRange[m.Commit] {
					add(task, ContextLink{By: m.By, Commit: m.Commit, Record: m.Record})
				}
			case LinkEvidence:
				if p := evidencePath(record.Evidence{Kind: "file", Ref: m.File}); p != "" && files[p] {
					add(task, ContextLink{By: LinkEvidence, Record: m.Record, File: p})
				}
			}
		}
	}
	return links
}

// evidencePath is the repository path a file evidence cites, without a
// line ("path:12", "path:12-30") or fragment ("path#L12"); "" for other
// evidence.
func evidencePath(ev record.Evidence) string {
	if ev.Kind != "file" {
		return ""
	}
	ref := strings.TrimSpace(ev.Ref)
	if i := strings.IndexByte(ref, '#'); i >= 0 {
		ref = ref[:i]
	}
	if i := strings.LastIndexByte(ref, ':'); i > 0 && strings.Trim(ref[i+1:], "0123456789-") == "" {
		ref = ref[:i]
	}
	if ref == "" {
		return ""
	}
	return strings.TrimPrefix(path.Clean("/"+ref), "/")
}

// fillReuses gives each reused conclusion its decision, read from the task
// that holds it, and the task's decision when its latest assessment reuses.
func fillReuses(t *record.TaskContext, load func(string) (*record.State, error)) error {
	for i := range t.Assessments {
		r := t.Assessments[i].Reuses
		if r == nil || record.CheckTask(r.Task) != nil {
			continue
		}
		st, err := load(r.Task)
		if err != nil {
			return err
		}
		if st == nil {
			continue
		}
		if c := st.Get(r.Conclusion); c != nil && c.Kind == record.KindConclusion {
			r.Decision = c.Body.(*record.Conclusion).Decision
		}
		if i == len(t.Assessments)-1 && t.Decision == "" {
			t.Decision = r.Decision
		}
	}
	return nil
}
