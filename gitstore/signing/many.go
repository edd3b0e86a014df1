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
//
// A head whose history git cannot list (an object missing: lost, or
// never sent by a partial clone's promisor remote) is left out of the
// map, and the others get theirs: replay reports that history as
// unreadable. The
// listing of every head failed with it, and with it the verification of
// every task.
func (c *Checker) VerifyHeads(ctx context.Context, heads []string) (map[string][]Check, error) {
	parents := map[string][]string{}
	order := map[string]int{}
	unlisted := map[string]bool{}
	var commits []string
	for start := 0; start < len(heads); start += perProcess {
		batch := heads[start:min(len(heads), start+perProcess)]
		out, err := c.revList(ctx, batch)
		if err != nil && len(batch) > 1 {
			out, err = nil, nil
			for _, h := range batch { // which of them: each alone
				one, err := c.revList(ctx, []string{h})
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
		return nil, fmt.Errorf("check signatures: %w", err)
	}
	checks := make(map[string]Check, len(commits))
	for _, cm := range commits {
		checks[cm] = c.judge(fields[cm], formats[cm])
	}
	out := make(map[string][]Check, len(heads))
	for _, h := range heads {
		if _, done := out[h]; done {
			continue
		}
		if unlisted[h] {
			continue
		}
		if _, listed := order[h]; !listed { // not a commit id: asked alone
			cs, err := c.Verify(ctx, h)
			if err != nil {
				return nil, err
			}
			out[h] = cs
			continue
		}
		reached := reach(h, parents)
		slices.SortFunc(reached, func(a, b string) int { return order[a] - order[b] })
		cs := make([]Check, len(reached))
		for i, cm := range reached {
			cs[i] = checks[cm]
		}
		out[h] = cs
	}
	return out, nil
}

// revList is git rev-list --parents of heads.
func (c *Checker) revList(ctx context.Context, heads []string) ([]byte, error) {
	args := append([]string{"-c", noRefLookups, "--no-replace-objects", "rev-list", "--parents"}, heads...)
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
