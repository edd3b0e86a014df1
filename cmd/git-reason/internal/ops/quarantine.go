package ops

import (
	"context"
	"strings"

	"git-reason/gitstore"
	"git-reason/gitstore/integration"
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
