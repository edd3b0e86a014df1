package schemas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// The validator against an independent JSON Schema 2020-12 implementation
// (the library this tool used before it had its own validator, kept for
// tests only): for every embedded document, thousands of values generated
// from the document itself, most of them wrong somewhere, must be accepted
// or refused alike, with the same violations (instance location, keyword
// and message).
func TestValidatorAgreesWithReference(t *testing.T) {
	names, err := fs.Glob(FS, "*.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("no schema documents: %v", err)
	}
	runs := 200
	if testing.Short() {
		runs = 60
	}
	docs := map[string][]byte{}
	for _, name := range names {
		docs[name], _ = FS.ReadFile(name)
	}
	// Keywords the tool's MCP input schemas use beyond the embedded ones.
	docs["bounds.json"] = []byte(`{"$id": "urn:t:bounds", "type": "object", "additionalProperties": false,
		"properties": {"timeout_s": {"type": "number", "exclusiveMinimum": 0, "maximum": 3600},
		"n": {"type": "integer", "exclusiveMaximum": 3, "minimum": -1}}}`)
	for name, data := range docs {
		ours, err := CompileDocument(name, data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ref := referenceCompile(t, name, data)
		var doc any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			t.Fatal(err)
		}
		g := &generator{doc: doc, rng: rand.New(rand.NewPCG(1, uint64(len(name)))), patterns: map[string][]string{}}
		valid := 0
		for i := range runs {
			g.careful = i%2 == 0
			v := g.value(doc, 0)
			want := leaves(ref.Validate(v))
			got := leaves(ours.Validate(v))
			if len(want) == 0 {
				valid++
			}
			if !slices.Equal(got, want) {
				raw, _ := json.Marshal(v)
				t.Errorf("%s, value %d %s:\n got %q\nwant %q", name, i, raw, got, want)
				break
			}
		}
		if valid == runs {
			t.Errorf("%s: every generated value was valid: no refusal was compared", name)
		}
	}
}

// A reference reached only through another reference is resolved too:
// nothing behind a $ref is left unchecked.
func TestValidatorResolvesChainedReferences(t *testing.T) {
	// The targets sit where no schema is compiled unless referenced (an
	// annotation's value), so each is compiled while references resolve.
	doc := `{"type": "object", "properties": {"a": {"$ref": "#/examples/0"}},
		"examples": [{"$ref": "#/examples/1"}, {"$ref": "#/examples/2"}, {"type": "string", "maxLength": 2}]}`
	s, err := CompileDocument("chain.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for v, ok := range map[string]bool{"ab": true, "abc": false} {
		if err := s.Validate(map[string]any{"a": v}); (err == nil) != ok {
			t.Errorf("%q: error %v, want valid %v", v, err, ok)
		}
	}
}

// A document using a keyword the validator does not implement is refused
// when compiled, never half-checked; so is a reference leaving it.
func TestValidatorRefusesWhatItDoesNotImplement(t *testing.T) {
	for _, doc := range []string{
		`{"type": "object", "oneOf": [{"type": "string"}]}`,
		`{"properties": {"a": {"multipleOf": 2}}}`,
		`{"$ref": "https://example.invalid/s.json"}`,
		`{"format": "email"}`,
		`{"$ref": "#/$defs/missing"}`,
	} {
		if _, err := CompileDocument("t.json", []byte(doc)); err == nil {
			t.Errorf("%s compiled", doc)
		}
	}
}

