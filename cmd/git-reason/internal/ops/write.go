package ops

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/oklog/ulid/v2"

	"git-reason/advisor"
	"git-reason/gitstore"
	"git-reason/record"
)

// Append admits a caller's body as a record of kind on task.
func (e *Session) Append(ctx context.Context, task string, kind record.Kind, body []byte) (*record.Result, error) {
	if err := e.IdentifyWriter(); err != nil {
		return nil, err
	}
	res, err := e.Writer.Append(ctx, task, kind, body)
	if err == nil {
		e.noteUnknownReplacement(task, res)
		e.noteMirror(task)
	}
	return res, err
}

// noteMirror warns, once a session, after a write in a clone whose plain
// git fetch puts a remote's task refs over its own, forced (a mirror
// clone's +refs/*:refs/*), that the next such fetch drops the record
// until it is pushed: git fetch replaced a task written there and not
// pushed, without a word, and the record was lost to every command.
func (e *Session) noteMirror(task string) {
	if e.mirrorWarned || !e.listening() {
		return
	}
	st, err := e.Settings()
	if err != nil {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(st.Remotes)) {
		forced := slices.ContainsFunc(st.Remotes[name].Fetch, func(spec string) bool { return strings.HasPrefix(spec, "+") })
		if !forced || !mirrorsTasks(st, name) {
			continue
		}
		e.mirrorWarned = true
		e.say(record.Advice{
			CLI: fmt.Sprintf("note: a plain 'git fetch %s' puts %s's task refs over this clone's (a mirror's fetch refspec), dropping this record of %s until it is pushed: run 'git reason push %s' before fetching",
				name, name, task, name),
			Tools: fmt.Sprintf("note: a plain 'git fetch %s' puts %s's task refs over this clone's (a mirror's fetch refspec), dropping this record of %s until it is pushed: the person runs 'git reason push %s' before fetching (no tool pushes)",
				name, name, task, name)})
		return
	}
}

// noteUnknownReplacement warns, after a closure superseded by a task that
// has no records, that it has none: a rename closes the old name before
// the new one has a record, so the closure is not refused, but a mistyped
// name would close the task silently for good.
func (e *Session) noteUnknownReplacement(task string, res *record.Result) {
	c, ok := res.Body.(*record.Closure)
	if !ok || c.By == "" || !e.listening() || e.Unknown(c.By) == nil {
		return
	}
	e.say(record.Advice{
		CLI: fmt.Sprintf("note: task %s, which replaces %s, has no records yet: start it with 'git reason assess %s', or if the name is mistyped, 'git reason reopen %s' and close it again",
			c.By, task, c.By, task),
		Tools: fmt.Sprintf("note: task %s, which replaces %s, has no records yet: start it with the assess tool (task %q), or if the name is mistyped, reopen %s with the reopen tool and close it again",
			c.By, task, c.By, task)})
}

// AppendAnswered is Append for a conclusion whose local-review answers
// the surface knows were given by who (record.AnsweredPerson or
// record.AnsweredAgent).
func (e *Session) AppendAnswered(ctx context.Context, task string, kind record.Kind, body []byte, who string) (*record.Result, error) {
	if err := e.IdentifyWriter(); err != nil {
		return nil, err
	}
	res, err := e.Writer.AppendAnswered(ctx, task, kind, body, who)
	if err == nil {
		e.noteMirror(task)
	}
	return res, err
}

// State loads and derives a task as read surfaces show it: derived by
// replay, never from a stored claim, and marked with replay's first
// finding when its history does not verify (gitstore.Store.DeriveVerified).
// A task with no records is bad usage.
func (e *Session) State(ctx context.Context, task string) (*record.State, string, error) {
	head, recs, err := e.Store.Load(ctx, task)
	if err != nil {
		return nil, "", err
	}
	if head == "" {
		return nil, "", e.noTask(task)
	}
	st, err := e.Store.DeriveVerified(ctx, task, head, recs)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		return nil, "", record.Unreadable(task, err)
	}
	e.Store.SaveVerdicts()
	return st, head, nil
}

