package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"git-reason/advisor"
	"git-reason/advisor/transport"
	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/cmd/git-reason/internal/settings"
	"git-reason/gitstore/git"
	"git-reason/record"
)

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
	exitRefused = 3
)

// Main runs the command line with args (args[0] is the program) and returns
// the exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(nil, args, stdin, stdout, stderr)
}

// run is Main, with the network verbs run by s, or in NetProgram when s is
// nil. A process that Ctrl-C stopped (exit 130) dies of SIGINT once it
// has said what it had to, as git's commands do: a shell loop or xargs
// running it stops there, where an exit of 130 let them go on to the next
// command. Run with streams of its own (a caller inside a program), it
// returns 130.
func run(s *Servers, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	code := runArgs(s, args, stdin, stdout, stderr)
	if code == 130 && stdout == io.Writer(os.Stdout) && stderr == io.Writer(os.Stderr) {
		dieOf(syscall.SIGINT)
	}
	return code
}

// runArgs is run up to the exit status.
func runArgs(s *Servers, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	defer removeLocksOnSignal()()
	defer ops.WriteCost(args[1:]) // for tests that count what a command read
	for i, a := range args[1:] {
		if !utf8.ValidString(a) {
			fmt.Fprintf(stderr, "git reason: argument %d (%s) is not valid UTF-8: nothing was written\n", i+1, record.Printable(strings.ToValidUTF8(a, "\uFFFD")))
			return exitUsage
		}
	}
	app := newApp(s, args, stdin, stdout, stderr)
	out, _ := app.Writer.(*outputWriter)
	var noHelp string
	var noHelpIn *cli.Command // the verb whose sub-verb noHelp is not
	app.CommandNotFound = func(c *cli.Context, name string) { noHelp, noHelpIn = name, c.Command }
	args, err := expandFlags(app, args)
	if err == nil {
		args = colourAlone(args)
		app.Metadata["args"] = args // as the verbs read them, and NetProgram is given them
		err = app.RunContext(ctx, reorder(app, args))
	}
	if m, ok := app.Metadata["progress"].(*progressMeter); ok {
		m.end() // a step an error or an interrupt stopped
	}
	switch {
	case err != nil || noHelp == "":
	case noHelpIn != nil && noHelpIn.Name != app.Name && len(noHelpIn.Subcommands) > 0:
		// "git reason task bogus" (or "task help bogus"): a sub-verb
		// that does not exist, not a help topic.
		err = ops.Usage("unknown command %q: %s", noHelpIn.Name+" "+noHelp, nearestVerb(noHelpIn.Subcommands, noHelpIn.HelpName, noHelp))
	default:
		err = ops.Usage("no help for %q: %s", noHelp, unknownVerb(app, noHelp))
	}
	if err == nil {
		err = out.failure()
	}
	if err == nil {
		return exitOK
	}
	if f, ok := errors.AsType[forwarded](err); ok {
		return int(f) // NetProgram has reported it
	}
	if sig := git.KilledBy(err); sig == syscall.SIGTERM || sig == syscall.SIGHUP || sig == syscall.SIGQUIT {
		// The signal that ended git ends this command too: sent to its
		// process group (timeout(1), a CI job cancelled, a terminal
		// closed), it reached git first, and the command said git had
		// failed ("discover repository …: exit status -1", exit 2)
		// before it died of it. It ends as removeLocksOnSignal ends it,
		// with the shell's status for the signal and nothing said.
		releaseFor(sig)
		return 128 + int(sig)
	}
	if (ctx.Err() != nil || git.Interrupted(err)) && exitCode(err) != 130 {
		// Ctrl-C: what stopped is said as git says it, not as Go's
		// context does, with the shell's status for an interrupt. A
		// terminal sends it to the git processes under way too, and
		// whichever notices first says why the command stopped: the
		// context, or a git that died of the interrupt ("signal:
		// interrupt", which said exit 1 and a git command's failure).
		err = interruptedError{}
	}
	code := exitCode(err)
	msg := strings.TrimSpace(deniedMessage(err))
	if wantsJSON(args) {
		printJSONError(stderr, code, msg, verbOf(app, args))
		return code
	}
	if _, ok := err.(interruptedError); ok {
		// Said by nothing, as git says nothing: the terminal showed ^C,
		// and the shell knows the status. A verb that must say what
		// the interrupt left (consult's cancelled advisors) says it
		// with an error of its own.
		return code
	}
	if msg != "" {
		line := "git reason: " + record.PrintableText(msg)
		if code == exitRefused && refusalColour(app, stderr) {
			line = sgrRed + line + sgrReset
		}
		fmt.Fprintln(stderr, line)
	}
	return code
}

// deniedMessage is err's message, told what to do when a file (of the
// repository, or elsewhere: the user's configuration) could not be written or read for its permissions or a
// read-only file system: the write said only "open …/objects/pack/
// tmp_obj_…: permission denied" (git: "insufficient permission for
// adding an object"). The file's part of the message names the directory
// it was to be made in when it is not there.
func deniedMessage(err error) string {
	msg := err.Error()
	pe, ok := errors.AsType[*fs.PathError](err)
	if !ok || !strings.HasSuffix(msg, pe.Error()) {
		return msg
	}
	where := pe.Path
	if _, serr := os.Lstat(where); serr != nil {
		where = filepath.Dir(where)
	}
	head := strings.TrimSuffix(msg, pe.Error())
	switch {
	case errors.Is(pe.Err, syscall.EROFS):
		return fmt.Sprintf("%s%s is on a read-only file system: mount it read-write, or work in a clone that is writable", head, where)
	case errors.Is(pe.Err, fs.ErrPermission) && advisor.InRepository(where):
		return fmt.Sprintf("%spermission denied in %s: make the repository's files this user's (a git command once run as root leaves them root's), or run git reason as their owner", head, where)
	case errors.Is(pe.Err, fs.ErrPermission):
		return fmt.Sprintf("%spermission denied in %s: make it writable by this user, or run git reason as its owner", head, where)
	}
	return msg
}

