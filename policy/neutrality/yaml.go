package neutrality

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"gopkg.in/yaml.v3"

	"git-reason/schemas"
)

var schemaJSON, _ = schemas.FS.ReadFile("neutrality.json")

// Schema returns the JSON schema (draft 2020-12) that a configuration file
// must satisfy.
func Schema() []byte { return bytes.Clone(schemaJSON) }

// lineError is an error at a known line of the file.
type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string { return e.msg }

var (
	yamlLine   = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)
	yamlAnchor = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)
)

// yamlParserProblems are the problems yaml.v3 reports from its parser
// rather than its scanner: for these it prints a 0-based line (or none for
// line 0), so the true line is one more.
var yamlParserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected <stream-start>":   true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// decodeYAML decodes one YAML document into JSON-like values (maps, slices,
// strings, numbers, booleans, nil), and returns with it the line of every
// value, keyed by JSON pointer ("" is the document).
func decodeYAML(data []byte) (any, map[string]int, error) {
	lines := map[string]int{"": 1}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return map[string]any{}, lines, nil
	} else if err != nil {
		return nil, lines, yamlError(err, data)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, lines, &lineError{extra.Line, "more than one YAML document"}
	} else if !errors.Is(err, io.EOF) {
		return nil, lines, yamlError(err, data)
	}
	v, err := fromNode(&doc, "", lines, 0)
	return v, lines, err
}

// yamlError gives a yaml.v3 error its true line.
func yamlError(err error, data []byte) error {
	m := yamlLine.FindStringSubmatch(strings.TrimSpace(err.Error()))
	if m == nil {
		return fmt.Errorf("invalid YAML: %s", err)
	}
	line, _ := strconv.Atoi(m[1])
	problem := m[2]
	switch {
	case yamlParserProblems[problem]:
		line++
	case yamlAnchor.MatchString(problem):
		alias := []byte("*" + yamlAnchor.FindStringSubmatch(problem)[1])
		if i := bytes.Index(data, alias); i >= 0 {
			line = bytes.Count(data[:i], []byte("\n")) + 1
		}
	}
	return &lineError{line, "invalid YAML: " + problem}
}

func fromNode(n *yaml.Node, ptr string, lines map[string]int, depth int) (any, error) {
	if depth > 64 {
		return nil, &lineError{n.Line, "YAML nested too deeply"}
	}
	if _, ok := lines[ptr]; !ok || ptr == "" {
		lines[ptr] = n.Line
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return map[string]any{}, nil
		}
		return fromNode(n.Content[0], ptr, lines, depth+1)
	case yaml.AliasNode:
		// An alias is expanded in place; a few nested ones can stand for
		// billions of nodes, so bound what they expand to.
		if expandedSize(n.Alias, map[*yaml.Node]int{}) > maxAliasNodes {
			return nil, &lineError{n.Line, fmt.Sprintf("alias *%s expands to more than %d nodes", n.Value, maxAliasNodes)}
		}
		return fromNode(n.Alias, ptr, lines, depth+1)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			v, err := fromNode(c, ptr+"/"+strconv.Itoa(i), lines, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		first := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return nil, &lineError{k.Line, "a mapping key must be a plain name"}
			}
			if l, dup := first[k.Value]; dup {
				return nil, &lineError{k.Line, fmt.Sprintf("field %q given twice (first at line %d)", k.Value, l)}
			}
			first[k.Value] = k.Line
			kp := ptr + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(k.Value)
			lines[kp] = k.Line
			v, err := fromNode(val, kp, lines, depth+1)
			if err != nil {
				return nil, err
			}
			out[k.Value] = v
		}
		return out, nil
	case yaml.ScalarNode:
		return scalar(n), nil
	}
	return nil, &lineError{n.Line, "unsupported YAML node"}
}

// scalar types a scalar by its resolved tag; tags JSON has no type for
// (timestamps, binary) stay strings.
func scalar(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	case "!!int":
		var i int64
		if n.Decode(&i) == nil {
			return i
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil {
			return f
		}
	}
	return n.Value
}

var compiledSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	const url = "neutrality.schema.json"
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource(url, bytes.NewReader(schemaJSON)); err != nil {
		return nil, err
	}
	return c.Compile(url)
})

var quoted = regexp.MustCompile(`'((?:[^'\\]|\\.)*)'`)

// validate checks v against the schema and reports the first failure, by
// line order, as a *fieldError; several failures usually share one cause,
// and the first line is where to look.
func validate(v any, lines map[string]int) error {
	s, err := compiledSchema()
	if err != nil {
		return fmt.Errorf("compile neutrality schema: %w", err)
	}
	err = s.Validate(v)
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	var leaves []*jsonschema.ValidationError
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, e)
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	errs := make([]*fieldError, 0, len(leaves))
	for _, l := range leaves {
		errs = append(errs, leafError(l))
	}
	sort.SliceStable(errs, func(i, j int) bool {
		if li, lj := lines[errs[i].ptr], lines[errs[j].ptr]; li != lj {
			return li < lj
		}
		// An unknown field explains the missing one beside it: a typo.
		if ui, uj := errs[i].ptr != errs[i].name, errs[j].ptr != errs[j].name; ui != uj {
			return ui
		}
		return errs[i].ptr < errs[j].ptr
	})
	return errs[0]
}

// leafError words one schema failure; an unknown field is named by its own
// pointer so that it is reported at its own line.
func leafError(l *jsonschema.ValidationError) *fieldError {
	msg := l.Message
	if strings.HasPrefix(msg, "additionalProperties ") {
		if m := quoted.FindStringSubmatch(msg); m != nil {
			name := m[1]
			ptr := l.InstanceLocation + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
			return &fieldError{ptr: ptr, name: l.InstanceLocation, msg: fmt.Sprintf("unknown field %q", name)}
		}
	}
	if rest, ok := strings.CutPrefix(msg, "missing properties: "); ok {
		field := "field "
		if strings.Contains(rest, ",") {
			field = "fields "
		}
		msg = "missing required " + field + strings.ReplaceAll(rest, "'", "\"")
	}
	return &fieldError{ptr: l.InstanceLocation, name: l.InstanceLocation, msg: msg}
}

// maxAliasNodes bounds what one alias may expand to.
const maxAliasNodes = 10000

// expandedSize counts the nodes n stands for with its aliases expanded,
// stopping once past maxAliasNodes.
func expandedSize(n *yaml.Node, memo map[*yaml.Node]int) int {
	if n == nil {
		return 0
	}
	if v, ok := memo[n]; ok {
		return v
	}
	memo[n] = maxAliasNodes + 1 // a cycle counts as too large
	size := 1
	if n.Kind == yaml.AliasNode {
		size = expandedSize(n.Alias, memo)
	}
	for _, c := range n.Content {
		if size > maxAliasNodes {
			break
		}
		size += expandedSize(c, memo)
	}
	memo[n] = size
	return size
}
