package ops

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"git-reason/cmd/git-reason/internal/settings"
	"git-reason/gitstore"
	"git-reason/gitstore/integration"
	"git-reason/record"
)

// What push did with a task.
const (
	PushPushed      = "pushed"      // the remote ref moved forward
	PushCreated     = "created"     // the remote had no such task
	PushRefused     = "refused"     // verification refused what would be pushed
	PushRejected    = "rejected"    // the remote refused it (see Message)
	PushQuarantined = "quarantined" // rejected as stale, and the pull that followed quarantined it
)

// PushedTask is what push did with one task.
type PushedTask struct {
	Task     string           `json:"task"`
	Outcome  string           `json:"outcome"`
	From     string           `json:"from"` // the remote's head before, as last fetched ("" when new)
	To       string           `json:"to"`
	Codes    []string         `json:"codes"`
	Findings []record.Finding `json:"findings"`
	Message  string           `json:"message,omitempty"`
}

// PushResult is what a push did: one entry per task that was sent,
// refused or rejected, and what the pulls between rounds did.
type PushResult struct {
	Remote string        `json:"remote"`
	Tasks  []*PushedTask `json:"tasks"`
	Pulled []*PulledTask `json:"pulled"`
	Needs  []Need        `json:"needs"` // what the pulls' merges refused
	Rounds int           `json:"rounds"`
	// Examined counts the tasks whose head differed from the remote's
	// (as last fetched or pushed), in every round: the only histories a
	// push reads. A push with nothing to do examines none.
	Examined int `json:"examined"`
}

// Refused counts the tasks verification or quarantine kept back (exit 3).
func (p *PushResult) Refused() int {
	n := 0
	for _, t := range p.Tasks {
		if t.Outcome == PushRefused || t.Outcome == PushQuarantined {
			n++
		}
	}
	return n
}

// Rejected counts the tasks the remote refused for another reason (exit 1).
func (p *PushResult) Rejected() int {
	n := 0
	for _, t := range p.Tasks {
		if t.Outcome == PushRejected {
			n++
		}
	}
	return n
}

