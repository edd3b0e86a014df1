package schemas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Schema is a compiled schema document. It is safe for concurrent use.
//
// The validator implements the part of JSON Schema 2020-12 that the
// documents of this tool use (see keywords); a document using any other
// keyword is refused when compiled rather than half-checked. Tests hold
// it to an independent 2020-12 implementation over every document.
type Schema struct {
	name  string
	root  *rule
	byLoc map[string]*rule // by absolute location, "name#/properties/x"
}

// rule is one compiled (sub)schema.
type rule struct {
	loc string // absolute location: name#/json/pointer

	always, never bool // the boolean schemas true and false

	Types      []string
	Properties map[string]*rule
	Required   []string
	additional *rule // additionalProperties as a schema; never for false
	propNames  *rule
	Pattern    string // the source of pattern, "" for none
	regex      func() *regexp.Regexp
	minLength  int // -1: none
	maxLength  int
	items      *rule
	minItems   int
	maxItems   int
	unique     bool
	enum       []any
	constant   []any // zero or one value
	minimum    *big.Rat
	maximum    *big.Rat
	exclMin    *big.Rat            // exclusiveMinimum
	exclMax    *big.Rat            // exclusiveMaximum
	dependent  map[string][]string // dependentRequired
	format     string
	ref        string // "#/…" inside the document, resolved after compiling
	refRule    *rule
	not        *rule
	ifRule     *rule
	thenRule   *rule
	elseRule   *rule
}

// keywords are the keywords a document may use; annotations are accepted
// and ignored, anything else is refused at compile time.
var keywords = map[string]bool{
	"$schema": true, "$id": true, "$defs": true, "$comment": true, "title": true, "description": true,
	"examples": true, "default": true, "deprecated": true, "readOnly": true, "writeOnly": true,
	"type": true, "properties": true, "required": true, "additionalProperties": true, "propertyNames": true,
	"pattern": true, "minLength": true, "maxLength": true, "items": true, "minItems": true, "maxItems": true,
	"uniqueItems": true, "enum": true, "const": true, "minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "dependentRequired": true, "format": true, "$ref": true,
	"not": true, "if": true, "then": true, "else": true,
}

// formats are the format names asserted; the validator refuses others.
var formats = map[string]func(string) bool{
	"date-time": func(s string) bool {
		_, err := time.Parse(time.RFC3339Nano, s)
		return err == nil && len(s) >= len("2006-01-02T15:04:05Z") && (s[10] == 'T' || s[10] == 't')
	},
}

// compileDoc compiles a whole document held in data, named name for the
// locations of its errors.
func compileDoc(name string, data []byte) (*Schema, error) {
	var doc any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("schema %s is not JSON: %w", name, err)
	}
	s := &Schema{name: name, byLoc: map[string]*rule{}}
	root, err := s.compile(doc, "")
	if err != nil {
		return nil, fmt.Errorf("compile schema %s: %w", name, err)
	}
	s.root = root
	// Resolving a reference can compile rules holding references of their
	// own: go round until every one is resolved, so none is left unchecked.
	for {
		var pending []*rule
		for _, r := range s.byLoc {
			if r.ref != "" && r.refRule == nil {
				pending = append(pending, r)
			}
		}
		if len(pending) == 0 {
			return s, nil
		}
		for _, r := range pending {
			target, err := s.resolve(doc, r.ref)
			if err != nil {
				return nil, fmt.Errorf("compile schema %s: %s: %w", name, r.loc, err)
			}
			r.refRule = target
		}
	}
}

// resolve returns the rule at a "#/…" reference, compiling it when it is
// not a subschema compiled already (a $defs entry no one else reaches).
func (s *Schema) resolve(doc any, ref string) (*rule, error) {
	ptr, ok := strings.CutPrefix(ref, "#")
	if !ok || ptr != "" && ptr[0] != '/' {
		return nil, fmt.Errorf("$ref %q leaves the document: every reference must be #/…", ref)
	}
	if r := s.byLoc[s.name+"#"+ptr]; r != nil {
		return r, nil
	}
	v := doc
	for _, tok := range strings.Split(ptr, "/")[1:] {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			v, ok = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if ok = err == nil && i >= 0 && i < len(x); ok {
				v = x[i]
			}
		default:
			ok = false
		}
		if !ok {
			return nil, fmt.Errorf("$ref %q designates nothing", ref)
		}
	}
	return s.compile(v, ptr)
}

