package ops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"git-reason/gitstore"
	"git-reason/gitstore/git"
	"git-reason/gitstore/integration"
	"git-reason/gitstore/signing"
	"git-reason/hooks"
	"git-reason/record"
)

// The rules the server's pre-receive hook refuses a reasoning ref by
// (ReceiveRefusal.Rule).
const (
	RuleNamespace = "namespace" // a ref under refs/reasoning/ that is no task ref
	RuleDelete    = "delete"    // a task ref deleted (reason.allowRewrite lets it)
	RuleRewrite   = "rewrite"   // a task ref moved to a commit that does not descend from it
	RuleObjects   = "objects"   // objects git's fsck checks refuse
	RuleReplay    = "replay"    // the pushed history does not replay clean
	RuleSignature = signing.CodeSignature
)

// ReceiveLine is one ref a push updates, as git hands it to the
// pre-receive hook: "<old> <new> <ref>".
type ReceiveLine struct {
	Old, New, Ref string
}

// ReceiveRefusal is why the hook refuses one ref: one per task.
type ReceiveRefusal struct {
	Ref      string           `json:"ref"`
	Rule     string           `json:"rule"`
	Message  string           `json:"message"`
	Findings []record.Finding `json:"findings"`
}

// ReadReceiveLines reads the pre-receive hook's stdin.
func ReadReceiveLines(stdin io.Reader) ([]ReceiveLine, error) {
	return readHookLines(stdin, "pre-receive", 3, func(f []string) ReceiveLine {
		return ReceiveLine{Old: f[0], New: f[1], Ref: f[2]}
	})
}

// InstallServerHooks writes the pre-receive shim into a hosted
// repository's hooks directory and turns on git's own object checks for
// what it receives (receive.fsckObjects), unless the repository set them.
func (e *Session) InstallServerHooks(ctx context.Context, force bool) (string, []hooks.Status, error) {
	dir, err := e.HooksDir()
	if err != nil {
		return "", nil, err
	}
	if err := git.MkdirAll(dir, 0o777); err != nil { // as InstallHooks
		return dir, nil, fmt.Errorf("create hooks directory: %w", err)
	}
	st, err := hooks.InstallNames(dir, hooks.ServerNames, force)
	if err != nil {
		return dir, nil, Refused("%v", err)
	}
	set, err := e.Settings()
	if err != nil {
		return dir, st, err
	}
	if !set.Travel.FsckSet {
		if _, err := e.Repo.Git(ctx, "config", "receive.fsckObjects", "true"); err != nil {
			return dir, st, fmt.Errorf("set receive.fsckObjects: %w", err)
		}
		e.RemotesSetUp = append(e.RemotesSetUp, "receive.fsckObjects = true")
	}
	return dir, st, nil
}

// UninstallServerHooks removes the pre-receive shim (the exact one only).
func (e *Session) UninstallServerHooks(_ context.Context, _ bool) (string, []hooks.Status, error) {
	dir, err := e.HooksDir()
	if err != nil {
		return "", nil, err
	}
	st, err := hooks.UninstallNames(dir, hooks.ServerNames)
	return dir, st, err
}

