package record

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// assign fills into (a pointer to a body struct) from v, the body as
// decodeBody parsed it, the way encoding/json would fill it from the same
// text, so that the writer parses a body's JSON once and never encodes it
// again to read it back. It is strict as json.Decoder with
// DisallowUnknownFields: an unknown field or a value of the wrong type is an
// error; a null leaves the field as it is.
func assign(into any, v any) error {
	return assignValue(reflect.ValueOf(into).Elem(), v, "")
}

func assignValue(dst reflect.Value, v any, at string) error {
	if v == nil {
		if dst.Kind() == reflect.Pointer || dst.Kind() == reflect.Slice {
			dst.SetZero()
		}
		return nil
	}
	switch dst.Kind() {
	case reflect.Pointer:
		p := reflect.New(dst.Type().Elem())
		if err := assignValue(p.Elem(), v, at); err != nil {
			return err
		}
		dst.Set(p)
		return nil
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return mismatch(at, "an object", v)
		}
		for key, val := range m {
			f, ok := fieldByName(dst, key)
			if !ok {
				return fmt.Errorf("json: unknown field %q", key)
			}
			if err := assignValue(f, val, at+"/"+key); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice:
		xs, ok := v.([]any)
		if !ok {
			return mismatch(at, "an array", v)
		}
		out := reflect.MakeSlice(dst.Type(), len(xs), len(xs))
		for i, x := range xs {
			if err := assignValue(out.Index(i), x, fmt.Sprintf("%s/%d", at, i)); err != nil {
				return err
			}
		}
		dst.Set(out)
		return nil
	case reflect.String:
		return setAs(v, at, "a string", dst.SetString)
	case reflect.Bool:
		return setAs(v, at, "a boolean", dst.SetBool)
	case reflect.Float64:
		n, ok := v.(json.Number)
		if !ok {
			return mismatch(at, "a number", v)
		}
		f, err := n.Float64()
		if err != nil {
			return fmt.Errorf("%s: number %s: %v", at, n, err)
		}
		dst.SetFloat(f)
		return nil
	case reflect.Int, reflect.Int64:
		n, ok := v.(json.Number)
		if !ok {
			return mismatch(at, "an integer", v)
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil || dst.OverflowInt(i) {
			return fmt.Errorf("%s: %s is not an integer that fits", at, n)
		}
		dst.SetInt(i)
		return nil
	}
	return fmt.Errorf("%s: cannot hold %T", at, v)
}

// setAs sets a field with set from v, which must be a T (want says what,
// for the error).
func setAs[T any](v any, at, want string, set func(T)) error {
	x, ok := v.(T)
	if !ok {
		return mismatch(at, want, v)
	}
	set(x)
	return nil
}

// fieldByName finds the field whose JSON name is key.
func fieldByName(s reflect.Value, key string) (reflect.Value, bool) {
	t := s.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		if f.IsExported() && name == key {
			return s.Field(i), true
		}
	}
	return reflect.Value{}, false
}

func mismatch(at, want string, v any) error {
	return fmt.Errorf("json: %s must be %s, not %T", strings.TrimPrefix(at, "/"), want, v)
}
