package ops

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"git-reason/cmd/git-reason/internal/settings"
	"git-reason/gitstore"
	"git-reason/record"
)

// Carried is what the pre-push hook did with the reasoning of the tasks a
// code push names (reason.pushWithCode).
type Carried struct {
	Mode   string   `json:"mode"`   // settings.PushWithCode*
	Remote string   `json:"remote"` // the remote the code goes to
	Tasks  []string `json:"tasks"`  // the tasks the pushed commits and branches name, that exist here
	// Push is what pushing them did (mode true, nil otherwise).
	Push *PushResult `json:"push,omitempty"`
	// Lines say, one per task, what did not travel and what to run, and
	// what a merge made to push needs a person to settle. They never
	// refuse the code push.
	Lines []string `json:"lines"`
}

// CarryReasoning pushes the reasoning that goes with a code push to the
// same remote (reason.pushWithCode): the tasks named by a Reason-Task
// trailer of the commits being pushed (those the remote, as last fetched,
// lacks) and each pushed branch's task, through Push: verified, in one git
// push, never forced, pulling and pushing again when the remote moved.
// Whatever fails is a line in the result, never an error that would stop
// the code push; the error is for what could not even be asked.
func (e *Session) CarryReasoning(ctx context.Context, remote string, lines []PushLine) (*Carried, error) {
	st, err := e.Settings()
	if err != nil {
		return nil, err
	}
	out := &Carried{Mode: st.Travel.PushWithCode, Remote: remote, Tasks: []string{}, Lines: []string{}}
	if out.Mode == settings.PushWithCodeOff {
		return out, nil
	}
	named, others, err := e.pushedTasks(ctx, st, remote, lines)
	if err != nil {
		return nil, err
	}
	for _, t := range named {
		h, err := e.Repo.ReadRef(gitstore.TaskRef(t))
		switch {
		case err != nil || h == "":
		case others[t] && e.onNoRemote(st, t):
			// A stranger's commit (a pull request merged here) may name
			// a task this clone never shared: it stays here.
			out.Lines = append(out.Lines, fmt.Sprintf("reasoning of %s not pushed: it is on no remote, and no commit you made here names it: run 'git reason push %s %s' to share it", t, remote, t))
		default:
			out.Tasks = append(out.Tasks, t)
		}
	}
	if len(out.Tasks) == 0 {
		return out, nil
	}
	if st.Remotes[remote].URL == "" || e.checkRemote(remote) != nil {
		// A push to a URL has no remote-tracking namespace to compare with.
		for _, t := range out.Tasks {
			out.Lines = append(out.Lines, fmt.Sprintf("reasoning of %s not pushed: %s is not a named remote: run 'git reason push REMOTE %s'", t, record.Printable(remote), t))
		}
		return out, nil
	}
	if out.Mode == settings.PushWithCodeWarn {
		for _, t := range out.Tasks {
			local, _ := e.Repo.ReadRef(gitstore.TaskRef(t))
			tracking, _ := e.Repo.ReadRef(gitstore.RemoteRef(remote, t))
			if local != tracking {
				out.Lines = append(out.Lines, fmt.Sprintf("reasoning of %s may be missing on %s (reason.pushWithCode is warn): run 'git reason push %s %s'", t, remote, remote, t))
			}
		}
		return out, nil
	}
	res, err := e.Push(ctx, SyncRequest{Remote: remote, Tasks: out.Tasks}, nil)
	if err != nil {
		line := record.Printable(strings.ReplaceAll(err.Error(), "\n", "; "))
		for _, t := range out.Tasks {
			out.Lines = append(out.Lines, fmt.Sprintf("reasoning of %s did not travel to %s (%s): run 'git reason push %s %s'", t, remote, line, remote, t))
		}
		return out, nil
	}
	out.Push = res
	// A merge the push made to get through may need a person (two
	// conclusions): it travelled, but the person pushing is told now,
	// as a catch-up tells it, not only by a later status.
	for _, n := range res.Needs {
		out.Lines = append(out.Lines, fmt.Sprintf("%s: needs a person's record: %s; settle it with: %s", n.Task, n.Message, n.Command))
	}
	for _, pt := range res.Tasks {
		switch pt.Outcome {
		case PushRefused:
			out.Lines = append(out.Lines, fmt.Sprintf("reasoning of %s did not travel to %s: verification refused it (%s): see 'git reason verify %s'", pt.Task, remote, strings.Join(pt.Codes, ", "), pt.Task))
		case PushQuarantined:
			out.Lines = append(out.Lines, fmt.Sprintf("reasoning of %s did not travel to %s: what %s holds was quarantined (%s): inspect %s, then run 'git reason sync %s'", pt.Task, remote, remote, strings.Join(pt.Codes, ", "), TrackingRef(remote, pt.Task), remote))
		case PushRejected:
			out.Lines = append(out.Lines, fmt.Sprintf("reasoning of %s did not travel to %s (%s): run 'git reason push %s %s'", pt.Task, remote, record.Printable(pt.Message), remote, pt.Task))
		}
	}
	return out, nil
}