// ShownState is State marked with what the check of its reuses finds
// against the reused tasks' refs now (reuseChecked), with the heads they
// were checked at: what a read surface shows of one task.
func (e *Session) ShownState(ctx context.Context, task string) (*record.State, string, map[string]string, error) {
	st, head, err := e.State(ctx, task)
	if err != nil {
		return nil, "", nil, err
	}
	st, reused, err := e.reuseChecked(ctx, task, head, st)
	return st, head, reused, err
}

// noTask is the error of every verb given a task that has no records,
// said in one shape whichever verb read it (status, log, plan, handover,
// verify, a write): where the list of tasks is, for a name mistyped, and
// how to start it; unless a pull quarantined a remote's history of it,
// which waits for inspection (starting it here would begin a second
// history beside that one).
func (e *Session) noTask(task string) error {
	if q, held := e.HeldBack(task); held {
		return Usage("no task %q here: %s", task, q.Said())
	}
	if near := e.nearestTask(task); near != "" {
		// A name mistyped is said as a mistyped verb or advisor is:
		// "start it" alone invited a second task beside the one meant.
		return &UnknownTaskError{Task: task, usageError: usageError{
			msg:   fmt.Sprintf("no task %q: did you mean '%s'? (see 'git reason tasks'); or start it with 'git reason assess %s'", task, near, task),
			tools: fmt.Sprintf("no task %q: did you mean task %q? (the tasks tool lists them); or start it with the assess tool", task, near)}}
	}
	return &UnknownTaskError{Task: task, usageError: usageError{
		msg:   fmt.Sprintf("no task %q (see 'git reason tasks'): start it with 'git reason assess %s'", task, task),
		tools: fmt.Sprintf("no task %q (the tasks tool lists them): start it with the assess tool", task)}}
}

// nearestTask is the task here whose name is nearest to task (Nearest),
// "" when none is near or the tasks cannot be listed: one listing of the
// task refs, on the error's path alone. A name that differs from task
// only in its digits is another task, not a typo (T-42 beside T-43, as
// tickets are numbered): it is never suggested.
func (e *Session) nearestTask(task string) string {
	heads, _, err := e.Store.TasksBroken(context.Background())
	if err != nil {
		return ""
	}
	noDigits := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return -1
			}
			return r
		}, s)
	}
	names := make([]string, 0, len(heads))
	for _, h := range heads {
		if noDigits(h.Task) != noDigits(task) {
			names = append(names, h.Task)
		}
	}
	return Nearest(names, task)
}

// UnknownTaskError is noTask's error: bad usage, of a task that has no
// records here, which the MCP tools say as unknown_task whichever tool
// named it (verify's tasks as much as a task argument).
type UnknownTaskError struct {
	usageError
	Task string
}

// Unknown is noTask's error when task, a valid name, has no records here,
// and nil otherwise: for a surface whose write the writer refused, so
// that a write to a task that does not exist (a closure, a withdrawal, a
// body given whole) is that bad usage, as every verb reports it, rather
// than the first rule an empty history fails.
func (e *Session) Unknown(task string) error {
	if head, err := e.Store.Head(task); err == nil && head == "" {
		return e.noTask(task)
	}
	return nil
}

// StateBefore is State for a write surface about to append to task (its
// defaulted ids, a conclusion's checklist): in a resident session, the
// state its own last append on task left (record.Writer.Kept), when the
// task's head (read alone: no record is loaded) is still the one that
// append stored and its history verifies, so that the records read for
// one write are neither loaded nor decoded again for the next; otherwise
// State. It must not be changed.
func (e *Session) StateBefore(ctx context.Context, task string) (*record.State, error) {
	if head, err := e.Store.Head(task); err == nil {
		if st := e.Writer.Kept(task, head); st != nil {
			if f, err := e.Store.Verdict(ctx, task, head); err == nil && f == nil {
				return st, nil
			}
		}
	}
	st, _, err := e.State(ctx, task)
	return st, err
}