// PreReceive checks every reasoning ref a push updates, with the hosted
// repository's own settings, and returns one refusal per ref it refuses,
// naming the first rule broken, in this order: a ref under
// refs/reasoning/ that is no task ref; a task ref deleted (unless
// reason.allowRewrite); a history past the commit bound of the server's
// reason.maxTaskBytes (gitstore.Store.CommitBounds), counted before
// anything walks it; new objects git's fsck checks refuse; a task ref
// moved to a commit that does not descend from it (unless
// reason.allowRewrite); a history that does not replay clean
// (its reuses of tasks the push moves too read at their pushed heads);
// a new commit whose signature is bad (changed after signing), whatever
// the policy, as verify and pull refuse it; under reason.requireSigned
// (fetched or all: a push is what a fetch is to the server), a new commit
// not signed by an allowed signer (gpg.ssh.allowedSignersFile) who is its
// record's actor, a key since removed from them shown as such. Other refs pass. The pushed objects are
// in git's quarantine meanwhile: every read here sees them.
func (e *Session) PreReceive(ctx context.Context, lines []ReceiveLine) ([]ReceiveRefusal, error) {
	st, err := e.Settings()
	if err != nil {
		return nil, err
	}
	// The task refs the push moves, at their new heads: a reuse of one
	// of them is checked there (integration.Integrator.VerifyAt).
	pushed := map[string]string{}
	for _, l := range lines {
		if task, ok := strings.CutPrefix(l.Ref, gitstore.TaskPrefix); ok && l.New != zeroHash && record.CheckTask(task) == nil {
			pushed[task] = l.New
		}
	}
	// A history containing a head this repository's hook replayed clean
	// before (gitstore.Remembered, commit ids under a MAC kept in its
	// .git/reason/) is replayed from that head, as sync and verify go on
	// from theirs: a push of tasks that moved on reads what it adds, not
	// each history whole (`sh bench/push/update.sh WORLD 300 3`), the
	// records at that head read from the task's cache (seeded below). The
	// signatures and git's object checks below are of the new commits
	// alone either way.
	g := e.integrator()
	var out []ReceiveRefusal
	var moved []movedTask
	refuse := func(ref, rule, format string, args ...any) {
		out = append(out, ReceiveRefusal{Ref: ref, Rule: rule, Message: record.Printable(fmt.Sprintf(format, args...)), Findings: []record.Finding{}})
	}
	for _, l := range lines {
		if !strings.HasPrefix(l.Ref, "refs/reasoning/") {
			continue
		}
		task, ok := strings.CutPrefix(l.Ref, gitstore.TaskPrefix)
		if !ok || record.CheckTask(task) != nil {
			refuse(l.Ref, RuleNamespace, "refs/reasoning/ holds only task refs (refs/reasoning/tasks/TASK, a valid task name) on a hosted repository")
			continue
		}
		if l.New == zeroHash {
			if !st.Travel.AllowRewrite {
				refuse(l.Ref, RuleDelete, "task %s may not be deleted here (git config reason.allowRewrite true on the server allows it)", task)
			}
			continue
		}
		var not []string
		if l.Old != zeroHash {
			not = []string{l.Old}
		}
		moved = append(moved, movedTask{ref: l.Ref, task: task, new: l.New, not: not})
	}
	// A history past the commit bound (one commit per 128 bytes of the
	// server's reason.maxTaskBytes) is refused before anything below walks
	// it (the object checks, the rewrite check, the replay, the
	// signatures): git counts it no further than one past the bound, so a
	// push of a million commits that change nothing costs the hook that
	// count, as a fetch of them costs pull. The histories are counted
	// together (one git process for the push); past the bound, in halves
	// to say which (gitstore.Store.CommitBounds). Each is counted whole,
	// what the server had of it too: the bound is on the history a clone
	// replays, and one within it before may pass it by what a push adds.
	// One git cannot count is left to the checks below.
	heads := make([]string, 0, len(moved))
	for _, m := range moved {
		heads = append(heads, m.new)
	}
	bounded := moved[:0:0]
	for i, err := range e.Store.CommitBounds(ctx, heads) {
		m := moved[i]
		if errors.Is(err, gitstore.ErrTooLarge) {
			f := record.Finding{Task: m.task, Commit: m.new, Code: record.FindUnreadable, Message: record.Printable(err.Error())}
			refuse(m.ref, RuleReplay, "task %s does not replay clean: %s on the server", m.task, f)
			out[len(out)-1].Findings = []record.Finding{f}
			continue
		}
		bounded = append(bounded, m)
	}
	moved = bounded
	// Each check runs once for every task the push moves, not once a task
	// (a first push of 300 tasks to a server with the hooks: 39.7 s wall
	// against 1.3 s without them, seven git processes a task; `sh
	// bench/push/first.sh BASE WORLD 300 3 server`), and of the tasks
	// within the bound alone.
	var news, olds []string
	for _, m := range moved {
		news, olds = append(news, m.new), append(olds, m.not...)
	}
	// git's object checks of the objects new to the repository; refused,
	// each task's are checked alone to say which.
	if len(moved) > 0 && e.strictObjects(ctx, news, olds) != "" {
		kept := moved[:0:0]
		for _, m := range moved {
			if why := e.strictObjects(ctx, []string{m.new}, m.not); why != "" {
				refuse(m.ref, RuleObjects, "git's object checks refuse task %s: %s", m.task, why)
				continue
			}
			kept = append(kept, m)
		}
		moved = kept
	}
	replayedClean := moved[:0:0]
	for _, m := range moved {
		if len(m.not) > 0 {
			// Read in process, the objects checked above: a commit's own
			// parents, no replacement object (a push may create
			// refs/replace/*, and a stand-in for the new head descending
			// from the old one would make a rewrite read as a
			// fast-forward) nor graft, as replay reads them. A git
			// merge-base a task cost a process each.
			ok, err := e.Store.IsAncestor(ctx, m.not[0], m.new)
			if err != nil {
				return nil, err
			}
			if !ok && !st.Travel.AllowRewrite {
				refuse(m.ref, RuleRewrite, "task %s was rewritten: %s does not descend from %s; pull, merge and push again (never forced), or set reason.allowRewrite on the server", m.task, record.ShortCommit(m.new), record.ShortCommit(m.not[0]))
				continue
			}
		}
		replayed, err := g.VerifyAt(ctx, m.task, m.new, pushed)
		if err != nil {
			return nil, err
		}
		var bad []record.Finding
		for _, f := range record.Blocking(replayed) {
			if f.Code != signing.CodeSignature { // judged below, on what is new only
				bad = append(bad, f)
			}
		}
		if len(bad) > 0 {
			refuse(m.ref, RuleReplay, "task %s does not replay clean: %s", m.task, firstOf(bad))
			out[len(out)-1].Findings = bad
			continue
		}
		replayedClean = append(replayedClean, m)
	}
	if len(replayedClean) == 0 {
		return out, nil
	}
	// The signatures of the commits new to the repository's tasks: not
	// reachable from any task's head before the push.
	news, olds = news[:0], olds[:0]
	for _, m := range replayedClean {
		news, olds = append(news, m.new), append(olds, m.not...)
	}
	checks, err := e.signaturesNew(ctx, news, olds)
	if err != nil {
		return nil, err
	}
	for i, m := range replayedClean {
		found := signatureFindings(m.task, st.Signing.RequireSigned, checks[i])
		switch {
		case len(found) == 0:
			continue
		case st.Signing.RequireSigned == signing.RequireNone: // a bad signature: refused whatever the policy
			refuse(m.ref, RuleSignature, "task %s: %s", m.task, firstOf(found))
		default:
			refuse(m.ref, RuleSignature, "task %s: reason.requireSigned is %s here: %s", m.task, st.Signing.RequireSigned, firstOf(found))
		}
		out[len(out)-1].Findings = found
	}
	if len(out) == 0 {
		e.rememberReceived(g, replayedClean)
	}
	return out, nil
}