// Push sends the local tasks (every one, or the named ones) that the
// remote lacks, each at a head verified by replay first, as the pre-push
// hook verifies: explicit refspecs, never forced. A task rejected because
// the remote moved is pulled (verified, merged) and pushed again, for at
// most maxPushRounds rounds. skip names tasks not to push (a sync skips
// what its pull quarantined).
func (e *Session) Push(ctx context.Context, req SyncRequest, skip map[string]bool) (*PushResult, error) {
	// What verification found clean is remembered for the next one.
	defer func() { _ = e.integrator().Memo.Remembered.Save() }()
	out := &PushResult{Remote: req.Remote, Tasks: []*PushedTask{}, Pulled: []*PulledTask{}, Needs: []Need{}}
	pending := slices.Clone(req.Tasks)
	if len(pending) == 0 {
		// Heads are compared first, from one listing of each namespace:
		// only tasks whose head is not the remote's (as last fetched or
		// pushed) are candidates, and only they are verified.
		local, err := refHeads(e.Repo, gitstore.TaskPrefix)
		if err != nil {
			return nil, err
		}
		tracking, err := refHeads(e.Repo, gitstore.RemotePrefix+req.Remote+"/")
		if err != nil {
			return nil, err
		}
		for task, head := range local {
			if tracking[task] != head {
				pending = append(pending, task)
			}
		}
		slices.Sort(pending)
	} else {
		for _, t := range pending {
			if err := record.CheckTask(t); err != nil {
				return nil, err
			}
			if h, err := e.Repo.ReadRef(gitstore.TaskRef(t)); err != nil {
				return nil, err
			} else if h == "" {
				if req.mayBeRemote(t) {
					return nil, Usage("no task %q here to push, and no remote is named %q either: name a task (see 'git reason tasks') or a remote (see 'git remote -v')", t, t)
				}
				return nil, Usage("no task %q here to push (see 'git reason tasks')", t)
			}
		}
	}
	g := e.integrator()
	for round := 1; round <= maxPushRounds && len(pending) > 0; round++ {
		out.Rounds = round
		var specs []string
		sent := map[string]*PushedTask{}
		queued := make(map[string]bool, len(pending))
		for _, task := range pending {
			queued[task] = true
		}
		// pending grows while it is walked: a history that reuses another
		// task's standing conclusion travels with that task, or the
		// remote holds a reuse its readers cannot check (their pull
		// quarantines it: no such task).
		for i := 0; i < len(pending); i++ {
			// Each candidate is verified by replay, a history at a time:
			// seconds for thousands of tasks, shown on a terminal as
			// pull and verify show theirs.
			e.Store.Progress("Verifying tasks", i, len(pending))
			task := pending[i]
			if skip[task] {
				continue
			}
			out.Examined++
			pt, err := e.pushCandidate(ctx, g, req.Remote, task)
			if err != nil {
				return nil, err
			}
			if pt == nil {
				continue
			}
			if pt.Outcome == PushRefused {
				out.Tasks = append(out.Tasks, pt)
				continue
			}
			for _, u := range g.ReusedTasks(task, pt.To) {
				if !queued[u] {
					if h, err := e.Repo.ReadRef(gitstore.TaskRef(u)); err == nil && h != "" {
						queued[u] = true
						pending = append(pending, u)
					}
				}
			}
			sent[gitstore.TaskRef(task)] = pt
			specs = append(specs, pt.To+":"+gitstore.TaskRef(task))
		}
		e.Store.Progress("Verifying tasks", len(pending), len(pending))
		if len(specs) == 0 {
			break
		}
		// What was verified clean is remembered before git push runs:
		// its pre-push hook (another git reason) verifies the same heads
		// from what this clone remembers, and would replay each history
		// again otherwise (reliability.TestPushVerifiesOnce).
		_ = g.Memo.Remembered.Save()
		results, err := e.Repo.Push(ctx, req.Remote, specs)
		if err != nil {
			return nil, pushError(req.Remote, err)
		}
		var moved []string
		for _, r := range results {
			pt := sent[r.Ref]
			if pt == nil {
				continue
			}
			switch {
			case r.Flag == ' ' || r.Flag == '*':
				if r.Flag == '*' {
					pt.Outcome = PushCreated
				}
				// Best effort: the next fetch sets it anyway.
				_ = e.Repo.UpdateRef(gitstore.RemoteRef(req.Remote, pt.Task), pt.From, pt.To)
				out.Tasks = append(out.Tasks, pt)
			case r.Flag == '=':
				_ = e.Repo.UpdateRef(gitstore.RemoteRef(req.Remote, pt.Task), pt.From, pt.To)
			case r.Moved():
				moved = append(moved, pt.Task)
			case r.Conflict != "":
				pt.Outcome = PushRejected
				pt.Message = record.Printable(r.Conflict) + " on " + req.Remote + " (one task's name cannot be a directory of another's: rename one of them)"
				out.Tasks = append(out.Tasks, pt)
			case r.Hook != "":
				// The hook's own words, not git's "pre-receive hook
				// declined": git reason's server hook names the rule.
				pt.Outcome = PushRejected
				pt.Message = fmt.Sprintf("%s's hook declined it: %s", req.Remote,
					record.Printable(strings.ReplaceAll(r.Hook, "git-reason: "+r.Ref+": ", "")))
				out.Tasks = append(out.Tasks, pt)
			default:
				pt.Outcome, pt.Message = PushRejected, req.Remote+" refused it: "+record.Printable(r.Status)
				out.Tasks = append(out.Tasks, pt)
			}
		}
		if len(moved) == 0 {
			break
		}
		if round == maxPushRounds {
			for _, t := range moved {
				out.Tasks = append(out.Tasks, &PushedTask{Task: t, Outcome: PushRejected, Codes: []string{}, Findings: []record.Finding{},
					Message: fmt.Sprintf("%s kept moving: gave up after %d rounds; run 'git reason sync' again", req.Remote, maxPushRounds)})
			}
			break
		}
		// Someone pushed first: pull what they pushed, then try again,
		// after a short random pause so that pushers racing for one ref
		// do not collide again in step.
		time.Sleep(time.Duration(rand.IntN(50*round)) * time.Millisecond)
		refused, err := e.Repo.Fetch(ctx, req.Remote, moved)
		if err != nil {
			return nil, fetchError(SyncRequest{Remote: req.Remote, Tasks: moved}, err)
		}
		pulled, err := e.integrate(ctx, req.Remote, moved, refused)
		if err != nil {
			return nil, err
		}
		out.Pulled = append(out.Pulled, pulled.Tasks...)
		out.Needs = append(out.Needs, pulled.Needs...)
		pending = pending[:0:0]
		for _, in := range pulled.Tasks {
			if in.Outcome == PullQuarantined {
				out.Tasks = append(out.Tasks, &PushedTask{Task: in.Task, Outcome: PushQuarantined, To: in.From, From: in.Fetched,
					Codes: in.Codes, Findings: in.Findings, Message: "the history on " + req.Remote + " was quarantined by the pull before retrying"})
			}
		}
		for _, t := range moved {
			if !quarantined(pulled, t) {
				pending = append(pending, t)
			}
		}
	}
	return out, nil
}