// removeLocksOnSignal makes SIGTERM, SIGHUP and SIGQUIT end the process as
// they end git's commands: the locks it holds are removed (git.RemoveHeld),
// the signal is passed on to the git processes it runs (git.Forward), and
// it dies of the signal (exit 143 for SIGTERM). SIGQUIT (a terminal's
// Ctrl-\) ended it as it ends any Go program: every goroutine's stack on
// stderr, exit 2 (bad usage's status), its locks left. Killed with a lock held
// (a ref's, the origin's, a cache's), it left the lock, and every later
// write of that file waited ten seconds and failed until a person removed
// it. While a verb serves, SIGTERM ends the verb's context instead
// (untilStopped). It returns the function that stops this.
func removeLocksOnSignal() (stop func()) {
	ch := make(chan os.Signal, 1)
	for _, sig := range endingSignals {
		// A signal the process was started to ignore (nohup) stays
		// ignored: Notify would catch it, and the process would die of
		// it.
		if !signal.Ignored(sig) {
			signal.Notify(ch, sig)
		}
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case sig := <-ch:
				if stop := serving.Load(); sig == syscall.SIGTERM && stop != nil {
					(*stop)()
					continue
				}
				releaseFor(sig)
				dieOf(sig.(syscall.Signal))
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// endingSignals are the signals that end the process as they end git's
// commands, the locks removed (removeLocksOnSignal); SIGINT ends it
// through the verb's context.
var endingSignals = []os.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// dieOf ends the process with sig at its default action, as a shell's
// status and its wait see a program the signal killed; if sig stays
// ignored (the process started so), it exits with the shell's status for
// it. SIGQUIT's default, in a Go program, is the runtime's stack dump
// and exit 2: the process exits 131 instead, the shell's status for it.
func dieOf(sig syscall.Signal) {
	if sig == syscall.SIGQUIT {
		os.Exit(128 + int(sig))
	}
	signal.Reset(sig)
	_ = syscall.Kill(os.Getpid(), sig)
	time.Sleep(time.Second) // the signal, delivered again, ends the process
	os.Exit(128 + int(sig))
}

// releaseFor readies the process to die of sig as git's commands do: the
// locks it holds removed, sig passed on to the git processes it runs and
// to the process groups of the advisors it asks.
func releaseFor(sig os.Signal) {
	git.RemoveHeld()
	git.Forward(sig)
	transport.ForwardToGroups(sig.(syscall.Signal))
}

// interruptedError is a command Ctrl-C stopped. What a write had written
// stays (a record is written whole or not at all), and what a read had
// read is kept for the next command: there is nothing to tell, and only
// --json's error says it.
type interruptedError struct{}

func (interruptedError) Error() string   { return "interrupted" }
func (interruptedError) exitStatus() int { return 130 }

// refusalColour reports whether a refusal on stderr is coloured: only
// when the verb opened a repository, whose color.reason/color.ui and
// NO_COLOR decide for stderr as for any stream.
func refusalColour(app *cli.App, stderr io.Writer) bool {
	sess, ok := app.Metadata["session"].(*ops.Session)
	if !ok || sess == nil {
		return false
	}
	st, err := sess.Settings()
	when, _ := app.Metadata["colour"].(settings.Color)
	return err == nil && colourOn(st, when, stderr, false)
}

// wantsJSON reports whether the command line asked for JSON output, so
// that an error is JSON too: as the flags are parsed, with one dash or
// two, and --json=false asks for none.
func wantsJSON(args []string) bool {
	json := false
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		switch name {
		case "jq":
			return true
		case "json":
			json = true
			if hasValue {
				json, _ = strconv.ParseBool(value)
			}
		}
	}
	return json
}

// jsonError is an error as --json prints it on stderr.
type jsonError struct {
	Error struct {
		Code    string `json:"code"`    // usage, refused, failure, interrupted
		Message string `json:"message"` // what was wrong
		Hint    string `json:"hint"`    // what to do: the message's own advice, else the verb's help
	} `json:"error"`
}

// printJSONError prints {"error": {"code", "message", "hint"}}: the code
// names the exit status, the hint is the message's "run '…'" or "see '…'"
// advice (or its "do this with '…'" clause), else where the verb's help
// is: never empty.
func printJSONError(w io.Writer, status int, msg, verb string) {
	var e jsonError
	switch status {
	case exitUsage:
		e.Error.Code = "usage"
	case exitRefused:
		e.Error.Code = "refused"
	case 130:
		e.Error.Code = "interrupted"
	default:
		e.Error.Code = "failure"
	}
	e.Error.Message = msg
	if _, near, ok := strings.Cut(strings.SplitN(msg, "\n", 2)[0], ": did you mean "); ok {
		// A name typed wrong: the suggestion, as the text error makes it
		// ("did you mean 'status'? (see 'git reason -h')"), not only
		// where the list of names is.
		e.Error.Hint = "did you mean " + near
		_ = exportJSON(w, e)
		return
	}
	for _, marker := range []string{"run '", "start it with '", "see '", "set it with ", "fix it with '", "name the task: "} {
		if i := strings.LastIndex(msg, marker); i >= 0 {
			hint, _, _ := strings.Cut(msg[i:], "\n")
			if strings.HasSuffix(marker, "'") {
				// The advice ends where its quoted command does.
				if j := strings.IndexByte(hint[len(marker):], '\''); j >= 0 {
					hint = hint[:len(marker)+j+1]
				}
			}
			e.Error.Hint = strings.TrimRight(hint, ")")
			break
		}
	}
	if e.Error.Hint == "" {
		// Advice phrased as what to do with a command, "...: reopen it
		// first with 'git reason reopen T'": that clause.
		if i := strings.LastIndex(msg, " with '"); i >= 0 {
			if j := strings.IndexByte(msg[i+len(" with '"):], '\''); j >= 0 {
				start := max(strings.LastIndex(msg[:i], ": ")+2, strings.LastIndex(msg[:i], "; ")+2, strings.LastIndex(msg[:i], "(")+1)
				e.Error.Hint = msg[start : i+len(" with '")+j+1]
			}
		}
	}
	if c := adviceClause(msg); c != "" && (e.Error.Hint == "" || strings.Contains(c, e.Error.Hint)) {
		// The whole of the advice the command is part of: "check the
		// URL of remote origin (see 'git remote -v') and correct it with
		// 'git remote set-url origin URL'", not only "see 'git remote -v'".
		e.Error.Hint = c
	}
	if e.Error.Hint == "" {
		// Never empty: an error with no advice of its own points at the
		// verb's help, which says what the verb takes.
		e.Error.Hint = "see 'git reason -h'"
		if verb != "" {
			e.Error.Hint = "see 'git reason " + verb + " -h'"
		}
	}
	_ = exportJSON(w, e)
}

// advice are the words an error's advice starts with when it names no
// command: "...: add --evidence KIND:REF:SUMMARY", "(add --local-review
// 1=ANSWER)", "...: conclude it first, or close it --outcome abandoned".
// (An array, not a map: a map is built at every start, an array is data.)
var advice = [...]string{"add", "give", "name", "set", "unset", "turn", "try", "replace", "remove", "pull", "push",
	"use", "pass", "write", "close", "conclude", "reopen", "fetch", "install", "answer", "assess", "plan", "consult",
	"resolve", "validate", "check", "put", "raise", "run", "make", "mount"}

// adviceClause is the last clause of msg's first line that starts with
// a word of advice (after ": ", "; " or "("): what the text error tells
// the person to do, for --json's hint; "" when there is none, or when it
// is too short to read alone ("give one").
func adviceClause(msg string) string {
	line, _, _ := strings.Cut(msg, "\n")
	for end := len(line); ; {
		at, i := -1, -1 // where the separator is, and its clause
		for _, sep := range []string{": ", "; ", "("} {
			if j := strings.LastIndex(line[:end], sep); j >= 0 && j+len(sep) > i {
				at, i = j, j+len(sep)
			}
		}
		if at < 0 {
			return ""
		}
		clause := line[i:]
		if word, _, _ := strings.Cut(clause, " "); slices.Contains(advice[:], word) {
			if line[at] == '(' {
				clause, _, _ = strings.Cut(clause, ")")
			}
			if strings.Count(clause, " ") < 2 {
				return "" // "give one": what of, the message says; the help is the hint
			}
			return clause
		}
		end = at
	}
}

// verbOf returns the verb args run, with its sub-verb when it has one
// ("task delete"); "" when none is a command's name.
func verbOf(app *cli.App, args []string) string {
	cmds, verb := app.Commands, ""
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		var cmd *cli.Command
		for _, c := range cmds {
			if c.HasName(a) && !c.Hidden {
				cmd = c
			}
		}
		if cmd == nil {
			break
		}
		verb = strings.TrimSpace(verb + " " + cmd.Name)
		if cmds = cmd.Subcommands; len(cmds) == 0 {
			break
		}
	}
	return verb
}

