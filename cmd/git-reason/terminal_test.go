package main

// On a terminal, git reason asks instead of failing (issue 26 §4): assess
// prompts for its missing fields and conclude without --decision opens the
// editor git would use on a template. The tests give the real binary a
// pseudo-terminal (creack/pty) and an editor that is a shell script;
// without a terminal the one-line usage errors stay.

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"git-reason/record"
	"git-reason/reliability/harness"
)

// ptySession is git reason running on a pseudo-terminal: what it printed
// so far, and the terminal to type into.
type ptySession struct {
	t    *testing.T
	tty  *os.File
	cmd  *exec.Cmd
	mu   sync.Mutex
	seen bytes.Buffer
	done chan struct{}
}

// startPTY runs "git ARGS" in s with a terminal for its standard input,
// output and error, and extra variables set.
func startPTY(t *testing.T, s *sandbox, extra []string, args ...string) *ptySession {
	t.Helper()
	return startPTYProgram(t, s, extra, "git", args...)
}

// startPTYProgram is startPTY running program (found on s's PATH).
func startPTYProgram(t *testing.T, s *sandbox, extra []string, program string, args ...string) *ptySession {
	t.Helper()
	cmd := exec.Command(program, args...)
	cmd.Dir, cmd.Env = s.dir, append(append([]string{}, s.env...), extra...)
	interruptible()
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatalf("start git %s on a pseudo-terminal: %v", strings.Join(args, " "), err)
	}
	p := &ptySession{t: t, tty: tty, cmd: cmd, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			p.mu.Lock()
			p.seen.Write(buf[:n])
			p.mu.Unlock()
			if err != nil {
				return // EIO once the command has exited
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = tty.Close()
	})
	return p
}

// interruptible makes the programs this test binary starts begin with
// SIGINT at its default, as a terminal's foreground job does. A test
// binary started with SIGINT ignored (a background job of a script:
// sh ignores SIGINT for those, and bench/tests/run.sh runs the binary
// through a tool that passes its own disposition on) passed it on to the
// git it ran on the pseudo-terminal. At Ctrl-C, git's run-command
// cleanup handler then reaped git-reason, the SIGINT it raised again to
// die of was ignored, and its own wait for git-reason failed: "error:
// waitpid for git-reason failed: No child processes", exit 128, where a
// terminal's git dies of SIGINT. go test itself catches SIGINT, so the
// binaries it runs never start ignoring it. A handler the binary
// installs is reset to the default in what it starts; the binary itself
// still does not die of SIGINT, as it did not while ignoring it.
func interruptible() {
	if signal.Ignored(os.Interrupt) {
		signal.Notify(make(chan os.Signal, 1), os.Interrupt)
	}
}

// expect waits until the terminal has shown want, and returns what it showed.
func (p *ptySession) expect(want string) string {
	p.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		p.mu.Lock()
		got := p.seen.String()
		p.mu.Unlock()
		if strings.Contains(got, want) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.t.Fatalf("the terminal never showed %q; it showed:\n%s", want, p.output())
	return ""
}

// typeLine types text and a return into the terminal.
func (p *ptySession) typeLine(text string) {
	p.t.Helper()
	if _, err := p.tty.WriteString(text + "\r"); err != nil {
		p.t.Fatal(err)
	}
}

func (p *ptySession) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seen.String()
}

// wait returns the command's exit status once it has ended.
func (p *ptySession) wait() int {
	p.t.Helper()
	err := p.cmd.Wait()
	<-p.done
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		return ee.ExitCode()
	}
	if err != nil {
		p.t.Fatal(err)
	}
	return 0
}

