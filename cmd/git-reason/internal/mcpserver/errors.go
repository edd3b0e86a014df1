package mcpserver

import (
	"context"
	"errors"
	"strings"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

// Error codes of a tool error, one per exit status of the command line.
const (
	CodeBadInput    = "bad_input"    // exit 2: nothing was written
	CodeRefused     = "refused"      // exit 3: a rule refused; nothing was written
	CodeUnknownTask = "unknown_task" // exit 2: the task has no records
	CodeCancelled   = "cancelled"    // the client cancelled the call
	CodeFailed      = "failed"       // exit 1
)

// Action is a tool call that can recover from an error, or that takes a
// task to its next step. It names tools only.
type Action = record.ToolCall

// ToolError is the structured content of every failed call.
type ToolError struct {
	Code            string   `json:"code"`
	Message         string   `json:"message"`
	RecoveryActions []Action `json:"recovery_actions"`
	// Notices are the warnings the call gave before it failed (notices):
	// an untrusted .reason/advisors.yaml may be why no advisor can be
	// asked.
	Notices []string `json:"notices,omitempty"`
}

func (e *ToolError) Error() string { return e.Message }

// badInput is a call whose arguments do not fit the tool.
func badInput(msg string) *ToolError {
	return &ToolError{Code: CodeBadInput, Message: msg, RecoveryActions: []Action{}}
}

// classify turns an operation's error into a tool error with recovery
// actions, deterministically: the same state and the same error give the
// same actions. An unknown task recovers with assess; a refusal, or a
// write whose defaulted id has no record yet, with the task's next step
// (resolve with the disagreement's id when one is open); a history that
// does not read, with verify of its task; a body the schema refused, or
// an assessment refused for the task it would start (no unknown task: it
// has no next step), with the schema of its kind.
func (s *Server) classify(ctx context.Context, tool string, task string, kind record.Kind, err error) *ToolError {
	var te *ToolError
	if errors.As(err, &te) {
		return te
	}
	msg := toolMessage(err)
	if ue, ok := errors.AsType[*record.UnfilledError](err); ok {
		msg = unfilled(ue)
	}
	if se, ok := errors.AsType[*record.SchemaError](err); ok && !errors.Is(err, record.ErrUnreadable) {
		// The writer's violations are the body's, whose pointers are the
		// arguments' (less task): said as the tool's own check says them,
		// not cut to the line that only names the schema. A stored
		// record's are its history's (UnreadableError), said as the
		// command line says them.
		parts := make([]string, 0, len(se.Violations))
		for _, v := range se.Violations {
			parts = append(parts, v.String())
		}
		msg = "arguments of " + tool + ": " + record.Printable(strings.Join(parts, "; "))
	}
	out := &ToolError{Message: msg, RecoveryActions: []Action{}}
	if errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled) {
		// Said in the tool's terms, not as Go's "context canceled".
		out.Code = CodeCancelled
		out.Message = "the client cancelled the call: what it recorded before it stopped stays (consult records each advisor it was asking as cancelled); status says where the task stands"
		if task != "" {
			out.RecoveryActions = []Action{{Tool: "status", Arguments: map[string]any{"task": task}}}
		}
		return out
	}
	if ut, ok := errors.AsType[*ops.UnknownTaskError](err); ok {
		// A task read that has no records, whichever argument named it
		// (verify's tasks as much as task).
		out.Code = CodeUnknownTask
		out.RecoveryActions = []Action{{Tool: "assess", Arguments: map[string]any{"task": ut.Task}}}
		return out
	}
	starts := false // an assessment that would start the task
	if task != "" && (errors.Is(err, ops.ErrUsage) || errors.Is(err, record.ErrInput) || errors.Is(err, record.ErrRefused)) {
		if exists, xerr := s.taskExists(task); xerr == nil && !exists {
			if kind != record.KindAssessment {
				out.Code = CodeUnknownTask
				// Said as every verb says it, not as the rule an empty
				// history failed first (a closure's advised 'task delete').
				if nerr := s.env.Unknown(task); nerr != nil {
					out.Message = toolMessage(nerr)
				}
				out.RecoveryActions = []Action{{Tool: "assess", Arguments: map[string]any{"task": task}}}
				return out
			}
			// assess starts a task: what it refused is the body, which the
			// kind's schema says how to write (the task has no next step).
			starts = true
		}
	}
	var missing missingError
	switch ue, unreadable := errors.AsType[*record.UnreadableError](err); {
	case unreadable:
		// A history that does not read (a stored record that fails its
		// schema, a task above reason.maxTaskBytes): refused, as the
		// command line's exit 3; verify says what is wrong with it.
		out.Code = CodeRefused
		out.RecoveryActions = []Action{{Tool: "verify", Arguments: map[string]any{"tasks": []string{ue.Task}}}}
	case errors.Is(err, record.ErrRefused):
		out.Code = CodeRefused
		if starts {
			out.RecoveryActions = []Action{{Tool: "schema", Arguments: map[string]any{"kind": string(kind)}}}
		} else if task != "" {
			out.RecoveryActions = s.nextStep(ctx, task, tool)
		}
	case errors.As(err, &missing):
		// An id the server fills in has no record to name yet: the
		// task's next step makes one.
		out.Code = CodeBadInput
		out.RecoveryActions = s.nextStep(ctx, task, tool)
	case errors.Is(err, ops.ErrUsage), errors.Is(err, record.ErrInput):
		out.Code = CodeBadInput
		if kind != "" {
			out.RecoveryActions = []Action{{Tool: "schema", Arguments: map[string]any{"kind": string(kind)}}}
		}
	default:
		out.Code = CodeFailed
	}
	return out
}