func exitCode(err error) int {
	var coded interface{ exitStatus() int }
	switch {
	case errors.Is(err, record.ErrRefused):
		return exitRefused
	case errors.Is(err, record.ErrInput), errors.Is(err, ops.ErrUsage):
		return exitUsage
	case errors.As(err, &coded):
		return coded.exitStatus()
	}
	return exitFailure
}

// verbSpec is one command of the command line: its name, what it does in
// a line, what follows it on the command line, and make, which declares
// the rest (flags, description, subcommands, action) when the command
// line needs it (newApp). A usage computed when the verb is built (the
// outputs schema lists) is its constructor's.
type verbSpec struct {
	name, usage, args string
	make              func() *cli.Command
}

// commands lists every verb, in the order help shows them.
var commands = []verbSpec{
	{name: "assess", make: assessCommand,
		usage: "record what is uncertain, how much it matters and what is known",
		args:  "[TASK] --subject S --question Q --materiality M --reversibility R [--needs CAP]... [--evidence KIND:REF:SUMMARY]... [--new-evidence]"},
	{name: "plan", make: planCommand,
		usage: "compute the review plan for the task's latest assessment",
		args:  "[TASK] [--assessment ID]"},
	{name: "consult", make: consultCommand,
		usage: "ask the advisors the latest plan selected, concurrently and blind, recording each answer",
		args:  "[TASK] [--timeout D]"},
	{name: "disagree", make: disagreeCommand,
		usage: "open a disagreement between records whose positions conflict",
		args:  "[TASK] --cites ID --cites ID --summary S [--assessment ID]"},
	{name: "resolve", make: resolveCommand,
		usage: "settle one open disagreement, citing evidence",
		args:  "[TASK] DISAGREEMENT --decision S --evidence KIND:REF:SUMMARY..."},
	{name: "conclude", make: concludeCommand,
		usage: "record the decision, weighing every consultation (or answering the local review)",
		args:  "[TASK] --decision S [--rationale S] [--weigh ID=TREATMENT:REASON]... [--local-review ITEM=ANSWER]... [--supersedes ID]..."},
	{name: "validate", make: validateCommand,
		usage: "check a conclusion: run a command (a fact) or record a manual result (a claim)",
		args:  "[TASK] (--run CMD [--dir DIR] | --manual pass|fail --evidence KIND:REF:SUMMARY...) [--conclusion ID]"},
	{name: "attempt", make: attemptCommand,
		usage: "record an implementation attempt of a conclusion",
		args:  "[TASK] --commit REV... --outcome succeeded|failed|abandoned [--notes S] [--conclusion ID]"},
	{name: "close", make: closeCommand,
		usage: "close a task: done (a conclusion stands), abandoned, or superseded by another task (a rename is a close --by the new name)",
		args:  "TASK --outcome done|abandoned|superseded [--by TASK] [--reason TEXT]"},
	{name: "reopen", make: reopenCommand,
		usage: "reopen a closed task",
		args:  "TASK [--reason TEXT]"},
	{name: "withdraw", make: withdrawCommand,
		usage: "withdraw a mistaken validation or attempt: derivation ignores it from then on, history keeps both",
		args:  "TASK RECORD --reason TEXT"},
	{name: "status", make: statusCommand,
		usage: "show where a task stands, or every task when none is named",
		args:  "[TASK] [--report]"},
	{name: "log", make: logCommand,
		usage: "show the timeline of a task, or of every task",
		args:  "[TASK] [-n N] [--since WHEN] [--until WHEN] [--kind KIND]... [--author PATTERN] [--grep PATTERN] [-i] [--oneline]"},
	{name: "tasks", make: tasksCommand,
		usage: "list tasks with their phase, open or closed, and last activity, newest first",
		args:  "[--open|--closed] [--mine] [--since WHEN]"},
	{name: "task", make: taskCommand,
		usage: "manage a local task"},
	{name: "search", make: searchCommand,
		usage: "find records across every task whose subject, question, decision, evidence, answer, resolution or other text contains TEXT (any case), newest first",
		args:  "TEXT"},
	{name: "handover", make: handoverCommand,
		usage: "show where things stand for whoever picks the work up next, derived from the refs alone",
		args:  "[--since 7d] [--task TASK] [--actor ACTOR]"},
	{name: "context", make: contextCommand,
		usage: "show the reasoning behind a range of commits (a pull request): markdown with a Mermaid diagram per task, or JSON",
		args:  contextArgs},
	{name: "show", make: showCommand,
		usage: "show one record by id or unique prefix",
		args:  "ID"},
	{name: "schema", make: schemaCommand,
		args: "KIND|COMMAND [SUBCOMMAND]"},
	{name: "advisors", make: advisorsCommand,
		usage: "list every declared advisor (or only those named) with its transport and availability (contacts nothing; outside a repository, the shipped declarations and yours)",
		args:  "[ADVISOR...]"},
	{name: "trust", make: trustCommand,
		usage: "show what this repository's .reason/advisors.yaml would run and send, and trust that exact content"},
	{name: "doctor", make: doctorCommand,
		usage: "check declarations, profiles, hooks and the reasoning refs; exits 3 on errors, 0 when it finds only warnings (contacts nothing; outside a repository, the declarations, settings and advisors this machine would use)"},
	{name: "check", make: checkCommand,
		usage: "run a guard over this repository"},
	{name: "verify", make: verifyCommand,
		usage: "replay task histories through the admission rules and report what they would not have admitted",
		args:  "[TASK...] [--all]"},
	{name: "pull", make: pullCommand,
		usage: "fetch a remote's tasks, verify them by replay and create, fast-forward or merge the local ones",
		args:  "[REMOTE] [TASK...]"},
	{name: "push", make: pushCommand,
		usage: "verify and push the local tasks a remote lacks (never forced; pulls and retries when the remote moved)",
		args:  "[REMOTE] [TASK...]"},
	{name: "sync", make: syncCommand,
		usage: "pull, then push: share every task with a remote",
		args:  "[REMOTE]"},
	{name: "remote", make: remoteCommand,
		usage: "configure how reasoning travels with a remote"},
	{name: "hooks", make: hooksCommand,
		usage: "install, uninstall or show the status of git reason's hooks: pre-commit, pre-merge-commit and pre-push (neutrality), prepare-commit-msg and commit-msg (the branch's Reason-Task trailer)"},
	{name: "hook", make: hookCommand},
	{name: "serve", make: serveCommand,
		usage: "serve reviews to peers: each request is answered by this repository's own available advisors"},
	{name: "web", make: webCommand,
		usage: "serve the read-only Reasoning page on loopback; open the printed address (it carries the token)"},
	{name: "mcp", make: mcpCommand,
		usage: "serve this repository's reasoning to an MCP host over stdio"},
	{name: "tools", make: toolsCommand,
		usage: "list the MCP server's tools with the verb each projects and its execution policy (share/tools.yaml)"},
	{name: "demo", make: demoCommand,
		usage: "run a full reasoning cycle in a scratch repository and print its status and report"},
	{name: "completion", make: completionCommand,
		usage: "print the shell completion script for git reason (bash, zsh or fish)",
		args:  "bash|zsh|fish"},
	{name: "version", make: versionCommand,
		usage: "print the version of git reason: module version, source revision and Go version"},
	{name: "man", make: manCommand,
		usage: "print the manual page git-reason(1), or install it where man finds it",
		args:  "[--install]"},
	{name: "__complete", make: completeCommand,
		args: "[--describe] tasks|ids [KIND [TASK]]|advisors|profiles|remotes|revisions"},
}