func TestAssessPromptsOnATerminal(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, fakeVendor, nil)
	p := startPTY(t, s, nil, "reason", "assess", "T-1", "--subject", "Queue backend")
	p.expect("? Question (what is uncertain): ")
	p.typeLine("Keep the queue in the database?")
	p.expect("? Materiality (trivial, minor, material, critical): ")
	p.typeLine("huge")
	p.expect(`"huge" is not one of trivial, minor, material, critical`)
	p.typeLine("critical")
	p.expect("? Reversibility (reversible, costly, irreversible): ")
	p.typeLine("costly")
	p.expect("? Evidence, as KIND:REF:SUMMARY")
	p.typeLine("note::peak load is 2k messages a second")
	if code := p.wait(); code != 0 {
		t.Fatalf("assess on a terminal exited %d:\n%s", code, p.output())
	}
	if out := p.output(); strings.Contains(out, "Subject") {
		t.Errorf("assess asked for the subject it was given:\n%s", out)
	}
	var a struct {
		Body struct {
			Subject, Question, Materiality, Reversibility string
			Evidence                                      []struct{ Kind, Summary string }
		} `json:"body"`
	}
	var st struct{ Assessment string }
	s.reasonJSON(&st, "status", "T-1")
	s.reasonJSON(&a, "show", st.Assessment)
	b := a.Body
	if b.Subject != "Queue backend" || b.Question != "Keep the queue in the database?" || b.Materiality != "critical" ||
		b.Reversibility != "costly" || len(b.Evidence) != 1 || b.Evidence[0].Summary != "peak load is 2k messages a second" {
		t.Errorf("the recorded assessment is not what was typed: %+v", b)
	}

	// Ctrl-D at a prompt: bad input, nothing written.
	p = startPTY(t, s, nil, "reason", "assess", "T-2")
	p.expect("? Subject (what the decision is about): ")
	if _, err := p.tty.Write([]byte{4}); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(); code != 2 || !strings.Contains(p.output(), "no answer for --subject: nothing was written") {
		t.Errorf("Ctrl-D at the first prompt: exit %d, want 2 saying nothing was written:\n%s", code, p.output())
	}
	if _, _, code := s.run("rev-parse", "-q", "--verify", "refs/reasoning/tasks/T-2"); code == 0 {
		t.Error("an aborted assess wrote task T-2")
	}
}

// TestCtrlCStopsAPrompt: the program catches Ctrl-C so that a command
// stops cleanly, and a prompt (or --file - reading the terminal) went on
// waiting for a line: Ctrl-C did nothing until Ctrl-D. It stops the
// command at once, as at git's prompts: nothing said (git says nothing;
// the terminal shows ^C), the shell's status for an interrupt (130),
// nothing written.
func TestCtrlCStopsAPrompt(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, fakeVendor, nil)
	ctrlCStopsAssess(t, s, "a prompt", "? Subject (what the decision is about): ")
	ctrlCStopsAssess(t, s, "--file -", "Reading the body as JSON from standard input; end it with Ctrl-D.", "--file", "-")
}

// TestCtrlCStopsAPromptIgnoringSIGINT is TestCtrlCStopsAPrompt in a test
// binary started with SIGINT ignored, as a background job of a script
// starts it: the git on the pseudo-terminal inherited that, and exited
// 128 saying "waitpid for git-reason failed: No child processes"
// (interruptible). It runs in a test binary of its own that sh starts in
// the background: this process cannot ignore SIGINT for a while and then
// die of it again, which the tests beside it would see.
func TestCtrlCStopsAPromptIgnoringSIGINT(t *testing.T) {
	if !runAside(t, ignoringSIGINTEnv, "sh", "-c", `"$@" & wait $!`, "sh") {
		return
	}
	if !signal.Ignored(os.Interrupt) {
		t.Fatal("the test binary was to start with SIGINT ignored, and did not")
	}
	s := newSandbox(t, fakeVendor, nil)
	ctrlCStopsAssess(t, s, "a prompt", "? Subject (what the decision is about): ")
}

// ignoringSIGINTEnv, set to 1, runs TestCtrlCStopsAPromptIgnoringSIGINT in
// this process, as the child runAside starts for it does.
const ignoringSIGINTEnv = "GIT_REASON_TEST_IGNORING_SIGINT"

// ctrlCStopsAssess runs git reason assess T-3 with extra arguments on a
// pseudo-terminal, types Ctrl-C once it has shown shown, and checks that
// it stopped as an interrupt (what names the moment) and wrote nothing.
func ctrlCStopsAssess(t *testing.T, s *sandbox, what, shown string, extra ...string) {
	t.Helper()
	p := startPTY(t, s, nil, append([]string{"reason", "assess", "T-3"}, extra...)...)
	p.expect(shown)
	code := p.ctrlC(what)
	// git, which ran git-reason, dies of the same SIGINT once
	// git-reason has exited, as for any command it runs.
	ws, _ := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	stopped := code == 130 || ws.Signaled() && ws.Signal() == syscall.SIGINT
	if out := p.output(); !stopped || strings.Contains(out, "git reason:") {
		t.Errorf("Ctrl-C at %s: exit %d (%v), want 130 or SIGINT, saying nothing as git does:\n%s", what, code, p.cmd.ProcessState, out)
	}
	if _, _, code := s.run("rev-parse", "-q", "--verify", "refs/reasoning/tasks/T-3"); code == 0 {
		t.Fatalf("an interrupted assess (%s) wrote task T-3", what)
	}
}