func (s *Schema) compile(v any, ptr string) (*rule, error) {
	r := &rule{loc: s.name + "#" + ptr, minLength: -1, maxLength: -1, minItems: -1, maxItems: -1}
	if old := s.byLoc[r.loc]; old != nil {
		return old, nil
	}
	s.byLoc[r.loc] = r
	switch v := v.(type) {
	case bool:
		r.always, r.never = v, !v
		return r, nil
	case map[string]any:
		return r, s.compileMap(r, v, ptr)
	}
	return nil, fmt.Errorf("%s: a schema must be an object or a boolean", r.loc)
}

func (s *Schema) compileMap(r *rule, m map[string]any, ptr string) error {
	bad := func(kw, why string) error { return fmt.Errorf("%s/%s: %s", r.loc, kw, why) }
	sub := func(kw string) (*rule, error) {
		if v, ok := m[kw]; ok {
			return s.compile(v, ptr+"/"+escape(kw))
		}
		return nil, nil
	}
	count := func(kw string) (int, error) {
		v, ok := m[kw]
		if !ok {
			return -1, nil
		}
		n, ok := v.(json.Number)
		i, err := strconv.Atoi(string(n))
		if !ok || err != nil || i < 0 {
			return 0, bad(kw, "must be a non-negative integer")
		}
		return i, nil
	}
	for kw := range m {
		if !keywords[kw] {
			return bad(kw, "keyword not supported by this validator")
		}
	}
	var err error
	switch t := m["type"].(type) {
	case nil:
	case string:
		r.Types = []string{t}
	case []any:
		for _, x := range t {
			name, ok := x.(string)
			if !ok {
				return bad("type", "must name types")
			}
			r.Types = append(r.Types, name)
		}
	default:
		return bad("type", "must be a string or a list")
	}
	if props, ok := m["properties"]; ok {
		pm, ok := props.(map[string]any)
		if !ok {
			return bad("properties", "must be an object")
		}
		r.Properties = make(map[string]*rule, len(pm))
		for name, v := range pm {
			if r.Properties[name], err = s.compile(v, ptr+"/properties/"+escape(name)); err != nil {
				return err
			}
		}
	}
	if req, ok := m["required"]; ok {
		list, ok := req.([]any)
		if !ok {
			return bad("required", "must be a list")
		}
		for _, x := range list {
			name, ok := x.(string)
			if !ok {
				return bad("required", "must list names")
			}
			r.Required = append(r.Required, name)
		}
	}
	if r.additional, err = sub("additionalProperties"); err != nil {
		return err
	}
	if r.propNames, err = sub("propertyNames"); err != nil {
		return err
	}
	if p, ok := m["pattern"]; ok {
		src, ok := p.(string)
		if !ok {
			return bad("pattern", "must be a string")
		}
		// Checked now, compiled on first use: a command validates against
		// few of the patterns a document holds.
		if _, err := syntax.Parse(src, syntax.Perl); err != nil {
			return bad("pattern", err.Error())
		}
		r.Pattern, r.regex = src, sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(src) })
	}
	if r.minLength, err = count("minLength"); err != nil {
		return err
	}
	if r.maxLength, err = count("maxLength"); err != nil {
		return err
	}
	if r.minItems, err = count("minItems"); err != nil {
		return err
	}
	if r.maxItems, err = count("maxItems"); err != nil {
		return err
	}
	if u, ok := m["uniqueItems"]; ok {
		if r.unique, ok = u.(bool); !ok {
			return bad("uniqueItems", "must be true or false")
		}
	}
	if r.items, err = sub("items"); err != nil {
		return err
	}
	if e, ok := m["enum"]; ok {
		if r.enum, ok = e.([]any); !ok {
			return bad("enum", "must be a list")
		}
	}
	if c, ok := m["const"]; ok {
		r.constant = []any{c}
	}
	for _, b := range [...]struct {
		kw  string
		dst **big.Rat
	}{{"minimum", &r.minimum}, {"maximum", &r.maximum}, {"exclusiveMinimum", &r.exclMin}, {"exclusiveMaximum", &r.exclMax}} {
		if v, ok := m[b.kw]; ok {
			n, ok := v.(json.Number)
			if *b.dst, ok = new(big.Rat).SetString(string(n)); !ok {
				return bad(b.kw, "must be a number")
			}
		}
	}
	if d, ok := m["dependentRequired"]; ok {
		dm, ok := d.(map[string]any)
		if !ok {
			return bad("dependentRequired", "must be an object")
		}
		r.dependent = map[string][]string{}
		for name, list := range dm {
			names, ok := list.([]any)
			if !ok {
				return bad("dependentRequired", "must map names to lists")
			}
			for _, x := range names {
				n, ok := x.(string)
				if !ok {
					return bad("dependentRequired", "must list names")
				}
				r.dependent[name] = append(r.dependent[name], n)
			}
		}
	}
	if f, ok := m["format"]; ok {
		if r.format, ok = f.(string); !ok || formats[r.format] == nil {
			return bad("format", fmt.Sprintf("format %v is not supported", f))
		}
	}
	if ref, ok := m["$ref"]; ok {
		if r.ref, ok = ref.(string); !ok {
			return bad("$ref", "must be a string")
		}
	}
	if defs, ok := m["$defs"].(map[string]any); ok {
		for name, v := range defs {
			if _, err := s.compile(v, ptr+"/$defs/"+escape(name)); err != nil {
				return err
			}
		}
	}
	for _, p := range []struct {
		kw  string
		dst **rule
	}{{"not", &r.not}, {"if", &r.ifRule}, {"then", &r.thenRule}, {"else", &r.elseRule}} {
		if *p.dst, err = sub(p.kw); err != nil {
			return err
		}
	}
	return nil
}

