package gitstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// pushInline is how many refspecs Push names on git push's command line.
// Past it, the commits are refs of a namespace of this process's own
// (stagePush), pushed by one wildcard refspec: git 2.39 matches each
// explicit refspec against every local ref, so a first push of 3,000
// tasks spent 5.6 s of CPU matching (a wildcard: 0.6 s), 20,000 tasks most
// of an hour, and 20,000 refspecs no longer fit a command line
// (bench/scale -push).
var pushInline = 200

// stagedPrefix holds the namespaces of pushes under way,
// refs/reason-push/<pid>-<nanoseconds>/<task>: outside refs/reasoning/,
// so no listing of tasks, fetch or pull sees them, and each process's
// own, so two pushes at once do not meet.
const stagedPrefix = "refs/reason-push/"

// allTasks reports whether every refspec lands on a task ref, the only
// pushes stagePush names: "<commit>:refs/reasoning/tasks/<task>".
func allTasks(refspecs []string) bool {
	for _, spec := range refspecs {
		from, to, _ := strings.Cut(spec, ":")
		if len(from) != 40 || !isHex(from) || !strings.HasPrefix(to, TaskPrefix) {
			return false
		}
	}
	return true
}

// stagePush writes each refspec's commit as a ref of a new namespace of
// this process's (one `git update-ref --stdin`, each ref created only if
// absent) and returns the namespace, "refs/reason-push/<id>/": pushing
// "<namespace>*:refs/reasoning/tasks/*" sends exactly those commits to
// those task refs. Namespaces a process that is gone left (killed before
// dropStaged) are removed first.
func (r *Repo) stagePush(ctx context.Context, refspecs []string) (string, error) {
	r.dropLeftStaged(ctx)
	ns := fmt.Sprintf("%s%d-%d/", stagedPrefix, os.Getpid(), time.Now().UnixNano())
	var in bytes.Buffer
	for _, spec := range refspecs {
		from, to, _ := strings.Cut(spec, ":")
		fmt.Fprintf(&in, "create %s%s %s\n", ns, strings.TrimPrefix(to, TaskPrefix), from)
	}
	if err := r.refsStdin(ctx, &in); err != nil {
		r.dropStaged(ctx, ns) // what a refusal half-way may have left
		return "", fmt.Errorf("stage %d task refs to push: %w", len(refspecs), err)
	}
	return ns, nil
}

// dropStaged deletes the refs of namespace ns (stagePush's), whatever
// ctx says: a push stopped half-way leaves no ref behind.
func (r *Repo) dropStaged(ctx context.Context, ns string) {
	r.dropRefs(context.WithoutCancel(ctx), ns)
}

// dropLeftStaged deletes each namespace under refs/reason-push/ whose
// process is gone: a push killed before its dropStaged.
func (r *Repo) dropLeftStaged(ctx context.Context) {
	out, err := r.Command("for-each-ref", "--format=%(refname)", stagedPrefix).Run(ctx)
	if err != nil || len(out) == 0 {
		return
	}
	seen := map[string]bool{}
	for _, ref := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		id, _, ok := strings.Cut(strings.TrimPrefix(ref, stagedPrefix), "/")
		if !ok || seen[id] {
			continue
		}
		seen[id] = true
		pid, _, _ := strings.Cut(id, "-")
		if n, err := strconv.Atoi(pid); err == nil && n > 0 && !errors.Is(syscall.Kill(n, 0), syscall.ESRCH) {
			continue // its push may be under way
		}
		r.dropRefs(ctx, stagedPrefix+id+"/")
	}
}

// dropRefs deletes every ref under prefix in one `git update-ref --stdin`.
func (r *Repo) dropRefs(ctx context.Context, prefix string) {
	out, err := r.Command("for-each-ref", "--format=delete %(refname)", prefix).Run(ctx)
	if err != nil || len(out) == 0 {
		return
	}
	_ = r.refsStdin(ctx, bytes.NewReader(out))
}

// refsStdin runs `git update-ref --stdin` with in: one transaction of
// git's own. Not ended with ctx, nor by a signal sent to our process
// group: git killed half-way leaves refs moved and others not, and one of
// its locks (git 2.39's update-ref --stdin sent SIGTERM while it takes
// 3,000 locks leaves one in most runs), which nothing takes over; the
// transaction is short.
func (r *Repo) refsStdin(ctx context.Context, in io.Reader) error {
	cmd := r.Command("update-ref", "--stdin")
	cmd.Stdin = in
	cmd.Detached = true
	_, err := cmd.Run(context.WithoutCancel(ctx))
	return err
}
