package main

// The next walker (issue 26 §2): for each situation a task can be in, it
// reads the next step that 'git reason status --json' suggests (and checks
// that 'handover --json' suggests the same), runs exactly that command
// through the real binaries, with the placeholders filled from the task's
// records as a user would, and requires it to be admitted and to move the
// task on, until the task is concluded and validated.
//
// The grammar of a next step, as the walker reads it: "git reason VERB",
// the verb's positional arguments, then "--flag VALUE" pairs, where "..."
// marks a value the person supplies or a flag that repeats. The first word
// that is none of these ends the command: what follows is prose ("(again)",
// "to plan anew"). Alternatives are joined by ", or "; the walker takes the
// first, and the next only when the first is refused (exit 3) with nothing
// written.
//
// Placeholders, filled as a person reading the task would:
//
//	--decision ...                a decision of the walker's
//	--local-review N=ANSWER ...   one answer per item of status's local_review
//	--weigh ID=TREATMENT:REASON   the consultation ID names, which must be
//	                              a completed one of the latest assessment
//	                              (from log and show), each of them named
//	--evidence KIND:REF:SUMMARY   a note
//	--run CMD                     the situation's validation command
//
// A refusal of the suggested command is a finding. Where no command can
// move the task on until a person decides (consult, when no advisor the
// plan selected can be asked now), status and handover give no next but
// a person_step: what to decide and the command each choice is followed
// by. The walker takes a choice (enable the advisors again when the walk
// disabled them and means to, else plan anew), and the command that
// follows it must be admitted.

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"git-reason/cmd/git-reason/internal/cli"
	"git-reason/reliability/harness"
)

// walkAdvisors declares two local command advisors; what each answers is
// read, on every call, from $HOME/mode-ID: endorse (default), oppose, or
// garbage (the command fails, a transient failure: a malformed answer
// says nothing of availability and never opens a circuit).
var walkAdvisors = twoAdvisors("walk-advisor", ", adv-a", ", adv-b")

const walkAdvisorScript = `cat > /dev/null
mode=$(cat "$HOME/mode-$1" 2>/dev/null || echo endorse)
if [ "$mode" = garbage ]; then echo 'service unavailable' >&2; exit 1; fi
printf '{"stance":"%s","summary":"%s: %s","confidence":0.7}\n' "$mode" "$1" "$mode"
`

// walkStatus is the part of 'git reason status --json' the walker reads.
type walkStatus struct {
	Phase             string   `json:"phase"`
	Records           int      `json:"records"`
	Assessment        string   `json:"assessment"`
	ReusesTask        string   `json:"reuses_task"`
	Selected          []string `json:"selected"`
	LocalReview       []string `json:"local_review"`
	OpenDisagreements []string `json:"open_disagreements"`
	Next              string   `json:"next"`
	PersonStep        *struct {
		Decide  string `json:"decide"`
		Options []struct {
			Choice string `json:"choice"`
			Then   string `json:"then"`
		} `json:"options"`
	} `json:"person_step"`
	Closed *struct {
		Outcome string `json:"outcome"`
	} `json:"closed"`
}

// walkSituation is a task's life from its first assessment: how it is
// assessed, how the advisors answer, and what the person does in between
// (act, called before each step with the status the walker read).
type walkSituation struct {
	name                       string
	materiality, reversibility string
	subject                    string
	modes                      map[string]string // advisor → answer mode
	validate                   []string          // validation commands, in turn; the last repeats
	act                        func(w *walker, st walkStatus) bool
	// before runs before the walk: a task walked first, for reuse.
	before func(w *walker)
	// wantRecords, when set, is the number of records the walked task ends with.
	wantRecords int
}

// walkRun runs "git reason ARGS" and returns what it printed and its
// exit status: through the real binaries (sandbox.run) or in this process
// (cli.MainNet).
type walkRun func(args ...string) (stdout, stderr string, code int)

