package ops

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"git-reason/record"
)

// TaskQuery narrows the task list. State is "" (every task), "open" or
// "closed"; Mine keeps the tasks with a record by the current git
// identity (user.email); Since keeps the tasks active at or after it.
type TaskQuery struct {
	State string
	Mine  bool
	Since time.Time
}

// TaskRow is one task of the list: where it stands and when it last
// moved. State is "open" or "closed"; Closed says how, when it is; or
// "quarantined" for a task that exists here only as a remote's history a
// pull quarantined (HeldOnly), which Quarantined names.
type TaskRow struct {
	Task    string       `json:"task"`
	State   string       `json:"state"`
	Phase   record.Phase `json:"phase"`
	Subject string       `json:"subject,omitempty"`
	Records int          `json:"records"`
	Updated string       `json:"updated,omitempty"` // the newest record's creation time: the last activity
	Next    string       `json:"next,omitempty"`
	// NextTools is Next as the MCP tools take it (record.Status.NextTools).
	NextTools []record.ToolCall `json:"next_tools,omitempty"`
	Closed    *record.Closed    `json:"closed,omitempty"`
	// DoesNotVerify is the first finding of a replay of the task's
	// history, when it does not replay clean: the row is then as replay
	// recomputes it, and the list says so first.
	DoesNotVerify *record.Finding `json:"does_not_verify,omitempty"`
	Quarantined   *HeldHistory    `json:"quarantined,omitempty"`
	// RemoteQuarantined is, for a task that has a local history, the
	// history of it fetched from a remote that a pull quarantined and
	// holds back still (the remote's copy was refused).
	RemoteQuarantined *HeldHistory `json:"remote_quarantined,omitempty"`
}

// Said is the row's state as the lists say it: open; closed and how
// ("closed superseded by T2"); quarantined on the remote whose history
// alone is here; and, for a local task whose remote history a pull
// refused, that too ("open, quarantined on origin").
func (r TaskRow) Said() string {
	if h := r.Quarantined; h != nil {
		return h.Mark()
	}
	state := r.State
	if c := r.Closed; c != nil {
		state = "closed " + c.Outcome
		if c.By != "" {
			state += " by " + c.By
		}
	}
	if h := r.RemoteQuarantined; h != nil {
		state += ", " + h.Mark()
	}
	return state
}

// Tasks lists the tasks the query keeps, newest activity first (then by
// name). It reads the task heads and each task's row kept by head
// (taskRows), so only the tasks that moved since the last read are
// derived; --mine reads the handover cache too, for each task's actors.
// With no filter, the tasks that exist here only as a quarantined remote
// history come last (HeldOnly): no record here says whether they are
// open, mine or recent.
func (e *Session) Tasks(ctx context.Context, q TaskQuery) ([]TaskRow, error) {
	all, err := e.taskRows(ctx)
	if err != nil {
		return nil, err
	}
	var mine map[string]bool
	if q.Mine {
		if mine, err = e.tasksByMe(ctx); err != nil {
			return nil, err
		}
	}
	out := []TaskRow{}
	for _, row := range all {
		switch {
		case q.State != "" && row.State != q.State,
			q.Mine && !mine[row.Task],
			!q.Since.IsZero() && settledBefore(row.Updated, q.Since):
			continue
		}
		out = append(out, row)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Updated != out[j].Updated {
			return out[i].Updated > out[j].Updated
		}
		return out[i].Task < out[j].Task
	})
	held := e.RemoteQuarantined()
	for i := range out {
		out[i].RemoteQuarantined = held[out[i].Task]
	}
	if q == (TaskQuery{}) {
		for _, h := range e.HeldOnly() {
			out = append(out, TaskRow{Task: h.Task, State: "quarantined", Phase: record.PhaseEmpty, Quarantined: &h.History})
		}
	}
	return out, nil
}

// tasksByMe returns the tasks with a record by the current identity,
// matched by email as mail systems compare it.
func (e *Session) tasksByMe(ctx context.Context) (map[string]bool, error) {
	st, err := e.Settings()
	if err != nil {
		return nil, err
	}
	if st.Actor.Email == "" {
		return nil, usageAdvised("--mine: no identity: set it with git config user.email you@example.com",
			"mine: no identity: the person sets it with git config user.email you@example.com (no tool sets it)")
	}
	hs, err := e.Index.Handovers(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, h := range hs {
		if anyActor(h.Actors, "<"+st.Actor.Email+">") {
			out[h.Task] = true
		}
	}
	return out, nil
}

// DeletedTask is what 'task delete' removed.
type DeletedTask struct {
	Task    string `json:"task"`
	Head    string `json:"head"`
	Records int    `json:"records"`
	// DoesNotRead is whether its history did not read (Records is 0).
	DoesNotRead bool `json:"-"`
}

// DeleteTask removes a local task created by mistake: its ref and its
// caches under .git/reason/. It is refused (nothing changes) once the task
// exists in any other namespace under refs/reasoning/ (a remote-tracking
// ref, which a pull or a push leaves): then others may hold it, and
// records are never taken back; close it instead.
func (e *Session) DeleteTask(ctx context.Context, task string) (*DeletedTask, error) {
	if err := record.CheckTask(task); err != nil {
		return nil, err
	}
	head, recs, err := e.Store.Load(ctx, task)
	unreadable := errors.Is(err, record.ErrUnreadable)
	if unreadable {
		// A history that does not read (fetched with plain git: a ref at
		// a tag, a tree, a record that does not decode) is deleted as any
		// other, its ref at the object it names; before, it was said not
		// to exist, and only git update-ref -d removed it.
		head, err = e.Store.Head(task)
	}
	if err != nil {
		return nil, err
	}
	if head == "" {
		return nil, Usage("no task %q (see 'git reason tasks')", task)
	}
	elsewhere, err := e.Store.Elsewhere(ctx, task)
	if err != nil {
		return nil, err
	}
	if len(elsewhere) > 0 {
		if unreadable {
			// Closing it is refused too: its history is verify's matter.
			return nil, Refused("task %s was pushed or fetched (%s): it cannot be deleted, and its history does not read: see 'git reason verify %s'", task, elsewhere[0], task)
		}
		if st, derr := record.Derive(task, recs); derr == nil {
			if c := st.Closure(); c != nil {
				// Advice to close it would be refused: it is.
				return nil, Refused("task %s was pushed or fetched (%s): it cannot be deleted, and it is closed already (%s, %s): nothing more to do",
					task, elsewhere[0], c.Body.(*record.Closure).Outcome, record.ShortID(c.ID))
			}
		}
		return nil, Refused("task %s was pushed or fetched (%s): it cannot be deleted; close it with 'git reason close %s --outcome abandoned'", task, elsewhere[0], task)
	}
	if err := e.Store.DeleteTask(ctx, task, head); err != nil {
		return nil, fmt.Errorf("delete task %s: %w", task, err)
	}
	return &DeletedTask{Task: task, Head: head, Records: len(recs), DoesNotRead: unreadable}, nil
}