// pushedTasks are the tasks a push names: each Reason-Task trailer of the
// commits it sends that the remote (as last fetched) lacks, read by one
// git log over every pushed range, then each pushed branch's task. others
// holds the tasks only trailers of commits someone else wrote name: an
// author email not the user's, or a commit git commit did not make here
// (committedHere).
func (e *Session) pushedTasks(ctx context.Context, st *settings.Settings, remote string, lines []PushLine) (named []string, others map[string]bool, err error) {
	var tips, bases, branchTasks, inPush []string
	for _, l := range lines {
		if t, ok := strings.CutPrefix(l.RemoteRef, gitstore.TaskPrefix); ok {
			// This push carries it itself (git push --mirror, or the task
			// ref named): pushed from here too, it reached the remote
			// first and git's own update of it was rejected.
			inPush = append(inPush, t)
		}
		if l.LocalSHA == zeroHash || strings.HasPrefix(l.RemoteRef, "refs/reasoning/") {
			continue
		}
		tips = append(tips, l.LocalSHA)
		if l.RemoteSHA != zeroHash && e.Store.HasObject(l.RemoteSHA) {
			bases = append(bases, "^"+l.RemoteSHA)
		}
		if branch, ok := strings.CutPrefix(l.LocalRef, "refs/heads/"); ok {
			task := branch
			if v := st.BranchTasks[branch]; v != "" {
				task = v
			}
			branchTasks = append(branchTasks, task)
		}
	}
	if len(tips) == 0 {
		return nil, nil, nil
	}
	// Each commit is a line "\x01HASH EMAIL" then its trailers' values.
	args := []string{"log", "--no-show-signature", "--format=%x01%H %ae%n%(trailers:key=" + TrailerKey + ",valueonly)"}
	args = append(args, tips...)
	args = append(args, bases...)
	if st.Remotes[remote].URL != "" && e.checkRemote(remote) == nil {
		// Commits already on the remote's branches went with their own push.
		args = append(args, "--not", "--remotes="+remote)
	}
	text, err := e.gitOut(ctx, append(args, "--")...)
	if err != nil {
		return nil, nil, fmt.Errorf("read the Reason-Task trailers of the pushed commits: %w", err)
	}
	own, others := map[string]bool{}, map[string]bool{}
	by, me := others, st.Actor.OrDefault().Email
	var made map[string]bool // committedHere, read on the first commit by me
	add := func(t string, by map[string]bool) {
		t = strings.TrimSpace(t)
		if t == "" || record.CheckTask(t) != nil || slices.Contains(inPush, t) {
			return
		}
		if !own[t] && !others[t] { // named holds every task of either
			named = append(named, t)
		}
		by[t] = true
	}
	for _, line := range strings.Split(text, "\n") {
		if commit, ok := strings.CutPrefix(line, "\x01"); ok {
			// An author is whatever its commit says: a stranger's commit
			// may give the user's own address. Only a commit git commit
			// made here counts as the user's.
			hash, email, _ := strings.Cut(commit, " ")
			by = others
			if me != "" && strings.EqualFold(email, me) {
				if made == nil {
					made = e.committedHere()
				}
				if made[hash] {
					by = own
				}
			}
			continue
		}
		add(line, by)
	}
	for _, t := range branchTasks {
		add(t, own)
	}
	for t := range own {
		delete(others, t)
	}
	return named, others, nil
}

// committedHere is the commits git commit made in this repository, as
// the reflogs of its work trees' HEADs (which git commit always writes
// to) say: an entry whose message starts "commit" ("commit:", "commit
// (amend):"...). A commit fetched, merged, cherry-picked or rebased here
// was made elsewhere, its message included; one whose entry expired, or
// with reflogs off (core.logAllRefUpdates), is not known to be the
// user's.
func (e *Session) committedHere() map[string]bool {
	made := map[string]bool{}
	trees, _ := filepath.Glob(filepath.Join(e.Repo.CommonDir, "worktrees", "*", "logs", "HEAD"))
	for _, path := range append(trees, filepath.Join(e.Repo.CommonDir, "logs", "HEAD")) {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			// OLD NEW IDENT TIME ZONE\tMESSAGE
			head, msg, ok := strings.Cut(line, "\t")
			if f := strings.Fields(head); ok && len(f) > 2 && strings.HasPrefix(msg, "commit") {
				made[f[1]] = true
			}
		}
	}
	return made
}

// onNoRemote reports whether task is on none of the remotes: no
// remote-tracking ref of it, so it was never pushed nor fetched and is
// this clone's alone.
func (e *Session) onNoRemote(st *settings.Settings, task string) bool {
	for r := range st.Remotes {
		if h, err := e.Repo.ReadRef(gitstore.RemoteRef(r, task)); err == nil && h != "" {
			return false
		}
	}
	return true
}
