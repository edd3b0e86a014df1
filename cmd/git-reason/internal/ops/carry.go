package ops

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"git-reason/cmd/git-reason/internal/settings"
	"git-reason/gitstore"
	"git-reason/gitstore/git"
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
// author email not the user's, or a commit neither git commit made here
// nor a copy of one (madeHere).
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
	// Each commit is one record (-z ends it with NUL, which no message
	// holds): "HASH EMAIL", then its trailers' values, each after a US
	// (\x1f). Read by position, no value of a stranger's can pass for
	// another commit's hash and address (a listing by lines took a value
	// "\x01HASH EMAIL" for a commit of its own).
	args := []string{"log", "-z", "--no-show-signature", "--format=%H %ae%x1f%(trailers:key=" + TrailerKey + ",valueonly,unfold,separator=%x1f)"}
	args = append(args, tips...)
	args = append(args, bases...)
	if st.Remotes[remote].URL != "" && e.checkRemote(remote) == nil {
		// Commits already on the remote's branches went with their own push.
		args = append(args, "--not", "--remotes="+remote)
	}
	// The commits as their objects are, as madeHere reads them: a
	// replacement (refs/replace/, which a mirror fetch brings) of a
	// stranger's copy of a commit made here is another commit.
	c := e.Repo.Command(append(args, "--")...)
	c.Global = append(c.Global, "--no-replace-objects")
	text, err := gitText(c.Run(ctx))
	if err != nil {
		return nil, nil, fmt.Errorf("read the Reason-Task trailers of the pushed commits: %w", err)
	}
	own, others := map[string]bool{}, map[string]bool{}
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
	// An author is whatever its commit says: a stranger's commit may give
	// the user's own address. Only a commit git commit made here, or a
	// copy of one (madeHere), counts as the user's.
	type pushed struct {
		hash  string
		tasks []string
	}
	var commits []pushed
	var mine []string // the commits whose author's address is the user's
	me := st.Actor.OrDefault().Email
	for _, rec := range strings.Split(text, "\x00") {
		fields := strings.Split(rec, "\x1f")
		hash, email, _ := strings.Cut(fields[0], " ")
		if len(hash) < 40 {
			continue // the end of the listing
		}
		commits = append(commits, pushed{hash: hash, tasks: fields[1:]})
		if me != "" && strings.EqualFold(email, me) {
			mine = append(mine, hash)
		}
	}
	made := e.madeHere(ctx, mine)
	for _, c := range commits {
		by := others
		if made[c.hash] {
			by = own
		}
		for _, t := range c.tasks {
			add(t, by)
		}
	}
	for _, t := range branchTasks {
		add(t, own)
	}
	for t := range own {
		delete(others, t)
	}
	return named, others, nil
}

// madeHere is those of commits that git commit made in this repository,
// or that copy one: the same author line (name, address, date and zone)
// and the same message, as a rebase (git pull --rebase) or a cherry-pick
// of the user's own commit keeps them, whose trailers are then the
// user's own. A commit git commit made is one a reflog says it made
// (committedHere). The commits are read by one git cat-file; one too
// large to be a commit written here, or anything that fails, is not the
// user's.
func (e *Session) madeHere(ctx context.Context, hashes []string) map[string]bool {
	out := map[string]bool{}
	if len(hashes) == 0 {
		return out
	}
	here := e.committedHere()
	all := slices.Clone(hashes)
	for h := range here {
		all = append(all, h)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	cf, err := git.StartCatFile(ctx, e.Repo.GitDir, "--git-dir="+e.Repo.GitDir)
	if err != nil {
		return out
	}
	defer cf.Close()
	infos, err := cf.Infos(all)
	if err != nil {
		return out
	}
	var read []string
	for i, info := range infos {
		if !info.Missing && info.Type == "commit" && info.Size <= maxMadeCommit {
			read = append(read, all[i])
		}
	}
	ids := make(map[string][sha256.Size]byte, len(read))
	err = cf.Contents(read, func(i int, _ string, data []byte) error {
		ids[read[i]] = commitIdentity(data)
		cf.Release(data)
		return nil
	})
	if err != nil {
		return out
	}
	made := map[[sha256.Size]byte]bool{}
	for h := range here {
		if id, ok := ids[h]; ok {
			made[id] = true
		}
	}
	for _, h := range hashes {
		if id, ok := ids[h]; ok && made[id] {
			out[h] = true
		}
	}
	return out
}

// maxMadeCommit bounds the commit objects madeHere reads, one at a time.
const maxMadeCommit = 1 << 20

// commitIdentity is the digest of a commit object's author line and its
// message: what a rebase or a cherry-pick of it keeps.
func commitIdentity(data []byte) [sha256.Size]byte {
	head, msg, _ := bytes.Cut(data, []byte("\n\n"))
	var author []byte
	for _, l := range bytes.Split(head, []byte("\n")) {
		if a, ok := bytes.CutPrefix(l, []byte("author ")); ok {
			author = a
			break
		}
	}
	h := sha256.New()
	h.Write(author)
	h.Write([]byte{0})
	h.Write(msg)
	return [sha256.Size]byte(h.Sum(nil))
}

// committedHere is the commits git commit made in this repository, as
// the reflogs of its work trees' HEADs and of its branches (which git
// commit writes to; a branch's outlives a work tree removed) say: an
// entry "commit:", "commit (amend):", "commit (initial):" or "commit
// (merge):". Not "commit (cherry-pick):", which git cherry-pick
// --continue writes for a stranger's commit it copied, its message
// included; nor one fetched, merged or rebased here. One whose entry
// expired, or with reflogs off (core.logAllRefUpdates), is not known.
func (e *Session) committedHere() map[string]bool {
	made := map[string]bool{}
	logs := filepath.Join(e.Repo.CommonDir, "logs")
	paths, _ := filepath.Glob(filepath.Join(e.Repo.CommonDir, "worktrees", "*", "logs", "HEAD"))
	paths = append(paths, filepath.Join(logs, "HEAD"))
	_ = filepath.WalkDir(filepath.Join(logs, "refs", "heads"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			paths = append(paths, path)
		}
		return nil
	})
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			// OLD NEW IDENT TIME ZONE\tMESSAGE
			head, msg, ok := strings.Cut(line, "\t")
			if f := strings.Fields(head); ok && len(f) > 2 && madeByCommit(msg) {
				made[f[1]] = true
			}
		}
	}
	return made
}

// madeByCommit reports whether a reflog message is one git commit writes
// for a commit of the user's own.
func madeByCommit(msg string) bool {
	for _, p := range []string{"commit: ", "commit (amend): ", "commit (initial): ", "commit (merge): "} {
		if strings.HasPrefix(msg, p) || msg == strings.TrimSpace(p) {
			return true
		}
	}
	return false
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