// rememberReceived keeps what the hook replayed clean of a push it takes
// whole: the heads (gitstore.Remembered), for the next push's replay to go
// on from, and each task's records at its pushed head (its cache), for
// that replay to read from one file, not every blob again. A push refused
// (any ref refused refuses all) leaves nothing: git drops its objects
// with the quarantine, and what they held stays off the server's disk; a
// stranger's refused pushes under new task names do not fill it.
func (e *Session) rememberReceived(g *integration.Integrator, clean []movedTask) {
	for _, m := range clean {
		e.Store.SeedTask(m.task, m.new, g.Records(m.task, m.new), g.Blobs(m.task, m.new))
	}
	_ = g.Memo.Remembered.Save()
}

// movedTask is a task ref a push moves that passed the checks of its
// name and deletion, for the checks PreReceive runs for all of them at
// once: ref at new, which not (its head before; none for a new task)
// reaches none of.
type movedTask struct {
	ref, task, new string
	not            []string
}

// firstOf is the first finding, and how many more there are.
func firstOf(fs []record.Finding) string {
	s := fs[0].String()
	if len(fs) > 1 {
		s += fmt.Sprintf(" (and %d more)", len(fs)-1)
	}
	return s
}

// strictObjects runs git's object checks (fsck's, as receive.fsckObjects
// and fetch.fsckObjects run them) on the objects of revs that are not
// reachable from not: packed by git pack-objects and read back by git
// index-pack --strict, in a temporary directory, at the cost of those
// objects alone. It returns git's reason when they are refused, "" when
// they pass.
func (e *Session) strictObjects(ctx context.Context, revs, not []string) string {
	tmp, err := os.MkdirTemp("", "git-reason-objects-")
	if err != nil {
		return "cannot check the objects: " + err.Error()
	}
	defer os.RemoveAll(tmp)
	pack := filepath.Join(tmp, "check.pack")
	f, err := os.Create(pack)
	if err != nil {
		return "cannot check the objects: " + err.Error()
	}
	var list bytes.Buffer
	for _, r := range revs {
		list.WriteString(r + "\n")
	}
	for _, n := range not {
		list.WriteString("^" + n + "\n")
	}
	var stderr bytes.Buffer
	cmd := git.Cmd{Global: []string{"--git-dir=" + e.Repo.GitDir}, Args: []string{"pack-objects", "--revs", "--stdout", "-q"}, Stdin: &list}.Exec(ctx)
	cmd.Stdout, cmd.Stderr = f, &stderr
	err = cmd.Run()
	f.Close()
	if err != nil {
		return record.Printable(gitReason(stderr.String(), err))
	}
	stderr.Reset()
	cmd = git.Cmd{Global: []string{"--git-dir=" + e.Repo.GitDir}, Args: []string{"index-pack", "--strict", "-o", filepath.Join(tmp, "check.idx"), pack}}.Exec(ctx)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return record.Printable(gitReason(stderr.String(), err))
	}
	return ""
}

// gitReason is the line of git's stderr that says why: an fsck message
// when there is one, else the last line.
func gitReason(stderr string, err error) string {
	for _, line := range strings.Split(stderr, "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "error: object "); ok {
			return "object " + rest
		}
	}
	if l := git.LastLine(stderr, ""); l != "" {
		return strings.TrimPrefix(strings.TrimPrefix(l, "fatal: "), "error: ")
	}
	return err.Error()
}