type walker struct {
	t    *testing.T
	s    *sandbox
	run  walkRun
	sit  walkSituation
	task string
	ran  []string
	// validations is how many validation commands were used.
	validations int
	// cached is the task's status since the last command that may have
	// written a record.
	cached *walkStatus
	// handoverNext, when set, is the next step the walker follows
	// instead of status's: handover knows of a failed attempt.
	handoverNext bool
	// disabled says the walk disabled the advisors (reason.disable);
	// enable, that the person's choice is to enable them again.
	disabled, enable bool
	// tally, when set, counts what the walks did, by dimension.
	tally map[string]int
	// peer, when set, is the same task in a second clone: before its
	// first conclusion, both clones conclude it and sync.
	peer *walker
	// merged says the two clones' conclusions were merged.
	merged bool
}

// count adds one to a dimension of the tally.
func (w *walker) count(dim string) {
	if w.tally != nil {
		w.tally[dim]++
	}
}

// walkSituations are the situations a task can be in, each walked from
// its first assessment to its validation.
func walkSituations() []walkSituation {
	critical := func(name string, modes map[string]string) walkSituation {
		return walkSituation{name: name, materiality: "critical", reversibility: "costly", modes: modes}
	}
	return []walkSituation{
		{name: "trivial", materiality: "trivial", reversibility: "reversible", wantRecords: 4},
		{name: "minor-reversible", materiality: "minor", reversibility: "reversible", wantRecords: 4},
		{name: "material-costly-local-review", materiality: "material", reversibility: "costly",
			before: func(w *walker) { w.s.git("config", "reason.disable", "adv-a,adv-b") }, wantRecords: 4},
		{name: "reuses-standing-conclusion", materiality: "minor", reversibility: "reversible", subject: "Shared subject",
			before: func(w *walker) {
				first := &walker{t: w.t, s: w.s, run: w.run, task: "FIRST", sit: walkSituation{materiality: "minor", reversibility: "reversible", subject: "Shared subject"}}
				first.walk()
			},
			act: func(w *walker, st walkStatus) bool {
				if st.Phase == "assessed" {
					w.t.Fatalf("the assessment does not reuse FIRST's standing conclusion: phase %s", st.Phase)
				}
				return false
			}, wantRecords: 4},
		critical("critical-answered", nil),
		critical("critical-one-fails", map[string]string{"adv-a": "garbage"}),
		critical("critical-all-fail-circuit-opens", map[string]string{"adv-a": "garbage", "adv-b": "garbage"}),
		critical("disagreement", map[string]string{"adv-b": "oppose"}),
		{name: "all-skipped-at-consult", materiality: "critical", reversibility: "costly",
			act: func(w *walker, st walkStatus) bool {
				if st.Phase == "planned" && len(st.Selected) > 0 && !w.disabled {
					// The person disables both advisors after planning.
					w.s.git("config", "reason.disable", "adv-a,adv-b")
					w.disabled, w.cached = true, nil
					return true
				}
				return false
			}},
		{name: "validation-fails-first", materiality: "minor", reversibility: "costly", validate: []string{"false", "true"}, wantRecords: 5},
		{name: "closed-and-reopened", materiality: "critical", reversibility: "irreversible",
			act: func(w *walker, st walkStatus) bool {
				switch {
				case st.Phase == "planned" && st.Closed == nil && !slices.Contains(w.ran, "close"):
					w.admit("close", w.task, "--outcome", "abandoned", "--reason", "walked away")
					got := w.status()
					if got.Next != "" || got.Closed == nil {
						w.t.Fatalf("a closed task still suggests %q (closed %v)", got.Next, got.Closed)
					}
					if next, open := w.handover(); open {
						w.t.Fatalf("a closed task is still open in handover, next %q", next)
					}
					w.admit("reopen", w.task, "--reason", "back to it")
					return true
				}
				return false
			}},
		{name: "attempt-failed", materiality: "minor", reversibility: "reversible",
			act: func(w *walker, st walkStatus) bool {
				if st.Phase == "validated" && !slices.Contains(w.ran, "attempt") {
					w.admit("attempt", w.task, "--commit", "HEAD", "--outcome", "failed")
					w.handoverNext = true // status has nothing to say; handover does
					return true
				}
				return false
			}},
	}
}

