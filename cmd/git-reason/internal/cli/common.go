package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

// isSet reports whether the flag name was given to the verb c runs, or
// before it. It is c.IsSet without urfave/cli's lookup, which runs a
// regular expression over the names of every flag before the one it finds
// (FlagNames), for each question: asked a dozen times, that was a tenth
// of an append's instructions. Only the flags given are named here.
func isSet(c *cli.Context, name string) bool {
	for _, l := range c.Lineage() {
		if slices.Contains(l.LocalFlagNames(), name) {
			return true
		}
	}
	return false
}

// profileFlag is --profile on a verb whose work the execution profile
// changes; openSession reads it, or the global one given before the verb.
func profileFlag() cli.Flag {
	return &cli.StringFlag{Name: "profile", Usage: "the execution profile `NAME`"}
}

// profileOf is the execution profile the command line names: the verb's
// --profile, else the global one; "" when neither is given.
func profileOf(c *cli.Context) string {
	profile := c.String("profile")
	for _, l := range c.Lineage() {
		if profile == "" && slices.Contains(l.LocalFlagNames(), "profile") {
			profile = l.String("profile")
		}
	}
	return profile
}

// openSession locates the repository the command runs in; a resident
// session (one that serves for hours) reads git configuration, the allowed
// signers and the declarations again when they change (ops.Options.Resident).
func openSession(c *cli.Context, resident bool, meanwhile func()) (*ops.Session, error) {
	profile := profileOf(c)
	if c.App.Metadata == nil {
		c.App.Metadata = map[string]any{}
	}
	// A command's read across every task shows how far it has come on a
	// terminal (a server's sessions do not: their terminal is the
	// server's log); a warning, and Main at the end, first end a line it
	// left open.
	var meter *progressMeter
	if !resident {
		meter = newProgressMeter(c.App.ErrWriter)
	}
	var progress func(string, int, int)
	var gitProgress io.Writer
	if meter != nil {
		c.App.Metadata["progress"] = meter
		progress, gitProgress = meter.report, gitProgressText{meter.w}
	}
	warn := func(line string) {
		meter.end()
		fmt.Fprintf(c.App.ErrWriter, "git reason: %s\n", line)
	}
	var sess *ops.Session
	var err error
	if s := servers(c); s != nil && s.Session != nil {
		if profile != "" {
			return nil, ops.Usage("--profile %s: this program runs every command on one session, opened with its own profile", profile)
		}
		sess = s.Session
	} else {
		args, _ := c.App.Metadata["args"].([]string)
		sess, err = ops.Open(c.Context, ops.Options{Profile: profile, Warn: warn, Progress: progress, GitProgress: gitProgress, Resident: resident, Meanwhile: meanwhile,
			Outside: outsideVerbs[verbNamed(args, c.App.Flags)]})
		if err == nil && verbNamed(args, c.App.Flags) != "hook" {
			// A configuration value that does not read is every verb's
			// error, whatever it prints, as git's porcelain dies on it
			// (git -c color.ui=maybe status --porcelain, log | cat):
			// JSON, which takes no colour, went on where text stopped.
			// Not the hooks': each reads what it needs and never fails
			// the commit or push for a setting it does not read.
			if _, err = sess.Settings(); err != nil {
				return nil, err
			}
		}
	}
	if err == nil {
		c.App.Metadata["session"] = sess // Main reads its colour settings for a refusal
		if sess.InRepository() {
			// A write without an identity is refused before the
			// catch-up writes under .git/reason/: bad input writes nothing.
			// consult, which writes the records of the answers, asks for
			// the identity before anything else too (Session.Consult).
			if _, writes := writtenKind(verbPath(c)); writes || verbPath(c) == "consult" {
				if err := sess.RequireIdentity(); err != nil {
					return nil, err
				}
			}
			catchUp(c, sess)
		}
	}
	if err != nil || profile == "" {
		return sess, err
	}
	// A profile named on the command line must exist, whether or not the
	// verb consults it: a typo is never silently ignored.
	if _, _, err := sess.Profile(); err != nil {
		return nil, err
	}
	return sess, nil
}

// outsideVerbs say what this machine would do, and answer outside any
// repository too, from the shipped declarations and the user's
// (ops.Options.Outside), as git config --global does.
var outsideVerbs = map[string]bool{"advisors": true, "doctor": true}

