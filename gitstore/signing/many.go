package signing

import (
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
func (c *Checker) VerifyHeads(ctx context.Context, heads []string) (map[string][]Check, error) {
	byRev, err := c.VerifyNew(ctx, heads, nil)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]Check, len(heads))
	for i, h := range heads {
		out[h] = byRev[i]
	}
	return out, nil
}

// VerifyNew is Verify of each of revs (commit ids) not reachable from any
// of not, which one git rev-list of revs --not not lists (one a 10,000
// ids), their commits judged together: each rev gets the commits it
// reaches that none of not reaches, newest first in the order git lists
// them. The pre-receive hook's check of every task a push moves, where
// not are the tasks' heads before it: the commits new to the repository's
// tasks. A rev that is not a commit git lists is asked alone.
func (c *Checker) VerifyNew(ctx context.Context, revs, not []string) ([][]Check, error) {
	parents := map[string][]string{}
	order := map[string]int{}
	var commits []string
	for start := 0; start < len(revs); start += perProcess {
		args := append([]string{"-c", noRefLookups, "--no-replace-objects", "rev-list", "--parents"}, revs[start:min(len(revs), start+perProcess)]...)
		if len(not) > 0 {
			args = append(append(args, "--not"), not...)
		}
		out, err := c.Git(ctx, append(args, "--")...)
		if err != nil {
			return nil, fmt.Errorf("check signatures: %w", err)
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
		return nil, fmt.Errorf("check signatures: %w", err)
	}
	checks := make(map[string]Check, len(commits))
	for _, cm := range commits {
		checks[cm] = c.judge(fields[cm], formats[cm])
	}
	out := make([][]Check, len(revs))
	for i, rev := range revs {
		if _, listed := order[rev]; !listed {
			// Not a commit id, or one that not reaches (no commit new).
			cs, err := c.Verify(ctx, rev, not...)
			if err != nil {
				return nil, err
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
	return out, nil
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
