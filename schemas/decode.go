package schemas

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"
)

// DecodeError is a declarative file that is not what its schema says: bad
// YAML, an unknown field, a value of the wrong type, one the schema refuses
// or one its type refuses. It names the file, the line and column (1-based;
// 0 when unknown) and the field as a path such as advisors[2].local (empty
// when the whole document is at fault). Callers treat it as bad input.
type DecodeError struct {
	File   string
	Line   int
	Column int
	Field  string
	Msg    string
	Syntax bool // not YAML at all, rather than not what the schema says
}

// Error renders "file:line:column: field: message" on one line: text taken
// from the file is escaped so that a terminal shows it and acts on nothing.
func (e *DecodeError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	b.WriteString(": ")
	if e.Field != "" {
		field := e.Field
		if strings.ContainsFunc(field, unprintable) {
			field = strconv.Quote(field)
		}
		b.WriteString(field + ": ")
	}
	b.WriteString(e.Msg)
	s := b.String()
	if strings.ContainsFunc(s, unprintable) {
		q := strconv.Quote(s)
		s = q[1 : len(q)-1]
	}
	return s
}

func unprintable(r rune) bool { return r != ' ' && !unicode.IsPrint(r) }

// Document is a decoded file's YAML tree, for the positions of what it
// holds.
type Document struct {
	file string
	root *yaml.Node // a mapping
}

// Item is one entry of a list in a document: the keys it sets, in order,
// and the line it starts on.
type Item struct {
	Keys []string
	Line int
}

// Items describes the entries of the list under the top-level key; none
// when the key is absent.
func (d *Document) Items(key string) []Item {
	n := lookup(d.root, "/"+PointerToken(key))
	if n == d.root || n.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]Item, 0, len(n.Content))
	for _, item := range n.Content {
		item = unalias(item)
		it := Item{Line: item.Line}
		for i := 0; i+1 < len(item.Content); i += 2 {
			it.Keys = append(it.Keys, item.Content[i].Value)
		}
		out = append(out, it)
	}
	return out
}

// Line is the line of the top-level key, or 0 when it is absent.
func (d *Document) Line(key string) int {
	for i := 0; i+1 < len(d.root.Content); i += 2 {
		if d.root.Content[i].Value == key {
			return d.root.Content[i].Line
		}
	}
	return 0
}

// ErrorAt is a DecodeError about the value the JSON pointer designates
// (such as /allow/0/match), at its line and column: for what a type checks
// beyond its schema.
func (d *Document) ErrorAt(pointer, msg string) *DecodeError {
	n := lookup(d.root, pointer)
	return &DecodeError{File: d.file, Line: n.Line, Column: n.Column, Field: FieldPath(pointer), Msg: msg}
}

// Decode reads data, the contents of file, as one YAML document, validates
// it against the embedded schema document named schema and decodes it into
// v, a pointer to a struct whose fields carry yaml tags. An empty document
// is an empty mapping. Every refusal is a *DecodeError; any other error is
// a fault of the schema itself.
//
// Positions come from the libraries' structured errors: a YAML syntax
// error's marks, the YAML node of the value a schema violation's instance
// location designates. Where a syntax error concerns a construct left open
// (an unclosed '[' or quote), the position is where the construct starts.
func Decode(file string, data []byte, schema string, v any) (*Document, error) {
	root, err := parse(file, data)
	if err != nil {
		return nil, err
	}
	val, err := toValue(file, root, 0, newExpansion())
	if err != nil {
		return nil, err
	}
	s, err := Compile(schema)
	if err != nil {
		return nil, err
	}
	if err := s.Validate(val); err != nil {
		leaves := Leaves(err)
		if leaves == nil {
			return nil, fmt.Errorf("validate %s against %s: %w", file, schema, err)
		}
		return nil, explain(file, schema, root, leaves)
	}
	if err := decodeInto(file, root, v); err != nil {
		return nil, err
	}
	return &Document{file: file, root: root}, nil
}

// DecodeShipped is Decode for a document this program embeds (the shipped
// declarations of share/), whose schema accepts it or not once and for
// all in a build: a test holds each to its schema
// (advisor.TestShippedValidate), so it is parsed and decoded as Decode
// decodes it, strictly, without compiling and running its schema in every
// process that reads it.
func DecodeShipped(file string, data []byte, v any) (*Document, error) {
	root, err := parse(file, data)
	if err != nil {
		return nil, err
	}
	if _, err := toValue(file, root, 0, newExpansion()); err != nil {
		return nil, err
	}
	if err := decodeInto(file, root, v); err != nil {
		return nil, err
	}
	return &Document{file: file, root: root}, nil
}