// requireFlags refuses a verb run without one of the named flags, naming
// the flag. A body from --file is checked by its schema instead, whose
// messages name JSON pointers into the file.
func requireFlags(c *cli.Context, names ...string) error {
	if isSet(c, "file") {
		return nil
	}
	for _, n := range names {
		if !isSet(c, n) {
			return ops.Usage("missing --%s: usage: git reason %s %s", n, verbPath(c), c.Command.ArgsUsage)
		}
	}
	return nil
}

// flagValues refuses, for a verb that writes a record built from its
// flags, a flag's value the writer would refuse whatever the task holds
// (record.CheckFields: --materiality huge, a --subject over its limit,
// --evidence of no kind there is), with the error the writer's refusal
// gives, flag named. The flags that name records are left to the writer:
// their prefixes are resolved against the task's records.
func flagValues(c *cli.Context) error {
	kind, ok := writtenKind(verbPath(c))
	if !ok || isSet(c, "file") {
		return nil
	}
	fields := map[string]any{}
	for _, f := range c.Command.Flags {
		name := flagNames(f)[0]
		if notBody[name] || !isSet(c, name) {
			continue
		}
		field := strings.ReplaceAll(name, "-", "_")
		for k, v := range fieldFlags {
			if v == name {
				field = k
			}
		}
		switch f.(type) {
		case *cli.StringFlag:
			fields[field] = c.String(name)
		case *cli.StringSliceFlag:
			// The values a verb parses before its body holds them
			// are checked for their shape here.
			values := c.StringSlice(name)
			switch name {
			case "evidence":
				ev, err := parseEvidenceList(nil, values)
				if err != nil {
					return err
				}
				fields[field] = ev
			case "weigh":
				for _, v := range values {
					if _, err := parseWeigh(v); err != nil {
						return err
					}
				}
			case "local-review":
				for _, v := range values {
					if _, _, err := parseLocalReview(v); err != nil {
						return err
					}
				}
			default:
				fields[field] = values
			}
		}
	}
	if err := record.CheckFields(kind, fields); err != nil {
		return (&writeOptions{given: c}).flagNamed(err)
	}
	return nil
}

// noArgs is the action of a verb that takes no argument: it binds b to
// the command line, refuses any argument naming the verb's help, then
// runs action.
func noArgs(b *base, action cli.ActionFunc) cli.ActionFunc {
	return func(c *cli.Context) error {
		b.bind(c)
		if err := noMoreArgs(c, 0); err != nil {
			return err
		}
		return action(c)
	}
}

// failure is a verb that did its work, recorded it, and must still exit 1
// because what it observed failed (an advisor, a validated command).
type failure string

func (f failure) Error() string { return string(f) }
func (failure) exitStatus() int { return exitFailure }

// taskArg returns the command's TASK argument (the first).
func taskArg(c *cli.Context) (string, error) {
	if !c.Args().Present() {
		return "", ops.Usage("missing TASK: usage: git reason %s %s", verbPath(c), c.Command.ArgsUsage)
	}
	task := c.Args().First()
	if err := record.CheckTask(task); err != nil {
		return "", err
	}
	return task, nil
}

// optionalTask returns the one optional TASK argument, "" (every task)
// when there is none, refusing any argument after it.
func optionalTask(c *cli.Context) (string, error) {
	if err := noMoreArgs(c, 1); err != nil || !c.Args().Present() {
		return "", err
	}
	return taskArg(c)
}

// taskOrBranch returns TASK when the command has more than after
// arguments (TASK comes first, after arguments follow it), else the
// current branch's task, which it names in one line on stderr (never on
// stdout, so --json output stays one document). rest are the arguments
// after TASK.
func (b *base) taskOrBranch(c *cli.Context, after int) (task string, rest []string, err error) {
	args := c.Args().Slice()
	if len(args) > after {
		task, err := taskArg(c)
		return task, args[1:], err
	}
	sess, err := b.Open()
	if err != nil {
		return "", nil, err
	}
	bt, err := sess.CurrentBranchTask(c.Context)
	if err != nil {
		return "", nil, err
	}
	usage := fmt.Sprintf("git reason %s %s", verbPath(c), strings.Replace(c.Command.ArgsUsage, "[TASK]", "TASK", 1))
	switch {
	case bt.Branch == "":
		return "", nil, ops.Usage("no TASK given and HEAD is detached, so there is no branch to take it from: name the task: %s", usage)
	case bt.Configured:
		if err := record.CheckTask(bt.Task); err != nil {
			return "", nil, ops.Usage("git config branch.%s.reasonTask: %v: fix it with 'git config %s TASK', or name the task", bt.Branch, err, record.ShellQuote("branch."+bt.Branch+".reasonTask"))
		}
		fmt.Fprintf(b.Err, "git reason: task %s (git config branch.%s.reasonTask)\n", bt.Task, bt.Branch)
	default:
		if err := record.CheckTask(bt.Task); err != nil {
			return "", nil, ops.Usage("no TASK given and branch %q is no task name: name the task, or set one with 'git config %s TASK'", bt.Branch, record.ShellQuote("branch."+bt.Branch+".reasonTask"))
		}
		fmt.Fprintf(b.Err, "git reason: task %s (the current branch)\n", bt.Task)
	}
	return bt.Task, args, nil
}

