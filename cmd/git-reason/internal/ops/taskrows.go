package ops

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"git-reason/gitstore"
	"git-reason/record"
)

// taskRowsFile is the sealed journal (gitstore.Sealed) of what the task
// list (Tasks) shows of each task, kept by head.
const taskRowsFile = "task-rows.journal"

// taskRows returns the row of every task that reads, sorted by task name,
// as StatusAll's statuses give them. With no task moved it lists the task
// refs and reads one small entry per task from
// .git/reason/task-rows.journal, a sealed journal (each entry's MAC
// checked): no status is decoded from JSON. The tasks with no entry at
// their head (they moved, or an entry was edited) are derived alone and
// their entries kept, up to manyMoved of them; past that, or when one
// does not read, every task's status is read as StatusAll reads it
// (deriving the moved ones) and the entries missing are kept.
func (e *Session) taskRows(ctx context.Context) ([]TaskRow, error) {
	tasks, err := e.Store.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	j := gitstore.OpenSealed(e.Repo, taskRowsFile, "task rows 2")
	limit := manyMoved(len(tasks))
	rows, moved := keptRows(j, tasks, limit, parseTaskRow)
	if len(moved) == 0 {
		return rows, nil
	}
	names := make([]string, len(tasks))
	for i, t := range tasks {
		names[i] = t.Task
	}
	if len(moved) <= limit && e.movedTaskRows(ctx, j, tasks, rows, moved) {
		j.Save(names)
		return rows, nil
	}
	heads, entries, err := e.Index.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	rows = rows[:0]
	names = names[:0]
	for _, t := range heads {
		r := taskRowOf(entries[t.Task].Status)
		rows = append(rows, r)
		names = append(names, t.Task)
		if _, ok := j.Get(t.Task, t.Head); !ok {
			j.Put(t.Task, t.Head, formatTaskRow(r))
		}
	}
	j.Save(names)
	return rows, nil
}

// movedTaskRows fills rows[i] of each task of moved (indexes into tasks)
// from its status at its head and puts them into j, and says whether
// every one of them read: a task whose history does not read is left to
// the list read whole, which leaves it out as it always has.
func (e *Session) movedTaskRows(ctx context.Context, j *gitstore.Sealed, tasks []record.TaskHead, rows []TaskRow, moved []int) bool {
	return e.eachMovedStatus(ctx, tasks, moved, func(i int, s record.Status) bool {
		rows[i] = taskRowOf(s)
		j.Put(tasks[i].Task, tasks[i].Head, formatTaskRow(rows[i]))
		return true
	})
}

// eachMovedStatus derives each task of moved (indexes into tasks) at its
// head, showing progress, and gives row its index and status; it says
// whether every one read and row took it (false at the first that did
// not). The verdicts the replays reached are saved once, at the end.
func (e *Session) eachMovedStatus(ctx context.Context, tasks []record.TaskHead, moved []int, row func(i int, s record.Status) bool) bool {
	// The task caches the reads write: at the end, packed when many.
	defer e.Store.HoldCaches()()
	for n, i := range moved {
		e.Store.Progress("Reading tasks", n, len(moved))
		t := tasks[i]
		s, err := e.Index.StatusAt(ctx, t.Task, t.Head)
		if err != nil || !row(i, s) {
			return false
		}
	}
	e.Store.Progress("Reading tasks", len(moved), len(moved))
	e.Store.SaveVerdicts()
	return true
}

// taskRowOf is the row of the task whose status is s.
func taskRowOf(s record.Status) TaskRow {
	row := TaskRow{Task: s.Task, State: "open", Phase: s.Phase, Subject: s.Subject, Records: s.Records,
		Updated: s.Updated, Next: s.Next, Closed: s.Closed, DoesNotVerify: s.DoesNotVerify}
	if s.Closed != nil {
		row.State = "closed"
	}
	return row
}

// taskRowFields is how many fields an entry of task-rows.journal has:
// phase, records, updated, subject, next, closed (0 or 1) with the seven
// fields of record.Closed, and replay's first finding (JSON, "" when the
// history replays clean).
const taskRowFields = 14

// formatTaskRow is a row's entry: its fields separated by tabs, the texts
// quoted (Go syntax: no tab or newline in them).
func formatTaskRow(r TaskRow) []byte {
	f := make([]string, 0, taskRowFields)
	f = append(f, string(r.Phase), strconv.Itoa(r.Records), strconv.Quote(r.Updated), strconv.Quote(r.Subject), strconv.Quote(r.Next))
	c := r.Closed
	if c == nil {
		f = append(f, "0")
		c = &record.Closed{}
	} else {
		f = append(f, "1")
	}
	for _, s := range []string{c.Closure, c.Outcome, c.By, c.Reason, c.Conclusion, c.Actor, c.Created} {
		f = append(f, strconv.Quote(s))
	}
	finding := ""
	if r.DoesNotVerify != nil {
		b, _ := json.Marshal(r.DoesNotVerify)
		finding = string(b)
	}
	f = append(f, strconv.Quote(finding))
	return []byte(strings.Join(f, "\t"))
}

// parseTaskRow reads formatTaskRow's entry of task, its fields cut off
// one string (rowParser).
func parseTaskRow(task string, data []byte) (TaskRow, bool) {
	p := rowParser{rest: string(data)}
	r := TaskRow{Task: task, State: "open", Phase: record.Phase(p.field()), Records: p.number()}
	r.Updated, r.Subject, r.Next = p.quoted(), p.quoted(), p.quoted()
	closed := p.field()
	c := record.Closed{Closure: p.quoted(), Outcome: p.quoted(), By: p.quoted(), Reason: p.quoted(),
		Conclusion: p.quoted(), Actor: p.quoted(), Created: p.quoted()}
	if finding := p.lastQuoted(); finding != "" {
		r.DoesNotVerify = &record.Finding{}
		if json.Unmarshal([]byte(finding), r.DoesNotVerify) != nil {
			return TaskRow{}, false
		}
	}
	switch {
	case p.bad:
		return TaskRow{}, false
	case closed == "1":
		kept := c // (c itself stays on the stack for an open task)
		r.State, r.Closed = "closed", &kept
	case closed != "0":
		return TaskRow{}, false
	}
	return r, true
}