// TestNextWalk walks every situation in this process, through the command
// line's entry point (cli.MainNet), so that the walks stay fast; one
// process's working directory and environment serve each walk in turn.
// Each command opens a session of its own, as a process of the binary
// does (discovery, settings, caches read from disk); with -short the
// walk's commands share one resident session, as TestNextWalkRandom's
// do, which starts no git process per command: what a session per
// command adds is walked through the binaries by TestNextWalkBinary and
// TestNextWalkRandomBinary. It walks in a test binary of its own
// (walkAside), beside the package's parallel tests.
func TestNextWalk(t *testing.T) {
	if !walkAside(t) {
		return
	}
	for _, sit := range walkSituations() {
		t.Run(sit.name, func(t *testing.T) {
			s := newWalkSandbox(t, sit)
			run := inProcess(t, s)
			if testing.Short() {
				run = resident(t, s.dir)
			}
			walkIn(t, s, sit, run)
		})
	}
}

// TestNextWalkBinary walks a few situations through the real binaries,
// git's dispatch and git-reason--net included. With -short it walks one
// (disagreement: consult through git-reason--net, disagree, resolve,
// conclude, validate): TestNextWalk walks each of them in process, and
// what the binaries add (git's dispatch, the network program, exit
// statuses and streams of real processes) is the same in every situation.
func TestNextWalkBinary(t *testing.T) {
	t.Parallel()
	walks := []string{"critical-all-fail-circuit-opens", "disagreement", "all-skipped-at-consult"}
	if testing.Short() {
		walks = []string{"disagreement"}
	}
	for _, sit := range walkSituations() {
		if !slices.Contains(walks, sit.name) {
			continue
		}
		t.Run(sit.name, func(t *testing.T) {
			t.Parallel()
			s := newWalkSandbox(t, sit)
			walkIn(t, s, sit, func(args ...string) (string, string, int) { return s.run(append([]string{"reason"}, args...)...) })
		})
	}
}

// newWalkSandbox is a repository with the walk's advisors, one commit, and
// each advisor answering as the situation says.
func newWalkSandbox(t *testing.T, sit walkSituation) *sandbox {
	t.Helper()
	s := newSandbox(t, walkAdvisors, map[string]string{"walk-advisor": walkAdvisorScript})
	s.git("commit", "-q", "--allow-empty", "-m", "base")
	home := filepath.Join(filepath.Dir(s.dir), "home")
	for adv, mode := range sit.modes {
		harness.WriteFile(t, filepath.Join(home, "mode-"+adv), mode)
	}
	return s
}

// walkIn walks task T-1 of s in situation sit.
func walkIn(t *testing.T, s *sandbox, sit walkSituation, run walkRun) {
	t.Helper()
	w := &walker{t: t, s: s, run: run, sit: sit, task: "T-1"}
	if sit.before != nil {
		sit.before(w)
	}
	w.walk()
	if sit.wantRecords > 0 {
		if st := w.status(); st.Records != sit.wantRecords {
			t.Errorf("the walk ended with %d records, want %d (ran %s)", st.Records, sit.wantRecords, strings.Join(w.ran, ", "))
		}
	}
}

// inProcess runs git reason in this process, in s's repository and with
// s's environment (and no other git variable), for the rest of t.
func inProcess(t *testing.T, s *sandbox) walkRun {
	t.Helper()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GIT_") {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	for _, kv := range append(s.env, "CI=", "GIT_REASON_PROFILE=") {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	t.Chdir(s.dir)
	return func(args ...string) (string, string, int) {
		var stdout, stderr bytes.Buffer
		code := cli.MainNet(cli.Servers{}, append([]string{"git-reason"}, args...), strings.NewReader(""), &stdout, &stderr)
		return stdout.String(), stderr.String(), code
	}
}

