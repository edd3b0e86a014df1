package neutrality

import (
	"bytes"
	"fmt"
	"sort"
)

// DefaultMaxFileSize is the size above which a file is not checked unless
// the caller sets another limit: larger files are generated or vendored far
// more often than written.
const DefaultMaxFileSize = 4 << 20

// binaryProbe is how many leading bytes are searched for a NUL, as git does.
const binaryProbe = 8000

// Violation is one occurrence of a name in a neutral file.
type Violation struct {
	Path       string `json:"path"`        // slash-separated, from the repository root
	Line       int    `json:"line"`        // 1-based
	Col        int    `json:"col"`         // 1-based byte column
	Name       string `json:"name"`        // the term as declared
	DeclaredAs string `json:"declared_as"` // where the term was declared
	Text       string `json:"text"`        // the occurrence as spelled in the file
}

// String is how a violation is shown to a person, one a line:
// "path:line:col: name (declared as …)".
func (v Violation) String() string {
	return fmt.Sprintf("%s:%d:%d: %s (declared as %s)", v.Path, v.Line, v.Col, v.Name, v.DeclaredAs)
}

// Skipped is a file that could not be checked.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Result is the outcome of a check. The check passes when Violations is
// empty, including when the repository is not configured.
type Result struct {
	Configured bool        `json:"configured"`
	Violations []Violation `json:"violations"` // sorted by path, line, column
	Files      int         `json:"files"`      // files scanned
	Allowed    int         `json:"allowed"`    // occurrences accepted by allow entries
	Binary     int         `json:"binary"`     // binary files not scanned
	Skipped    []Skipped   `json:"skipped"`    // files too large or unreadable, by path
}

// Checker is a configuration compiled with the names to look for. It is
// safe for concurrent use: each goroutine scans into a Result of its own
// and the Results are merged at the end.
type Checker struct {
	rules   *rules
	matcher *Matcher
}

// NewChecker compiles cfg and the declared terms; the configuration's own
// terms are added with DeclaredAs ConfigTermsDeclaredAs. A bad glob,
// regular expression or term of cfg is a *FieldError; a declared term
// without a letter or digit is a plain error.
func NewChecker(cfg *Config, terms []Term) (*Checker, error) {
	r, err := cfg.compile()
	if err != nil {
		return nil, err
	}
	m, err := NewMatcher(append(append([]Term(nil), terms...), r.terms...))
	if err != nil {
		return nil, err
	}
	return &Checker{rules: r, matcher: m}, nil
}

// Covers reports whether the file at the slash-separated path p, from the
// repository root, is neutral and not excluded: whether it is checked.
func (c *Checker) Covers(p string) bool { return c.rules.checks(p) }

// Scan checks the contents of the file at path p into r. A file whose first
// 8000 bytes hold a NUL is binary, counted and not scanned (git's rule).
func (c *Checker) Scan(r *Result, p string, data []byte) {
	if bytes.IndexByte(data[:min(len(data), binaryProbe)], 0) >= 0 {
		r.Binary++
		return
	}
	r.Files++
	for _, m := range c.matcher.Find(data) {
		if len(c.rules.allow) > 0 && c.rules.allowed(p, lineAt(data, m.Offset)) {
			r.Allowed++
			continue
		}
		r.Violations = append(r.Violations, Violation{
			Path: p, Line: m.Line, Col: m.Col,
			Name: m.Term.Name, DeclaredAs: m.Term.DeclaredAs, Text: m.Text,
		})
	}
}

// Skip records in r a file that was not read, and why.
func (r *Result) Skip(p, reason string) { r.Skipped = append(r.Skipped, Skipped{p, reason}) }

// SkipTooLarge records in r a file larger than limit bytes.
func (r *Result) SkipTooLarge(p string, limit int64) {
	r.Skip(p, fmt.Sprintf("larger than %d bytes", limit))
}

// Merge adds o's findings and counts to r.
func (r *Result) Merge(o *Result) {
	r.Violations = append(r.Violations, o.Violations...)
	r.Files += o.Files
	r.Allowed += o.Allowed
	r.Binary += o.Binary
	r.Skipped = append(r.Skipped, o.Skipped...)
}

// Finish marks r configured, sorts its violations by path, line and column
// and its skipped files by path, and makes its lists non-nil, so that JSON
// shows [] rather than null.
func (r *Result) Finish() *Result {
	r.Configured = true
	if r.Violations == nil {
		r.Violations = []Violation{}
	}
	if r.Skipped == nil {
		r.Skipped = []Skipped{}
	}
	sort.Slice(r.Violations, func(i, j int) bool {
		a, b := r.Violations[i], r.Violations[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	sort.Slice(r.Skipped, func(i, j int) bool { return r.Skipped[i].Path < r.Skipped[j].Path })
	return r
}

// NotConfigured is the result for a repository without a configuration:
// nothing was checked.
func NotConfigured() *Result {
	return &Result{Violations: []Violation{}, Skipped: []Skipped{}}
}

// lineAt returns the line holding data[off], without its line ending.
func lineAt(data []byte, off int) []byte {
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	end := bytes.IndexByte(data[off:], '\n')
	if end < 0 {
		end = len(data)
	} else {
		end += off
	}
	return bytes.TrimSuffix(data[start:end], []byte("\r"))
}
