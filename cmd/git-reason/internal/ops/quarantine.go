package ops

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"git-reason/gitstore"
	"git-reason/gitstore/integration"
	"git-reason/record"
)

// Quarantine is a task's fetched history that a pull (or a command's
// catch-up) held back, and why: its local ref untouched, the fetched head
// left on Ref for a person to inspect.
type Quarantine struct {
	gitstore.Quarantine
	Ref string `json:"ref"` // the tracking ref holding the fetched head
}

// Why is the quarantine in one line, for a person.
func (q Quarantine) Why() string {
	var msgs []string
	for _, f := range q.Findings {
		msgs = append(msgs, f.Message)
	}
	why := strings.Join(q.Codes, ", ")
	if len(msgs) > 0 {
		why += ": " + strings.Join(msgs, "; ")
	}
	return why
}

// Said is the quarantine as status and a verb given the task say it:
// which remote's history, why, and where it waits.
func (q Quarantine) Said() string {
	return (&HeldHistory{Remote: q.Remote, Codes: q.Codes, Ref: q.Ref}).Said()
}

// HeldBack is the quarantine of a history of task fetched from a remote
// that its tracking ref holds still (no later fetch moved it): what
// status says of the task's place on that remote, where 'sync brings
// both up to date' would only quarantine it again. It reads a small file
// and one ref.
func (e *Session) HeldBack(task string) (Quarantine, bool) {
	q, ok := e.Store.LoadQuarantines()[task]
	if !ok {
		return Quarantine{}, false
	}
	return e.heldStill(task, q)
}

// heldStill is task's quarantine q when its tracking ref still holds the
// fetched head it was held back at.
func (e *Session) heldStill(task string, q gitstore.Quarantine) (Quarantine, bool) {
	ref := TrackingRef(q.Remote, task)
	if tracking, err := e.Repo.ReadRef(ref); err != nil || tracking != q.Fetched {
		return Quarantine{}, false
	}
	return Quarantine{Quarantine: q, Ref: ref}, true
}

// HeldHistory is a remote's history of a task that exists here only as
// that history, quarantined by a pull: how the task lists (status, tasks)
// show it, since no local record says anything of it.
type HeldHistory struct {
	Remote string   `json:"remote"`
	Codes  []string `json:"codes"`
	Ref    string   `json:"ref"` // the tracking ref it waits on
}

// Mark is the history as a list marks its task in a word or two:
// "quarantined on origin".
func (h *HeldHistory) Mark() string { return "quarantined on " + h.Remote }

// Said is the history as status and a verb given the task say it (as
// Quarantine.Said).
func (h *HeldHistory) Said() string {
	return fmt.Sprintf("a pull quarantined %s's history of it (%s); it waits on %s for inspection",
		h.Remote, strings.Join(h.Codes, ", "), h.Ref)
}

// RemoteQuarantined is, by task, the fetched history that a pull
// quarantined and the tracking ref holds still (as HeldBack, which
// 'status TASK' says) of each task that has a local history: what the
// task lists mark such a task with, so that the list says the remote's
// copy was refused, not only 'status TASK' and doctor. It reads
// quarantine.json once and the refs of the tasks it names.
func (e *Session) RemoteQuarantined() map[string]*HeldHistory {
	out := map[string]*HeldHistory{}
	e.eachHeld(func(task string, local bool, h HeldHistory) {
		if local {
			out[task] = &h
		}
	})
	return out
}

// eachHeld calls f with each task whose fetched history a pull
// quarantined and whose tracking ref holds it still, saying whether the
// task has a local history.
func (e *Session) eachHeld(f func(task string, local bool, h HeldHistory)) {
	for task, q := range e.Store.LoadQuarantines() {
		local, err := e.Repo.ReadRef(gitstore.TaskRef(task))
		if err != nil {
			continue
		}
		if h, held := e.heldStill(task, q); held {
			f(task, local != "", HeldHistory{Remote: h.Remote, Codes: h.Codes, Ref: h.Ref})
		}
	}
}

// HeldTask is a task HeldOnly names: its quarantined history, and the
// line a list says of it (the error of every verb given the task).
type HeldTask struct {
	Task    string
	History HeldHistory
	Line    string
}