// enumMessage words an enum refusal as the independent implementation the
// tests compare with does: "value must be one of "a", "b"".
func enumMessage(enum []any) string {
	parts := make([]string, 0, len(enum))
	for _, v := range enum {
		switch v.(type) {
		case map[string]any, []any:
			return "enum failed"
		}
		parts = append(parts, goSyntax(v))
	}
	if len(parts) == 1 {
		return "value must be " + parts[0]
	}
	return "value must be one of " + strings.Join(parts, ", ")
}

func goSyntax(v any) string {
	if n, ok := v.(json.Number); ok {
		return string(n)
	}
	return fmt.Sprintf("%#v", v)
}

// ValidationError is a value that its schema refuses: one cause per
// violation, each a leaf naming the instance location (a JSON pointer into
// the value), the keyword's absolute location in the schema and a message.
type ValidationError struct {
	KeywordLocation         string // absolute: document#/pointer/keyword
	AbsoluteKeywordLocation string // the same: every reference is inside the document
	InstanceLocation        string
	Message                 string
	Causes                  []*ValidationError
}

// Error renders the violations on one line each.
func (e *ValidationError) Error() string {
	if len(e.Causes) == 0 {
		return "at " + strconv.Quote(e.InstanceLocation) + ": " + e.Message
	}
	parts := make([]string, len(e.Causes))
	for i, c := range e.Causes {
		parts[i] = c.Error()
	}
	return e.Message + ": " + strings.Join(parts, "; ")
}

// Validate checks v, a value as encoding/json decodes it into an any
// (numbers as float64, json.Number or Go integers), and returns nil or a
// *ValidationError holding every violation.
func (s *Schema) Validate(v any) error {
	var leaves []*ValidationError
	s.root.check(v, "", &leaves)
	if len(leaves) == 0 {
		return nil
	}
	return &ValidationError{KeywordLocation: s.root.loc, AbsoluteKeywordLocation: s.root.loc,
		Message: "doesn't validate with " + s.name, Causes: leaves}
}

