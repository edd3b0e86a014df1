package mcpserver

import (
	"cmp"
	"context"
	"slices"
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
// handover's next, a person's choice's then, a need's command, a doctor
// finding's fix) as the tool calls that take it: the tool that projects
// each verb it names (one word, or two: check neutrality), once, with
// every argument its command names in the tool's terms (callArguments).
// ids are full record ids the step's short ones are said in, when one
// starts them. Empty, never nil, when no tool takes it.
func stepCalls(step, task string, ids []string, byVerb map[string]string) []Action {
	out := []Action{}
	seen := map[string]bool{}
	for _, verb := range record.NextVerbs(step) {
		_, cmd, _ := strings.Cut(step, "git reason "+verb)
		tool, ok := byVerb[verb]
		if second, _, _ := strings.Cut(strings.TrimPrefix(cmd, " "), " "); !ok && second != "" {
			tool, ok = byVerb[verb+" "+second]
			cmd = strings.TrimPrefix(cmd, " "+second)
		}
		if !ok || seen[tool] {
			continue
		}
		seen[tool] = true
		cmd, _, _ = strings.Cut(cmd, "git reason ") // this command's words alone
		out = append(out, Action{Tool: tool, Arguments: callArguments(tool, task, strings.Fields(cmd), ids)})
	}
	return out
}

// callArguments are the arguments of a call of tool that take what its
// command's words (after the verb) name: the task (verify's tasks: [T];
// none for check_neutrality, whose whole tree the fix checks), resolve's
// disagreement (the first of ids when the command names none), conclude's
// assessment and supersedes, assess's new_evidence. A placeholder (...,
// ID=TREATMENT:REASON, N=ANSWER) is the caller's to fill: no argument.
func callArguments(tool, task string, words, ids []string) map[string]any {
	full := func(id string) string {
		var match string
		for _, f := range ids {
			if strings.HasPrefix(f, id) {
				if match != "" {
					return id // two start it: the tool says which
				}
				match = f
			}
		}
		return cmp.Or(match, id)
	}
	args := map[string]any{"task": task}
	switch tool {
	case "verify":
		return map[string]any{"tasks": []string{task}}
	case "check_neutrality":
		return map[string]any{}
	case "resolve":
		if len(words) > 1 && !strings.HasPrefix(words[1], "-") {
			args["disagreement"] = full(strings.TrimSuffix(words[1], ","))
		} else if len(ids) > 0 {
			args["disagreement"] = ids[0]
		}
	}
	var supersedes []string
	for i, w := range words {
		value := ""
		if i+1 < len(words) {
			value = strings.TrimSuffix(words[i+1], ",")
		}
		switch {
		case tool == "conclude" && w == "--supersedes" && value != "":
			supersedes = append(supersedes, full(value))
		case tool == "conclude" && w == "--assessment" && value != "":
			args["assessment"] = full(value)
		case tool == "assess" && w == "--new-evidence":
			args["new_evidence"] = true
		}
	}
	if supersedes != nil {
		args["supersedes"] = supersedes
	}
	return args
}

// withTools is a status as the MCP tools give it: its next step, and
// each of its person's choices, also as the tool calls that take it
// (next_tools, then_tools), beside the command the command line says.
func (s *Server) withTools(st *record.Status) {
	ids := slices.Clone(st.OpenDisagreements)
	for _, c := range st.Standing {
		ids = append(ids, c.Conclusion) // a merge's two conclusions, superseded
	}
	st.NextTools = stepCalls(st.Next, st.Task, append(ids, st.Assessment), s.byVerb)
	st.PersonStep = s.personTools(st.PersonStep, st.Task)
}

// personTools is a person's step with each choice's then_tools, and its
// decision and choices as the tools say them (DecideTools, ChoiceTools),
// a copy (the step may be shared); nil for nil.
func (s *Server) personTools(ps *record.PersonStep, task string) *record.PersonStep {
	if ps == nil {
		return nil
	}
	out := &record.PersonStep{Decide: record.Advice{CLI: ps.Decide, Tools: ps.DecideTools}.ToolMessage(),
		Options: make([]record.PersonOption, len(ps.Options))}
	for i, o := range ps.Options {
		o.Choice = record.Advice{CLI: o.Choice, Tools: o.ChoiceTools}.ToolMessage()
		o.ThenTools = stepCalls(o.Then, task, nil, s.byVerb)
		out.Options[i] = o
	}
	return out
}