// withUsageErrors gives cmd and every subcommand below it that names no
// handler of its own usageError: a misused flag or argument is one line
// and exit 2, never urfave/cli's help. A verb with no sub-verbs has no
// "help" sub-verb either: urfave/cli would show the verb's help for a
// first argument "help" or "h" and exit 0, so that "git reason assess
// help --subject S ..." wrote nothing and reported success; they are
// task names like any other (-h is the verb's help). A verb that is only
// its sub-verbs (hooks, remote, check), given none, shows its help and is
// bad usage, as git reason given no verb is: it did nothing and exited 0.
func withUsageErrors(cmd *cli.Command) {
	if cmd.OnUsageError == nil {
		cmd.OnUsageError = usageError
	}
	if len(cmd.Subcommands) == 0 {
		cmd.HideHelpCommand = true
	} else if cmd.Command("help") == nil {
		cmd.Subcommands = append(cmd.Subcommands, helpVerb())
	}
	if len(cmd.Subcommands) > 0 && cmd.Action == nil {
		cmd.Action = noSubVerb
	}
	for _, sub := range cmd.Subcommands {
		withUsageErrors(sub)
	}
}

// noSubVerb is what a verb of sub-verbs does named alone ("git reason
// hooks"): its help, and bad usage, as "git reason" alone is and as git
// prints a command's usage and exits 129 for "git worktree" (it exited
// 0, so a script's "git reason hooks $sub" with $sub empty did nothing
// and said it had succeeded). A word that is none of its sub-verbs is
// refused as an unknown command (CommandNotFound).
func noSubVerb(c *cli.Context) error {
	if c.Args().Present() {
		return cli.ShowCommandHelp(c, c.Args().First())
	}
	if err := cli.ShowSubcommandHelp(c); err != nil {
		return err
	}
	return quietExit(exitUsage)
}

