package mcpserver

import (
	"context"

	"git-reason/record"
)

// nextActions turns the task's derived next step (record.Status.Next, the
// same step 'git reason status' prints) into tool calls: each "git reason
// VERB" it names becomes the tool that projects VERB, with the task as
// argument, and resolve also names the open disagreement. When a person
// must decide first (record.Status.PersonStep), the commands its choices
// are followed by take next's place. nil when the task does not read.
// After a write (wrote), the state is the writer's (ops.StateAfter).
func (s *Server) nextActions(ctx context.Context, task string, wrote *record.Result) []Action {
	var st *record.State
	var err error
	if wrote != nil {
		st, err = s.env.StateAfter(ctx, wrote)
	} else {
		st, _, err = s.env.State(ctx, task)
	}
	if err != nil {
		return nil
	}
	sum := st.Summarize()
	s.env.MarkPersonStep(ctx, &sum)
	return actionsFor(sum, s.byVerb)
}

// actionsFor maps a status's next step, or its person's step's commands,
// to tool calls through the verb → tool table.
func actionsFor(sum record.Status, byVerb map[string]string) []Action {
	out := []Action{}
	seen := map[string]bool{}
	rest := sum.Next
	if ps := sum.PersonStep; ps != nil {
		// A person decides first: each choice's command, in order.
		for _, o := range ps.Options {
			rest += " " + o.Then
		}
	}
	for _, verb := range record.NextVerbs(rest) {
		tool, ok := byVerb[verb]
		if !ok || seen[tool] {
			continue
		}
		seen[tool] = true
		args := map[string]any{"task": sum.Task}
		if tool == "resolve" && len(sum.OpenDisagreements) > 0 {
			args["disagreement"] = sum.OpenDisagreements[0]
		}
		out = append(out, Action{Tool: tool, Arguments: args})
	}
	return out
}