// noMoreArgs refuses arguments beyond the n the command takes.
func noMoreArgs(c *cli.Context, n int) error {
	if c.Args().Len() > n {
		return ops.Usage("unexpected argument %q (%s)", c.Args().Get(n), seeHelp(c))
	}
	return nil
}

// writeOptions are what every write verb's options share: TASK and --file.
type writeOptions struct {
	base
	Task string
	File string // --file: the whole body as JSON, "-" for stdin
	// given is the command line parse bound: the flags a body was built
	// from, which a schema error names (flagNamed).
	given *cli.Context
}

// latestFlag is a write verb's --KIND: the id of the record of kind it
// cites, the task's latest of that kind when the flag is not given.
func latestFlag(kind string, dest *string) cli.Flag {
	return &cli.StringFlag{Name: kind, Usage: "the " + kind + " `ID` (default: the latest)", Destination: dest}
}

// sinceFlag is a listing's --since: only the what (entries created,
// tasks active) since a time, given as git log and an age take it.
func sinceFlag(what string, dest *string) cli.Flag {
	return filterFlag(&cli.StringFlag{Name: "since", Usage: "only " + what + " since `WHEN`: a date as git log takes it (2026-01-31, yesterday, 2 weeks ago), an RFC 3339 time, or an age (36h, 7d)", Destination: dest})
}

// filterFlag is f, a listing's filter, refusing an empty value as bad
// usage, as git refuses an empty value where it needs one: it would filter
// by nothing, and was taken for the flag left out ('--actor ""' listed
// every task).
func filterFlag(f *cli.StringFlag) *cli.StringFlag {
	f.Action = func(_ *cli.Context, v string) error {
		if v != "" {
			return nil
		}
		_, what, _ := strings.Cut(f.Usage, "`")
		what, _, _ = strings.Cut(what, "`")
		return ops.Usage("--%s %q: give %s, or leave --%s out", f.Name, v, what, f.Name)
	}
	return f
}

func (o *writeOptions) fileFlag() cli.Flag {
	return &cli.StringFlag{Name: "file", Usage: "read the whole body as JSON from `PATH` (- for stdin)", Destination: &o.File}
}

// parse binds the dependencies and reads TASK, or the current branch's
// task when the arguments are only the after ones that follow TASK,
// refusing more than after+1 arguments in all. It returns the arguments
// after TASK.
func (o *writeOptions) parse(c *cli.Context, after int) ([]string, error) {
	o.bind(c)
	o.given = c
	if err := noMoreArgs(c, after+1); err != nil {
		return nil, err
	}
	task, rest, err := o.taskOrBranch(c, after)
	if err != nil {
		return nil, err
	}
	o.Task = task
	return rest, nil
}

// write is the flow every write verb shares: the repository, the body from
// --file or from build, one append through the writer, and the stored
// record printed.
func (o *writeOptions) write(ctx context.Context, kind record.Kind, build func(sess *ops.Session) (any, error)) error {
	o.Meanwhile = func() { record.Prepare(kind) } // while git discovers the repository
	sess, err := o.Open()
	if err != nil {
		return err
	}
	body, err := o.body(func() (any, error) { return build(sess) })
	if err != nil {
		return err
	}
	res, err := sess.Append(ctx, o.Task, kind, body)
	if err != nil {
		return o.refused(sess, kind, err)
	}
	if err := o.printRecord(res, sess.PlanLowered(ctx, res)); err != nil {
		return err
	}
	o.printNextAfter(ctx, sess, res)
	return nil
}