// wholeTree are the verbs that read every command's definition: help
// listings, completion scripts and candidates, the manual page.
var wholeTree = map[string]bool{"help": true, "h": true, "completion": true, "man": true, "__complete": true}

// verbNamed returns the verb args name: the first word after the global
// flags (and the value of one that takes a value), "" when there is none.
func verbNamed(args []string, globals []cli.Flag) string {
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return ""
		}
		if !strings.HasPrefix(a, "-") {
			return a
		}
		if !strings.Contains(a, "=") && takesValue(globals, a) {
			i++
		}
	}
	return ""
}

func newApp(s *Servers, args []string, stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Metadata:    map[string]any{"servers": s, "args": args, "streams": streams{stdin, stdout, stderr}},
		Name:        "git reason",
		HelpName:    "git reason",
		Usage:       "keep engineering reasoning as typed records in git",
		Reader:      stdin,
		Writer:      &outputWriter{w: stdout},
		ErrWriter:   &printableWriter{w: stderr},
		HideVersion: true,
		// Values of repeatable flags are sentences: never split them on commas.
		DisableSliceFlagSeparator: true,
		ExitErrHandler:            func(*cli.Context, error) {},
		OnUsageError:              usageError,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "profile", Usage: "the execution profile `NAME` (default, offline, ci, ...)", EnvVars: nil},
			&cli.BoolFlag{Name: "version", Usage: "print the version and exit"},
			&cli.BoolFlag{Name: "no-pager", Usage: "do not page long output (log, show, status of every task)"},
		}, colourFlags()...),
	}
	// Only the verb the command line names is built, when it names one
	// and needs no other: building all of them (flags, help text, closures)
	// was a sixth of a command's start-up.
	// --version alone builds none.
	verb := verbNamed(args, app.Flags)
	only := ""
	for _, v := range commands {
		if v.name == verb && !wholeTree[verb] {
			only = verb
		}
	}
	if verb == "" && slices.Contains(args, "--version") && !slices.Contains(args, "-h") && !slices.Contains(args, "--help") {
		only = "--version"
	}
	for _, v := range commands {
		if only != "" && v.name != only {
			continue
		}
		cmd := v.make()
		cmd.Name, cmd.ArgsUsage = v.name, v.args
		if v.usage != "" {
			cmd.Usage = v.usage
		}
		withUsageErrors(cmd)
		if s == nil && networkVerbs[cmd.Name] {
			cmd.Action = forward
		}
		addJQ(cmd)
		filterCommands(cmd)
		app.Commands = append(app.Commands, cmd)
	}
	ownHelp(app)
	app.Action = func(c *cli.Context) error {
		if c.Bool("version") && !c.Args().Present() {
			_, err := fmt.Fprintln(c.App.Writer, versionLine())
			return err
		}
		if c.Args().Present() {
			return ops.Usage("unknown command %q: %s", c.Args().First(), unknownVerb(c.App, c.Args().First()))
		}
		// No verb: the help, and bad usage, as git alone prints its
		// usage and exits 1: "git reason $verb" with $verb empty did
		// nothing and said it had succeeded.
		if err := cli.ShowAppHelp(c); err != nil {
			return err
		}
		return quietExit(exitUsage)
	}
	return app
}

// ownHelp gives app the help verb urfave/cli would add (in Setup), as
// one of ours (helpVerb), and the -h flag that comes with it, saying what
// --help shows.
func ownHelp(app *cli.App) {
	app.Commands = append(app.Commands, helpVerb())
	// git itself answers 'git reason --help' (git help reason): the
	// manual page, or "No manual entry for git-reason" until it is
	// installed. The list says so where it names the flag.
	app.Flags = append(app.Flags, &cli.BoolFlag{Name: "help", Aliases: []string{"h"},
		Usage: "show the list of verbs (-h); through git, --help shows the manual page git-reason(1), which 'git reason man --install' installs", DisableDefaultText: true})
}

// helpVerb is urfave/cli's help verb made one of ours: a misused option is
// one line and exit 2 ('git reason help --bogus' printed "Incorrect
// Usage", the help verb's own help on stdout and exit 1), and its line in
// a list of verbs is worded as every other verb's. It is a copy (urfave/cli's
// is shared by every app of the process), taken from an app of no verb.
func helpVerb() *cli.Command {
	bare := &cli.App{}
	bare.Setup()
	h := *bare.Command("help")
	h.Usage, h.ArgsUsage = "show the list of verbs, or one verb's help", "[VERB [SUB-VERB]]"
	h.OnUsageError = usageError
	// No "help" sub-verb of its own, as withUsageErrors gives no verb of
	// no sub-verbs one: urfave/cli's would take "help help bogus" and
	// refuse "bogus" as a sub-verb of help ('unknown command "help
	// bogus"'), where "help status bogus" refuses it as unexpected.
	h.HideHelpCommand = true
	show := h.Action
	h.Action = func(c *cli.Context) error {
		if err := strayHelpArgs(c); err != nil {
			return err
		}
		return show(c)
	}
	return &h
}

