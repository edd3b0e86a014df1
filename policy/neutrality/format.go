package neutrality

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// FormatText writes one line per violation:
// "path:line:col: name (declared as …)".
func FormatText(w io.Writer, vs []Violation) error {
	bw := bufio.NewWriter(w)
	for _, v := range vs {
		fmt.Fprintf(bw, "%s:%d:%d: %s (declared as %s)\n", v.Path, v.Line, v.Col, v.Name, v.DeclaredAs)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write violations: %w", err)
	}
	return nil
}

// FormatJSON writes the result as one indented JSON object whose fields are
// those of Result; lists are never null.
func FormatJSON(w io.Writer, r *Result) error {
	out := *r
	if out.Violations == nil {
		out.Violations = []Violation{}
	}
	if out.Skipped == nil {
		out.Skipped = []Skipped{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&out); err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	return nil
}

// Summary is a one-line account of the result for a person, meant for
// standard error: whether the repository is configured, how many files were
// scanned and how many violations were found.
func (r *Result) Summary() string {
	if !r.Configured {
		return fmt.Sprintf("neutrality is not configured (no %s): nothing checked", ConfigPath)
	}
	s := fmt.Sprintf("%d %s in %d %s", len(r.Violations), plural(len(r.Violations), "violation"),
		r.Files, plural(r.Files, "file"))
	if r.Allowed > 0 {
		s += fmt.Sprintf(", %d allowed", r.Allowed)
	}
	if n := len(r.Skipped); n > 0 {
		s += fmt.Sprintf(", %d %s not checked", n, plural(n, "file"))
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
