package ops

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"time"

	"git-reason/record"
)

// LogQuery is what log lists: the records of one task, or of every task,
// that each filter set accepts, oldest first; the newest Max of them when
// Max > 0. The command line and the MCP log tool ask the same query.
type LogQuery struct {
	Task   string         // "": every task
	Max    int            // the newest Max entries; 0: every one
	Since  time.Time      // entries created at or after; zero: no bound
	Until  time.Time      // entries created at or before; zero: no bound
	Kinds  []record.Kind  // only records of one of these kinds; none: every kind
	Grep   *regexp.Regexp // only records with a text it matches, read from the search index
	Author *regexp.Regexp // only records whose actor ("Name <email>") it matches
}

// Pattern compiles a filter's regular expression (Go's syntax), ignoring
// case when icase; one that does not compile is bad input, named as name
// (--grep on the command line, grep for a tool).
func Pattern(name, pattern string, icase bool) (*regexp.Regexp, error) {
	// Compiled as typed first, so that an error quotes what was typed.
	re, err := regexp.Compile(pattern)
	if err == nil && icase {
		re, err = regexp.Compile("(?i)" + pattern)
	}
	if err != nil {
		why, advice := err.Error(), "put a backslash before a character meant as itself"
		if se, ok := errors.AsType[*syntax.Error](err); ok {
			why = string(se.Code) // regexp's "error parsing regexp: …: `(`" repeats what was typed
			advice = patternAdvice(se)
		}
		return nil, Usage("%s %q: not a regular expression: %s: %s", name, pattern, why, advice)
	}
	return re, nil
}

// patternAdvice says what to do about the error of a regular expression
// that does not compile, naming the character at fault: it advised \(
// for every error, a [ left open as much as a count above 1000.
func patternAdvice(se *syntax.Error) string {
	const itself = "put \\%s for a %s meant as itself"
	switch se.Code {
	case syntax.ErrMissingBracket:
		return fmt.Sprintf(itself+", or close the class with ]", "[", "[")
	case syntax.ErrMissingParen:
		return fmt.Sprintf(itself+", or close the group with )", "(", "(")
	case syntax.ErrUnexpectedParen:
		return fmt.Sprintf(itself, ")", ")")
	case syntax.ErrMissingRepeatArgument:
		op := se.Expr[:1]
		return fmt.Sprintf(itself+", or put what it repeats before it", op, op)
	case syntax.ErrInvalidRepeatOp:
		return fmt.Sprintf("%s repeats a repetition: group the first in ( ), or put a backslash before the one meant as itself", se.Expr)
	case syntax.ErrTrailingBackslash:
		return "put \\\\ for a backslash meant as itself"
	case syntax.ErrInvalidEscape:
		return fmt.Sprintf("%s is not an escape: put \\\\ for a backslash meant as itself", se.Expr)
	case syntax.ErrInvalidCharRange:
		if strings.HasPrefix(se.Expr, "[:") {
			return fmt.Sprintf("%s is not a class: give alnum, alpha, ascii, blank, cntrl, digit, graph, lower, print, punct, space, upper, word or xdigit", se.Expr)
		}
		return fmt.Sprintf("%s runs backwards: give the lower end first, or put - first or last for a hyphen", se.Expr)
	case syntax.ErrInvalidRepeatSize:
		return fmt.Sprintf("%s: give counts of at most 1000, the smaller first, or put \\{ for a { meant as itself", se.Expr)
	case syntax.ErrInvalidNamedCapture, syntax.ErrInvalidPerlOp:
		return fmt.Sprintf("%s is neither flags nor a named group: put \\( for a ( meant as itself", se.Expr)
	}
	return "put a backslash before a character meant as itself"
}

// keeps reports whether l passes every filter of q but Grep and Max.
func (q LogQuery) keeps(l LogLine) bool {
	if len(q.Kinds) > 0 && !slices.Contains(q.Kinds, l.Kind) {
		return false
	}
	if q.Author != nil && !q.Author.MatchString(l.Actor) {
		return false
	}
	if !q.Since.IsZero() || !q.Until.IsZero() {
		t, err := time.Parse(time.RFC3339Nano, l.Created)
		if err == nil && (t.Before(q.Since) || !q.Until.IsZero() && t.After(q.Until)) {
			return false
		}
	}
	return true
}

// QueryLog answers q. noTasks is true when there is no task at all, which
// a caller says as status says it (NoTasks), not as an empty answer. The
// newest Max across every task are read newest first, stopping early
// (LogNewest); a Grep reads the search index.
func (e *Session) QueryLog(ctx context.Context, q LogQuery) (lines []LogLine, noTasks bool, err error) {
	var all []LogLine
	switch {
	case q.Grep != nil:
		if all, err = e.Grep(ctx, q.Task, q.Grep); err != nil {
			return nil, false, err
		}
	case q.Task == "" && q.Max > 0:
		if lines, err = e.LogNewest(ctx, q.Max, q.keeps); err != nil {
			return nil, false, err
		}
		if len(lines) == 0 {
			tasks, err := e.Store.Tasks(ctx)
			if err != nil {
				return nil, false, err
			}
			noTasks = len(tasks) == 0
		}
		return lines, noTasks, nil
	default:
		if all, err = e.Log(ctx, q.Task); err != nil {
			return nil, false, err
		}
		if q.Task != "" && len(all) == 0 {
			return nil, false, e.noRecordShown(ctx, q.Task)
		}
		noTasks = q.Task == "" && len(all) == 0
	}
	lines = []LogLine{}
	for _, l := range all {
		if q.keeps(l) {
			lines = append(lines, l)
		}
	}
	if q.Max > 0 && len(lines) > q.Max {
		lines = lines[len(lines)-q.Max:]
	}
	e.withSignatures(ctx, lines)
	return lines, noTasks, nil
}

// noRecordShown is the refusal of log TASK when the task's ref holds no
// record (a commit that adds none, set by plumbing or fetched by plain
// git): it printed nothing and exited 0, where git log of a branch with
// no commit to show dies saying so, and status TASK says the history
// does not verify. Exit 3, as the same history refuses a write and
// verify's report; nil when replay finds nothing wrong.
func (e *Session) noRecordShown(ctx context.Context, task string) error {
	st, _, _, err := e.ShownState(ctx, task)
	if err != nil || st.Unverified == nil {
		return err
	}
	line := record.NotVerified(st.Unverified)
	return &refusal{msg: "task " + task + " holds no record: " + line.String(), tools: "task " + task + " holds no record: " + line.ToolMessage()}
}

// withSignatures gives each line read without its signature (a search
// hit's) the signature of its record's commit, as log shows it: the
// records of each task at the head the line was read at, asked once per
// task, for the lines kept only.
func (e *Session) withSignatures(ctx context.Context, lines []LogLine) {
	sigs := map[string]map[string]*Signature{}
	for i := range lines {
		l := &lines[i]
		if l.head == "" || l.Signature != nil {
			continue
		}
		key := l.Task + "\x00" + l.head
		if _, ok := sigs[key]; !ok {
			sigs[key], _ = e.RecordSignatures(ctx, l.Task, l.head)
		}
		l.Signature = sigs[key][l.ID]
	}
}