// toolMessage is err's message on one line, without its sentinel, and
// with its advice in the tools' names and arguments where it names the
// command line's commands and flags (record.ToolAdvised), which a client
// cannot type.
func toolMessage(err error) string {
	return withoutSentinel(oneLine(record.ToolText(err)))
}

// unfilled says what a conclusion left out in the conclude tool's
// arguments. The writer's advice is the command line's flag ('add
// --local-review 1=ANSWER'), which names no argument of the tool, and
// whose numbered item local_review does not take.
func unfilled(ue *record.UnfilledError) string {
	switch ue.Field {
	case "local-review":
		return ue.Rule + `: answer it and every other item of the plan's checklist (status lists them) in local_review, {"item": the item's text, "answer": ANSWER}`
	case "weigh":
		return ue.Rule + `: weigh each in weighed, {"consultation": ID, "treatment": "adopted", "partially_adopted" or "rejected", "reason": REASON}, ID one of ` + strings.Join(ue.Keys, ", ")
	}
	return ue.Error()
}

// missingError says that a write left out an id the server fills in with
// the task's latest record of a kind, and the task has none.
type missingError struct{ error }

func (e missingError) Unwrap() error { return e.error }

// nextStep is the task's next step as tool calls, less the tool that
// failed; status when nothing else is next.
func (s *Server) nextStep(ctx context.Context, task, tool string) []Action {
	out := []Action{}
	for _, a := range s.nextActions(ctx, task, nil) {
		if a.Tool != tool {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		out = append(out, Action{Tool: "status", Arguments: map[string]any{"task": task}})
	}
	return out
}

// taskExists reports whether the task has a ref.
func (s *Server) taskExists(task string) (bool, error) {
	if record.CheckTask(task) != nil {
		return false, nil
	}
	head, err := s.env.Repo.ReadRef("refs/reasoning/tasks/" + task)
	return head != "", err
}

// oneLine keeps an error to one line, as the command line prints it.
// withoutSentinel drops the text of the sentinel an error wraps
// ("refused: …", "bad input: …"): the tool error's code says it, and the
// text content starts with the code.
func withoutSentinel(msg string) string {
	for _, sentinel := range []error{record.ErrRefused, record.ErrInput, ops.ErrUsage} {
		if rest, ok := strings.CutPrefix(msg, sentinel.Error()+": "); ok {
			return rest
		}
	}
	return msg
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
