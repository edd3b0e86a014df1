package ops

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"git-reason/advisor"
	"git-reason/record"
)

// Candidate is one value a shell may complete, with a short description
// ("" when there is none worth the time to compute).
type Candidate struct {
	Value       string
	Description string
}

// CompleteRequest asks for the values of one kind: "tasks", "ids",
// "advisors", "profiles", "remotes" or "revisions". For ids, Kind keeps
// records of that kind only ("" or "any": every kind) and Task the
// records of that task only ("": every task).
type CompleteRequest struct {
	What string
	Kind string
	Task string
}

// Complete lists the values a shell completes for a command line's
// argument. It reads refs and tree names only, never a record's body, so
// that a TAB stays instant in a large repository; it never writes.
func (e *Session) Complete(ctx context.Context, req CompleteRequest) ([]Candidate, error) {
	switch req.What {
	case "tasks":
		heads, err := e.Store.Tasks(ctx)
		if err != nil {
			return nil, err
		}
		return candidates(heads, func(h record.TaskHead) Candidate { return Candidate{Value: h.Task} }), nil
	case "ids":
		return e.completeIDs(ctx, req)
	case "advisors", "profiles":
		cat, _, err := e.Catalog()
		if err != nil {
			return nil, err
		}
		if req.What == "profiles" {
			return candidates(cat.Profiles, func(p advisor.Profile) Candidate { return Candidate{Value: p.ID, Description: p.Description} }), nil
		}
		return candidates(cat.Advisors, func(a advisor.Declaration) Candidate { return Candidate{Value: a.ID, Description: a.Transport} }), nil
	case "remotes":
		return e.gitLines(ctx, "remote")
	case "revisions":
		out, err := e.gitLines(ctx, "for-each-ref", "--format=%(refname:short)", "refs/heads", "refs/tags", "refs/remotes")
		if err != nil {
			return nil, err
		}
		return append([]Candidate{{Value: "HEAD"}}, out...), nil
	}
	return nil, Usage("nothing to complete for %q: give tasks, ids, advisors, profiles, remotes or revisions", req.What)
}

// candidates is one candidate an item, made by candidate, in order.
func candidates[T any](items []T, candidate func(T) Candidate) []Candidate {
	out := make([]Candidate, 0, len(items))
	for _, it := range items {
		out = append(out, candidate(it))
	}
	return out
}

// completeIDs lists record ids from the names of each task head's
// records/ tree (<clock>-<kind>-<id>.json), newest first.
func (e *Session) completeIDs(ctx context.Context, req CompleteRequest) ([]Candidate, error) {
	kind := req.Kind
	if kind == "any" {
		kind = ""
	}
	if kind != "" {
		if _, err := record.ParseKind(kind); err != nil {
			return nil, err
		}
	}
	heads, err := e.Store.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	type named struct {
		name, task string
	}
	var all []named
	for _, h := range heads {
		if req.Task != "" && h.Task != req.Task {
			continue
		}
		names, err := e.Store.RecordNames(h.Head)
		if err != nil {
			continue // an unreadable task offers nothing; verify says why
		}
		for _, n := range names {
			all = append(all, named{n, h.Task})
		}
	}
	// The clock leads the name: sorting names descending puts the newest
	// record, the one most often wanted, first.
	sort.SliceStable(all, func(i, j int) bool { return all[i].name > all[j].name })
	out := []Candidate{}
	for _, n := range all {
		base := strings.TrimSuffix(n.name, ".json")
		_, rest, ok := strings.Cut(base, "-")
		if !ok {
			continue
		}
		k, id, ok := strings.Cut(rest, "-")
		if !ok || (kind != "" && k != kind) {
			continue
		}
		out = append(out, Candidate{Value: id, Description: fmt.Sprintf("%s in %s", k, n.task)})
	}
	return out, nil
}

// gitLines runs git and returns its non-empty output lines as candidates.
func (e *Session) gitLines(ctx context.Context, args ...string) ([]Candidate, error) {
	data, err := e.Repo.Git(ctx, args...)
	if err != nil {
		return nil, err
	}
	var out []Candidate
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, Candidate{Value: l})
		}
	}
	return out, nil
}