// TestCtrlCStopsAGitUnderWay: Ctrl-C reaches the git process a command is
// waiting for as it reaches the command (the terminal signals the whole
// foreground group), and the git may die of it before the command sees
// the interrupt. The command said exit 1 and "git rev-parse …: exit
// status -1", as if git had failed; it dies of SIGINT, as git does (a
// shell says 130; an exit of 130 let a shell loop or xargs go on), saying
// nothing as git does (with --json, the error "interrupted").
// git-reason is run directly, so that the git on its PATH is the sandbox's
// (git puts its own directory first for the commands it runs): a git that
// waits, in rev-parse, the first git a read runs after its settings.
func TestCtrlCStopsAGitUnderWay(t *testing.T) {
	t.Parallel()
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	s := newSandbox(t, fakeVendor, map[string]string{"git": `case "$*" in
rev-parse*)
	if [ -n "$GIT_REASON_TEST_GIT_DIES_OF" ]; then kill -"$GIT_REASON_TEST_GIT_DIES_OF" $$; fi
	touch "$HOME/waiting"; sleep 60 ;;
esac
exec "` + realGit + `" "$@"
`})
	s.git("reason", "assess", "T", "--subject", "s", "--question", "q", "--materiality", "minor", "--reversibility", "reversible")
	waiting := filepath.Join(filepath.Dir(s.dir), "home", "waiting")
	for _, args := range [][]string{{"status"}, {"log", "T", "--json"}} {
		_ = os.Remove(waiting)
		p := startPTYProgram(t, s, nil, "git-reason", args...)
		deadline := time.Now().Add(time.Minute)
		for {
			if _, err := os.Stat(waiting); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: git rev-parse never ran:\n%s", args[0], p.output())
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond) // the wrapper is in its sleep
		p.ctrlC(args[0])
		out := p.output()
		if !diedOfSIGINT(p) || !saysInterrupted(args, out) {
			t.Errorf("Ctrl-C during %s's git rev-parse: %v, want death by SIGINT saying nothing (with --json, \"interrupted\") and naming no git command:\n%s", args[0], p.cmd.ProcessState, out)
		}
	}
	// Which of the two sees the interrupt first is a race: git dying of
	// SIGINT is an interrupt by itself, with no signal to git reason
	// (in CI, a loaded machine, log --json said "usage": discovery's
	// error lost git's).
	for _, args := range [][]string{{"status"}, {"log", "T", "--json"}} {
		p := startPTYProgram(t, s, []string{"GIT_REASON_TEST_GIT_DIES_OF=INT"}, "git-reason", args...)
		p.wait()
		if out := p.output(); !diedOfSIGINT(p) || !saysInterrupted(args, out) {
			t.Errorf("git rev-parse died of SIGINT under %s: %v, want death by SIGINT saying nothing (with --json, \"interrupted\") and naming no git command:\n%s", args[0], p.cmd.ProcessState, out)
		}
	}
	// SIGTERM and SIGHUP, sent to the group, race the same way
	// (bench/signals/crashloop.sh: "discover repository …: killed by
	// signal terminated", exit 2, once in 400 runs): the command ends as
	// its signal handler ends it, with the shell's status and nothing said.
	for _, sig := range []string{"TERM", "HUP"} {
		p := startPTYProgram(t, s, []string{"GIT_REASON_TEST_GIT_DIES_OF=" + sig}, "git-reason", "status")
		code := p.wait()
		want := map[string]int{"TERM": 143, "HUP": 129}[sig]
		if out := p.output(); code != want || strings.Contains(out, "git reason:") {
			t.Errorf("git rev-parse died of SIG%s under status: exit %d, want %d saying nothing:\n%s", sig, code, want, out)
		}
	}
}

// diedOfSIGINT reports whether the process p ran, ended, died of SIGINT.
func diedOfSIGINT(p *ptySession) bool {
	ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGINT
}