// walk runs the suggested next steps from a task that does not exist yet
// until it is validated and nothing is suggested.
func (w *walker) walk() {
	w.t.Helper()
	// A task that does not exist: the error's hint is the first step.
	_, stderr, code := w.run("status", w.task, "--json")
	var e struct {
		Error struct{ Hint string } `json:"error"`
	}
	if code != 2 || json.Unmarshal([]byte(stderr), &e) != nil || e.Error.Hint == "" {
		w.t.Fatalf("status of a task not started: exit %d, want 2 with a hint\n%s", code, stderr)
	}
	next := strings.TrimPrefix(e.Error.Hint, "start it with ")
	next = strings.Trim(next, "'")
	for step := 0; ; step++ {
		if step == 40 {
			w.t.Fatalf("no end after %d steps: %s", step, strings.Join(w.ran, ", "))
		}
		if step > 0 {
			st := w.status()
			if w.sit.act != nil && w.sit.act(w, st) {
				continue
			}
			next = w.next(st)
			if next == "" && st.PersonStep != nil {
				w.decide(st)
				continue
			}
			if w.peer != nil && !w.merged && strings.HasPrefix(next, "git reason conclude "+w.task) {
				w.concludeInBoth(next)
				continue
			}
			if next == "" {
				if st.Phase != "validated" {
					w.t.Fatalf("nothing suggested in phase %s after %s", st.Phase, strings.Join(w.ran, ", "))
				}
				if _, open := w.handover(); open {
					w.t.Fatalf("validated, nothing suggested, yet handover lists it as open")
				}
				return
			}
		}
		w.follow(next)
	}
}

// next is the step status suggests, checked against handover's.
func (w *walker) next(st walkStatus) string {
	w.t.Helper()
	hnext, open := w.handover()
	if w.handoverNext {
		if !open {
			return ""
		}
		return hnext
	}
	if st.Next != "" && (!open || hnext != st.Next) {
		w.t.Fatalf("status suggests %q, handover %q (open %v)", st.Next, hnext, open)
	}
	return st.Next
}

// follow runs the next step: the first alternative, or the next one when
// a refusal wrote nothing.
func (w *walker) follow(next string) {
	w.t.Helper()
	alts := strings.Split(next, ", or ")
	for i, alt := range alts {
		args := w.fill(parseNext(w.t, alt))
		before := w.records()
		stdout, stderr, code := w.run(args...)
		w.cached = nil
		w.ran = append(w.ran, args[0])
		after := w.records()
		switch {
		case code == 0 || code == 1 && (args[0] == "consult" || args[0] == "validate"):
			// Exit 1: the verb recorded what it observed failing (an
			// advisor, the validated command); the record must be there.
			if after <= before {
				w.t.Fatalf("%q (from %q) exited %d and wrote nothing:\n%s%s", strings.Join(args, " "), next, code, stdout, stderr)
			}
			w.tallyStep(args, code, stdout)
			return
		case code == 3 && after == before && i+1 < len(alts):
			continue // refused, nothing written: the next alternative
		default:
			w.t.Fatalf("%q (from %q) exited %d (records %d → %d):\n%s%s", strings.Join(args, " "), next, code, before, after, stdout, stderr)
		}
	}
}

// decide takes the person's step status marks instead of a next
// command: the walk's person enables the advisors again when the walk
// disabled them and means to, else takes the choice that plans anew. The
// command the choice is followed by must then be admitted.
func (w *walker) decide(st walkStatus) {
	w.t.Helper()
	w.count("person step")
	if st.PersonStep.Decide == "" || len(st.PersonStep.Options) == 0 {
		w.t.Fatalf("a person's step says nothing to decide: %+v", st.PersonStep)
	}
	for _, o := range st.PersonStep.Options {
		switch {
		case w.enable && w.disabled && strings.HasPrefix(o.Choice, "enable one"):
			w.s.run("config", "--unset", "reason.disable")
			w.disabled = false
			w.count("person enables")
			w.follow(o.Then)
			return
		case strings.HasPrefix(o.Then, "git reason plan "+w.task):
			w.count("person plans anew")
			w.follow(o.Then)
			return
		}
	}
	w.t.Fatalf("no choice of the person's step can be taken: %+v", st.PersonStep)
}

