package advisor

import (
	"bytes"
	"encoding"
	"errors"
	"fmt"
	"git-reason/record"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// ParseError is a declaration file that is not what its schema says: bad
// YAML, an unknown field, a value of the wrong type or one the schema
// refuses. It names the file, the line and column, and the field as a path
// such as advisors[2].local. Callers treat it as bad input (exit status 2).
type ParseError struct {
	File   string
	Line   int
	Column int
	Field  string // empty when the whole document is at fault
	Msg    string
}

// Error renders "file:line:col: field: message".
func (e *ParseError) Error() string {
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
		// A field comes from the file: quote it when it holds anything a
		// terminal would act on, so the error stays one honest line.
		field := e.Field
		if record.Printable(field) != field {
			field = strconv.Quote(field)
		}
		b.WriteString(field + ": ")
	}
	b.WriteString(e.Msg)
	return record.Printable(b.String())
}

// entry is one decoded section item with the keys it set and where it is.
type entry[T any] struct {
	val   T
	keys  []string
	where string
}

// document is one decoded declaration file.
type document struct {
	capabilities []entry[Capability]
	advisors     []entry[Declaration]
	providers    []entry[Provider]
	vendors      []entry[Vendor]
	profiles     []entry[Profile]
	order        []string
	orderWhere   string
}

// sections maps each schema name to the top-level keys its file may hold.
var sections = map[string][]string{
	"share.advisors.json":  {"capabilities", "advisors", "order"},
	"share.providers.json": {"providers"},
	"share.vendors.json":   {"vendors"},
	"share.profiles.json":  {"profiles"},
	"share.overlay.json":   {"capabilities", "advisors", "providers", "vendors", "profiles", "order"},
}

var yamlLine = regexp.MustCompile(`line (\d+): `)

// parseRoot reads exactly one YAML document; an empty file is an empty
// mapping.
func parseRoot(file string, data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}, nil
		}
		pe := &ParseError{File: file, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
		if m := yamlLine.FindStringSubmatch(pe.Msg); m != nil {
			pe.Line, _ = strconv.Atoi(m[1])
			pe.Msg = strings.Replace(pe.Msg, m[0], "", 1)
		}
		return nil, pe
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, &ParseError{File: file, Line: extra.Line, Msg: "more than one YAML document"}
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, &ParseError{File: file, Line: root.Line, Column: root.Column,
			Msg: "expected a mapping at the top level, got " + describe(root)}
	}
	return root, nil
}

// decodeDocument decodes a parsed file strictly: only the keys its schema
// allows at the top level, only known fields in entries, only the right
// types.
func decodeDocument(file, schema string, root *yaml.Node) (*document, error) {
	allowed := sections[schema]
	doc := &document{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if !contains(allowed, k.Value) {
			return nil, &ParseError{File: file, Line: k.Line, Column: k.Column, Field: k.Value,
				Msg: "unknown field (this file may hold " + strings.Join(allowed, ", ") + ")"}
		}
		var err error
		switch k.Value {
		case "capabilities":
			doc.capabilities, err = decodeSection[Capability](file, k.Value, v)
		case "advisors":
			doc.advisors, err = decodeSection[Declaration](file, k.Value, v)
		case "providers":
			doc.providers, err = decodeSection[Provider](file, k.Value, v)
		case "vendors":
			doc.vendors, err = decodeSection[Vendor](file, k.Value, v)
		case "profiles":
			doc.profiles, err = decodeSection[Profile](file, k.Value, v)
		case "order":
			err = decodeValue(file, v, reflect.ValueOf(&doc.order).Elem(), "order")
			doc.orderWhere = fmt.Sprintf("%s:%d", file, k.Line)
		}
		if err != nil {
			return nil, err
		}
	}
	return doc, nil
}