// saysInterrupted reports whether out is what a command line args that
// Ctrl-C stopped shows: nothing of its own, as git shows, but the JSON
// error "interrupted" with --json.
func saysInterrupted(args []string, out string) bool {
	if args[len(args)-1] == "--json" {
		return strings.Contains(out, `"code": "interrupted"`) && !strings.Contains(out, "rev-parse")
	}
	return !strings.Contains(out, "git reason:")
}

// ctrlC types Ctrl-C into the terminal and returns the command's exit
// status; the test fails if it has not stopped 20 seconds later. what
// names the moment in that failure.
func (p *ptySession) ctrlC(what string) int {
	p.t.Helper()
	if _, err := p.tty.Write([]byte{3}); err != nil {
		p.t.Fatal(err)
	}
	exited := make(chan int, 1)
	go func() { exited <- p.wait() }()
	select {
	case code := <-exited:
		return code
	case <-time.After(20 * time.Second):
		p.t.Fatalf("Ctrl-C at %s did not stop the command:\n%s", what, p.output())
		return 0
	}
}

// editorScript is GIT_EDITOR: it keeps a copy of the template it was
// given in $HOME/template, then fills the file as the script body says.
func editorScript(t *testing.T, s *sandbox, name, body string) string {
	t.Helper()
	home := filepath.Join(filepath.Dir(s.dir), "home")
	path := filepath.Join(filepath.Dir(s.dir), "bin", name)
	script := "#!/bin/sh\ncp \"$1\" \"" + filepath.Join(home, "template") + "\"\n" + body
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func (s *sandbox) template() string {
	s.t.Helper()
	data, err := os.ReadFile(filepath.Join(filepath.Dir(s.dir), "home", "template"))
	if err != nil {
		s.t.Fatalf("the editor was not run: %v", err)
	}
	return string(data)
}

// templateHolds fails the test for each of wants the template the editor
// was given does not hold; what names it in the failure.
func (s *sandbox) templateHolds(what string, wants ...string) {
	s.t.Helper()
	tpl := s.template()
	for _, want := range wants {
		if !strings.Contains(tpl, want) {
			s.t.Errorf("%s lacks %q:\n%s", what, want, tpl)
		}
	}
}

func TestConcludeInTheEditor(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, walkAdvisors, map[string]string{"walk-advisor": walkAdvisorScript})
	s.plan("T-1")
	s.reason("consult", "T-1")

	// The editor writes a decision, a rationale of two lines and weighs
	// each answer.
	editor := editorScript(t, s, "fill-editor", `sed -i -e 's/^decision: $/decision: Keep the queue in the database/' \
	-e 's/^rationale: $/rationale: the load is low/' -e 's/^\(weigh [0-9A-Z]*=\)$/\1adopted:sound/' "$1"
sed -i -e '/^rationale:/a\
and it is one system less' "$1"
`)
	p := startPTY(t, s, []string{"GIT_EDITOR=" + editor}, "reason", "conclude", "T-1")
	if code := p.wait(); code != 0 {
		t.Fatalf("conclude in the editor exited %d:\n%s", code, p.output())
	}
	s.templateHolds("the template", "decision: \n", "rationale: \n", "# Conclude task T-1: Queue backend for T-1 (critical, costly)\n",
		"# Question: Keep the queue in the database?\n", "#   adv-a (endorse): adv-a: endorse\nweigh ", "#   adv-b (endorse): adv-b: endorse\nweigh ")
	var c struct {
		Body struct {
			Decision, Rationale string
			Weighed             []struct{ Consultation, Treatment, Reason string }
		} `json:"body"`
	}
	var st struct {
		Phase  string
		Latest string
	}
	s.reasonJSON(&st, "status", "T-1")
	if st.Phase != "concluded" {
		t.Fatalf("phase %s after conclude in the editor", st.Phase)
	}
	var log []struct{ ID, Kind string }
	s.reasonJSON(&log, "log", "T-1", "--kind", "conclusion")
	s.reasonJSON(&c, "show", log[0].ID)
	if c.Body.Decision != "Keep the queue in the database" || c.Body.Rationale != "the load is low\nand it is one system less" ||
		len(c.Body.Weighed) != 2 || c.Body.Weighed[0].Treatment != "adopted" || c.Body.Weighed[1].Reason != "sound" {
		t.Errorf("the conclusion is not what the editor wrote: %+v", c.Body)
	}
}