func (r *rule) fail(out *[]*ValidationError, kw, at, format string, args ...any) {
	loc := r.loc + "/" + kw
	if kw == "" {
		loc = r.loc
	}
	*out = append(*out, &ValidationError{KeywordLocation: loc, AbsoluteKeywordLocation: loc,
		InstanceLocation: at, Message: fmt.Sprintf(format, args...)})
}

// check appends to out a leaf for every violation of r by v at the
// instance location at.
func (r *rule) check(v any, at string, out *[]*ValidationError) {
	switch {
	case r.always:
		return
	case r.never:
		r.fail(out, "", at, "not allowed")
		return
	}
	kind := jsonType(v)
	if len(r.Types) > 0 && !r.typeMatches(v, kind) {
		r.fail(out, "type", at, "expected %s, but got %s", strings.Join(r.Types, " or "), kind)
		return
	}
	if r.refRule != nil {
		r.refRule.check(v, at, out)
	}
	if len(r.constant) > 0 && !equal(v, r.constant[0]) {
		switch r.constant[0].(type) {
		case map[string]any, []any:
			r.fail(out, "const", at, "const failed")
		default:
			r.fail(out, "const", at, "value must be %s", goSyntax(r.constant[0]))
		}
	}
	if r.enum != nil && !r.inEnum(v) {
		r.fail(out, "enum", at, "%s", enumMessage(r.enum)) // worded only when it fails
	}
	switch v := v.(type) {
	case map[string]any:
		r.checkObject(v, at, out)
	case []any:
		r.checkArray(v, at, out)
	case string:
		r.checkString(v, at, out)
	default:
		if n, ok := rat(v); ok {
			r.checkNumber(n, v, at, out)
		}
	}
	if r.not != nil {
		var sub []*ValidationError
		r.not.check(v, at, &sub)
		if len(sub) == 0 {
			r.fail(out, "not", at, "not failed")
		}
	}
	if r.ifRule != nil {
		var cond []*ValidationError
		r.ifRule.check(v, at, &cond)
		if len(cond) == 0 && r.thenRule != nil {
			r.thenRule.check(v, at, out)
		} else if len(cond) > 0 && r.elseRule != nil {
			r.elseRule.check(v, at, out)
		}
	}
}

func (r *rule) checkNumber(n *big.Rat, v any, at string, out *[]*ValidationError) {
	if r.minimum != nil && n.Cmp(r.minimum) < 0 {
		r.fail(out, "minimum", at, "must be >= %s but found %v", ratString(r.minimum), v)
	}
	if r.exclMin != nil && n.Cmp(r.exclMin) <= 0 {
		r.fail(out, "exclusiveMinimum", at, "must be > %s but found %v", ratString(r.exclMin), v)
	}
	if r.maximum != nil && n.Cmp(r.maximum) > 0 {
		r.fail(out, "maximum", at, "must be <= %s but found %v", ratString(r.maximum), v)
	}
	if r.exclMax != nil && n.Cmp(r.exclMax) >= 0 {
		r.fail(out, "exclusiveMaximum", at, "must be < %s but found %v", ratString(r.exclMax), v)
	}
}

func (r *rule) typeMatches(v any, kind string) bool {
	for _, t := range r.Types {
		if t == kind {
			return true
		}
		if t == "integer" && kind == "number" {
			if n, ok := rat(v); ok && n.IsInt() {
				return true
			}
		}
	}
	return false
}

func (r *rule) inEnum(v any) bool {
	for _, e := range r.enum {
		if equal(v, e) {
			return true
		}
	}
	return false
}

