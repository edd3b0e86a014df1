package neutrality

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"git-reason/schemas"
)

// ConfigPath is where a repository keeps its neutrality configuration,
// relative to the root of its work tree.
const ConfigPath = ".reason/neutrality.yaml"

// DeclarationsPath is where a repository declares its own advisors,
// providers, vendors and models (the overlay of share/), relative to the
// root of its work tree. Like the configuration, it is never checked: it
// is the data that names them, as share/ is for this project.
const DeclarationsPath = ".reason/advisors.yaml"

// ConfigTermsDeclaredAs is the DeclaredAs of the terms a configuration adds.
const ConfigTermsDeclaredAs = "terms in " + ConfigPath

// Config is a repository's neutrality configuration. Its YAML form is
// described by the JSON schema schemas/neutrality.json.
type Config struct {
	// Neutral holds globs of provider-neutral files; none means every file.
	Neutral []string `yaml:"neutral" json:"neutral,omitempty"`
	// Exclude holds globs of files, inside the neutral ones, that may name
	// providers.
	Exclude []string `yaml:"exclude" json:"exclude,omitempty"`
	// Terms holds names to look for beyond the declarations.
	Terms []string `yaml:"terms" json:"terms,omitempty"`
	// Allow holds accepted occurrences.
	Allow []Allow `yaml:"allow" json:"allow,omitempty"`
}

// Allow accepts the violations in files matching Path on lines matching
// Match.
type Allow struct {
	Path   string `yaml:"path" json:"path"`     // glob of the files covered
	Match  string `yaml:"match" json:"match"`   // RE2 regular expression searched in the line
	Reason string `yaml:"reason" json:"reason"` // why the occurrence is acceptable
}

// ParseConfig parses and validates a configuration held in data; name is
// the file name errors report. An empty document is a valid configuration
// that makes every file neutral. A file that is not valid YAML, does not
// satisfy the schema (schemas/neutrality.json), or holds a bad glob,
// regular expression or term is a *schemas.DecodeError naming file, line,
// column and field.
func ParseConfig(name string, data []byte) (*Config, error) {
	var c Config
	doc, err := schemas.Decode(name, data, schemas.Neutrality, &c)
	if err != nil {
		return nil, err
	}
	if _, err := c.compile(); err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			return nil, doc.ErrorAt(fe.ptr, fe.msg)
		}
		return nil, err
	}
	return &c, nil
}

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
	if f := schemas.FieldPath(e.name); f != "" {
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
	if p == ConfigPath || p == DeclarationsPath {
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
