package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

// tasksOut is the tasks tool's result (listAnswer), as its output schema
// infers it: the CLI's 'tasks --json' rows.
type tasksOut struct {
	Tasks []ops.TaskRow `json:"tasks"`
}

// searchOut is the search tool's result (listAnswer), as its output
// schema infers it: the CLI's 'search --json' hits.
type searchOut struct {
	Hits []ops.SearchHit `json:"hits"`
}

// lifeTools are the read tools of a task's life: the task list and search.
func (s *Server) lifeTools() (map[string]*tool, error) {
	tasksOutput, err := inferredType[tasksOut](false)
	if err != nil {
		return nil, err
	}
	searchOutput, err := inferredType[searchOut](false)
	if err != nil {
		return nil, err
	}
	return map[string]*tool{
		"tasks": {input: objectSchema(obj{
			"state": obj{"enum": []any{"open", "closed"}, "description": "only open or only closed tasks; default every task"},
			"mine":  obj{"type": "boolean", "description": "only tasks with a record by this repository's git identity (user.email)"}}),
			output: tasksOutput, run: s.tasks},
		"search": {input: objectSchema(obj{
			"text": obj{"type": "string", "minLength": 1, "maxLength": 500, "description": "text to find, in any case, in the subjects, questions, decisions, evidence, answers and resolutions of every task"}}, "text"),
			output: searchOutput, run: s.search},
	}, nil
}

func (s *Server) tasks(ctx context.Context, c *call) (*outcome, error) {
	state, _ := c.args["state"].(string)
	mine, _ := c.args["mine"].(bool)
	q := ops.TaskQuery{State: state, Mine: mine}
	rows, err := s.env.Tasks(ctx, q)
	if err != nil {
		return nil, err
	}
	for i, r := range rows {
		rows[i].NextTools = stepCalls(r.Next, r.Task, nil, s.byVerb)
	}
	var b strings.Builder
	// As 'git reason tasks' says it: first, once per task.
	b.WriteString(record.NotVerifiedFirst(len(rows), func(i int) (string, *record.Finding) { return rows[i].Task, rows[i].DoesNotVerify }).ToolMessage())
	for _, r := range rows {
		// The state as the command line's table says it: how a task is
		// closed, and the remote whose history a pull quarantined.
		fmt.Fprintln(&b, strings.TrimSuffix(fmt.Sprintf("%s %s %s %s", r.Task, r.Phase, record.Printable(r.Said()), r.Updated), " "))
	}
	switch {
	case len(rows) > 0:
	case q == (ops.TaskQuery{}):
		b.WriteString(s.env.NoTasks(ctx).ToolMessage()) // no task at all: status's advice, as 'git reason tasks' gives it
	default:
		b.WriteString("no task matches")
	}
	out, list, err := listAnswer("tasks", rows)
	if err != nil {
		return nil, err
	}
	return &outcome{out: out, published: list, text: strings.TrimSuffix(b.String(), "\n")}, nil
}

func (s *Server) search(ctx context.Context, c *call) (*outcome, error) {
	hits, err := s.env.Search(ctx, c.args["text"].(string))
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	// As 'git reason search' says it: first, once per task.
	b.WriteString(record.NotVerifiedFirst(len(hits), func(i int) (string, *record.Finding) { return hits[i].Task, hits[i].DoesNotVerify }).ToolMessage())
	for _, h := range hits {
		fmt.Fprintf(&b, "%s %s %s: %s\n", h.Task, record.ShortID(h.ID), h.Kind, h.Summary)
	}
	if len(hits) == 0 {
		fmt.Fprintf(&b, "no record mentions %q", c.args["text"]) // as 'git reason search' says it
	}
	out, list, err := listAnswer("hits", hits)
	if err != nil {
		return nil, err
	}
	return &outcome{out: out, published: list, text: strings.TrimSuffix(b.String(), "\n")}, nil
}
