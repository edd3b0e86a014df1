package schemas

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// decodeInto decodes a validated tree into v, a pointer to a struct whose
// fields carry yaml tags, with the YAML library, unknown fields refused.
// The schema has checked shapes and types already; what is left to fail
// here is a type's own check of its text (a duration, say), placed at its
// node like any other error: the library's error names the node's line
// and column, and the field is the path to the node there.
func decodeInto(file string, root *yaml.Node, v any) error {
	err := root.Load(v, yaml.WithKnownFields())
	if err == nil {
		return nil
	}
	var all *yaml.LoadErrors
	var one *yaml.LoadError
	switch {
	case errors.As(err, &all) && len(all.Errors) > 0:
		one = all.Errors[0]
	case errors.As(err, &one):
	default:
		return fmt.Errorf("decode %s: %w", file, err)
	}
	msg := one.Message
	if cause := errors.Unwrap(one); cause != nil {
		msg = cause.Error()
	}
	return &DecodeError{File: file, Line: one.Mark.Line, Column: one.Mark.Column, Field: pathAt(root, "", one.Mark.Line, one.Mark.Column), Msg: msg}
}

// pathAt is the field path (advisors[2].local) of the node of n's tree at
// line and column: a mapping's key names its own field. "" when no node
// stands there.
func pathAt(n *yaml.Node, path string, line, column int) string {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if p := pathAt(c, path, line, column); p != "" {
				return p
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			field := join(path, n.Content[i].Value)
			if k := n.Content[i]; k.Line == line && k.Column == column {
				return field
			}
			if p := pathAt(n.Content[i+1], field, line, column); p != "" {
				return p
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if p := pathAt(c, path+"["+strconv.Itoa(i)+"]", line, column); p != "" {
				return p
			}
		}
	}
	if n.Line == line && n.Column == column {
		return path
	}
	return ""
}

// Fields maps the YAML names of a struct type's fields (their yaml tags) to
// their indexes: the names Decode fills.
func Fields(t reflect.Type) map[string]int {
	out := map[string]int{}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name != "" && name != "-" {
			out[name] = i
		}
	}
	return out
}
