package record

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Errors a caller tells apart with errors.Is. Surfaces map ErrInput to exit
// status 2 and ErrRefused to 3.
var (
	// ErrInput marks input that is malformed or names nothing: nothing is written.
	ErrInput = errors.New("bad input")
	// ErrRefused marks a record refused by an admission rule: nothing is written.
	ErrRefused = errors.New("refused")
	// ErrConflict is returned by Store.Append when the task's head moved.
	ErrConflict = errors.New("task head moved")
)

// Violation is one schema violation at a JSON pointer into the document.
type Violation struct {
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

func (v Violation) String() string {
	p := v.Pointer
	if p == "" {
		p = "/"
	}
	return p + ": " + v.Message
}

// SchemaError lists every violation of one document against its schema.
type SchemaError struct {
	Kind       Kind
	Part       string // body or derived
	Violations []Violation
}

func (e *SchemaError) Error() string {
	return e.said("'git reason schema " + cmp.Or(string(e.Kind), "KIND") + "'")
}

// ToolMessage names the schema tool (ToolAdvised): a stored record that
// fails its schema is said inside its history's error (UnreadableError),
// which the MCP tools give.
func (e *SchemaError) ToolMessage() string {
	if e.Kind == "" {
		return e.said("the schema tool (any kind)")
	}
	return e.said(fmt.Sprintf("the schema tool (kind: %q)", e.Kind))
}

// said names the kind; a stored document's envelope, failing before its
// kind is known (neither it nor the file name it is read under names
// one), is a record's: the envelope is every kind's (envelope.json).
func (e *SchemaError) said(schema string) string {
	var b strings.Builder
	b.WriteString(cmp.Or(string(e.Kind), "record"))
	b.WriteString(" ")
	b.WriteString(e.Part)
	b.WriteString(" does not match its schema (see ")
	b.WriteString(schema)
	b.WriteString("):")
	for _, v := range e.Violations {
		b.WriteString("\n  ")
		b.WriteString(v.String())
	}
	return b.String()
}

// Is makes a SchemaError match ErrInput.
func (e *SchemaError) Is(target error) bool { return target == ErrInput }

// refusal builds an admission refusal; the message says what rule refused
// and what to do.
type refusal struct{ msg string }

func (r *refusal) Error() string        { return r.msg }
func (r *refusal) Is(target error) bool { return target == ErrRefused }

func refuse(msg string) error { return &refusal{msg: msg} }

// UnfilledError refuses a conclusion that leaves out what rule 6 asks of
// it: an item of the plan's local review unanswered, or a completed
// consultation not weighed. Its message advises the command line's flag;
// a surface where the conclusion is written otherwise (the editor
// conclude opens) says what to fill from Rule, Field and Keys. It matches
// ErrRefused.
type UnfilledError struct {
	Rule  string   // what is missing, without advice
	Field string   // the body's part: local-review or weigh, as its flag is named
	Keys  []string // what goes before '=' in each: an item's number, a consultation's id
	flag  string   // the command line's advice
}

func (e *UnfilledError) Error() string        { return e.Rule + e.flag }
func (e *UnfilledError) Is(target error) bool { return target == ErrRefused }

// ErrAlreadyAnswered marks a completed consultation refused because its
// advisor already answered the plan (two consult runs at once, say). It
// matches ErrRefused too.
var ErrAlreadyAnswered = errors.New("already answered")

type alreadyAnswered struct{ msg string }

func (a *alreadyAnswered) Error() string { return a.msg }
func (a *alreadyAnswered) Is(target error) bool {
	return target == ErrRefused || target == ErrAlreadyAnswered
}

// ErrAmbiguous marks an id prefix that names more than one record of a
// task (State.Resolve); it is bad input too.
var ErrAmbiguous = errors.New("ambiguous id prefix")

type ambiguousError struct{ msg string }

func (e *ambiguousError) Error() string { return e.msg }
func (e *ambiguousError) Is(target error) bool {
	return target == ErrInput || target == ErrAmbiguous
}

type inputError struct{ msg string }

func (e *inputError) Error() string        { return e.msg }
func (e *inputError) Is(target error) bool { return target == ErrInput }

func badInput(msg string) error { return &inputError{msg: msg} }

// Inputf returns bad input whose message is the formatted text alone: it
// matches ErrInput, but what a user reads says what was wrong, not the
// sentinel's "bad input".
func Inputf(format string, args ...any) error {
	return badInput(fmt.Sprintf(format, args...))
}

// ToolAdvised is an error whose message advises the command line's flags
// or commands, and that can give the same advice to a surface whose calls
// take the body's own fields and name tools, not commands (the MCP
// tools), which cannot type the command line's.
type ToolAdvised interface {
	error
	// ToolMessage is Error's message with the tools' advice instead.
	ToolMessage() string
}

// ToolText is err's message as the MCP tools give it: the advice of the
// first ToolAdvised in its chain said in the tools' terms. An error that
// wraps another's message and is ToolAdvised itself (UnreadableError)
// says the cause with ToolText, so the advice of both is the tools'.
func ToolText(err error) string {
	msg := err.Error()
	if ta, ok := errors.AsType[ToolAdvised](err); ok {
		msg = strings.Replace(msg, ta.Error(), ta.ToolMessage(), 1)
	}
	return msg
}

// Advice is a line of advice said two ways, as ToolAdvised says an
// error's: String to the command line (and the page), naming its
// commands, and ToolMessage to the MCP tools, naming the tool to call and
// its arguments, or saying that a step no tool takes is the person's.
// Tools empty is CLI said to both.
type Advice struct{ CLI, Tools string }

func (a Advice) String() string      { return a.CLI }
func (a Advice) ToolMessage() string { return cmp.Or(a.Tools, a.CLI) }

// ToolCall is a step the command line says as a command (Status.Next, a
// PersonOption's Then) as an MCP tool call: the tool, and its arguments
// in the tool's terms. Only the MCP server fills one in.
type ToolCall struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
}

