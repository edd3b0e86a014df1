package record

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
)

// TestPrepareEveryKind: what Prepare compiles ahead of a write is, for
// every kind, the three documents the writer validates that kind's
// record against (its body, the envelope, its derived fields), each of
// which compiles; a name Prepare got wrong fails here rather than
// silently compiling nothing ahead.
func TestPrepareEveryKind(t *testing.T) {
	for _, k := range Kinds {
		if err := prepare(k); err != nil {
			t.Errorf("prepare %s: %v", k, err)
		}
	}
}

// TestHugeNumbersNeverReachTheLibrary: a stored record's number past 64
// characters or an exponent of 1000 is a violation of its own, found
// before the schema library reads any number as a big.Rat (2e999999 took
// it 30 ms, so a fetched record of 80,000 such numbers took 40 minutes of
// every command that read its task). A record's usual numbers still read.
func TestHugeNumbersNeverReachTheLibrary(t *testing.T) {
	const id = "01HZZZZZZZZZZZZZZZZZZZ0001"
	stored := func(needs string) []byte {
		return []byte(`{"id":"` + id + `","kind":"assessment","task":"T","created":"2026-01-01T00:00:00.000Z","actor":"Eve <eve@example.invalid>","origin":"o","clock":1,` +
			`"body":{"subject":"S","question":"q","materiality":"critical","reversibility":"costly","needs":[` + needs + `]},"derived":{"subject_key":"s"}}`)
	}
	name := "0000000001-assessment-" + id + ".json"
	if _, err := ReadStored("T", name, stored(`"reasoning"`)); err != nil {
		t.Fatalf("a record that reads: %v", err)
	}
	for _, c := range []struct{ needs, at string }{
		{`2e999999,3e999999,4e999999`, "/body/needs/0"},
		{`"reasoning",1E-1001`, "/body/needs/1"},
		{`"reasoning",1` + strings.Repeat("0", 64), "/body/needs/1"},
		{`1e+99999999999999999999`, "/body/needs/0"},
		{`"reasoning",1.5e1000`, ""}, // within the bounds: the library's own violation
	} {
		_, err := ReadStored("T", name, stored(c.needs))
		var se *SchemaError
		if c.at == "" {
			if !errors.As(err, &se) || strings.Contains(err.Error(), hugeNumberMessage) {
				t.Errorf("needs [%s]: got %v, want the schema's own violation", c.needs, err)
			}
			continue
		}
		if !errors.As(err, &se) || len(se.Violations) != 1 || se.Violations[0].Pointer != c.at || se.Violations[0].Message != hugeNumberMessage {
			t.Errorf("needs [%s]: got %v, want the one violation %q at %s", c.needs, err, hugeNumberMessage, c.at)
		}
	}
}