func (r *rule) checkObject(m map[string]any, at string, out *[]*ValidationError) {
	var missing []string
	for _, name := range r.Required {
		if _, ok := m[name]; !ok {
			missing = append(missing, quote(name))
		}
	}
	if len(missing) > 0 {
		r.fail(out, "required", at, "missing properties: %s", strings.Join(missing, ", "))
	}
	for name, needs := range r.dependent {
		if _, ok := m[name]; !ok {
			continue
		}
		for i, need := range needs {
			if _, ok := m[need]; !ok {
				r.fail(out, "dependentRequired/"+escape(name)+"/"+strconv.Itoa(i), at,
					"property %s is required, if %s property exists", quote(need), quote(name))
			}
		}
	}
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	var unknown []string
	for _, name := range names {
		sub := at + "/" + escape(name)
		if r.propNames != nil {
			r.propNames.check(name, sub, out)
		}
		if p, ok := r.Properties[name]; ok {
			p.check(m[name], sub, out)
			continue
		}
		switch {
		case r.additional == nil:
		case r.additional.never:
			unknown = append(unknown, quote(name))
		default:
			r.additional.check(m[name], sub, out)
		}
	}
	if len(unknown) > 0 {
		r.fail(out, "additionalProperties", at, "additionalProperties %s not allowed", strings.Join(unknown, ", "))
	}
}

func (r *rule) checkArray(a []any, at string, out *[]*ValidationError) {
	if r.minItems >= 0 && len(a) < r.minItems {
		r.fail(out, "minItems", at, "minimum %d items required, but found %d items", r.minItems, len(a))
	}
	if r.maxItems >= 0 && len(a) > r.maxItems {
		r.fail(out, "maxItems", at, "maximum %d items required, but found %d items", r.maxItems, len(a))
	}
	if r.unique {
	pairs:
		for i := 1; i < len(a); i++ {
			for j := 0; j < i; j++ {
				if equal(a[i], a[j]) {
					r.fail(out, "uniqueItems", at, "items at index %d and %d are equal", j, i)
					break pairs
				}
			}
		}
	}
	if r.items != nil {
		for i, x := range a {
			r.items.check(x, at+"/"+strconv.Itoa(i), out)
		}
	}
}

func (r *rule) checkString(s string, at string, out *[]*ValidationError) {
	if r.minLength >= 0 || r.maxLength >= 0 {
		n := utf8.RuneCountInString(s)
		if r.minLength >= 0 && n < r.minLength {
			r.fail(out, "minLength", at, "length must be >= %d, but got %d", r.minLength, n)
		}
		if r.maxLength >= 0 && n > r.maxLength {
			r.fail(out, "maxLength", at, "length must be <= %d, but got %d", r.maxLength, n)
		}
	}
	if r.Pattern != "" && !r.regex().MatchString(s) {
		r.fail(out, "pattern", at, "does not match pattern %s", quote(r.Pattern))
	}
	if r.format != "" && !formats[r.format](s) {
		r.fail(out, "format", at, "%s is not valid %s", quote(s), quote(r.format))
	}
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.Number, float32, float64, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return "number"
	}
	return fmt.Sprintf("%T", v) // matches no schema type: refused as such
}

// rat is a number's exact value.
func rat(v any) (*big.Rat, bool) {
	switch n := v.(type) {
	case json.Number:
		return new(big.Rat).SetString(string(n))
	case float64:
		if math.IsInf(n, 0) || math.IsNaN(n) {
			return nil, false
		}
		return new(big.Rat).SetFloat64(n), true
	case float32:
		return rat(float64(n))
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return new(big.Rat).SetInt64(rv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return new(big.Rat).SetInt(new(big.Int).SetUint64(rv.Uint())), true
	}
	return nil, false
}

func ratString(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// equal is JSON equality: numbers by value, objects by their members.
func equal(a, b any) bool {
	ka, kb := jsonType(a), jsonType(b)
	if ka != kb {
		return false
	}
	switch ka {
	case "number":
		x, ok1 := rat(a)
		y, ok2 := rat(b)
		return ok1 && ok2 && x.Cmp(y) == 0
	case "array":
		x, y := a.([]any), b.([]any)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case "object":
		x, y := a.(map[string]any), b.(map[string]any)
		if len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equal(v, w) {
				return false
			}
		}
		return true
	}
	return a == b
}

// quote quotes a name the way messages show it: 'name'.
func quote(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
	return "'" + strings.ReplaceAll(q, `'`, `\'`) + "'"
}