// printNextAfter prints, after the record a write stored and unless the
// output is JSON, the step status gives next at the new head, from the
// state the writer admitted the record on (as the MCP tools suggest
// theirs). A state that cannot be read leaves the line out: the record
// is stored, and status says the same later.
func (b *base) printNextAfter(ctx context.Context, sess *ops.Session, res *record.Result) {
	if b.JSON {
		return
	}
	st, err := sess.StateAfter(ctx, res)
	if err != nil {
		return
	}
	sum := st.Summarize()
	sess.MarkPersonStep(ctx, &sum)
	w := &lineBuffer{w: b.Out}
	printNext(w, sum, "  next: ")
	_ = w.flush(len(w.buf)) // as printRecord's lines: the record is stored whatever the terminal does
}

// refused is the error a write verb reports when the writer refused its
// record of kind: for any kind but the assessment that starts a task, a
// task with no records is the "no task" every verb gives for it (exit 2,
// as the MCP tools' unknown_task), not the rule its empty history failed
// first; otherwise err, with its schema errors named by flag.
func (o *writeOptions) refused(sess *ops.Session, kind record.Kind, err error) error {
	if kind != record.KindAssessment && (errors.Is(err, record.ErrInput) || errors.Is(err, record.ErrRefused)) {
		if nerr := sess.Unknown(o.Task); nerr != nil {
			return nerr
		}
	}
	return o.flagNamed(err)
}

// typed is a flag's value as an error names it: quoted, and a long one
// cut to its first characters and its length ("xxx"... (4001
// characters)), so that a value over a limit is not printed whole.
func typed(v string) string {
	const shown = 24
	if utf8.RuneCountInString(v) <= shown+16 {
		return strconv.Quote(v)
	}
	runes := []rune(v)
	return fmt.Sprintf("%s... (%d characters)", strconv.Quote(string(runes[:shown])), len(runes))
}

// fieldFlags names the flag a body field comes from where the two names
// differ by more than '_' for '-'.
var fieldFlags = map[string]string{"result": "manual", "command": "run", "weighed": "weigh"}

// flagNamed is err, but a schema error of a body built from flags names
// the flag and the value typed where a violation's JSON pointer starts at
// a field the command has a flag for: `--materiality "huge": value must
// be one of ...`, `--evidence "wat:x:y": kind: value must be one of ...`
// (the one of the repeated values it is about), in place of
// "/materiality" and "/evidence/0/kind", which name nothing the user
// typed. So does an id given with a flag that names no record
// (`--supersedes "01ABCDEF": no record ...`, not "supersedes/0"). A body
// from --file keeps its pointers: they are into the file.
func (o *writeOptions) flagNamed(err error) error {
	if o.File != "" || o.given == nil {
		return err
	}
	if ie, ok := errors.AsType[*record.IDError](err); ok {
		// An id given with a flag that names no record: the flag and
		// the value typed, not the body's field.
		if where, ok := o.flagAt(ie.Field); ok {
			return fmt.Errorf("%s: %w", where, ie.Err)
		}
		return err
	}
	var se *record.SchemaError
	if !errors.As(err, &se) || se.Part != "body" || errors.Is(err, record.ErrUnreadable) {
		// A stored record's violations (its history does not read) are
		// no flag's: the body typed did not make them.
		return err
	}
	named := &record.SchemaError{Kind: se.Kind, Part: se.Part, Violations: slices.Clone(se.Violations)}
	for i, v := range named.Violations {
		if where, ok := o.flagAt(strings.TrimPrefix(v.Pointer, "/")); ok {
			named.Violations[i].Pointer = where
		}
	}
	return named
}

// flagAt names the body field at path ("evidence/0/kind") as the flag
// it came from and the value typed there (`--evidence "wat:x:y": kind`),
// when the flag was given.
func (o *writeOptions) flagAt(path string) (string, bool) {
	parts := strings.Split(path, "/")
	flag := strings.ReplaceAll(parts[0], "_", "-")
	if f, ok := fieldFlags[parts[0]]; ok {
		flag = f
	}
	var f cli.Flag
	for _, g := range o.given.Command.Flags {
		if slices.Contains(flagNames(g), flag) {
			f = g
		}
	}
	if f == nil || !isSet(o.given, flag) {
		return "", false
	}
	where, rest := "--"+flag, parts[1:]
	switch f.(type) {
	case *cli.StringFlag:
		where += " " + typed(o.given.String(flag))
	case *cli.StringSliceFlag:
		values := o.given.StringSlice(flag)
		if len(rest) > 0 {
			if n, err := strconv.Atoi(rest[0]); err == nil && n >= 0 && n < len(values) {
				where, rest = where+" "+typed(values[n]), rest[1:]
			}
		}
	}
	if len(rest) > 0 {
		where += ": " + strings.Join(rest, "/")
	}
	return where, true
}