// StateAfter is State of the task res appended to, at the head res
// stored it at, for what a surface shows right after its own write (the
// next steps): the writer's own state, with nothing read or replayed
// again. The writer appended only on a head whose history replays clean
// (record.Writer's verifiedAt asked CheckBase before it admitted the
// record), so a replay of the new head would admit each record by the
// rules that admitted it, the new one on this very state, reach this
// state and find nothing; the head is remembered clean for this process.
// An append that found its record stored after a failure has no state:
// then it is State.
func (e *Session) StateAfter(ctx context.Context, res *record.Result) (*record.State, error) {
	if res.State != nil {
		e.Store.NoteClean(res.Task, res.Commit)
		return res.State, nil
	}
	st, _, err := e.State(ctx, res.Task)
	return st, err
}

// RunValidation admits a command validation's body (JSON) first, then runs
// its command through the shell in dir, streaming the output to out while
// hashing it, and records what it observed. Nothing runs for a body that
// would be refused. The transcript is never stored: only exit status,
// duration and the output's SHA-256.
func (e *Session) RunValidation(ctx context.Context, task string, raw []byte, dir string, out io.Writer) (*record.Result, error) {
	if e.Repo.WorkTree == "" && !e.Repo.Bare {
		return nil, e.outsideWorkTree("validate --run")
	}
	if e.Repo.WorkTree == "" {
		// No checkout: the command would run in the git directory, and
		// the record would say it checked HEAD's code with nothing
		// changed, a fact no run established (git refuses such
		// commands: "must be run in a work tree").
		return nil, usageAdvised("validate --run needs a work tree, and this repository has none: run it in a checkout of the code it checks, or record what you checked with --manual",
			"a command validation needs a work tree, and this repository has none: run it in a checkout of the code it checks, or record a manual validation")
	}
	if err := e.IdentifyWriter(); err != nil {
		return nil, err
	}
	if _, _, err := e.State(ctx, task); err != nil {
		return nil, err
	}
	return e.Writer.AppendRunValidation(ctx, task, raw, func(body *record.Validation) (record.ValidationDerived, error) {
		commit, dirty, rel := e.Checkout(ctx, dir)
		h := sha256.New()
		cmd := exec.CommandContext(ctx, "/bin/sh", "-c", body.Command)
		cmd.Dir = dir
		w := io.MultiWriter(h, out)
		cmd.Stdout, cmd.Stderr = w, w
		start := time.Now()
		err := cmd.Run()
		elapsed := time.Since(start).Milliseconds()
		code := 0
		if err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				return record.ValidationDerived{}, fmt.Errorf("run %q: %w", body.Command, err)
			}
			code = ee.ExitCode()
			if code < 0 {
				// Killed by a signal: the shell's status for it (143
				// for SIGTERM), as the shell running the command
				// reports it; every signal was recorded as SIGKILL's
				// 137.
				code = 128 + 9
				if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					code = 128 + int(ws.Signal())
				}
			}
		}
		return record.ValidationDerived{ExitCode: &code, DurationMS: &elapsed,
			OutputSHA256: hex.EncodeToString(h.Sum(nil)), Commit: commit, Dirty: &dirty, Dir: rel}, nil
	})
}