// tallyStep counts what a followed command did.
func (w *walker) tallyStep(args []string, code int, stdout string) {
	if w.tally == nil {
		return
	}
	w.count(args[0])
	switch args[0] {
	case "consult":
		if code == 1 {
			w.count("consult with a failure")
		}
		if strings.Contains(stdout, "skipped:") {
			w.count("consult with an advisor skipped")
		}
		if strings.Contains(stdout, " endorse") || strings.Contains(stdout, " oppose") {
			w.count("consult answered")
		}
	case "validate":
		w.count(map[int]string{0: "validate passed", 1: "validate failed"}[code])
	case "assess":
		w.count("assess " + w.sit.materiality + " " + w.sit.reversibility)
	}
	if w.status().Phase == "disputed" {
		w.count("disagreement")
	}
	if w.status().Phase == "reused" {
		w.count("reuse")
	}
}

// concludeInBoth is the sync merge: the task goes to the peer clone,
// both clones conclude it as their next steps say, the peer's goes back,
// and this clone's pull merges the two, after which the walk follows
// next to settle them.
func (w *walker) concludeInBoth(next string) {
	w.t.Helper()
	w.merged = true
	// The task, and the task whose standing conclusion it reuses: a pull
	// of a reuse whose conclusion the clone does not have is quarantined.
	tasks := []string{w.task}
	if r := w.status().ReusesTask; r != "" {
		tasks = append(tasks, r)
	}
	w.admit(append([]string{"push", "origin"}, tasks...)...)
	w.peer.admit(append([]string{"pull", "origin"}, tasks...)...)
	w.peer.cached = nil
	pst := w.peer.status()
	if pst.Next != next {
		w.t.Fatalf("the peer clone's next %q is not this clone's %q", pst.Next, next)
	}
	w.peer.follow(pst.Next)
	w.peer.admit("push", "origin", w.task)
	w.follow(next)
	w.admit("pull", "origin", w.task)
	if st := w.status(); !strings.Contains(st.Next, "--supersedes") {
		w.t.Fatalf("after a merge of two conclusions, next is %q, not a conclusion superseding both", st.Next)
	}
	w.count("sync merge")
}

// parseNext reads one suggested command as the grammar above says.
func parseNext(t *testing.T, next string) []string {
	t.Helper()
	words := strings.Fields(next)
	if len(words) < 4 || words[0] != "git" || words[1] != "reason" {
		t.Fatalf("next %q is not a git reason command with a task", next)
	}
	positional := 1
	if words[2] == "resolve" {
		positional = 2
	}
	out := append([]string{}, words[2:3+positional]...)
	for _, w := range words[3+positional:] {
		switch {
		case strings.HasPrefix(w, "--"), w == "...",
			len(out) > 0 && strings.HasPrefix(out[len(out)-1], "--") && !strings.HasPrefix(w, "("):
			out = append(out, w)
		default:
			return out
		}
	}
	return out
}