func quarantined(p *PullResult, task string) bool {
	for _, in := range p.Tasks {
		if in.Task == task && in.Outcome == PullQuarantined {
			return true
		}
	}
	return false
}

// pushCandidate decides whether task has anything to send: nil when the
// remote (as last fetched) has its head already, else the task with its
// verified head, or refused when verification finds anything but what a
// person's record settles.
func (e *Session) pushCandidate(ctx context.Context, g *integration.Integrator, remote, task string) (*PushedTask, error) {
	local, err := e.Repo.ReadRef(gitstore.TaskRef(task))
	if err != nil || local == "" {
		return nil, err
	}
	tracking, err := e.Repo.ReadRef(gitstore.RemoteRef(remote, task))
	if err != nil {
		return nil, err
	}
	if local == tracking {
		return nil, nil
	}
	if tracking != "" && e.Store.HasObject(tracking) {
		behind, err := e.Store.IsAncestor(ctx, local, tracking)
		if err != nil {
			return nil, err
		}
		if behind {
			return nil, nil
		}
	}
	pt := &PushedTask{Task: task, Outcome: PushPushed, From: tracking, To: local, Codes: []string{}, Findings: []record.Finding{}}
	found, err := g.Verify(ctx, task, local)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		pt.Outcome, pt.Codes = PushRefused, []string{integration.CodeUnreadable}
		pt.Findings = []record.Finding{{Task: task, Commit: local, Code: integration.CodeUnreadable, Message: err.Error()}}
		return pt, nil
	}
	if bad := record.Blocking(found); len(bad) > 0 {
		pt.Outcome, pt.Codes, pt.Findings = PushRefused, record.Codes(bad), bad
	}
	return pt, nil
}

// pushError turns a git push that did not run into one line.
func pushError(remote string, err error) error {
	var ge *gitstore.GitError
	if errors.As(err, &ge) {
		return fmt.Errorf("push to %s failed: git push: %s%s", remote, remoteLine(ge), urlAdvice(remote, ge.Stderr))
	}
	return fmt.Errorf("push to %s: %w", remote, err)
}

// SyncResult is a pull followed by a push.
type SyncResult struct {
	Pull *PullResult `json:"pull"`
	Push *PushResult `json:"push"`
}

// Remote is the remote synced with: both, "up and fork", when the pull
// and the push went to different ones.
func (s *SyncResult) Remote() string {
	if s.Push != nil && s.Push.Remote != s.Pull.Remote {
		return s.Pull.Remote + " and " + s.Push.Remote
	}
	return s.Pull.Remote
}