// Find returns the record whose id (or unique prefix) is id, searching every
// task: the tasks the id index names for it (gitstore.Store.IDTasks: the
// index brought up to the task refs, at the cost of the tasks that moved)
// are derived, and only when it names none that holds the record, or
// cannot say, is every task's records read (from its cache, kept by
// head) and the tasks holding such a record derived.
func (e *Session) Find(ctx context.Context, id string) (*record.Entry, *record.State, error) {
	if err := record.CheckIDPrefix(id); err != nil {
		return nil, nil, err
	}
	prefix := strings.ToUpper(strings.TrimSpace(id))
	if names, ok := e.Store.IDTasks(ctx, prefix); ok && len(names) > 0 {
		tasks := make([]record.TaskHead, len(names))
		for i, t := range names {
			tasks[i].Task = t
		}
		found, in, err := e.findIn(ctx, id, prefix, tasks)
		if found != nil || err != nil {
			return found, in, err
		}
	}
	tasks, err := e.Store.Tasks(ctx)
	if err != nil {
		return nil, nil, err
	}
	found, in, err := e.findIn(ctx, id, prefix, tasks)
	if err == nil && found == nil {
		err = usageAdvised(fmt.Sprintf("no record %q in any task (see 'git reason log')", id),
			fmt.Sprintf("no record %q in any task (the log tool lists them)", id))
	}
	return found, in, err
}

// findIn is Find among tasks: nil when none holds the record.
func (e *Session) findIn(ctx context.Context, id, prefix string, tasks []record.TaskHead) (*record.Entry, *record.State, error) {
	var found *record.Entry
	var in *record.State
	for _, t := range tasks {
		// Only a task that holds a record of that id is derived (and
		// its replay judged): the others are read from their caches.
		_, recs, err := e.Store.Load(ctx, t.Task)
		if err == nil && !slices.ContainsFunc(recs, func(r *record.Record) bool { return strings.HasPrefix(r.ID, prefix) }) {
			continue
		}
		st, _, err := e.State(ctx, t.Task)
		if errors.Is(err, record.ErrUnreadable) {
			e.Store.Skip(t.Task, err)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		ent, err := st.Resolve(id)
		if err != nil {
			if errors.Is(err, record.ErrAmbiguous) {
				return nil, nil, Usage("%s", err.Error()) // which records it names
			}
			continue
		}
		if found != nil && len(prefix) == ulid.EncodedSize {
			// More characters cannot tell a whole id apart: one of the
			// tasks holds a copy of the other's record, or a record of
			// its own under the other's id.
			what := "two different records under one id"
			if sameRecord(found.Record, ent.Record) {
				what = "a record id names one record, so one holds a copy"
			}
			return nil, nil, Usage("record %s is in tasks %s and %s: %s; see each with 'git reason log %s' and 'git reason log %s'", prefix, in.Task, st.Task, what, record.ShellQuote(in.Task), record.ShellQuote(st.Task))
		}
		if found != nil {
			return nil, nil, Usage("record id prefix %q is ambiguous: it names records in tasks %s and %s; give more characters", id, in.Task, st.Task)
		}
		found, in = ent, st
	}
	return found, in, nil
}

// sameRecord reports whether a and b, found under one id in two tasks,
// are one record: equal but for the task that holds each and where in
// it (its clock, and the derived fields computed from that task's state).
func sameRecord(a, b *record.Record) bool {
	return a.ID == b.ID && a.Kind == b.Kind && a.Created == b.Created && a.Actor == b.Actor &&
		a.Origin == b.Origin && bytes.Equal(a.Body, b.Body)
}

// maxReadBytes bounds what is read for a body, from stdin or a file.
const maxReadBytes = 16 << 20

// ReadBody reads a whole JSON body from path, "-" meaning stdin. A path
// must name a regular file: a FIFO or a device (/dev/zero) would block or
// never end. Both are read to the same cap.
func ReadBody(path string, stdin io.Reader) ([]byte, error) {
	var data []byte
	var err error
	if path == "-" {
		// Read well past the limit, so that the writer can say how large
		// the body is rather than finding it cut short.
		data, err = io.ReadAll(io.LimitReader(stdin, maxReadBytes))
	} else {
		data, err = advisor.ReadRegular(path, maxReadBytes, true)
	}
	switch {
	case errors.Is(err, advisor.ErrNotRegular):
		return nil, Usage("--file %s is not a regular file: give a file, or - to read stdin", path)
	case errors.Is(err, advisor.ErrTooLarge):
		return nil, Usage("--file %s is larger than %d bytes; a body is at most %d bytes", path, maxReadBytes, record.MaxBodyBytes)
	case errors.Is(err, context.Canceled):
		return nil, err // Ctrl-C while stdin was read
	case errors.Is(err, fs.ErrNotExist):
		return nil, Usage("--file %s: no such file: give the body's file, or - to read stdin", path)
	case err != nil:
		// The path as typed and the system's reason, not Go's "open PATH:".
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, Usage("--file %s: %v", path, err)
	}
	return data, nil
}

// Marshal builds a JSON body from a typed value.
func Marshal(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err) // only typed bodies are marshalled
	}
	return data
}