// strayHelpArgs refuses what follows the verb help is asked of, as any
// verb refuses an argument it does not take: "help status bogus" showed
// status's help and exited 0, where "help status --bogus" is bad usage.
// A word after a verb of sub-verbs is a sub-verb it lacks, as "task bogus"
// is. Nil when help names one verb (or one of its sub-verbs: reorder made
// "help VERB SUBVERB" that sub-verb's -h), or a verb that does not exist,
// which the help verb itself refuses.
func strayHelpArgs(c *cli.Context) error {
	if c.NArg() < 2 {
		return nil
	}
	cmds := c.App.Commands
	if p := c.Lineage(); len(p) > 1 && p[1].Command != nil && p[1].Command.Subcommands != nil {
		cmds = p[1].Command.Subcommands // "task help delete bogus"
	}
	var verb *cli.Command
	for _, cmd := range cmds {
		if cmd.HasName(c.Args().First()) {
			verb = cmd
		}
	}
	switch stray := c.Args().Get(1); {
	case verb == nil:
		return nil
	case len(verb.Subcommands) > 0 && verb.Command(stray) == nil:
		return ops.Usage("unknown command %q: %s", verb.Name+" "+stray, nearestVerb(verb.Subcommands, verb.HelpName, stray))
	case len(verb.Subcommands) > 0:
		stray = c.Args().Get(2)
		if stray == "" {
			return nil
		}
		return ops.Usage("unexpected argument %q (%s)", stray, seeHelp(c))
	default:
		return ops.Usage("unexpected argument %q (%s)", stray, seeHelp(c))
	}
}

func usageError(c *cli.Context, err error, _ bool) error {
	if msg, ok := badFlagValue(c, err.Error()); ok {
		return ops.Usage("%s (%s)", msg, seeHelp(c))
	}
	msg := gitWords(longFlags(err.Error()))
	if opt, ok := strings.CutPrefix(msg, "unknown option "); ok {
		if verb, line := verbAfter(c.App, opt); verb != "" && seeHelp(c) == "see 'git reason -h'" {
			return ops.Usage("%s is an option of %s, given after it: did you mean '%s'? (see 'git reason %s -h')", opt, verb, line, verb)
		}
		if verb, line := remoteAfter(c.App, opt); verb != "" {
			return ops.Usage("%s is no option of %s: the remote is its first argument: did you mean '%s'? (see 'git reason %s -h')", opt, verb, line, verb)
		}
	}
	if opt, ok := strings.CutPrefix(msg, "unknown option --"); ok {
		flags := c.App.Flags
		if c.Command != nil && c.Command.Name != "" && c.Command.Name != c.App.Name {
			flags = c.Command.Flags
		}
		if near := nearestFlag(flags, opt); near != "" {
			msg += ": did you mean --" + near + "?"
		}
	}
	return ops.Usage("%s (%s)", msg, seeHelp(c))
}

// verbAfter finds the verb that opt, refused before any verb ("git reason
// --json status"), is an option of: the verb (with its sub-verb) named
// after it on the command line, and that command line as it should have
// been typed, the option (and its value) after the verb: "status" and
// "git reason status --json". The word after an option that takes a
// value is its value, not the verb, where the verb after it takes the
// option ("--subject status assess T" is assess's). A value not plain
// enough to read inside the quotes of the suggestion is "...". "" when
// no verb after it takes opt.
func verbAfter(app *cli.App, opt string) (verb, line string) {
	args, at := optionIn(app, opt)
	if at < 0 {
		return "", ""
	}
	cmd, verb := verbIn(app, args[at+1:])
	if (cmd == nil || !isFlag(cmd.Flags, opt)) && !strings.Contains(args[at], "=") && at+1 < len(args) {
		if c, v := verbIn(app, args[at+2:]); c != nil && takesValue(c.Flags, opt) {
			cmd, verb = c, v
		}
	}
	if cmd == nil || cmd.Name == "help" || !isFlag(cmd.Flags, opt) {
		return "", ""
	}
	line = "git reason " + verb + " " + args[at]
	if !strings.Contains(args[at], "=") && takesValue(cmd.Flags, opt) && at+1 < len(args) {
		line += " " + plainWord(args[at+1])
	}
	return verb, line
}

// remoteAfter is verbAfter for --remote, which no verb takes: the remote
// of pull, push, sync and remote setup is their first argument, [REMOTE].
// Given as --remote NAME (or --remote=NAME) before the verb or after it,
// it is that verb and the line it meant: "pull" and "git reason pull
// origin"; "" for another option, or a verb of no REMOTE.
func remoteAfter(app *cli.App, opt string) (verb, line string) {
	name, _, _ := strings.Cut(opt, "=")
	args, at := optionIn(app, name)
	if name != "--remote" || at < 0 {
		return "", ""
	}
	rest := slices.Delete(slices.Clone(args), at, at+1)
	_, value, eq := strings.Cut(args[at], "=")
	if !eq {
		if at+1 >= len(args) {
			return "", ""
		}
		value, rest = args[at+1], slices.Delete(rest, at, at+1)
	}
	cmd, verb := verbIn(app, rest)
	if cmd == nil || !strings.HasPrefix(cmd.ArgsUsage, "[REMOTE]") {
		return "", ""
	}
	return verb, "git reason " + verb + " " + plainWord(value)
}

// optionIn is the command line git reason was given and where opt (its
// name, with or without "=VALUE") is in it; -1 when it is not.
func optionIn(app *cli.App, opt string) ([]string, int) {
	args, _ := app.Metadata["args"].([]string)
	return args, slices.IndexFunc(args, func(a string) bool { n, _, _ := strings.Cut(a, "="); return n == opt })
}

// verbIn is the verb (with its sub-verb) words name, the first word that
// is one (up to a "--"), and its name as typed: "remote setup". A verb
// newApp did not build (it built the value of an option before the verb,
// "--subject status assess T", as the verb named) is built here.
func verbIn(app *cli.App, words []string) (cmd *cli.Command, verb string) {
	for _, a := range words {
		if a == "--" {
			break
		}
		if cmd == nil {
			cmd, verb = builtVerb(app, a), a
		} else if sub := cmd.Command(a); sub != nil && !sub.Hidden {
			cmd, verb = sub, verb+" "+a
		}
		if cmd != nil && len(cmd.Subcommands) == 0 {
			break
		}
	}
	return cmd, verb
}

// builtVerb is app's verb name, built when newApp did not build it; nil
// when there is no such verb.
func builtVerb(app *cli.App, name string) *cli.Command {
	if cmd := app.Command(name); cmd != nil {
		return cmd
	}
	at := slices.IndexFunc(commands, func(v verbSpec) bool { return v.name == name })
	if at < 0 {
		return nil
	}
	cmd := commands[at].make()
	cmd.Name, cmd.ArgsUsage = name, commands[at].args
	return cmd
}