// parse reads exactly one YAML document whose top level is a mapping; an
// empty document is an empty mapping.
func parse(file string, data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}, nil
		}
		return nil, syntaxError(file, data, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &DecodeError{File: file, Line: extra.Line, Column: extra.Column, Msg: "more than one YAML document"}
	} else if !errors.Is(err, io.EOF) {
		return nil, syntaxError(file, data, err)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: root.Line, Column: root.Column}, nil
	}
	if root = unalias(root); root.Kind != yaml.MappingNode {
		return nil, &DecodeError{File: file, Line: root.Line, Column: root.Column,
			Msg: "expected a mapping at the top level, got " + describe(root)}
	}
	return root, nil
}

// syntaxError places a YAML error by the parser's marks: the start of the
// construct being read when there is one, else where reading stopped. The
// commonest faults are said in a person's words (plainYAML); any other
// keeps the parser's short reason, without its account of what it was
// parsing.
func syntaxError(file string, data []byte, err error) error {
	var le *yaml.LoadError
	if !errors.As(err, &le) {
		return &DecodeError{File: file, Msg: "invalid YAML: " + err.Error(), Syntax: true}
	}
	at, stop := le.Mark, ""
	if le.ContextMsg != "" && le.ContextMark.Line > 0 &&
		(le.ContextMark.Line != le.Mark.Line || le.ContextMark.Column != le.Mark.Column) {
		at = le.ContextMark
		stop = fmt.Sprintf("line %d, column %d", le.Mark.Line, le.Mark.Column)
	}
	var next rune
	if i := le.Mark.Index; i >= 0 && i < len(data) {
		next, _ = utf8.DecodeRune(data[i:])
	}
	return &DecodeError{File: file, Line: at.Line, Column: at.Column, Syntax: true,
		Msg: "invalid YAML: " + plainYAML(le.Message, le.ContextMsg, stop, le.Mark.Line, next)}
}

// plainYAML words the parser's problem msg, met while reading the construct
// ctx ("while parsing a block mapping") that starts where the error is
// placed; stop is where reading stopped when that is elsewhere ("" when it
// is the same place), on line; next is the character found there.
func plainYAML(msg, ctx, stop string, line int, next rune) string {
	construct := map[string]string{
		"while parsing a block collection": "list",
		"while parsing a block mapping":    "mapping",
		"while parsing a flow sequence":    "'[' list",
		"while parsing a flow mapping":     "'{' mapping",
		"while scanning a quoted scalar":   "quoted text",
		"while scanning a block scalar":    "'|' or '>' text",
	}[ctx]
	this := "this line"
	if stop != "" {
		this = fmt.Sprintf("line %d", line)
	}
	switch {
	case strings.HasPrefix(msg, "did not find expected '-' indicator"), strings.HasPrefix(msg, "did not find expected key"):
		if construct != "" {
			return fmt.Sprintf("%s breaks the indentation of the %s that starts here: indent it as the lines above it are", this, construct)
		}
	case strings.HasPrefix(msg, "did not find expected ',' or ']'"):
		return "the '[' list that starts here is not closed: end it with ']'" + stoppedAt(stop)
	case strings.HasPrefix(msg, "did not find expected ',' or '}'"):
		return "the '{' mapping that starts here is not closed: end it with '}'" + stoppedAt(stop)
	case msg == "found unexpected end of stream" && construct == "quoted text":
		return "the quoted text that starts here is not closed: end it with the quote it starts with"
	case msg == "found unknown escape character" && construct == "quoted text" && stop != "":
		return fmt.Sprintf("the quoted text that starts here has an unknown escape at %s: write \\\\ for a backslash, or quote with ' instead of \"", stop)
	case next == '\t' && (msg == "found character that cannot start any token" || strings.Contains(msg, "tab")):
		return "a tab indents " + this + ": YAML indents with spaces only"
	case msg == "found character that cannot start any token" && unicode.IsPrint(next):
		return fmt.Sprintf("a value cannot start with %q: quote the value", next)
	case msg == "mapping values are not allowed in this context":
		return "a ':' where no field can start: indent this line as the fields above it are, or quote a value that holds \": \""
	case strings.HasPrefix(msg, "unknown anchor '") && strings.HasSuffix(msg, "' referenced"):
		name := strings.TrimSuffix(strings.TrimPrefix(msg, "unknown anchor '"), "' referenced")
		return fmt.Sprintf("the alias *%s names no anchor: mark the value it stands for with &%s before it", name, name)
	case msg == "did not find expected node content":
		if next > ' ' && unicode.IsPrint(next) {
			return fmt.Sprintf("a value is expected here, not %q", next)
		}
		return "a value is expected here"
	}
	if construct != "" {
		msg += " in the " + construct + " that starts here"
	}
	return msg + stoppedAt(stop)
}

func stoppedAt(stop string) string {
	if stop == "" {
		return ""
	}
	return " (reading stopped at " + stop + ")"
}

