package neutrality

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// ConfigPath is where a repository keeps its neutrality configuration,
// relative to the root of its work tree.
const ConfigPath = ".reason/neutrality.yaml"

// ConfigTermsDeclaredAs is the DeclaredAs of the terms a configuration adds.
const ConfigTermsDeclaredAs = "terms in " + ConfigPath

// Config is a repository's neutrality configuration. Its YAML form is
// described by the embedded JSON schema (neutrality.schema.json).
type Config struct {
	// Neutral holds globs of provider-neutral files; none means every file.
	Neutral []string `json:"neutral,omitempty"`
	// Exclude holds globs of files, inside the neutral ones, that may name
	// providers.
	Exclude []string `json:"exclude,omitempty"`
	// Terms holds names to look for beyond the declarations.
	Terms []string `json:"terms,omitempty"`
	// Allow holds accepted occurrences.
	Allow []Allow `json:"allow,omitempty"`
}

// Allow accepts the violations in files matching Path on lines matching
// Match.
type Allow struct {
	Path   string `json:"path"`   // glob of the files covered
	Match  string `json:"match"`  // RE2 regular expression searched in the line
	Reason string `json:"reason"` // why the occurrence is acceptable
}

// ConfigError is a configuration that cannot be used. Its message is one
// line naming the file and, when known, the line: "file:line: what".
type ConfigError struct {
	File string
	Line int // 1-based; 0 when the error concerns the whole file
	Msg  string
}

func (e *ConfigError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// ParseConfig parses and validates a configuration held in data; name is
// the file name errors report. An empty document is a valid configuration
// that makes every file neutral. Errors are *ConfigError.
func ParseConfig(name string, data []byte) (*Config, error) {
	v, lines, err := decodeYAML(data)
	if err != nil {
		return nil, locate(name, lines, err)
	}
	if err := validate(v, lines); err != nil {
		return nil, locate(name, lines, err)
	}
	c := configFrom(v)
	if _, err := c.compile(); err != nil {
		return nil, locate(name, lines, err)
	}
	return c, nil
}

// configFrom builds a Config from a value the schema has accepted.
func configFrom(v any) *Config {
	m, _ := v.(map[string]any)
	strs := func(k string) []string {
		var out []string
		for _, s := range asList(m[k]) {
			out = append(out, s.(string))
		}
		return out
	}
	c := &Config{Neutral: strs("neutral"), Exclude: strs("exclude"), Terms: strs("terms")}
	for _, a := range asList(m["allow"]) {
		am := a.(map[string]any)
		c.Allow = append(c.Allow, Allow{
			Path: am["path"].(string), Match: am["match"].(string), Reason: am["reason"].(string),
		})
	}
	return c
}

func asList(v any) []any { l, _ := v.([]any); return l }

// rules is a compiled configuration.
type rules struct {
	neutral, exclude globSet
	allow            []allowRule
	terms            []Term
}

type allowRule struct {
	path  glob
	match *regexp.Regexp
}

// fieldError is an error about one value. ptr, a JSON pointer, gives its
// line; name, another, the field the message starts with.
type fieldError struct {
	ptr, name string
	msg       string
}

func atField(ptr, msg string) *fieldError { return &fieldError{ptr: ptr, name: ptr, msg: msg} }

func (e *fieldError) Error() string {
	if f := fieldName(e.name); f != "" {
		return f + ": " + e.msg
	}
	return e.msg
}

// compile checks what the schema cannot: globs, regular expressions and
// terms. Errors are *fieldError.
func (c *Config) compile() (*rules, error) {
	r := &rules{}
	globs := func(field string, texts []string) (globSet, error) {
		gs := make(globSet, 0, len(texts))
		for i, t := range texts {
			g, err := compileGlob(t)
			if err != nil {
				return nil, atField(fmt.Sprintf("/%s/%d", field, i), err.Error())
			}
			gs = append(gs, g)
		}
		return gs, nil
	}
	var err error
	if r.neutral, err = globs("neutral", c.Neutral); err != nil {
		return nil, err
	}
	if r.exclude, err = globs("exclude", c.Exclude); err != nil {
		return nil, err
	}
	for i, t := range c.Terms {
		if key(t) == "" {
			return nil, atField(fmt.Sprintf("/terms/%d", i), fmt.Sprintf("term %q has no letter or digit", t))
		}
		r.terms = append(r.terms, Term{Name: t, DeclaredAs: ConfigTermsDeclaredAs})
	}
	for i, a := range c.Allow {
		g, err := compileGlob(a.Path)
		if err != nil {
			return nil, atField(fmt.Sprintf("/allow/%d/path", i), err.Error())
		}
		re, err := regexp.Compile(a.Match)
		if err != nil {
			return nil, atField(fmt.Sprintf("/allow/%d/match", i), "bad regular expression: "+err.Error())
		}
		if strings.TrimSpace(a.Reason) == "" {
			return nil, atField(fmt.Sprintf("/allow/%d/reason", i), "reason is empty")
		}
		r.allow = append(r.allow, allowRule{path: g, match: re})
	}
	return r, nil
}

// checks reports whether the file at p is neutral and not excluded.
func (r *rules) checks(p string) bool {
	if p == ConfigPath {
		return false
	}
	if len(r.neutral) > 0 && !r.neutral.match(p) {
		return false
	}
	return !r.exclude.match(p)
}

// allowed reports whether an allow entry accepts a violation on line of the
// file at p.
func (r *rules) allowed(p string, line []byte) bool {
	for _, a := range r.allow {
		if a.path.match(p) && a.match.Match(line) {
			return true
		}
	}
	return false
}

// locate turns a *fieldError or *lineError into a *ConfigError.
func locate(name string, lines map[string]int, err error) error {
	var fe *fieldError
	var le *lineError
	switch {
	case errors.As(err, &fe):
		return &ConfigError{File: name, Line: lines[fe.ptr], Msg: fe.Error()}
	case errors.As(err, &le):
		return &ConfigError{File: name, Line: le.line, Msg: le.msg}
	}
	return &ConfigError{File: name, Msg: err.Error()}
}

// fieldName renders a JSON pointer the way a reader of YAML names a field:
// /allow/0/match is allow[0].match.
func fieldName(ptr string) string {
	var b strings.Builder
	for _, tok := range strings.Split(ptr, "/")[1:] {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		if _, err := strconv.Atoi(tok); err == nil {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}