func TestConcludeEditorLocalReviewFromCoreEditor(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, fakeVendor, nil)
	localReviewTask(s)
	editor := editorScript(t, s, "review-editor", `sed -i -e 's/^decision: $/decision: after one release/' \
	-e 's/^local-review \([0-9]\)=$/local-review \1=answer \1/' "$1"
`)
	s.git("config", "core.editor", editor) // as git var GIT_EDITOR finds it
	p := startPTY(t, s, nil, "reason", "conclude", "T-1", "--local-review", "2=usage logs show two callers")
	if code := p.wait(); code != 0 {
		t.Fatalf("conclude in core.editor exited %d:\n%s", code, p.output())
	}
	s.templateHolds("the template", "#   1. What alternatives were considered, and why were they set aside?\nlocal-review 1=\n",
		"local-review 2=usage logs show two callers\n", "local-review 5=\n")
	c := lastConclusion(s, "T-1")
	if c.Decision != "after one release" || len(c.LocalReview) != 5 || c.LocalReview[1].Answer != "usage logs show two callers" ||
		c.LocalReview[4].Answer != "answer 5" {
		t.Errorf("the conclusion is not what the editor wrote: %+v", c)
	}
}

// A conclusion written in the editor and refused keeps what was typed, as
// git keeps a failed commit's message: the refusal says where and names
// the template's line to fill (not a flag), and the next conclude opens
// the kept text, which goes once the conclusion is admitted.
func TestConcludeEditorKeepsARefusedText(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, fakeVendor, nil)
	localReviewTask(s)
	refs := s.git("for-each-ref", "refs/reasoning")
	partial := editorScript(t, s, "partial-editor", `sed -i -e 's/^decision: $/decision: after one release/' \
	-e 's/^local-review \([1-4]\)=$/local-review \1=typed answer \1/' "$1"
`)
	p := startPTY(t, s, []string{"GIT_EDITOR=" + partial}, "reason", "conclude", "T-1")
	kept := filepath.Join(s.dir, ".git", "reason", "conclude", "T-1.EDITMSG")
	want := `is unanswered: fill the line 'local-review 5='; what you wrote is kept in ` + kept + `, which 'git reason conclude T-1' opens again`
	if code, out := p.wait(), p.output(); code != 3 || !strings.Contains(out, want) || strings.Contains(out, "--local-review") {
		t.Fatalf("a refused edited conclusion: exit %d, want 3 saying %q:\n%s", code, want, out)
	}
	if got := s.git("for-each-ref", "refs/reasoning"); got != refs {
		t.Errorf("a refused conclusion moved the refs")
	}
	finish := editorScript(t, s, "finish-editor", `sed -i -e 's/^local-review 5=$/local-review 5=typed answer 5/' "$1"`+"\n")
	p = startPTY(t, s, []string{"GIT_EDITOR=" + finish}, "reason", "conclude", "T-1")
	if code := p.wait(); code != 0 {
		t.Fatalf("conclude from the kept text exited %d:\n%s", code, p.output())
	}
	s.templateHolds("the second edit's text (it starts from the kept one)", "# Kept after git reason refused this conclusion of assessment ",
		"fill the line 'local-review 5='\n", "decision: after one release\n", "local-review 4=typed answer 4\n", "local-review 5=\n")
	c := lastConclusion(s, "T-1")
	if c.Decision != "after one release" || len(c.LocalReview) != 5 || c.LocalReview[0].Answer != "typed answer 1" ||
		c.LocalReview[4].Answer != "typed answer 5" {
		t.Errorf("the conclusion is not what the two edits wrote: %+v", c)
	}
	if _, err := os.Stat(kept); !os.IsNotExist(err) {
		t.Errorf("the kept text outlived the conclusion it became: %v", err)
	}
}