// plainWord is v as a suggestion quotes it: itself when a shell reads it
// as one plain word of at most 40 bytes, else "...".
func plainWord(v string) string {
	if record.ShellWord(v) && len(v) <= 40 {
		return v
	}
	return "..."
}

// nearestFlag is the long option among flags nearest name (an option
// typed with one or two letters wrong, --subjct), as unknownVerb suggests
// a verb; "" when none is that close.
func nearestFlag(flags []cli.Flag, name string) string {
	var names []string
	for _, f := range flags {
		for _, n := range f.Names() {
			if len(n) > 1 {
				names = append(names, n)
			}
		}
	}
	return ops.Nearest(names, name)
}

// gitWords says what the flag package says of an option in git's words:
// "unknown option --bogus" for "flag provided but not defined: --bogus",
// "option --subject requires a value" for "flag needs an argument:
// --subject", as git's parse-options says them.
func gitWords(msg string) string {
	if opt, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return "unknown option " + opt
	}
	if opt, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return "option " + opt + " requires a value"
	}
	return msg
}

// badFlagValue says what a flag takes when the flag package could not
// parse its value, where the package says only "invalid value "90" for
// flag -timeout: parse error": the flag as typed, the value, and the kind
// of value to give.
func badFlagValue(c *cli.Context, msg string) (string, bool) {
	head, why, ok := strings.Cut(msg, ": ")
	if !ok {
		return "", false
	}
	var value, name string
	if n, _ := fmt.Sscanf(head, "invalid value %q for flag -%s", &value, &name); n != 2 {
		if n, _ := fmt.Sscanf(head, "invalid boolean value %q for -%s", &value, &name); n != 2 {
			return "", false
		}
	}
	flag := "-" + name
	if len(name) > 1 {
		flag = "--" + name
	}
	var takes string
	switch lookupFlag(c, name).(type) {
	case *cli.IntFlag:
		takes = "give a whole number"
	case *cli.DurationFlag:
		takes = "give a duration with its unit, such as 90s, 2m or 1h30m"
	case *cli.BoolFlag:
		takes = fmt.Sprintf("give the flag alone, or %s=true or %s=false", flag, flag)
	default:
		return "", false
	}
	if why == "value out of range" {
		takes = "out of range: " + takes
	}
	return fmt.Sprintf("%s %q: %s", flag, value, takes), true
}

