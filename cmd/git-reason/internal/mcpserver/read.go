package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/policy"
	"git-reason/policy/neutrality"
	"git-reason/record"
	"git-reason/schemas"
)

// logOut is the log tool's answer (listAnswer), as its output schema
// infers it.
type logOut struct {
	Entries []ops.LogLine `json:"entries"`
}

// schemaOut is a record kind's schemas, or the schema a command's --json
// output publishes (Output), as 'git reason schema' prints them.
type schemaOut struct {
	Envelope json.RawMessage `json:"envelope,omitempty"`
	Body     json.RawMessage `json:"body,omitempty"`
	Derived  json.RawMessage `json:"derived,omitempty"`
	Output   json.RawMessage `json:"output,omitempty"`
}

// schemaNames are what the schema tool takes: the record kinds, then the
// commands whose --json output publishes a schema.
func schemaNames() []any {
	out := []any{}
	for _, k := range record.Kinds {
		out = append(out, string(k))
	}
	for _, name := range outputNames() {
		out = append(out, name)
	}
	return out
}

// outputNames are the commands whose --json output publishes a schema, in
// order: the schema tool's description lists them, so it stays true when
// one is added.
func outputNames() []string {
	var names []string
	for name := range schemas.Outputs {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// readTools returns the read and analyze tools.
func (s *Server) readTools() (map[string]*tool, error) {
	task, err := taskProperty()
	if err != nil {
		return nil, err
	}
	// One task's status, or every task's: the status schema once, in $defs.
	var single obj
	var row obj
	raw, err := inferred(reflect.TypeFor[ops.TaskStatusDoc](), true)
	if err == nil {
		err = json.Unmarshal(raw, &single)
	}
	if err == nil {
		raw, err = inferred(reflect.TypeFor[ops.StatusListRow](), false)
	}
	if err == nil {
		err = json.Unmarshal(raw, &row)
	}
	if err != nil {
		return nil, err
	}
	statusOutput, _ := json.Marshal(obj{"type": "object", "$defs": obj{"status": single, "row": row},
		"anyOf": []any{obj{"$ref": "#/$defs/status"}, obj{"type": "object", "additionalProperties": false,
			"required": []any{"tasks"}, "properties": obj{"tasks": obj{"type": "array",
				"items": obj{"$ref": "#/$defs/row"}}}}}})
	out := map[string]*tool{
		"prepare_session": {input: prepareInput(), run: s.prepareSession},
		"status": {input: objectSchema(obj{"task": task,
			"report": obj{"type": "boolean", "description": "also return the task's markdown report"}}),
			output: statusOutput, run: s.status},
		"log":      {input: logInput(task), run: s.log},
		"show":     {input: objectSchema(obj{"id": idArgument()}, "id"), run: s.show},
		"advisors": {input: objectSchema(obj{}), run: s.advisors},
		"doctor":   {input: objectSchema(obj{}), run: s.doctor},
		"verify": {input: objectSchema(obj{"tasks": obj{"type": "array", "items": task,
			"description": "tasks to replay; none: every task"}}), run: s.verify},
		"check_neutrality": {input: objectSchema(obj{
			"paths":  obj{"type": "array", "items": obj{"type": "string", "minLength": 1}, "description": "paths relative to the repository root; none: the whole tree"},
			"staged": obj{"type": "boolean", "description": "check the files staged in the index"},
			"range":  obj{"type": "string", "minLength": 1, "description": "check the files changed in A..B, as they are at B, by B's .reason/neutrality.yaml"}}), run: s.checkNeutrality},
		"schema": {input: objectSchema(obj{"kind": obj{"enum": schemaNames(), "description": "a record kind, or a command whose --json output schema is published in full (" + strings.Join(outputNames(), ", ") + ")"}}, "kind"), run: s.schema},
		"handover": {input: objectSchema(obj{
			"since": obj{"type": "string", "minLength": 1, "maxLength": 40, "description": "also list the tasks settled since: an age (7d, 36h, 2w), a date (2026-11-01), an RFC 3339 time, or any date git log reads (yesterday, 2 weeks ago); default 7d"},
			"task":  task,
			"actor": obj{"type": "string", "minLength": 1, "maxLength": 500, "description": "only tasks with a record by this actor: 'Name <email>', the name or the email"}}),
			run: s.handover},
	}
	out["context"] = &tool{input: objectSchema(obj{
		"range": obj{"type": "string", "minLength": 1, "maxLength": 500, "description": "A..B or A...B as git log reads them, or one revision R (R..HEAD); default: from the merge base with the upstream, else the default branch, to HEAD; with neither, HEAD's whole history (see the note)"}}),
		run: s.rangeContext}
	// handover's and context's outputs are the top level of the schemas
	// their --json outputs publish; the schema tool gives them in full.
	for _, name := range []string{"handover", "context"} {
		if out[name].output, err = outline(name); err != nil {
			return nil, err
		}
	}
	types := map[string]reflect.Type{
		"prepare_session": reflect.TypeFor[Negotiated](), "log": reflect.TypeFor[logOut](),
		"advisors": reflect.TypeFor[ops.AdvisorList](), "doctor": reflect.TypeFor[ops.Doctor](),
		"verify": reflect.TypeFor[ops.VerifyResult](), "check_neutrality": reflect.TypeFor[neutrality.Result](),
		"schema": reflect.TypeFor[schemaOut](),
	}
	for name, t := range types {
		// A task's log is about the task: it carries its next step.
		if out[name].output, err = inferred(t, name == "log"); err != nil {
			return nil, fmt.Errorf("output schema of %s: %w", name, err)
		}
	}
	if out["show"].output, err = recordOutput(""); err != nil {
		return nil, err
	}
	return out, nil
}

// prepareInput says once what every argument is, rather than once each.
func prepareInput() json.RawMessage {
	props := obj{}
	for _, name := range capabilityNames {
		props[name] = obj{"type": "boolean"}
	}
	var doc obj
	_ = json.Unmarshal(objectSchema(props), &doc)
	doc["description"] = "each argument is a fact about the host; unstated: taken from initialize, else false"
	raw, _ := json.Marshal(doc)
	return raw
}

func (s *Server) status(ctx context.Context, c *call) (*outcome, error) {
	task, _ := c.args["task"].(string)
	if task == "" {
		all, err := s.env.StatusList(ctx)
		if err != nil {
			return nil, err
		}
		text := record.Plural(len(all), "task")
		if len(all) == 0 {
			text = s.env.NoTasks(ctx).ToolMessage() // as 'git reason status' says it
		}
		for _, st := range all {
			phase := st.Phase
			if st.Closed != nil {
				phase = "closed" // as the command line's table says it
			}
			if h := st.Quarantined; h != nil {
				// No record here: as a verb given the task says it.
				text += fmt.Sprintf("\n%s: no task here: quarantined history of %s waits on %s", st.Task, record.Printable(h.Remote), h.Ref)
				continue
			}
			text += fmt.Sprintf("\n%s: %s (%s)", st.Task, phase, record.Plural(st.Records, "record"))
			if st.DoesNotVerify != nil {
				text += ": " + record.NotVerified(st.DoesNotVerify).ToolMessage()
			}
			if h := st.RemoteQuarantined; h != nil {
				text += "; " + record.Printable(h.Said())
			}
		}
		for i := range all {
			s.withTools(&all[i].Status)
		}
		out, list, err := listAnswer("tasks", all)
		if err != nil {
			return nil, err
		}
		return &outcome{out: out, published: list, text: text}, nil
	}
	st, head, _, err := s.env.ShownState(ctx, task)
	if err != nil {
		return nil, err
	}
	out := ops.TaskStatusDoc{Status: st.Summarize(), Signatures: s.env.TaskSignatures(ctx, task, head)}
	// As 'git reason status --json': a next step consult would refuse
	// now is a person's step (issue 26 §2), and the records fetched for
	// the task that need a person are listed.
	s.env.MarkPersonStep(ctx, &out.Status)
	if out.Needs, err = s.env.TaskNeeds(ctx, task); err != nil {
		return nil, err
	}
	out.Remote = s.env.Shared(task) // as 'git reason status TASK --json'
	// Each step also as the tool calls that take it, beside the command.
	s.withTools(&out.Status)
	var ids []string // the full ids a need's command says short
	for _, e := range slices.Concat(st.Entries, st.Refused) {
		ids = append(ids, e.ID)
	}
	for i, n := range out.Needs {
		out.Needs[i].Tools = stepCalls(n.Command, task, ids, s.byVerb)
	}
	if report, _ := c.args["report"].(bool); report {
		out.Report = st.ToolReport()
	}
	text := fmt.Sprintf("task %s: %s (%s, review count %d)", task, out.Phase, record.Plural(out.Records, "record"), out.ReviewCount)
	if out.DoesNotVerify != nil {
		text += ": " + record.NotVerified(out.DoesNotVerify).ToolMessage()
	}
	if out.Closed != nil {
		text += "; closed: " + out.Closed.Line()
	}
	if line := record.AnsweredLine(out.AnsweredBy); line != "" {
		text += "; local review " + line
	}
	if ps := out.PersonStep; ps != nil {
		text += "; a person decides: " + record.Printable(ps.Decide)
	}
	if line := out.Signatures.Text(); line != "" {
		text += "; signatures: " + record.Printable(line)
	}
	if out.Remote != "" {
		text += "; remote: " + record.Printable(out.Remote)
	}
	return &outcome{out: out, text: text, task: task}, nil
}

// logInput is the log tool's input: log's options on the command line,
// each by its long name (max for -n, ignore_case for -i).
func logInput(task obj) json.RawMessage {
	var kinds []any
	for _, k := range record.Kinds {
		kinds = append(kinds, string(k))
	}
	pattern := func(what string) obj {
		return obj{"type": "string", "minLength": 1, "maxLength": 500,
			"description": "only records " + what + " this regular expression (Go's syntax) matches"}
	}
	when := func(what string) obj {
		return obj{"type": "string", "minLength": 1, "maxLength": 40,
			"description": "only entries created " + what + " this time: an age (7d, 36h, 2w), a date (2026-11-01), an RFC 3339 time, or any date git log reads (yesterday, 2 weeks ago)"}
	}
	return objectSchema(obj{
		"task":        task,
		"max":         obj{"type": "integer", "minimum": 1, "description": "only the newest max entries (across every task, read newest first)"},
		"kind":        obj{"enum": kinds, "description": "only records of this kind"},
		"since":       when("at or after"),
		"until":       when("at or before"),
		"grep":        pattern("with a subject, question, decision, evidence, answer, resolution or other text that"),
		"author":      pattern("whose actor ('Name <email>')"),
		"ignore_case": obj{"type": "boolean", "description": "grep and author ignore case"},
	})
}

func (s *Server) log(ctx context.Context, c *call) (*outcome, error) {
	var q ops.LogQuery
	q.Task, _ = c.args["task"].(string)
	if n, ok := c.args["max"].(json.Number); ok {
		m, err := n.Int64()
		if err != nil || m > math.MaxInt32 {
			return nil, ops.Usage("max %s: give a whole number of entries", n)
		}
		q.Max = int(m)
	}
	if k, ok := c.args["kind"].(string); ok {
		q.Kinds = []record.Kind{record.Kind(k)} // the input schema's enum holds the kinds
	}
	icase, _ := c.args["ignore_case"].(bool)
	var err error
	if p, ok := c.args["grep"].(string); ok {
		if q.Grep, err = ops.Pattern("grep", p, icase); err != nil {
			return nil, err
		}
	}
	if p, ok := c.args["author"].(string); ok {
		if q.Author, err = ops.Pattern("author", p, icase); err != nil {
			return nil, err
		}
	}
	// As 'git reason log --since' reads them: git's own date forms too.
	if w, ok := c.args["since"].(string); ok {
		if q.Since, err = s.env.ParseWhen(ctx, "since", w, time.Now()); err != nil {
			return nil, err
		}
	}
	if w, ok := c.args["until"].(string); ok {
		if q.Until, err = s.env.ParseWhen(ctx, "until", w, time.Now()); err != nil {
			return nil, err
		}
	}
	lines, noTasks, err := s.env.QueryLog(ctx, q)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	// As 'git reason log' says it: first, once per task.
	b.WriteString(record.NotVerifiedFirst(len(lines), func(i int) (string, *record.Finding) { return lines[i].Task, lines[i].DoesNotVerify }).ToolMessage())
	for _, l := range lines {
		fmt.Fprintf(&b, "%s %d %s %s: %s\n", l.Task, l.Clock, record.ShortID(l.ID), l.Kind, l.Summary)
	}
	switch {
	case noTasks:
		b.WriteString(s.env.NoTasks(ctx).ToolMessage())
	case len(lines) == 0:
		b.WriteString("no record matches")
	}
	out, list, err := listAnswer("entries", lines)
	if err != nil {
		return nil, err
	}
	return &outcome{out: out, published: list, text: strings.TrimSuffix(b.String(), "\n"), task: q.Task}, nil
}

func (s *Server) show(ctx context.Context, c *call) (*outcome, error) {
	e, st, sig, err := s.env.FindSigned(ctx, c.args["id"].(string))
	if err != nil {
		return nil, err
	}
	out := recordOut{Record: e.Record, Signature: sig, DoesNotVerify: st.Unverified}
	text := fmt.Sprintf("%s %s of task %s: %s", e.Kind, e.ID, e.Task, record.Summary(e))
	if st.Unverified != nil {
		text += "; " + record.NotVerified(st.Unverified).ToolMessage()
	}
	if wd := st.Withdrawn(e.ID); wd != nil {
		// As 'git reason show' says it: derivation ignores the record.
		text += fmt.Sprintf("; withdrawn by %s (%s): %s", wd.ID, wd.Actor, wd.Body.(*record.Withdrawal).Reason)
	}
	if sig != nil {
		out.Commit = sig.Commit
		text += "; " + sig.Text
	}
	return &outcome{out: out, text: record.Printable(text)}, nil
}

func (s *Server) advisors(ctx context.Context, _ *call) (*outcome, error) {
	out, err := s.env.Advisors(ctx)
	if err != nil {
		return nil, err
	}
	out.SayToTools()
	available := 0
	for _, a := range out.Advisors {
		if policy.Status(a.Status).Askable() {
			available++
		}
	}
	return &outcome{out: out, text: fmt.Sprintf("profile %s (mode %s): %s declared, %d askable", out.Profile, out.Mode, record.Plural(len(out.Advisors), "advisor"), available)}, nil
}

func (s *Server) doctor(ctx context.Context, _ *call) (*outcome, error) {
	d, err := s.env.RunDoctor(ctx)
	if err != nil {
		return nil, err
	}
	// Each message as the tools say it, and each fix a tool takes as the
	// call (fix_tools): a task's replay is verify's, more neutrality
	// violations check_neutrality's; hooks install and trust are the
	// person's, which the messages say.
	d.SayToTools()
	s.notes.take() // its findings say them (untrusted_overlay, untrusted_signers)
	for i, f := range d.Findings {
		step := f.Fix()
		if f.Code == "does_not_verify" {
			step = "git reason verify " + f.Subject
		}
		d.Findings[i].FixTools = stepCalls(step, f.Subject, nil, s.byVerb)
	}
	return &outcome{out: d, text: fmt.Sprintf("%s, %s; refs: %s, %s, %d broken, %d not verifying",
		record.Plural(len(d.Findings), "finding"), record.Plural(d.Errors, "error"), record.Plural(d.Refs.Tasks, "task"), record.Plural(d.Refs.Records, "record"), d.Refs.Broken, d.Refs.Unverified)}, nil
}

func (s *Server) verify(ctx context.Context, c *call) (*outcome, error) {
	var tasks []string
	if list, ok := c.args["tasks"].([]any); ok {
		for _, t := range list {
			tasks = append(tasks, t.(string))
		}
	}
	res, err := s.env.Verify(ctx, tasks, nil)
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf("verified %s: every record admissible", record.Plural(len(res.Tasks), "task"))
	if n := len(res.Findings); n > 0 {
		text = fmt.Sprintf("verified %s: %s", record.Plural(len(res.Tasks), "task"), record.Plural(n, "problem"))
		for _, f := range res.Findings {
			text += "\n" + f.String()
		}
	}
	return &outcome{out: res, text: text}, nil
}

func (s *Server) checkNeutrality(ctx context.Context, c *call) (*outcome, error) {
	req := ops.NeutralityRequest{Dir: s.env.Repo.WorkTree}
	if list, ok := c.args["paths"].([]any); ok {
		for _, p := range list {
			req.Paths = append(req.Paths, p.(string))
		}
	}
	req.Staged, _ = c.args["staged"].(bool)
	req.Range, _ = c.args["range"].(string)
	res, err := s.env.CheckNeutrality(ctx, req)
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf("%s checked, %s", record.Plural(res.Files, "file"), record.Plural(len(res.Violations), "violation"))
	if !res.Configured {
		text = "neutrality is not configured here (no " + neutrality.ConfigPath + "): nothing checked"
	}
	for _, v := range res.Violations {
		text += "\n" + v.String()
	}
	return &outcome{out: res, text: text}, nil
}

func (s *Server) schema(_ context.Context, c *call) (*outcome, error) {
	name := c.args["kind"].(string)
	if file, ok := schemas.Outputs[name]; ok {
		doc, err := schemas.FS.ReadFile(file)
		if err != nil {
			return nil, err
		}
		// The title names the command line that prints it (for
		// "question": git reason show --question --json).
		var head struct{ Title string }
		if err := json.Unmarshal(doc, &head); err != nil {
			return nil, err
		}
		return &outcome{out: schemaOut{Output: doc}, text: fmt.Sprintf("schema of what '%s' prints (JSON Schema 2020-12)", head.Title)}, nil
	}
	kind, err := record.ParseKind(name)
	if err != nil {
		return nil, err
	}
	var out schemaOut
	for part, dst := range map[string]*json.RawMessage{"envelope": &out.Envelope, "body": &out.Body, "derived": &out.Derived} {
		if *dst, err = record.SchemaDocument(kind, part); err != nil {
			return nil, err
		}
	}
	return &outcome{out: out, text: fmt.Sprintf("schemas of %s records: envelope, body and derived (JSON Schema 2020-12)", kind)}, nil
}

func (s *Server) handover(ctx context.Context, c *call) (*outcome, error) {
	since, _ := c.args["since"].(string)
	if since == "" {
		since = "7d"
	}
	q := ops.HandoverQuery{}
	var err error
	// As 'git reason handover --since' reads it: git's own date forms too.
	if q.Since, err = s.env.ParseWhen(ctx, "since", since, time.Now()); err != nil {
		return nil, err
	}
	q.Task, _ = c.args["task"].(string)
	q.Actor, _ = c.args["actor"].(string)
	rep, err := s.env.Handover(ctx, q)
	if err != nil {
		return nil, err
	}
	rep.SayToTools()
	var text strings.Builder
	_ = ops.WriteHandover(&text, rep, ops.FormatTools)
	// [] for a list a task lacks, as the published output has it: a task
	// with no standing conclusion held null, and the call failed.
	lists := rep.Lists()
	for _, hs := range [][]record.Handover{lists.Open, lists.Settled} {
		for i := range hs {
			h := &hs[i]
			ids := make([]string, len(h.Disagreements))
			for j, d := range h.Disagreements {
				ids[j] = d.ID
			}
			h.NextTools = stepCalls(h.Next, h.Task, ids, s.byVerb)
			h.PersonStep = s.personTools(h.PersonStep, h.Task)
		}
	}
	return &outcome{out: lists, text: text.String()}, nil
}

func (s *Server) rangeContext(ctx context.Context, c *call) (*outcome, error) {
	q := ops.ContextQuery{}
	q.Range, _ = c.args["range"].(string)
	rep, err := s.env.Context(ctx, q)
	if err != nil {
		return nil, err
	}
	return &outcome{out: rep, text: ops.RenderContext(rep, ops.FormatTools)}, nil
}