// fill replaces the placeholders of a parsed command by values, and gives
// a bare assess the situation's assessment.
func (w *walker) fill(args []string) []string {
	w.t.Helper()
	if args[0] == "assess" && len(args) == 2 {
		subject := w.sit.subject
		if subject == "" {
			subject = "Walked decision of " + w.task
		}
		args = append(args, "--subject", subject, "--question", "Which way?",
			"--materiality", w.sit.materiality, "--reversibility", w.sit.reversibility,
			"--needs", "reasoning", "--evidence", "note::what the walker knows")
		if w.status().Phase != "" {
			args = append(args, "--new-evidence")
		}
		return args
	}
	out := []string{}
	weighed := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "--") || i+1 == len(args) {
			if a != "..." {
				out = append(out, a)
			}
			continue
		}
		i++
		switch v := args[i]; {
		case a == "--decision":
			out = append(out, a, "the walked decision")
		case a == "--local-review" && v == "N=ANSWER":
			for n := range w.status().LocalReview {
				out = append(out, a, strconv.Itoa(n+1)+"=walked answer")
			}
		case a == "--weigh" && strings.HasSuffix(v, "=TREATMENT:REASON"):
			// The step names each consultation to weigh; the walker
			// checks them against what log and show say.
			id := strings.TrimSuffix(v, "=TREATMENT:REASON")
			if !slices.ContainsFunc(w.completed(), func(c string) bool { return len(id) >= 6 && strings.HasPrefix(c, id) }) {
				w.t.Fatalf("the step weighs %q, which is no completed consultation of the latest assessment (%v)", id, w.completed())
			}
			weighed++
			out = append(out, a, id+"=adopted:sound")
		case a == "--evidence" && v == "KIND:REF:SUMMARY":
			out = append(out, a, "note::the walker settled it")
		case a == "--run" && v == "CMD":
			cmd := "true"
			if n := len(w.sit.validate); n > 0 {
				cmd = w.sit.validate[min(w.validations, n-1)]
			}
			w.validations++
			out = append(out, a, cmd)
		case strings.Contains(v, "...") || v == strings.ToUpper(v) && strings.ContainsAny(v, "=:"):
			w.t.Fatalf("the walker cannot fill %s %s", a, v)
		default:
			out = append(out, a, v)
		}
	}
	if weighed > 0 && weighed != len(w.completed()) {
		w.t.Fatalf("the step weighs %d consultations of %d completed (%v)", weighed, len(w.completed()), w.completed())
	}
	return out
}

// completed are the ids of the completed consultations of the task's
// latest assessment, read as a person would: log, then show each plan and
// consultation.
func (w *walker) completed() []string {
	w.t.Helper()
	var entries []struct{ ID, Kind string }
	w.json(&entries, "log", w.task)
	a := w.status().Assessment
	plans := map[string]bool{}
	var ids []string
	for _, e := range entries {
		if e.Kind != "plan" && e.Kind != "consultation" {
			continue
		}
		var r struct {
			Body struct{ Assessment, Plan, Status string } `json:"body"`
		}
		w.json(&r, "show", e.ID)
		switch {
		case e.Kind == "plan" && r.Body.Assessment == a:
			plans[e.ID] = true
		case e.Kind == "consultation" && plans[r.Body.Plan] && r.Body.Status == "completed":
			ids = append(ids, e.ID)
		}
	}
	return ids
}

func (w *walker) admit(args ...string) {
	w.t.Helper()
	stdout, stderr, code := w.run(args...)
	w.cached = nil
	if code != 0 {
		w.t.Fatalf("git reason %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
	}
	w.ran = append(w.ran, args[0])
}

// json runs "git reason ARGS --json", requires success and decodes its
// output into v.
func (w *walker) json(v any, args ...string) {
	w.t.Helper()
	stdout, stderr, code := w.run(append(args, "--json")...)
	if code != 0 {
		w.t.Fatalf("git reason %s --json: exit %d\n%s", strings.Join(args, " "), code, stderr)
	}
	if err := json.Unmarshal([]byte(stdout), v); err != nil {
		w.t.Fatalf("git reason %s --json: %v\n%s", strings.Join(args, " "), err, stdout)
	}
}

func (w *walker) status() walkStatus {
	w.t.Helper()
	if w.cached != nil {
		return *w.cached
	}
	var st walkStatus
	stdout, stderr, code := w.run("status", w.task, "--json")
	switch {
	case code == 2 && strings.Contains(stderr, "no task"):
		return st
	case code != 0:
		w.t.Fatalf("git reason status %s --json: exit %d\n%s", w.task, code, stderr)
	}
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		w.t.Fatalf("git reason status --json: %v\n%s", err, stdout)
	}
	w.cached = &st
	return st
}

func (w *walker) records() int { return w.status().Records }

// handover returns the task's next step in handover and whether it is
// listed as open there.
func (w *walker) handover() (string, bool) {
	w.t.Helper()
	var h struct {
		Open []struct{ Task, Next string } `json:"open"`
	}
	w.json(&h, "handover", "--task", w.task)
	for _, o := range h.Open {
		if o.Task == w.task {
			return o.Next, true
		}
	}
	return "", false
}