// HeldOnly is, sorted by task, each task with no local ref whose fetched
// history a pull quarantined and whose tracking ref holds it still: the
// tasks a list of the local ones would not show, of which every verb says
// 'no task here: a pull quarantined ...' (noTask). It reads quarantine.json
// once and the refs of the tasks it names, never every task's.
func (e *Session) HeldOnly() []HeldTask {
	var out []HeldTask
	e.eachHeld(func(task string, local bool, h HeldHistory) {
		if !local {
			out = append(out, HeldTask{Task: task, History: h, Line: fmt.Sprintf("%s: no task here: %s", task, h.Said())})
		}
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Task < out[j].Task })
	return out
}

// rememberQuarantines keeps what an integration of remote held back, and
// forgets the quarantine of every task it brought in, for Quarantined.
// It also forgets those of remote's tasks that nothing is held back of
// any more, which no integration names: the remote's head is the local
// one again (put back where the local history is, it has nothing to
// bring), or, when whole (the fetch brought every task of remote and
// pruned the others), the remote no longer has the task. Else a remote
// put right stayed quarantined for good, and one renaming its hostile
// refs before each pull grew quarantine.json by a task a ref at every
// pull (bench/quarantine/run.sh).
func (e *Session) rememberQuarantines(remote string, results []*integration.Integration, whole bool) error {
	held := map[string]gitstore.Quarantine{}
	var cleared []string
	named := map[string]bool{}
	for _, in := range results {
		named[in.Task] = true
		switch in.Outcome {
		case integration.OutcomeQuarantined:
			held[in.Task] = gitstore.Quarantine{Remote: remote, Local: in.From, Fetched: in.Fetched, Codes: in.Codes, Findings: in.Findings}
		default:
			cleared = append(cleared, in.Task)
		}
	}
	for task, q := range e.Store.LoadQuarantines() {
		if q.Remote != remote || named[task] {
			continue
		}
		fetched, err := e.Repo.ReadRef(TrackingRef(remote, task))
		if err != nil {
			continue // said where the ref is read again
		}
		local, err := e.TaskHead(task)
		if err == nil && (fetched != "" && fetched == local || fetched == "" && whole) {
			cleared = append(cleared, task)
		}
	}
	return e.Store.SaveQuarantines(held, cleared)
}

// forgetGone forgets the quarantine of each task whose tracking ref is
// gone since the last catch-up (t holds every tracking ref and all of
// fetched.heads), and says in a line when it could not. A git
// fetch --prune (or fetch.prune, git remote prune) removes the ref of a
// task the remote dropped, as pull of every task does
// (rememberQuarantines). The catch-up cannot tell that from a ref deleted
// by hand, and need not: quarantine.json says which fetched heads are held
// back, and with the ref gone none is held back here; a remote that still
// has the task brings it back with the next fetch, a head the catch-up has
// not integrated, which is examined and quarantined again.
func (e *Session) forgetGone(t *tracked) []string {
	live := make(map[string]bool, len(t.refs))
	for _, r := range t.refs {
		live[strings.TrimPrefix(r.Name, gitstore.RemotePrefix)] = true
	}
	var gone []string
	for name := range t.known {
		if !live[name] {
			gone = append(gone, name)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	held := e.Store.LoadQuarantines()
	var cleared []string
	for _, name := range gone {
		remote, task, _ := strings.Cut(name, "/")
		if q, ok := held[task]; ok && q.Remote == remote {
			cleared = append(cleared, task)
		}
	}
	if err := e.Store.SaveQuarantines(nil, cleared); err != nil {
		return []string{fmt.Sprintf("warning: quarantine of tasks no longer fetched not forgotten: %s: run 'git reason pull'", record.Printable(err.Error()))}
	}
	return nil
}

// Quarantined returns, by task, the fetched histories held back that are
// held back still: those the local ref has not come to hold since (a
// later pull that brought them in forgets them). It reads a small file
// and the refs of the tasks it names, never every task.
func (e *Session) Quarantined(ctx context.Context) (map[string]Quarantine, error) {
	out := map[string]Quarantine{}
	for task, q := range e.Store.LoadQuarantines() {
		local, err := e.TaskHead(task)
		if err != nil {
			return nil, err
		}
		if local != q.Local && local != "" {
			// The local ref moved since: a record written here, or the
			// fetched history brought in by other means. A history
			// that does not read says nothing: the quarantine stands.
			if in, err := e.Store.IsAncestor(ctx, q.Fetched, local); err == nil && in {
				continue
			}
		}
		out[task] = Quarantine{Quarantine: q, Ref: TrackingRef(q.Remote, task)}
	}
	return out, nil
}