// TestDeepNestingNeverDecoded: a stored record, or a body written anew,
// whose arrays or objects nest past MaxNesting (a fetched assessment's
// unknown member or free-form field holding 9,000 levels) is a violation
// of its own, said with where it is, found in the bytes before anything is
// decoded: reading it allocates less than reading an honest record does.
// encoding/json decoded each level as a map or a slice (54,000
// allocations for 9,000 arrays, 90,000 for objects), and a body's
// findControl built a pointer to each (113 MB for 54 KiB).
func TestDeepNestingNeverDecoded(t *testing.T) {
	const id = "01HZZZZZZZZZZZZZZZZZZZ0001"
	stored := func(question, extra string) []byte {
		return []byte(`{"id":"` + id + `","kind":"assessment","task":"T","created":"2026-01-01T00:00:00.000Z","actor":"Eve <eve@example.invalid>","origin":"o","clock":1,` +
			`"body":{"subject":"S","question":` + question + `,"materiality":"critical","reversibility":"costly","needs":["reasoning"]` + extra + `},"derived":{"subject_key":"s"}}`)
	}
	name := "0000000001-assessment-" + id + ".json"
	honest := stored(`"q \"[{\""`, `,"evidence":[{"kind":"note","summary":"a [ and a {"}]`)
	if _, err := ReadStored("T", name, honest); err != nil {
		t.Fatalf("a record that reads: %v", err)
	}
	honestAllocs := testing.AllocsPerRun(20, func() { _, _ = ReadStored("T", name, honest) })
	arrays := strings.Repeat("[", 9000) + strings.Repeat("]", 9000)
	objects := strings.Repeat(`{"a/~":`, 9000) + "1" + strings.Repeat("}", 9000)
	for _, c := range []struct{ what, question, extra, at string }{
		{"arrays in an unknown member", `"q"`, `,"x":[1,"]",` + arrays + `]`, "/body/x/2/0/0/0/0/0/…"},
		{"objects in the question", objects, ``, "/body/question/a~1~0/a~1~0/a~1~0/a~1~0/a~1~0/a~1~0/…"},
		{"not JSON past the bound", `"q"`, `,"x":` + strings.Repeat("[", 65), "/body/x/0/0/0/0/0/0/…"},
	} {
		data := stored(c.question, c.extra)
		_, err := ReadStored("T", name, data)
		var se *SchemaError
		if !errors.As(err, &se) || len(se.Violations) != 1 || se.Violations[0] != (Violation{Pointer: c.at, Message: tooDeepMessage}) {
			t.Errorf("%s: got %v, want the one violation %q at %s", c.what, err, tooDeepMessage, c.at)
		}
		allocs := testing.AllocsPerRun(5, func() { _, _ = ReadStored("T", name, data) })
		if allocs > honestAllocs {
			t.Errorf("%s: reading it allocates %.0f times, an honest record %.0f", c.what, allocs, honestAllocs)
		}
		t.Logf("%s: %.0f allocations, an honest record %.0f", c.what, allocs, honestAllocs)
	}
	// The bound itself reads; one level more does not.
	within := stored(`"q"`, `,"x":`+strings.Repeat("[", MaxNesting-2)+strings.Repeat("]", MaxNesting-2))
	if _, ok := TooDeep(within); ok {
		t.Errorf("a record nested %d deep is refused", MaxNesting)
	}
	past := stored(`"q"`, `,"x":`+strings.Repeat("[", MaxNesting-1)+strings.Repeat("]", MaxNesting-1))
	if at, ok := TooDeep(past); !ok || at != "/body/x/0/0/0/0/0/0/…" {
		t.Errorf("a record nested %d deep: got %q, %v", MaxNesting+1, at, ok)
	}
	if !strings.Contains(tooDeepMessage, " "+strconv.Itoa(MaxNesting)+" ") {
		t.Errorf("the message %q does not say the bound, %d", tooDeepMessage, MaxNesting)
	}
	// A body written anew, from the command line or a tool, is held to
	// the same bound before it is decoded, its pointer the body's own.
	body := []byte(`{"subject":"S","question":"q","materiality":"minor","reversibility":"reversible","x":` +
		strings.Repeat(`{"a":`, 9000) + "1" + strings.Repeat("}", 9000) + `}`) // 54 KiB, within a body's limit
	_, err := decodeBody(KindAssessment, body)
	if err == nil || err.Error() != "assessment body at /x/a/a/a/a/a/a/a/…: "+tooDeepMessage || !errors.Is(err, ErrInput) {
		t.Errorf("a body nested 9,000 deep: got %v", err)
	}
	if allocs := testing.AllocsPerRun(5, func() { _, _ = decodeBody(KindAssessment, body) }); allocs > honestAllocs {
		t.Errorf("a body nested 9,000 deep: decoding it allocates %.0f times, reading an honest record %.0f", allocs, honestAllocs)
	}
}

// TestNestingBoundAboveSchemas: MaxNesting is at least four times the
// deepest nesting the schemas allow a stored record (the record, then its
// body or derived fields) and a body, as its comment says them.
func TestNestingBoundAboveSchemas(t *testing.T) {
	var nesting func(s, root map[string]any, at string) int
	nesting = func(s, root map[string]any, at string) int {
		if ref, ok := s["$ref"].(string); ok {
			def := root
			for _, k := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
				def, _ = def[k].(map[string]any)
			}
			return nesting(def, root, at)
		}
		deepest := 0
		for _, k := range []string{"anyOf", "oneOf", "allOf"} {
			list, _ := s[k].([]any)
			for _, sub := range list {
				sub, _ := sub.(map[string]any)
				deepest = max(deepest, nesting(sub, root, at))
			}
		}
		if props, ok := s["properties"].(map[string]any); ok || s["type"] == "object" {
			if s["additionalProperties"] != false {
				t.Fatalf("%s: an object of any members", at)
			}
			inner := 0
			for k, p := range props {
				p, _ := p.(map[string]any)
				inner = max(inner, nesting(p, root, at+"/"+k))
			}
			deepest = max(deepest, 1+inner)
		}
		if items, ok := s["items"].(map[string]any); ok {
			deepest = max(deepest, 1+nesting(items, root, at+"/items"))
		} else if s["type"] == "array" {
			t.Fatalf("%s: an array of any items", at)
		}
		return deepest
	}
	record, body := 0, 0
	for _, k := range Kinds {
		for _, part := range []string{"body", "derived"} {
			raw, err := SchemaDocument(k, part)
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := json.Unmarshal(raw, &doc); err != nil {
				t.Fatal(err)
			}
			n := nesting(doc, doc, string(k)+"."+part)
			record = max(record, 1+n) // in the record's own object
			if part == "body" {
				body = max(body, n)
			}
		}
	}
	if record != 5 || body != 3 {
		t.Errorf("the schemas nest a record %d deep and a body %d: MaxNesting's comment says 5 and 3", record, body)
	}
	if MaxNesting < 4*record {
		t.Errorf("MaxNesting %d is not four times a record's deepest legal nesting, %d", MaxNesting, record)
	}
}