func referenceCompile(t *testing.T, name string, data []byte) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	var head struct {
		ID string `json:"$id"`
	}
	_ = json.Unmarshal(data, &head)
	if err := c.AddResource(head.ID, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(head.ID)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var nameList = regexp.MustCompile(`^additionalProperties (.*) not allowed$`)

// leaves flattens either implementation's error into sorted
// "instance|keyword|message" lines; the names in an unknown-fields message
// are sorted (the reference lists them in map order).
func leaves(err error) []string {
	var out []string
	add := func(inst, kwLoc, msg string) {
		if m := nameList.FindStringSubmatch(msg); m != nil {
			names := strings.Split(m[1], ", ")
			sort.Strings(names)
			msg = "additionalProperties " + strings.Join(names, ", ") + " not allowed"
		}
		out = append(out, inst+"|"+kwLoc[strings.LastIndexByte(kwLoc, '/')+1:]+"|"+msg)
	}
	switch e := err.(type) {
	case nil:
		return nil
	case *jsonschema.ValidationError:
		var walk func(*jsonschema.ValidationError)
		walk = func(e *jsonschema.ValidationError) {
			if len(e.Causes) == 0 {
				// It escapes pointers as URL paths; ours are plain RFC 6901.
				toks := strings.Split(e.InstanceLocation, "/")
				for i, t := range toks {
					if u, err := url.PathUnescape(t); err == nil {
						toks[i] = u
					}
				}
				add(strings.Join(toks, "/"), e.AbsoluteKeywordLocation, e.Message)
			}
			for _, c := range e.Causes {
				walk(c)
			}
		}
		walk(e)
	case *ValidationError:
		var walk func(*ValidationError)
		walk = func(e *ValidationError) {
			if len(e.Causes) == 0 {
				// The reference drops the last token of a pointer to an
				// empty key ("/headers/" for the key ""): RFC 6901 keeps it.
				add(strings.TrimSuffix(e.InstanceLocation, "/"), e.AbsoluteKeywordLocation, e.Message)
			}
			for _, c := range e.Causes {
				walk(c)
			}
		}
		walk(e)
	default:
		return []string{"error " + err.Error()}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// generator makes values shaped by a schema document: mostly what the
// schema asks for, sometimes not (a missing or unknown field, a wrong
// type, a value out of range), so that both acceptance and every kind of
// refusal are exercised.
type generator struct {
	doc      any
	rng      *rand.Rand
	careful  bool                // make no mistake on purpose
	patterns map[string][]string // the samples each pattern matches
}

var samples = []string{"", "x", "T-42", "review-api", "reasoning", "code_review", "01HZX3Q5V2M8K9J7R4T6W1Y0AB",
	"01hzx3q5v2m8k9j7r4t6w1y0ab", "01HZX3Q5V2M8K9J7R4T6W1Y0AC", "01HZX3Q5V2M8K9J7R4T6W1Y0AD", "2026-01-02T03:04:05Z", "2026-01-02T03:04:05.123+02:00", "2026-13-02T03:04:05Z",
	"2026-01-02 03:04:05Z", "yesterday", "10m", "1h30m", "https://example.invalid/v1", "SOME_API_KEY",
	"0123456789abcdef0123456789abcdef01234567", "a/b", "src/**", "Acme", "note", "file", "command",
	"completed", "failed", "endorse", "adopted", "pass", "manual", "succeeded", "normal", "ci", "api",
	"exec", "chat_completions", strings.Repeat("long ", 900), "tab\there", "é", "-x", "X-1..2"}

func (g *generator) chance(p float64) bool { return g.rng.Float64() < p }

// mistake is true with probability p, never when careful.
func (g *generator) mistake(p float64) bool { return !g.careful && g.chance(p) }

func (g *generator) value(s any, depth int) any {
	m, ok := s.(map[string]any)
	if !ok || depth > 8 {
		return g.wild()
	}
	if ref, ok := m["$ref"].(string); ok && !g.mistake(0.1) {
		return g.value(g.pointer(ref), depth+1)
	}
	if g.mistake(0.04) {
		return g.wild()
	}
	if c, ok := m["const"]; ok && !g.mistake(0.2) {
		return c
	}
	if e, ok := m["enum"].([]any); ok && !g.mistake(0.15) {
		return e[g.rng.IntN(len(e))]
	}
	types := []string{}
	switch t := m["type"].(type) {
	case string:
		types = append(types, t)
	case []any:
		for _, x := range t {
			types = append(types, x.(string))
		}
	}
	if len(types) == 0 {
		if _, ok := m["properties"]; ok {
			types = []string{"object"}
		} else {
			return g.wild()
		}
	}
	switch types[g.rng.IntN(len(types))] {
	case "object":
		out := map[string]any{}
		props, _ := m["properties"].(map[string]any)
		required := map[string]bool{}
		if req, ok := m["required"].([]any); ok {
			for _, r := range req {
				required[r.(string)] = true
			}
		}
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if required[k] && !g.mistake(0.05) || g.chance(0.5) {
				out[k] = g.value(props[k], depth+1)
			}
		}
		if g.mistake(0.08) {
			out[fmt.Sprintf("extra%d", g.rng.IntN(3))] = g.wild()
		}
		if add, ok := m["additionalProperties"].(map[string]any); ok && g.chance(0.5) {
			out[samples[g.rng.IntN(len(samples))]] = g.value(add, depth+1)
		}
		return out
	case "array":
		n := g.rng.IntN(4)
		if g.mistake(0.05) {
			n = 12
		}
		out := make([]any, 0, n)
		for range n {
			out = append(out, g.value(m["items"], depth+1))
		}
		if n > 1 && g.mistake(0.1) {
			out[1] = out[0]
		}
		return out
	case "string":
		if p, ok := m["pattern"].(string); ok && !g.mistake(0.2) {
			fits, ok := g.patterns[p]
			if !ok {
				re := regexp.MustCompile(p)
				for _, s := range samples {
					if re.MatchString(s) {
						fits = append(fits, s)
					}
				}
				g.patterns[p] = fits
			}
			if len(fits) > 0 {
				return fits[g.rng.IntN(len(fits))]
			}
		}
		return samples[g.rng.IntN(len(samples))]
	case "integer":
		return json.Number(fmt.Sprint(g.rng.IntN(12) - 2))
	case "number": // in and out of bounds
		return []any{json.Number("0.5"), json.Number("0"), json.Number("-0.25"), json.Number("1"), json.Number("2.0"),
			json.Number("3600"), json.Number("3600.5"), float64(0.75), int64(3)}[g.rng.IntN(9)]
	case "boolean":
		return g.chance(0.5)
	case "null":
		return nil
	}
	return g.wild()
}

func (g *generator) wild() any {
	return []any{nil, true, "s", json.Number("1"), json.Number("-1.5"), []any{}, map[string]any{}, int64(7), float64(2)}[g.rng.IntN(9)]
}

func (g *generator) pointer(ref string) any {
	v := g.doc
	for _, tok := range strings.Split(strings.TrimPrefix(ref, "#"), "/")[1:] {
		v = v.(map[string]any)[tok]
	}
	return v
}
