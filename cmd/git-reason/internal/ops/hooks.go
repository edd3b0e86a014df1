package ops

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"git-reason/gitstore"
	"git-reason/hooks"
	"git-reason/record"
)

// HooksDir is where git runs this repository's hooks from.
func (e *Session) HooksDir() string {
	return hooks.Dir(get(e.Config, "core.hooksPath"), e.Repo.WorkTree, e.Repo.CommonDir)
}

// zeroHash is what git's pre-push protocol sends for a missing object.
const zeroHash = "0000000000000000000000000000000000000000"

// emptyTree is git's empty tree, the base for checking a whole commit.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// PushFinding is one reason a push is refused.
type PushFinding struct {
	Ref     string `json:"ref"`
	Message string `json:"message"`
}

// PrePush checks what a push sends, as git's pre-push hook hands it over
// on stdin ("<local ref> <local sha> <remote ref> <remote sha>" per line):
// reasoning refs are replayed by verify at the commit being pushed; other
// refs have the files changed by the pushed commits checked for neutrality.
func (e *Session) PrePush(ctx context.Context, stdin io.Reader) ([]PushFinding, error) {
	var out []PushFinding
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 4 {
			return nil, Usage("pre-push: unexpected input line %q", sc.Text())
		}
		// What is pushed is decided by where it lands: the remote ref, not
		// the local name (HEAD, a hash, another ref) it is pushed from.
		localSHA, remoteRef, remoteSHA := f[1], f[2], f[3]
		if localSHA == zeroHash {
			continue // a deletion sends nothing
		}
		if task, ok := strings.CutPrefix(remoteRef, gitstore.TaskPrefix); ok {
			if err := record.CheckTask(task); err != nil {
				out = append(out, PushFinding{Ref: remoteRef, Message: "not a valid task name: " + task})
				continue
			}
			res, err := e.Verify(ctx, nil, map[string]string{task: localSHA})
			if err != nil {
				return nil, err
			}
			for _, fd := range res.Findings {
				out = append(out, PushFinding{Ref: remoteRef, Message: fd.String()})
			}
			continue
		}
		if strings.HasPrefix(remoteRef, "refs/reasoning/") {
			continue
		}
		base := remoteSHA
		if base == zeroHash || !e.Store.HasObject(base) {
			base = emptyTree
		}
		res, err := e.CheckNeutrality(ctx, NeutralityRequest{Range: base + ".." + localSHA, Dir: e.Repo.WorkTree})
		if err != nil {
			return nil, err
		}
		for _, v := range res.Violations {
			out = append(out, PushFinding{Ref: remoteRef, Message: fmt.Sprintf("%s:%d:%d: %s (declared as %s)", v.Path, v.Line, v.Col, v.Name, v.DeclaredAs)})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read pre-push input: %w", err)
	}
	return out, nil
}