// body returns the body from --file when given, else builds it.
func (o *writeOptions) body(build func() (any, error)) ([]byte, error) {
	if o.File != "" {
		if err := o.fileOnly(); err != nil {
			return nil, err
		}
		in := o.In
		if o.given != nil {
			in = untilInterrupt(o.given.Context, in)
			if o.File == "-" && onTerminal(o.given) {
				// Nothing else would say that the command waits for a
				// person to type (git's editor hint does the same).
				fmt.Fprintln(o.given.App.ErrWriter, "Reading the body as JSON from standard input; end it with Ctrl-D.")
			}
		}
		return ops.ReadBody(o.File, in)
	}
	v, err := build()
	if err != nil {
		return nil, err
	}
	return ops.Marshal(v), nil
}

// notBody are the flags of a write verb that give no part of its body.
var notBody = map[string]bool{"file": true, "json": true, "jq": true, "profile": true, "help": true}

// fileOnly refuses a flag that gives part of the body beside --file,
// which gives all of it: the flag's value would be dropped unsaid.
func (o *writeOptions) fileOnly() error {
	if o.given == nil {
		return nil
	}
	for _, f := range o.given.Command.Flags {
		name := flagNames(f)[0]
		if !notBody[name] && isSet(o.given, name) {
			return ops.Usage("--file holds the whole body: give --%s or --file, not both", name)
		}
	}
	return nil
}

// recordJSON is a stored record as --json prints it: the envelope with its
// body and derived fields, plus the commit that stores it.
type recordJSON struct {
	*record.Record
	Commit string `json:"commit,omitempty"`
	// Lowered, on a plan, says that the repository's declarations lowered
	// its review.
	Lowered *ops.Lowered `json:"lowered,omitempty"`
}

// printRecord renders a stored record and, for a plan whose review the
// repository's declarations lowered (lowered not nil), the line saying so.
func (b *base) printRecord(res *record.Result, lowered *ops.Lowered) error {
	return storedAnyway(res, b.render(recordJSON{Record: res.Record, Commit: res.Commit, Lowered: lowered}, func(w io.Writer) error {
		fmt.Fprintf(w, "%s %s recorded in %s (commit %s)\n", res.Kind, res.ID, res.Task, record.ShortCommit(res.Commit))
		fmt.Fprintf(w, "  %s\n", record.Summary(res.Entry))
		switch d := res.Derived.(type) {
		case *record.AssessmentDerived:
			if d.Reuses != "" {
				fmt.Fprintf(w, "  reuses standing conclusion %s of task %s by %s (%s, %s): no new review is planned\n",
					d.Reuses, d.ReusesTask, record.Printable(d.ReusesActor), d.ReusesMateriality, d.ReusesReversibility)
			}
		case *record.PlanDerived:
			fmt.Fprintf(w, "  %s\n", d.Reason)
			for i, item := range d.LocalReview {
				fmt.Fprintf(w, "  %d. %s\n", i+1, item)
			}
			if lowered != nil {
				fmt.Fprintf(w, "  %s\n", record.Printable(lowered.Notice))
			}
		}
		return nil
	}))
}

// storedAnyway is err, a write's output failing, unless a --jq expression
// failed on the output of a record already stored: exit 2 said nothing
// was written, and a script retrying wrote the record twice.
func storedAnyway(res *record.Result, err error) error {
	id := record.ShortID(res.ID)
	return doneAnyway(err, fmt.Sprintf("%s %s recorded in %s (commit %s)", res.Kind, id, res.Task, record.ShortCommit(res.Commit)),
		fmt.Sprintf("the record is stored, do not write it again (see 'git reason show %s')", id))
}

// doneAnyway is err, unless a --jq expression failed on the output of a
// change already made: then a failure (exit 1) saying what was done,
// the jq error, then what to do. done "" is a change not made: err.
func doneAnyway(err error, done, then string) error {
	if jq := (jqRunError{}); done != "" && errors.As(err, &jq) {
		return failure(fmt.Sprintf("%s, but %v: %s", done, jq.error, then))
	}
	return err
}