// Sync pulls from the remote, then pushes every task the pull did not
// quarantine, to req.PushRemote when it is set.
func (e *Session) Sync(ctx context.Context, req SyncRequest) (*SyncResult, error) {
	pull, err := e.Pull(ctx, req)
	if err != nil {
		return nil, err
	}
	skip := map[string]bool{}
	for _, in := range pull.Tasks {
		if in.Outcome == PullQuarantined {
			skip[in.Task] = true
		}
	}
	if req.PushRemote != "" {
		req.Remote = req.PushRemote
	}
	push, err := e.Push(ctx, req, skip)
	if err != nil {
		return &SyncResult{Pull: pull}, err
	}
	return &SyncResult{Pull: pull, Push: push}, nil
}

// fetchesTasks reports whether a plain git fetch of remote brings its
// tasks into the remote-tracking namespace: the refspec RemoteSetup adds.
func fetchesTasks(st *settings.Settings, remote string) bool {
	return slices.Contains(st.Remotes[remote].Fetch, gitstore.FetchRefspec(remote))
}

// mirrorsTasks reports whether a plain git fetch of remote writes its
// tasks onto the task refs themselves, forced: a fetch refspec whose
// source takes in refs/reasoning/tasks/ and whose destination is the
// same pattern, as a mirror clone's +refs/*:refs/* is. There is then no
// remote-tracking namespace to set up: git fetch already brings every
// task, and replaces a task ref written here and not pushed.
func mirrorsTasks(st *settings.Settings, remote string) bool {
	for _, spec := range st.Remotes[remote].Fetch {
		src, dst, ok := strings.Cut(strings.TrimPrefix(spec, "+"), ":")
		prefix, glob := strings.CutSuffix(src, "*")
		if ok && glob && src == dst && strings.HasPrefix(gitstore.TaskPrefix, prefix) {
			return true
		}
	}
	return false
}

// fetchesUnder is the other name (not remote's) under whose
// remote-tracking namespace remote's fetch refspecs put tasks, and that
// refspec: what `git remote rename OLD NEW` leaves ("Not updating
// non-default fetch refspec"), NEW's plain git fetch filling OLD's
// namespace. "" when there is none.
func fetchesUnder(st *settings.Settings, remote string) (name, spec string) {
	for _, s := range st.Remotes[remote].Fetch {
		rest, ok := strings.CutPrefix(s, "+"+gitstore.TaskPrefix+"*:"+gitstore.RemotePrefix)
		if n, ok2 := strings.CutSuffix(rest, "/*"); ok && ok2 && n != remote && !strings.Contains(n, "*") {
			return n, s
		}
	}
	return "", ""
}

// RemoteSetup adds to remote's configuration the fetch refspec that makes
// a plain `git fetch` also fetch every task into the remote-tracking
// namespace pull reads, in place of one that fetched them under another
// name (fetchesUnder). It returns what it changed (none when nothing was
// missing).
func (e *Session) RemoteSetup(ctx context.Context, remote string) ([]string, error) {
	spec := gitstore.FetchRefspec(remote)
	key := "remote." + remote + ".fetch"
	st, err := e.Settings()
	if err != nil {
		return nil, err
	}
	var changed []string
	if _, old := fetchesUnder(st, remote); old != "" {
		if _, err := e.Repo.Git(ctx, "config", "--fixed-value", "--unset-all", key, old); err != nil {
			return nil, fmt.Errorf("unset %s %s: %w", key, old, err)
		}
		changed = append(changed, key+" -= "+old)
	}
	if !fetchesTasks(st, remote) && !mirrorsTasks(st, remote) {
		if _, err := e.Repo.Git(ctx, "config", "--add", key, spec); err != nil {
			return nil, fmt.Errorf("set %s: %w", key, err)
		}
		changed = append(changed, key+" += "+spec)
	}
	return changed, nil
}