// lookupFlag is the flag called name of the verb running, or of git
// reason itself; nil when neither has one.
func lookupFlag(c *cli.Context, name string) cli.Flag {
	var flags []cli.Flag
	if c.Command != nil {
		flags = append(flags, c.Command.Flags...)
	}
	flags = append(flags, c.App.Flags...)
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

// longFlags spells a long flag in the flag package's messages as it is
// typed and documented, --name, where the package writes -name for any
// flag ("flag provided but not defined: -bogus" for --bogus); a
// one-letter flag (-n) keeps its one dash.
func longFlags(msg string) string {
	for _, at := range []string{"not defined: -", "needs an argument: -", "for flag -", "for -"} {
		i := strings.Index(msg, at)
		if i < 0 {
			continue
		}
		name := msg[i+len(at):]
		if n := strings.IndexAny(name, ": "); n >= 0 {
			name = name[:n]
		}
		if len(name) > 1 && !strings.HasPrefix(name, "-") {
			j := i + len(at)
			return msg[:j] + "-" + msg[j:]
		}
		return msg
	}
	return msg
}

// seeHelp names the help of the verb running, or of git reason itself.
func seeHelp(c *cli.Context) string {
	if c.Command == nil || c.Command.Name == "" || c.Command.Name == c.App.Name {
		return "see 'git reason -h'"
	}
	if strings.HasPrefix(c.Command.HelpName, "git reason ") {
		return fmt.Sprintf("see '%s -h'", c.Command.HelpName) // a subcommand's names its verb too
	}
	return fmt.Sprintf("see 'git reason %s -h'", c.Command.Name)
}

// unknownVerb says what to do about a verb that does not exist: the
// nearest verb when one is close, as git suggests its own.
func unknownVerb(app *cli.App, name string) string {
	return nearestVerb(app.Commands, "git reason", name)
}

// nearestVerb is unknownVerb among cmds, the sub-verbs of the verb whose
// command line is path ("git reason task"). The verbs name begins come
// first, as git suggests them (git st: status, stash), then the nearest
// by edit distance.
func nearestVerb(cmds []*cli.Command, path, name string) string {
	best, dist := "", 3
	var begun []string
	for _, cmd := range cmds {
		if cmd.Hidden {
			continue
		}
		if name != "" && strings.HasPrefix(cmd.Name, name) {
			begun = append(begun, "'"+cmd.Name+"'")
		}
		if d := ops.EditDistance(name, cmd.Name); d < dist {
			best, dist = cmd.Name, d
		}
	}
	switch {
	case len(begun) > 1:
		return fmt.Sprintf("did you mean one of %s? (see '%s -h')", strings.Join(begun, ", "), path)
	case len(begun) == 1:
		return fmt.Sprintf("did you mean %s? (see '%s -h')", begun[0], path)
	case best != "":
		return fmt.Sprintf("did you mean '%s'? (see '%s -h')", best, path)
	}
	return fmt.Sprintf("see '%s -h'", path)
}

// reorder moves a command's positional arguments after its flags, so that
// "git reason assess T-1 --subject S" parses like git's own commands.
func reorder(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	i := 1
	// Global flags come first.
	for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "--" {
		out = append(out, args[i])
		if !strings.Contains(args[i], "=") && takesValue(app.Flags, args[i]) && i+1 < len(args) {
			out = append(out, args[i+1])
			i++
		}
		i++
	}
	if i >= len(args) {
		return out
	}
	// "help VERB SUBVERB" is the sub-verb's help, as "VERB SUBVERB -h" is:
	// urfave/cli's help command reads only VERB. An option after them
	// stays the help verb's, to be refused as 'help --bogus' is (it was
	// dropped, and the help shown with exit 0).
	// An argument after them stays the help verb's too, to be refused as
	// 'help status bogus' is (it was dropped, as the option was).
	if rest := args[i+1:]; args[i] == "help" && len(rest) >= 2 && !slices.ContainsFunc(rest, misusedHelp) && !slices.ContainsFunc(rest[2:], isWord) {
		if v := app.Command(rest[0]); v != nil && v.Command(rest[1]) != nil {
			return append(out, rest[0], rest[1], "-h")
		}
	}
	// "help VERB" of a verb of sub-verbs is "VERB -h" too: urfave/cli's
	// help verb shows such a verb without its sub-verbs ('help task'
	// did not name 'delete'), as a verb not run has not listed them.
	if rest := args[i+1:]; args[i] == "help" && len(rest) == 1 && rest[0] != "help" && rest[0] != "h" {
		if v := app.Command(rest[0]); v != nil && len(v.Subcommands) > 0 {
			return append(out, rest[0], "-h")
		}
	}
	cmd := app.Command(args[i])
	verb := len(out) // where the verb is, before any sub-verb
	out = append(out, args[i])
	i++
	// A sub-verb's flags may follow its arguments too: task delete T --json.
	for cmd != nil && len(cmd.Subcommands) > 0 && i < len(args) {
		if cmd = cmd.Command(args[i]); cmd != nil {
			out = append(out, args[i])
			i++
		}
	}
	if cmd == nil || len(cmd.Subcommands) > 0 {
		return append(out, args[i:]...)
	}
	var flags, pos []string
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		// A global flag the verb does not define itself may follow the
		// verb, as git's own options may: it moves before the verb. Not
		// --help, which every verb has (urfave/cli adds it as it runs).
		if strings.HasPrefix(a, "--") && isFlag(app.Flags, a) && !isFlag(cmd.Flags, a) && a != "--help" {
			global := []string{a}
			if !strings.Contains(a, "=") && takesValue(app.Flags, a) {
				if i+1 == len(args) {
					// Its value is missing: the verb must not become it.
					return append(out[:verb:verb], a)
				}
				global = append(global, args[i+1])
				i++
			}
			out = append(out[:verb:verb], append(global, out[verb:]...)...)
			continue
		}
		if split := attached(cmd.Flags, a); split != nil {
			flags = append(flags, split...)
			continue
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			flags = append(flags, a)
			if !strings.Contains(a, "=") && takesValue(cmd.Flags, a) {
				if i+1 == len(args) {
					// Its value is missing: left last, with no "--" or
					// argument after it to take as the value, the flag
					// is refused for it.
					return append(out, flags...)
				}
				flags = append(flags, args[i+1])
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	out = append(out, flags...)
	for _, f := range flags {
		// Help asked after a verb's arguments is the verb's help, not a
		// lookup of the first argument as a help topic.
		if f == "-h" || f == "--help" {
			return out
		}
	}
	if len(pos) > 0 {
		out = append(out, "--")
		out = append(out, pos...)
	}
	return out
}

// attached is a one-letter flag typed with its value, as git's own
// commands take them, as the flag and its value: -n5 is -n 5, and -5 is
// -n 5 where the verb has -n, as in git log -5. Nil for anything else.
func attached(flags []cli.Flag, a string) []string {
	if len(a) < 2 || a[0] != '-' || a[1] == '-' || strings.Contains(a, "=") || isFlag(flags, a) {
		return nil
	}
	if n, err := strconv.Atoi(a[1:]); err == nil && n >= 0 && takesValue(flags, "-n") {
		return []string{"-n", a[1:]}
	}
	if len(a) > 2 && takesValue(flags, a[:2]) {
		return []string{a[:2], a[2:]}
	}
	return nil
}

// addJQ gives every verb (and sub-verb) that prints --json a --jq too.
func addJQ(cmd *cli.Command) {
	for _, sub := range cmd.Subcommands {
		addJQ(sub)
	}
	if isFlag(cmd.Flags, "--json") && !isFlag(cmd.Flags, "--jq") {
		cmd.Flags = append(cmd.Flags, jqFlag())
	}
}

// isFlag reports whether arg (e.g. "--profile=x") names one of flags.
func isFlag(flags []cli.Flag, arg string) bool {
	name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	for _, f := range flags {
		for _, n := range flagNames(f) {
			if n == name {
				return true
			}
		}
	}
	return false
}

// flagNames is f.Names() for the kinds of flag the verbs define, read from
// their fields: urfave/cli's Names runs a regular expression over each
// name, and addJQ looks at every flag of every verb on every start.
func flagNames(f cli.Flag) []string {
	var name string
	var aliases []string
	switch f := f.(type) {
	case *cli.BoolFlag:
		name, aliases = f.Name, f.Aliases
	case *cli.StringFlag:
		name, aliases = f.Name, f.Aliases
	case *cli.StringSliceFlag:
		name, aliases = f.Name, f.Aliases
	case *cli.IntFlag:
		name, aliases = f.Name, f.Aliases
	case *cli.DurationFlag:
		name, aliases = f.Name, f.Aliases
	default:
		return f.Names()
	}
	if len(aliases) == 0 {
		return []string{name}
	}
	return append([]string{name}, aliases...)
}

// misusedHelp reports whether arg, after 'help VERB SUBVERB', is an
// option the help verb refuses: any but -h and --help.
func misusedHelp(arg string) bool {
	return strings.HasPrefix(arg, "-") && arg != "-h" && arg != "--help"
}

// isWord reports whether arg is an argument, not an option.
func isWord(arg string) bool { return !strings.HasPrefix(arg, "-") }

// takesValue reports whether the flag named by arg (e.g. "--subject")
// consumes the next argument.
func takesValue(flags []cli.Flag, arg string) bool {
	name := strings.TrimLeft(arg, "-")
	for _, f := range flags {
		for _, n := range flagNames(f) {
			if n != name {
				continue
			}
			if bf, ok := f.(*cli.BoolFlag); ok && bf != nil {
				return false
			}
			return true
		}
	}
	return false
}
