package schemas

import (
	"encoding"
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v4"
)

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// decodeInto decodes a validated tree into v, a pointer to a struct whose
// fields carry yaml tags. The schema has checked shapes and types already;
// what is left to fail here is a type's own check of its text (a duration,
// say), which is placed at its node like any other error.
func decodeInto(file string, root *yaml.Node, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("decode %s: want a non-nil pointer, got %T", file, v)
	}
	return (&typed{file: file}).value(root, rv.Elem(), "")
}

type typed struct{ file string }

func (d *typed) fail(n *yaml.Node, path, msg string) error {
	return &DecodeError{File: d.file, Line: n.Line, Column: n.Column, Field: path, Msg: msg}
}

func (d *typed) expected(n *yaml.Node, path, want string) error {
	return d.fail(n, path, "expected "+want+", got "+describe(n))
}

func (d *typed) value(n *yaml.Node, v reflect.Value, path string) error {
	n = unalias(n)
	if v.Addr().Type().Implements(textUnmarshaler) {
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
			return d.expected(n, path, "a string")
		}
		if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(n.Value)); err != nil {
			return d.fail(n, path, err.Error())
		}
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
			return d.expected(n, path, "a string")
		}
		v.SetString(n.Value)
	case reflect.Bool:
		var b bool
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&b) != nil {
			return d.expected(n, path, "true or false")
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int64:
		var i int64
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&i) != nil || v.OverflowInt(i) {
			return d.expected(n, path, "an integer")
		}
		v.SetInt(i)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return d.expected(n, path, "a list")
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, item := range n.Content {
			if err := d.value(item, s.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		v.Set(s)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		if err := d.value(n, p.Elem(), path); err != nil {
			return err
		}
		v.Set(p)
	case reflect.Map:
		if n.Kind != yaml.MappingNode || v.Type().Key().Kind() != reflect.String {
			return d.expected(n, path, "a mapping")
		}
		m := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i]
			val := reflect.New(v.Type().Elem()).Elem()
			if err := d.value(n.Content[i+1], val, join(path, key.Value)); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(key.Value).Convert(v.Type().Key()), val)
		}
		v.Set(m)
	case reflect.Struct:
		return d.fields(n, v, path)
	default:
		return fmt.Errorf("decode %s: %s has a field of unsupported type %s", d.file, path, v.Type())
	}
	return nil
}

func (d *typed) fields(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.MappingNode {
		return d.expected(n, path, "a mapping")
	}
	fields := Fields(v.Type())
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		idx, ok := fields[k.Value]
		if !ok {
			return d.fail(k, join(path, k.Value), "unknown field")
		}
		if err := d.value(val, v.Field(idx), join(path, k.Value)); err != nil {
			return err
		}
	}
	return nil
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