// lineRange returns the length of the START[-END] that begins s and is
// followed by ':', or 0 when s does not begin so.
func lineRange(s string) int {
	digits := func(i int) int {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		return j
	}
	n := digits(0)
	if n > 0 && n < len(s) && s[n] == '-' {
		if m := digits(n + 1); m > n+1 {
			n = m
		}
	}
	if n == 0 || n >= len(s) || s[n] != ':' {
		return 0
	}
	return n
}

// parseEvidenceFrom reads KIND:REF:SUMMARY. The summary may contain
// colons; a ref keeps its own colons where they are part of "://" or a
// port, and a file's ref its line range (file:PATH:START-END:SUMMARY). A
// file's path is read by here (fileFromHere) when it is not nil.
func parseEvidenceFrom(s string, here func(string) string) (record.Evidence, error) {
	kind, rest, ok := strings.Cut(s, ":")
	if !ok {
		return record.Evidence{}, ops.Usage("evidence %q: write KIND:REF:SUMMARY, KIND one of file, command, commit, url, note", s)
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] != ':' {
			continue
		}
		if strings.HasPrefix(rest[i:], "://") || (i+1 < len(rest) && rest[i+1] >= '0' && rest[i+1] <= '9' && kind == "url") {
			continue
		}
		ref, summary := rest[:i], rest[i+1:]
		switch kind {
		case "file", "command", "commit", "url":
			// Only a note may point at nothing: file::SUMMARY was
			// recorded, and its material was "not a clean path".
			if strings.TrimSpace(ref) == "" {
				return record.Evidence{}, ops.Usage("evidence %q names no %s: write %s:REF:SUMMARY (only a note's REF may be empty)", s, kind, kind)
			}
		}
		if kind == "file" {
			if here != nil {
				ref = here(ref)
			}
			// file:PATH:START-END:SUMMARY names lines of the file.
			if n := lineRange(summary); n > 0 {
				ref, summary = ref+":"+summary[:n], summary[n+1:]
			}
		}
		return record.Evidence{Kind: kind, Ref: ref, Summary: summary}, nil
	}
	return record.Evidence{}, ops.Usage("evidence %q: write KIND:REF:SUMMARY (REF may be empty: note::SUMMARY)", s)
}

// parseEvidenceList parses each value; with a session, a file's path is
// read from the current directory as git reads a path (fileFromHere).
func parseEvidenceList(sess *ops.Session, vals []string) ([]record.Evidence, error) {
	var out []record.Evidence
	here := fileFromHere(sess)
	for _, v := range vals {
		ev, err := parseEvidenceFrom(v, here)
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, nil
}

// fileFromHere returns how a file evidence's path given on the command
// line is read: as git reads a path (git add, git log -- PATH), from the
// current directory, when the file is there, and stored from the work
// tree's top, where an advisor's material reads it. Run in db/,
// file:schema.sql names db/schema.sql, which the record kept as
// "schema.sql", a file the material then did not find. A path that names
// no file from here is kept as given, from the top (file:db/schema.sql
// from db/ still names db/schema.sql). nil without a work tree.
func fileFromHere(sess *ops.Session) func(string) string {
	if sess == nil || sess.Repo.WorkTree == "" {
		return nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil
	}
	return func(p string) string {
		abs := p
		if !filepath.IsAbs(p) {
			abs = filepath.Join(wd, p)
		}
		if _, err := os.Lstat(abs); err != nil {
			return p
		}
		// The directory's symbolic links resolved, not the file's: a
		// link is evidence as the path that names it.
		dir, ok := sess.InWorkTree(filepath.Dir(abs))
		if !ok {
			return p
		}
		rel := path.Join(dir, filepath.Base(abs))
		if rel == "." || strings.HasPrefix(rel, "../") {
			return p
		}
		return rel
	}
}

// latest returns the id of the task's latest record of kind, for commands
// whose target defaults to it.
func latest(ctx context.Context, sess *ops.Session, task string, kind record.Kind) (string, error) {
	st, _, err := sess.State(ctx, task)
	if err != nil {
		return "", err
	}
	return ops.LatestID(st, task, kind)
}

// orLatest returns id, or, when it is "", the id of the task's latest
// record of kind.
func orLatest(ctx context.Context, sess *ops.Session, task, id string, kind record.Kind) (string, error) {
	if id != "" {
		return id, nil
	}
	return latest(ctx, sess, task, kind)
}
