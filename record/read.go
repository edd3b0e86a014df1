package record

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// MaxRecordBytes is the largest stored record read, and the largest the
// writer stores. A body is at most MaxBodyBytes of compact JSON; stored
// indented, with its envelope and derived fields (a plan's snapshot of
// every advisor), an honest record stays well below this. Readers check an
// object's size before reading it, so a record from elsewhere that is
// larger (a few megabytes of compressed padding can inflate to gigabytes)
// costs nothing to refuse.
const MaxRecordBytes = 1 << 20

// ErrUnreadable marks a task whose history does not read or does not
// validate: a record too large, not JSON, failing its schema, or stored
// under the wrong name or task. Commands that read many tasks skip such a
// task with one warning; a command addressed to it fails, pointing at
// 'git reason verify TASK'. It matches ErrRefused: nothing is derived from,
// or appended to, a history that does not read.
var ErrUnreadable = errors.New("unreadable history")

// UnreadableError says which task does not read and why.
type UnreadableError struct {
	Task string
	Err  error
}

func (e *UnreadableError) Error() string {
	return e.advised(e.Err.Error(), fmt.Sprintf("'git reason verify %s'", e.Task))
}

// ToolMessage names the verify tool (ToolAdvised), and says the cause's
// own advice in the tools' terms (ToolText): the step that raises
// reason.maxTaskBytes as the person's, the schema tool.
func (e *UnreadableError) ToolMessage() string {
	return e.advised(ToolText(e.Err), fmt.Sprintf("the verify tool (tasks: [%q])", e.Task))
}

func (e *UnreadableError) advised(cause, verify string) string {
	return fmt.Sprintf("task %s does not read (%s): see %s", e.Task, Printable(oneLineText(cause)), verify)
}

// Is makes an UnreadableError match ErrUnreadable and ErrRefused.
func (e *UnreadableError) Is(target error) bool {
	return target == ErrUnreadable || target == ErrRefused
}

// Unwrap returns the cause.
func (e *UnreadableError) Unwrap() error { return e.Err }

// Unreadable wraps err as the unreadable history of task; an error that
// already is one is returned as it is.
func Unreadable(task string, err error) error {
	var ue *UnreadableError
	if errors.As(err, &ue) {
		return err
	}
	return &UnreadableError{Task: task, Err: err}
}

// oneLineText keeps a multi-line error's message (a schema error lists
// violations, each on an indented line after a line ending in ':') on
// one line: "...): /a: x; /b: y".
func oneLineText(s string) string {
	lines := strings.Split(s, "\n")
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			l = strings.TrimLeft(l, " \t")
			if strings.HasSuffix(lines[i-1], ":") {
				b.WriteString(" ")
			} else {
				b.WriteString("; ")
			}
		}
		b.WriteString(l)
	}
	return b.String()
}

// kindNamed gives a *SchemaError of a stored record's envelope, which
// fails before the record names its kind, the kind of name, the file
// name the record is stored under ("<clock>-<kind>-<id>.json"): the
// kind it was said as before was always an assessment's.
func kindNamed(err error, name string) error {
	var se *SchemaError
	if !errors.As(err, &se) || se.Kind != "" {
		return err
	}
	parts := strings.Split(strings.TrimSuffix(path.Base(name), ".json"), "-")
	if len(parts) != 3 {
		return err
	}
	kind, kerr := ParseKind(parts[1])
	if kerr != nil {
		return err
	}
	named := *se
	named.Kind = kind
	return &named
}

// ReadStored reads one stored record of task, stored under name (its
// file name below records/), strictly: at most MaxRecordBytes, the whole
// document checked against the envelope, body and derived schemas, its task
// and file name matching where it is stored, its body and derived fields
// decodable. Every record that reaches Derive from a store has passed it,
// so nothing derived from a record from elsewhere can meet a field it does
// not expect.
func ReadStored(task, name string, data []byte) (*Record, error) {
	if len(data) > MaxRecordBytes {
		return nil, fmt.Errorf("%s is %d bytes; a record is at most %d", name, len(data), MaxRecordBytes)
	}
	rec, doc, err := parseRecord(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, kindNamed(err, name))
	}
	// The envelope was validated as parsed; body and derived are validated
	// from the same decoded document (what CheckRecord checks, decoded once).
	for _, part := range []string{"body", "derived"} {
		if err := validate(rec.Kind, part, doc[part]); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	if rec.Task != task {
		return nil, fmt.Errorf("%s: a record of task %s", name, Printable(rec.Task))
	}
	if rec.FileName() != name {
		return nil, fmt.Errorf("%s: stored under the wrong name, want %s", name, rec.FileName())
	}
	if _, err := Decode(rec); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return rec, nil
}