// StatusAll returns the status of every task, sorted by task name. It
// reads the head-keyed cache, deriving only tasks whose head moved or
// that reuse a conclusion of a task whose head moved; a task whose latest
// assessment reuses another task's conclusion is marked with what its
// reuses' check found against the refs as they are listed now
// (indexedStatus: kept in its entry, no file read per task).
func (e *Session) StatusAll(ctx context.Context) ([]record.Status, error) {
	tasks, entries, err := e.Index.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]record.Status, 0, len(tasks))
	for _, t := range tasks {
		// A reuse is shown as the reused task's ref holds it now.
		s, _, err := e.indexedStatus(ctx, t, entries[t.Task])
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// LogLine is one timeline entry with its task.
type LogLine struct {
	Task string `json:"task"`
	record.TimelineEntry
	// DoesNotVerify is the first finding of a replay of the task's
	// history, when it does not replay clean.
	DoesNotVerify *record.Finding `json:"does_not_verify,omitempty"`
	// Signature is the record's commit's signature (absent when git could
	// not be asked).
	Signature *Signature `json:"signature,omitempty"`
	// head is the task's head the line was read at, when its signature
	// is yet to be added (withSignatures).
	head string
}

// logLines is the timeline of a task at head, each line with its
// record's signature.
func (e *Session) logLines(ctx context.Context, task, head string, st *record.State) []LogLine {
	sigs, _ := e.RecordSignatures(ctx, task, head)
	return timelineLines(task, st, sigs)
}

// timelineLines is task's lines at st, each with its record's signature
// in sigs.
func timelineLines(task string, st *record.State, sigs map[string]*Signature) []LogLine {
	tl := st.Timeline()
	out := make([]LogLine, len(tl))
	for i, l := range tl {
		out[i] = LogLine{Task: task, TimelineEntry: l, Signature: sigs[l.ID], DoesNotVerify: st.Unverified}
	}
	return out
}

// LogNewest returns the n newest entries across every task that keep
// accepts, ordered by creation time as Log orders them. It reads the
// tasks newest first (gitstore.Store.Newest: a file kept in that order,
// current while no task ref moved) and stops at the first task whose
// newest record is older than the n-th entry found, so its cost is the
// few tasks that hold the newest records, not every history or ref.
func (e *Session) LogNewest(ctx context.Context, n int, keep func(LogLine) bool) ([]LogLine, error) {
	// Newest first; lines of the same time: the task named last first,
	// so that reversed they read in task name order, as Log reads them.
	newestFirst := func(a, b LogLine) int {
		if c := strings.Compare(b.Created, a.Created); c != 0 {
			return c
		}
		return strings.Compare(b.Task, a.Task)
	}
	var got []LogLine
	var failed error
	err := e.Store.Newest(ctx, func(t gitstore.TaskLatest) bool {
		// Every line of this task and of the tasks after it is older
		// than the n-th found, or as old and after it in task order.
		if len(got) >= n && (t.Latest < got[n-1].Created || t.Latest == got[n-1].Created && t.Task < got[n-1].Task) {
			return false
		}
		// At the head the file names: current, as Newest says. As read
		// surfaces show it: recomputed by replay when the history does
		// not verify, never a stored claim of it.
		// Its reuses checked against the reused tasks' refs now, as
		// status shows them.
		recs, err := e.Store.LoadAt(t.Task, t.Head)
		var st *record.State
		if err == nil {
			if st, err = e.Store.DeriveVerified(ctx, t.Task, t.Head, recs); err != nil && ctx.Err() == nil {
				err = record.Unreadable(t.Task, err)
			}
		}
		if err == nil {
			if st, _, err = e.reuseChecked(ctx, t.Task, t.Head, st); ctx.Err() != nil {
				err = ctx.Err()
			}
		}
		if errors.Is(err, record.ErrUnreadable) {
			e.Store.Skip(t.Task, err)
			return true
		}
		if err != nil {
			failed = err
			return false
		}
		tl := e.logLines(ctx, t.Task, t.Head, st)
		for i := len(tl) - 1; i >= 0; i-- {
			if l := tl[i]; keep(l) {
				got = append(got, l)
			}
		}
		slices.SortStableFunc(got, newestFirst)
		if len(got) > n {
			got = got[:n]
		}
		return true
	})
	if err == nil {
		err = failed
	}
	if err != nil {
		return nil, err
	}
	e.Store.SaveVerdicts()
	slices.Reverse(got)
	return got, nil
}

// logSignaturesFile is the sealed journal (gitstore.Sealed) of the
// signature of each record of every task, by head, that log of every
// task reads.
const logSignaturesFile = "log-signatures.journal"

// Log returns the timeline of one task, or of every task ordered by
// creation time when task is "", each task as a read surface shows it
// (ShownState: its reuses checked against the reused tasks' refs now).
// Every task's lines take their
// signatures from one sealed journal kept by head under what git judges
// signatures by (rowsJournal, as status's rows); the tasks it does not
// hold at their heads are asked as status asks its moved rows
// (movedSignatures: a few one by one, more of git together) and put in
// it. So what log writes grows with the tasks that moved since it last
// ran, one file however many: never a signature log per task.
func (e *Session) Log(ctx context.Context, task string) ([]LogLine, error) {
	if task != "" {
		st, head, _, err := e.ShownState(ctx, task)
		if err != nil {
			return nil, err
		}
		return e.logLines(ctx, task, head, st), nil
	}
	heads, j, err := e.rowsJournal(ctx, logSignaturesFile, "log signatures 1")
	if err != nil {
		return nil, err
	}
	var read []record.TaskHead
	var states []*record.State
	var moved []int
	sigs := map[int]map[string]*Signature{}
	for _, h := range heads {
		st, head, _, err := e.ShownState(ctx, h.Task)
		if errors.Is(err, record.ErrUnreadable) {
			e.Store.Skip(h.Task, err)
			continue
		}
		if err != nil {
			return nil, err
		}
		var kept map[string]*Signature
		if data, ok := j.Get(h.Task, head); ok && json.Unmarshal(data, &kept) == nil {
			sigs[len(read)] = kept
		} else {
			moved = append(moved, len(read))
		}
		read, states = append(read, record.TaskHead{Task: h.Task, Head: head}), append(states, st)
	}
	if asked, ok := e.movedSignatures(ctx, read, moved); ok {
		names := make([]string, len(read))
		for i, t := range read {
			names[i] = t.Task
		}
		for _, i := range moved {
			sigs[i] = asked[i]
			if data, err := json.Marshal(asked[i]); err == nil && e.KeepsSignatures(ctx, asked[i]) {
				j.Put(read[i].Task, read[i].Head, data)
			}
		}
		j.Save(names)
	}
	out := []LogLine{}
	for i, t := range read {
		out = append(out, timelineLines(t.Task, states[i], sigs[i])...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Created < out[j].Created })
	return out, nil
}
