package gitstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"git-reason/record"
)

// History returns every commit reachable from head, parents before
// children, as replay verification reads them.
func (s *Store) History(ctx context.Context, head string) ([]*record.Commit, error) {
	var out []*record.Commit
	seen := map[plumbing.Hash]bool{}
	// Iterative post-order walk: a long history must not exhaust the stack.
	type frame struct {
		c    *object.Commit
		next int
	}
	if err := s.checkSize(plumbing.NewHash(head), maxCommitBytes, "commit"); err != nil {
		return nil, err
	}
	root, err := object.GetCommit(s.objs, plumbing.NewHash(head))
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", head, err)
	}
	stack := []*frame{{c: root}}
	seen[root.Hash] = true
	for len(stack) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		top := stack[len(stack)-1]
		if top.next < len(top.c.ParentHashes) {
			p := top.c.ParentHashes[top.next]
			top.next++
			if seen[p] {
				continue
			}
			seen[p] = true
			if err := s.checkSize(p, maxCommitBytes, "commit"); err != nil {
				return nil, err
			}
			pc, err := object.GetCommit(s.objs, p)
			if err != nil {
				return nil, fmt.Errorf("read commit %s: %w", p, err)
			}
			stack = append(stack, &frame{c: pc})
			continue
		}
		stack = stack[:len(stack)-1]
		rc, err := s.commitFor(top.c)
		if err != nil {
			return nil, err
		}
		out = append(out, rc)
	}
	return out, nil
}

func (s *Store) commitFor(c *object.Commit) (*record.Commit, error) {
	rc := &record.Commit{Hash: c.Hash.String(), Files: map[string]string{}, Trailers: Trailers(c.Message), When: c.Author.When,
		Author: c.Author.Name + " <" + c.Author.Email + ">", Committer: c.Committer.Name + " <" + c.Committer.Email + ">"}
	for _, p := range c.ParentHashes {
		rc.Parents = append(rc.Parents, p.String())
	}
	tree, err := s.recordsTreeOf(c)
	if err != nil {
		return nil, err
	}
	for _, e := range tree.Entries {
		rc.Files[e.Name] = e.Hash.String()
	}
	return rc, nil
}

// ReadBlob reads one record by its blob hash, strictly (see
// record.ParseRecord): verification must see fields a plain read drops.
func (s *Store) ReadBlob(hash string) (*record.Record, error) {
	data, err := s.readBlob(plumbing.NewHash(hash))
	if err != nil {
		return nil, err
	}
	return record.ParseRecord(data)
}

// Trailers parses "Key: value" lines of a commit message's last paragraph.
func Trailers(msg string) map[string]string {
	out := map[string]string{}
	paras := strings.Split(strings.TrimSpace(msg), "\n\n")
	for _, line := range strings.Split(paras[len(paras)-1], "\n") {
		if k, v, ok := strings.Cut(line, ": "); ok && !strings.Contains(k, " ") {
			out[k] = strings.TrimSpace(v)
		}
	}
	return out
}

// Verify replays the history of a task's ref and returns every finding. A
// history whose commits or trees do not read is one finding, not an error:
// the error is for the context ending. Every reuse of another task's
// standing conclusion is checked against that task too (see checkReuses).
func (s *Store) Verify(ctx context.Context, task, head string) ([]record.Finding, error) {
	return s.verify(ctx, task, head, true)
}

func (s *Store) verify(ctx context.Context, task, head string, reuses bool) ([]record.Finding, error) {
	commits, err := s.History(ctx, head)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return []record.Finding{{Task: task, Commit: head, Code: record.FindUnreadable,
			Message: record.Printable(err.Error())}}, nil
	}
	found := record.Replay(ctx, task, commits, s.ReadBlob)
	if reuses && ctx.Err() == nil {
		found = append(found, s.checkReuses(ctx, task, head)...)
	}
	return found, ctx.Err()
}