// violation is one leaf of a validation error, placed and worded.
type violation struct {
	DecodeError
	line, col int  // where the value at fault starts, for ordering
	unknown   bool // an unknown field: it explains a missing one beside it
}

// explain turns the library's violations into the one error a person
// should fix first: the earliest in the file, an unknown field before
// another error at the same place (a misspelt field is also a missing one).
func explain(file, schema string, root *yaml.Node, causes []*ValidationError) error {
	doc := parsed(schema)
	var leaves []violation
	for _, e := range causes {
		leaves = append(leaves, word(file, doc, root, e))
	}
	first := slices.MinFunc(leaves, func(a, b violation) int {
		return cmp.Or(cmp.Compare(a.line, b.line), cmp.Compare(a.col, b.col), unknownFirst(a.unknown, b.unknown))
	})
	return &first.DecodeError
}

func unknownFirst(a, b bool) int {
	switch {
	case a && !b:
		return -1
	case b && !a:
		return 1
	}
	return 0
}

// word places one leaf at the YAML node of its instance location and, for
// the keywords a person meets most, words it from the failed subschema
// itself (the library's message names JSON types and quotes values).
func word(file string, doc any, root *yaml.Node, e *ValidationError) violation {
	n := lookup(root, e.InstanceLocation)
	v := violation{DecodeError: DecodeError{File: file, Line: n.Line, Column: n.Column,
		Field: FieldPath(e.InstanceLocation), Msg: e.Message}, line: n.Line, col: n.Column}
	sub := subschema(doc, e.AbsoluteKeywordLocation)
	if sub == nil {
		return v
	}
	switch keyword(e.AbsoluteKeywordLocation) {
	case "additionalProperties":
		props, _ := sub["properties"].(map[string]any)
		known := make([]string, 0, len(props))
		for k := range props {
			known = append(known, k)
		}
		sort.Strings(known)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if _, ok := props[k.Value]; !ok {
				v.Line, v.Column, v.Field = k.Line, k.Column, join(v.Field, k.Value)
				v.Msg, v.unknown = "unknown field (known: "+strings.Join(known, ", ")+")", true
				break
			}
		}
	case "required":
		required, _ := sub["required"].([]any)
		var missing []string
		for _, r := range required {
			if name, ok := r.(string); ok && lookup(n, "/"+PointerToken(name)) == n {
				missing = append(missing, strconv.Quote(name))
			}
		}
		word := "field "
		if len(missing) > 1 {
			word = "fields "
		}
		v.Msg = "missing required " + word + strings.Join(missing, ", ")
	case "pattern":
		v.Msg = fmt.Sprintf("expected a value matching %v, got %s", sub["pattern"], describe(n))
	case "type":
		var want []string
		switch t := sub["type"].(type) {
		case string:
			want = []string{typeWords[t]}
		case []any:
			for _, x := range t {
				name, _ := x.(string)
				want = append(want, typeWords[name])
			}
		}
		v.Msg = "expected " + strings.Join(want, " or ") + ", got " + describe(n)
	case "maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum":
		// The library's wording quotes the value, as it read it (a number
		// of 29 digits as 1e+29, which no replacement of the file's text
		// finds), and the bound in a float's notation (6.7108864e+07).
		kw := keyword(e.AbsoluteKeywordLocation)
		v.Msg = "must be " + boundWords[kw] + " " + number(sub[kw])
	default:
		// The library's wording may quote the value (format, minimum,
		// ...): a file can be something else than it seems (a credentials
		// file behind a link), so no error repeats it.
		if n = unalias(n); n.Kind == yaml.ScalarNode && n.Value != "" {
			v.Msg = strings.ReplaceAll(v.Msg, n.Value, "the value")
		}
	}
	return v
}

// boundWords says each bound of a number the way a person reads it.
var boundWords = map[string]string{
	"maximum": "at most", "minimum": "at least", "exclusiveMaximum": "less than", "exclusiveMinimum": "more than",
}

// number writes a schema's number as a person writes it: 67108864, not
// 6.7108864e+07.
func number(x any) string {
	if f, ok := x.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(x)
}

// typeWords names JSON Schema types the way a YAML file spells them.
var typeWords = map[string]string{
	"string": "a string", "boolean": "true or false", "array": "a list", "object": "a mapping",
	"integer": "a whole number", "number": "a number", "null": "nothing (null)",
}

// describe names what kind of value a node holds, for error messages. It
// never quotes the value: a declaration file may be something else than it
// seems (a link to a credentials file), and its values stay out of errors.
func describe(n *yaml.Node) string {
	n = unalias(n)
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	switch n.ShortTag() {
	case "!!str":
		return "a string"
	case "!!int", "!!float":
		return "a number"
	case "!!bool":
		return "a boolean"
	case "!!null":
		return "nothing (null)"
	}
	return "a value of another type"
}