// decodeSection decodes a list of entries, remembering which keys each set
// so that an overlay overrides only those.
func decodeSection[T any](file, name string, n *yaml.Node) ([]entry[T], error) {
	n = unalias(n)
	if n.Kind != yaml.SequenceNode {
		return nil, typeError(file, n, name, "a list")
	}
	out := make([]entry[T], 0, len(n.Content))
	for i, item := range n.Content {
		item = unalias(item)
		path := fmt.Sprintf("%s[%d]", name, i)
		var e entry[T]
		if err := decodeValue(file, item, reflect.ValueOf(&e.val).Elem(), path); err != nil {
			return nil, err
		}
		for j := 0; j+1 < len(item.Content); j += 2 {
			e.keys = append(e.keys, item.Content[j].Value)
		}
		e.where = fmt.Sprintf("%s:%d", file, item.Line)
		if f := reflect.ValueOf(&e.val).Elem().FieldByName("Sources"); f.IsValid() {
			f.Set(reflect.ValueOf([]string{e.where}))
		}
		out = append(out, e)
	}
	return out, nil
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// decodeValue decodes n into v, refusing unknown fields and wrong types with
// a ParseError naming the field path.
func decodeValue(file string, n *yaml.Node, v reflect.Value, path string) error {
	n = unalias(n)
	if v.Addr().Type().Implements(textUnmarshaler) {
		if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
			return typeError(file, n, path, "a string")
		}
		if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(n.Value)); err != nil {
			return &ParseError{File: file, Line: n.Line, Column: n.Column, Field: path, Msg: err.Error()}
		}
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
			return typeError(file, n, path, "a string")
		}
		v.SetString(n.Value)
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			return typeError(file, n, path, "true or false")
		}
		var b bool
		if err := n.Decode(&b); err != nil {
			return typeError(file, n, path, "true or false")
		}
		v.SetBool(b)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return typeError(file, n, path, "a list")
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, item := range n.Content {
			if err := decodeValue(file, item, s.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		v.Set(s)
	case reflect.Struct:
		return decodeStruct(file, n, v, path)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		if err := decodeValue(file, n, p.Elem(), path); err != nil {
			return err
		}
		v.Set(p)
	case reflect.Map:
		if n.Kind != yaml.MappingNode || v.Type().Key().Kind() != reflect.String {
			return typeError(file, n, path, "a mapping")
		}
		m := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i]
			if key.Kind != yaml.ScalarNode {
				return typeError(file, key, path, "a mapping with string keys")
			}
			val := reflect.New(v.Type().Elem()).Elem()
			if err := decodeValue(file, n.Content[i+1], val, path+"."+key.Value); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(key.Value), val)
		}
		v.Set(m)
	default:
		return fmt.Errorf("decode %s: unsupported field type %s", path, v.Type())
	}
	return nil
}

func decodeStruct(file string, n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.MappingNode {
		return typeError(file, n, path, "a mapping")
	}
	fields := yamlFields(v.Type())
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		idx, ok := fields[k.Value]
		if !ok || k.Tag != "!!str" {
			return &ParseError{File: file, Line: k.Line, Column: k.Column, Field: join(path, k.Value),
				Msg: "unknown field (known: " + strings.Join(fieldNames(v.Type()), ", ") + ")"}
		}
		if err := decodeValue(file, val, v.Field(idx), join(path, k.Value)); err != nil {
			return err
		}
	}
	return nil
}

// yamlFields maps the YAML names of a struct's fields to their indexes.
func yamlFields(t reflect.Type) map[string]int {
	out := map[string]int{}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name != "" && name != "-" {
			out[name] = i
		}
	}
	return out
}

func fieldNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

func typeError(file string, n *yaml.Node, path, want string) error {
	return &ParseError{File: file, Line: n.Line, Column: n.Column, Field: path,
		Msg: "expected " + want + ", got " + describe(n)}
}

// describe names what a node holds, for error messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	switch n.Tag {
	case "!!str":
		return fmt.Sprintf("the string %q", n.Value)
	case "!!int", "!!float":
		return "the number " + n.Value
	case "!!bool":
		return "the boolean " + n.Value
	case "!!null":
		return "nothing (null)"
	}
	return fmt.Sprintf("%q (%s)", n.Value, n.Tag)
}

func unalias(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}