// In a shared repository (core.sharedRepository) conclude's template and
// the text a refusal keeps are the group's to rewrite, as git's own files
// are: REASON_EDITMSG was made 0600 and reason/conclude/ 0700 whatever the
// setting, so another member's next conclude failed ('write the conclusion
// template: open .git/REASON_EDITMSG: permission denied').
func TestConcludeEditorInASharedRepository(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, fakeVendor, nil)
	s.git("config", "core.sharedRepository", "group")
	localReviewTask(s)
	decideOnly := editorScript(t, s, "decide-editor", `sed -i -e 's/^decision: $/decision: after one release/' "$1"`+"\n")
	p := startPTY(t, s, []string{"GIT_EDITOR=" + decideOnly}, "reason", "conclude", "T-1")
	if code := p.wait(); code != 3 {
		t.Fatalf("a conclusion with its local review unanswered: exit %d, want 3:\n%s", code, p.output())
	}
	for path, want := range map[string]os.FileMode{
		"REASON_EDITMSG":              0o660,
		"reason/conclude":             os.ModeDir | os.ModeSetgid | 0o770,
		"reason/conclude/T-1.EDITMSG": 0o660,
	} {
		fi, err := os.Stat(filepath.Join(s.dir, ".git", path))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode() & (os.ModeDir | os.ModeSetgid | 0o777); got&want != want {
			t.Errorf(".git/%s is %v, not the group's as git makes a shared repository's files (%v at least)", path, got, want)
		}
	}
}

func TestConcludeEditorAborts(t *testing.T) {
	t.Parallel()
	s := plannedTrivial(t)
	refs := s.git("for-each-ref", "refs/reasoning")
	for name, body := range map[string]string{
		"empty-editor":     `: > "$1"` + "\n",
		"untouched-editor": "",
	} {
		editor := editorScript(t, s, name, body)
		p := startPTY(t, s, []string{"GIT_EDITOR=" + editor}, "reason", "conclude", "T-1")
		if code := p.wait(); code != 2 || !strings.Contains(p.output(), "aborting the conclusion: the decision was left empty, so nothing was written") {
			t.Errorf("%s: exit %d, want 2 saying the conclusion was aborted:\n%s", name, code, p.output())
		}
		if got := s.git("for-each-ref", "refs/reasoning"); got != refs {
			t.Errorf("%s: an aborted conclusion moved the refs:\n%s\nwant\n%s", name, got, refs)
		}
	}
	// An editor that fails writes nothing either.
	editor := editorScript(t, s, "failing-editor", "exit 1\n")
	p := startPTY(t, s, []string{"GIT_EDITOR=" + editor}, "reason", "conclude", "T-1")
	if code := p.wait(); code != 1 || !strings.Contains(p.output(), "failed (exit status 1): nothing was written") {
		t.Errorf("a failing editor: exit %d, want 1:\n%s", code, p.output())
	}
	if got := s.git("for-each-ref", "refs/reasoning"); got != refs {
		t.Errorf("a failing editor moved the refs")
	}
}

// Without a terminal nothing is asked and no editor runs: the one-line
// usage errors stay, exit 2.
func TestNoTerminalKeepsTheErrors(t *testing.T) {
	t.Parallel()
	s := plannedTrivial(t)
	editor := editorScript(t, s, "never-editor", "exit 0\n")
	s.env = append(s.env, "GIT_EDITOR="+editor)
	_, stderr, code := s.run("reason", "conclude", "T-1")
	if code != 2 || !strings.HasPrefix(stderr, "git reason: missing --decision: usage: git reason conclude ") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("conclude without a terminal: exit %d, want 2 and one line:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(s.dir), "home", "template")); err == nil {
		t.Error("conclude without a terminal ran the editor")
	}
	_, stderr, code = s.run("reason", "assess", "T-2", "--subject", "S")
	if code != 2 || !strings.HasPrefix(stderr, "git reason: missing --question: usage: git reason assess ") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("assess without a terminal: exit %d, want 2 and one line:\n%s", code, stderr)
	}
}

// plannedTrivial is a sandbox whose task T-1 is a trivial decision,
// planned: it needs no review, only a decision.
func plannedTrivial(t *testing.T) *sandbox {
	t.Helper()
	s := newSandbox(t, fakeVendor, nil)
	s.assessTrivial("T-1", "Retry budget", "Three or five?")
	s.reason("plan", "T-1")
	return s
}

