package mcpserver

import (
	"context"
	"strings"

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
	rest := sum.Next
	if ps := sum.PersonStep; ps != nil {
		// A person decides first: each choice's command, in order.
		for _, o := range ps.Options {
			rest += " " + o.Then
		}
	}
	return stepCalls(rest, sum.Task, sum.OpenDisagreements, byVerb)
}

// stepCalls is a step the command line says as commands (a status's or
// handover's next, a person's choice's then, a need's command) as the
// tool calls that take it: the tool that projects each verb it names,
// once, with the task as argument (verify's tasks: [task]), and resolve
// with the disagreement its command names (the full id when ids holds
// one it starts). Empty, never nil, when no tool takes it.
func stepCalls(step, task string, ids []string, byVerb map[string]string) []Action {
	out := []Action{}
	seen := map[string]bool{}
	for _, verb := range record.NextVerbs(step) {
		tool, ok := byVerb[verb]
		if !ok || seen[tool] {
			continue
		}
		seen[tool] = true
		args := map[string]any{"task": task}
		switch tool {
		case "verify":
			args = map[string]any{"tasks": []string{task}}
		case "resolve":
			_, rest, _ := strings.Cut(step, "git reason resolve "+task+" ")
			id, _, _ := strings.Cut(rest, " ")
			for _, full := range ids {
				if id != "" && strings.HasPrefix(full, id) {
					id = full
					break
				}
			}
			if id == "" && len(ids) > 0 {
				id = ids[0]
			}
			if id != "" {
				args["disagreement"] = id
			}
		}
		out = append(out, Action{Tool: tool, Arguments: args})
	}
	return out
}

// withTools is a status as the MCP tools give it: its next step, and
// each of its person's choices, also as the tool calls that take it
// (next_tools, then_tools), beside the command the command line says.
func (s *Server) withTools(st *record.Status) {
	st.NextTools = stepCalls(st.Next, st.Task, st.OpenDisagreements, s.byVerb)
	st.PersonStep = s.personTools(st.PersonStep, st.Task)
}

// personTools is a person's step with each choice's then_tools, a copy
// (the step may be shared); nil for nil.
func (s *Server) personTools(ps *record.PersonStep, task string) *record.PersonStep {
	if ps == nil {
		return nil
	}
	out := &record.PersonStep{Decide: ps.Decide, Options: make([]record.PersonOption, len(ps.Options))}
	for i, o := range ps.Options {
		o.ThenTools = stepCalls(o.Then, task, nil, s.byVerb)
		out.Options[i] = o
	}
	return out
}
