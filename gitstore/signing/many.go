package signing

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
)

// VerifyHeads is Verify of each of heads (commit ids), whole, with one
// git rev-list per 10,000 heads instead of one per head, and the commits
// of all of them judged together (one git log per 10,000 commits left to
// git): every task's signatures for `verify` of every task. Each head gets every commit it
// reaches (a commit several heads reach goes to each), newest first in
// the order git lists them.
//
// A head whose history git cannot list (an object missing: lost, or
// never sent by a partial clone's promisor remote) is left out of the
// map, and the others get theirs: replay reports that history as
// unreadable. The
// listing of every head failed with it, and with it the verification of
// every task.
func (c *Checker) VerifyHeads(ctx context.Context, heads []string) (map[string][]Check, error) {
	byRev, unlisted, err := c.verifyNew(ctx, heads, nil)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]Check, len(heads))
	for i, h := range heads {
		if !unlisted[h] {
			out[h] = byRev[i]
		}
	}
	return out, nil
}

// VerifyNew is Verify of each of revs (commit ids) not reachable from any
// of not, which one git rev-list of revs --not not lists (one a 10,000
// ids), their commits judged together: each rev gets the commits it
// reaches that none of not reaches, newest first in the order git lists
// them. The pre-receive hook's check of every task a push moves, where
// not are the tasks' heads before it: the commits new to the repository's
// tasks. A rev that is not a commit git lists is asked alone, and one
// whose history git cannot list is an error.
func (c *Checker) VerifyNew(ctx context.Context, revs, not []string) ([][]Check, error) {
	out, unlisted, err := c.verifyNew(ctx, revs, not)
	if err == nil && len(unlisted) > 0 {
		for _, rev := range revs {
			if unlisted[rev] {
				_, err = c.Verify(ctx, rev, not...) // git's reason
				return nil, cmp.Or(err, fmt.Errorf("check signatures of %s: git rev-list cannot list it", rev))
			}
		}
	}
	return out, err
}

// verifyNew is VerifyNew, with the revs whose history git cannot list
// (unlisted) left with no checks.
func (c *Checker) verifyNew(ctx context.Context, revs, not []string) (_ [][]Check, unlisted map[string]bool, _ error) {
	parents := map[string][]string{}
	order := map[string]int{}
	unlisted = map[string]bool{}
	var commits []string
	for start := 0; start < len(revs); start += perProcess {
		batch := revs[start:min(len(revs), start+perProcess)]
		out, err := c.revList(ctx, batch, not)
		if err != nil && len(batch) > 1 {
			out, err = nil, nil
			for _, h := range batch { // which of them: each alone
				one, err := c.revList(ctx, []string{h}, not)
				if err != nil {
					unlisted[h] = true
					continue
				}
				out = append(out, one...)
			}
		}
		if err != nil {
			unlisted[batch[0]] = true
		}
		for _, line := range strings.Split(string(out), "\n") {
			f := strings.Fields(line)
			if len(f) == 0 {
				continue
			}
			if _, seen := order[f[0]]; !seen {
				order[f[0]] = len(commits)
				commits = append(commits, f[0])
				parents[f[0]] = f[1:]
			}
		}
	}
	fields, formats, err := c.ask(ctx, commits)
	if err != nil {
		return nil, nil, fmt.Errorf("check signatures: %w", err)
	}
	checks := make(map[string]Check, len(commits))
	for _, cm := range commits {
		checks[cm] = c.judge(fields[cm], formats[cm])
	}
	out := make([][]Check, len(revs))
	for i, rev := range revs {
		if unlisted[rev] {
			continue
		}
		if _, listed := order[rev]; !listed {
			// Not a commit id, or one that not reaches (no commit new).
			cs, err := c.Verify(ctx, rev, not...)
			if err != nil {
				return nil, nil, err
			}
			out[i] = cs
			continue
		}
		// A parent git did not list is one not reaches: reach leaves it.
		reached := slices.DeleteFunc(reach(rev, parents), func(cm string) bool { _, ok := order[cm]; return !ok })
		slices.SortFunc(reached, func(a, b string) int { return order[a] - order[b] })
		cs := make([]Check, len(reached))
		for j, cm := range reached {
			cs[j] = checks[cm]
		}
		out[i] = cs
	}
	return out, unlisted, nil
}

// revList is git rev-list --parents of heads, --not not.
func (c *Checker) revList(ctx context.Context, heads, not []string) ([]byte, error) {
	args := append([]string{"-c", noRefLookups, "--no-replace-objects", "rev-list", "--parents"}, heads...)
	if len(not) > 0 {
		args = append(append(args, "--not"), not...)
	}
	return c.Git(ctx, append(args, "--")...)
}

// reach is every commit head reaches through parents, head included.
func reach(head string, parents map[string][]string) []string {
	seen := map[string]bool{head: true}
	stack, out := []string{head}, []string{}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		out = append(out, c)
		for _, p := range parents[c] {
			if !seen[p] {
				seen[p] = true
				stack = append(stack, p)
			}
		}
	}
	return out
}
