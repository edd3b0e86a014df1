package schemas

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// Every embedded document compiles on its own (no reference leaves it), and
// a second request returns the compiled schema kept from the first.
func TestEveryDocumentCompilesOnce(t *testing.T) {
	names, err := fs.Glob(FS, "*.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("no schema documents: %v", err)
	}
	for _, name := range names {
		a, err := Compile(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if b, _ := Compile(name); a != b {
			t.Errorf("%s compiled twice", name)
		}
	}
	if _, err := Compile("nope.json"); err == nil {
		t.Error("an unknown document compiled")
	}
}

// What YAML can say but a person never means is refused before the schema
// sees it: aliases that multiply, nested or each used many times under
// the bound, nesting past the bound.
func TestDecodeBounds(t *testing.T) {
	var bomb strings.Builder
	bomb.WriteString("a: &a [x, x, x, x, x, x, x, x, x, x]\n")
	for i, prev := 0, "a"; i < 6; i++ {
		name := string(rune('b' + i))
		bomb.WriteString(name + ": &" + name + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n")
		prev = name
	}
	// One anchor of 9,000 items, under the bound, used 200 times: 1.8
	// million values from 28 KB (a few more uses, billions).
	wide := "terms: &t [" + strings.Repeat("x, ", 8999) + "x]\nexclude: [" + strings.Repeat("*t, ", 199) + "*t]\n"
	deep := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	for name, tc := range map[string]struct{ data, want string }{
		"alias bomb": {bomb.String(), ":4:36: alias *c takes the aliases past 10000 nodes in all"},
		"one alias":  {"terms: [&a [" + strings.Repeat("x, ", 10000) + "x], *a]\n", ":1:30017: alias *a expands to more than 10000 nodes"},
		"wide":       {wide, ":2:15: alias *t takes the aliases past 10000 nodes in all"},
		"deep":       {"terms: " + deep + "\n", "nested more than 64 levels deep"},
	} {
		var v struct{}
		_, err := Decode("f.yaml", []byte(tc.data), Neutrality, &v)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "f.yaml:") {
			t.Errorf("%s: error %v, want f.yaml:…: %s", name, err, tc.want)
		}
	}
}

// A document whose reference leaves it is refused when compiled: nothing
// is ever loaded from a file or the network.
func TestReferenceLeavingTheDocumentIsRefused(t *testing.T) {
	for _, ref := range []string{"https://example.invalid/s.json", "other.json", "file:///etc/passwd"} {
		_, err := CompileDocument("x.json", []byte(`{"$ref": "`+ref+`"}`))
		if err == nil || !strings.Contains(err.Error(), "leaves the document") {
			t.Errorf("$ref %s: error %v, want it refused as leaving the document", ref, err)
		}
	}
}

// Leaves orders violations and the names of unknown fields the same way
// every time, whatever order the library's maps gave them in.
func TestLeavesAreDeterministic(t *testing.T) {
	s, err := CompileDocument("t.json", []byte(`{"type": "object", "additionalProperties": false,
		"properties": {"n": {"type": "integer"}, "m": {"type": "integer"}}, "required": ["r"]}`))
	if err != nil {
		t.Fatal(err)
	}
	v := map[string]any{"n": "x", "m": "y", "c": 1, "a": 1, "it's": 1, "x', 'y": 1, "b": 1}
	want := []string{
		`|additionalProperties|additionalProperties 'a', 'b', 'c', 'it\'s', 'x\', \'y' not allowed`,
		`|required|missing properties: 'r'`,
		`/m|type|expected integer, but got string`,
		`/n|type|expected integer, but got string`,
	}
	for range 20 {
		var got []string
		for _, l := range Leaves(s.Validate(v)) {
			got = append(got, l.InstanceLocation+"|"+keyword(l.KeywordLocation)+"|"+l.Message)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("leaves:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	if Leaves(errors.New("not a validation error")) != nil {
		t.Error("Leaves of another error is not nil")
	}
}

// BenchmarkCompileWrite compiles the three documents an assessment's
// write compiles (its body, the envelope and its derived fields), each
// anew, as a process does once: what a whole-process write pays for
// validating, beside the library's init. Profile it with -cpuprofile to
// see the share of checking each document against the 2020-12 metaschema.
// go test ./schemas -run '^$' -bench CompileWrite -benchmem
func BenchmarkCompileWrite(b *testing.B) {
	names := []string{"assessment.body.json", "envelope.json", "assessment.derived.json"}
	docs := make([][]byte, len(names))
	for i, name := range names {
		data, err := FS.ReadFile(name)
		if err != nil {
			b.Fatal(err)
		}
		docs[i] = data
	}
	for b.Loop() {
		for i, name := range names {
			if _, err := CompileDocument(name, docs[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
}