// MarshalJSON writes a call of no arguments with {} as its arguments, as
// the published schemas say it (an object), never null.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	type call ToolCall
	if c.Arguments == nil {
		c.Arguments = map[string]any{}
	}
	return json.Marshal(call(c))
}

// AdvisedError is a refusal, or bad input, whose advice names the command
// line's flags or commands: Rule says what is wrong, Flags is the command
// line's advice after it ("--supersedes 01ABCD", "see 'git reason log
// T'"), and Fields the same advice in the body's own fields
// ("supersedes: [\"01ABCD…\"]") or naming a tool, which a surface that
// takes the body (the MCP tools' arguments) gives instead
// (ToolMessage). It matches ErrRefused, or ErrInput when it is bad input.
type AdvisedError struct {
	Rule   string
	Flags  string
	Fields string
	input  bool
}

func (e *AdvisedError) Error() string       { return e.Rule + e.Flags }
func (e *AdvisedError) ToolMessage() string { return e.Rule + e.Fields }
func (e *AdvisedError) Is(target error) bool {
	if e.input {
		return target == ErrInput
	}
	return target == ErrRefused
}

// findingText is err's message as a finding of replay says it: a stored
// record broke the rule, so an AdvisedError's advice is said in the
// record's own fields (by, outcome, supersedes), not in the flags of a
// command line nobody typed.
func findingText(err error) string {
	msg := err.Error()
	if ae, ok := errors.AsType[*AdvisedError](err); ok {
		msg = strings.Replace(msg, ae.Error(), ae.Rule+ae.Fields, 1)
	}
	return msg
}

// refuseAdvised is refuse with advice said two ways (AdvisedError).
func refuseAdvised(rule, flags, fields string) error {
	return &AdvisedError{Rule: rule, Flags: flags, Fields: fields}
}

// badInputAdvised is badInput with advice said two ways (AdvisedError).
func badInputAdvised(rule, flags, fields string) error {
	return &AdvisedError{Rule: rule, Flags: flags, Fields: fields, input: true}
}

// quotedIDs is ids as a JSON list of the full ids.
func quotedIDs(es []*Entry) string {
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = strconv.Quote(e.ID)
	}
	return "[" + strings.Join(ids, ", ") + "]"
}