// TestReportsAreTextOnATerminal: on a terminal, handover is text (an
// address reads as written, nothing escaped for HTML or markdown), as
// issue 26 §4 asks; in a pipe it stays markdown, what a script expects.
func TestReportsAreTextOnATerminal(t *testing.T) {
	t.Parallel()
	s := plannedTrivial(t)
	p := startPTY(t, s, []string{"GIT_PAGER=cat", "PAGER=cat"}, "reason", "handover", "--task", "T-1")
	if code := p.wait(); code != 0 {
		t.Fatalf("handover on a terminal: exit %d\n%s", code, p.output())
	}
	out := p.output()
	if !strings.Contains(out, "Ada Tester <ada@example.invalid>") || strings.Contains(out, "&lt;") || strings.Contains(out, `\(`) {
		t.Errorf("handover on a terminal is not plain text:\n%s", out)
	}
	piped := s.reason("handover", "--task", "T-1")
	if !strings.Contains(piped, "Ada Tester &lt;ada@example.invalid&gt;") {
		t.Errorf("handover in a pipe is not markdown:\n%s", piped)
	}
}

// conclusionBody is what the editor tests read back of a conclusion.
type conclusionBody struct {
	Decision    string
	LocalReview []struct{ Item, Answer string } `json:"local_review"`
}

// lastConclusion is the body of task's newest conclusion.
func lastConclusion(s *sandbox, task string) conclusionBody {
	var log []struct{ ID string }
	s.reasonJSON(&log, "log", task, "--kind", "conclusion")
	var c struct {
		Body conclusionBody `json:"body"`
	}
	s.reasonJSON(&c, "show", log[0].ID)
	return c.Body
}

// localReviewTask starts T-1 with a critical assessment and its plan,
// which with no advisor is a local review of five items.
func localReviewTask(s *sandbox) {
	s.reason("assess", "T-1", "--subject", "Drop v1 exports", "--question", "Now or after a release?",
		"--materiality", "critical", "--reversibility", "irreversible", "--evidence", "note::two customers")
	s.reason("plan", "T-1")
}

// TestQuittingThePagerIsQuiet: a person who quits the pager before the
// end of a long log got "git reason: write |1: broken pipe" and exit 1.
// The command stops as git log does when its pager is quit: nothing said,
// the status of a process a closed pipe ended (141).
func TestQuittingThePagerIsQuiet(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, fakeVendor, nil)
	// About 110 KB of log: more than a pipe holds (64 KiB), so the pager
	// (which quits at once, as after q) is gone while the log is still
	// written. The task's name is the longest allowed, as it starts every
	// line: 600 records make the size 2,000 with a short name did.
	task := strings.Repeat("L", record.MaxTaskLen)
	harness.BulkTaskT(t, s.dir, task, 600)
	p := startPTY(t, s, []string{"GIT_PAGER=true"}, "reason", "log", task)
	code := p.wait()
	if out := p.output(); code != 141 || strings.Contains(out, "broken pipe") || strings.Contains(out, "git reason:") {
		t.Errorf("log whose pager was quit: exit %d, want 141 and nothing said:\n%s", code, out)
	}
}

// TestGitProgressOnATerminalIsFiltered: on a terminal pull shows git's
// progress as git wrote it, and with it whatever the remote's side wrote
// to git's standard error (its upload-pack, a server's messages): those
// pass the printable filter, the line ends kept. A remote that wrote an
// escape sequence and a bidirectional override had them reach the
// terminal raw.
func TestGitProgressOnATerminalIsFiltered(t *testing.T) {
	t.Parallel()
	s := plannedTrivial(t)
	upload := filepath.Join(filepath.Dir(s.dir), "bin", "upload-pack")
	script := "#!/bin/sh\nprintf 'remote side \\033[2Jwipe \\342\\200\\256gol\\r' >&2\nexec git-upload-pack \"$@\"\n"
	if err := os.WriteFile(upload, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s.git("remote", "add", "far", "file://"+s.dir)
	s.git("config", "remote.far.uploadpack", upload)
	p := startPTY(t, s, []string{"GIT_PROGRESS_DELAY=0"}, "reason", "pull", "far")
	if code := p.wait(); code != 0 {
		t.Fatalf("pull on a terminal: exit %d\n%s", code, p.output())
	}
	out := p.output()
	if !strings.Contains(out, `remote side \x1b[2Jwipe \u202egol`+"\r") || strings.Contains(out, "\x1b[2J") || strings.Contains(out, "\u202e") {
		t.Errorf("pull on a terminal showed the remote's side raw, or not at all:\n%q", out)
	}
}
