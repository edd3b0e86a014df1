package schemas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// CheckOutput holds data to the embedded document name, as the command
// line does.
func CheckOutput(name string, data []byte, memo OutputMemo) error {
	o, err := OutputDocument(name, nil)
	if err != nil {
		return err
	}
	return o.Check(data, memo, "nothing printed")
}

// indented is v as the program's exporter prints it: indented by two
// spaces, HTML characters as they are, a newline after.
func indented(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// memo is an OutputMemo in memory; validated counts what CheckOutput
// decoded, by OutputBytes.
type memo struct {
	known map[string]bool
	saves int
}

func (m *memo) Known(list string, part []byte) bool { return m.known[list+"\x00"+string(part)] }
func (m *memo) Keep(list string, part []byte)       { m.known[list+"\x00"+string(part)] = true }
func (m *memo) Save()                               { m.saves++ }

func task(i int) map[string]any {
	return map[string]any{"task": fmt.Sprintf("T-%06d", i), "state": "open", "phase": "assessed", "records": 2,
		"subject": strings.Repeat("a subject long enough to make the list large ", 4)}
}

// A large output is validated in parts: the first time whole; then only
// what is new (an item not seen before, and the list around it); an item
// the schema refuses is refused wherever it stands, named by its place in
// the whole output, even when every other item is known; a small output
// is validated whole every time and its parts are not kept.
func TestCheckOutputParts(t *testing.T) {
	var tasks []any
	for i := range 400 {
		tasks = append(tasks, task(i))
	}
	data := indented(t, tasks)
	if len(data) < memoFrom {
		t.Fatalf("the output is %d bytes, under memoFrom", len(data))
	}
	m := &memo{known: map[string]bool{}}
	validated := func(data []byte) int64 {
		t.Helper()
		before := OutputBytes()
		if err := CheckOutput("output.tasks.json", data, m); err != nil {
			t.Fatalf("a valid output refused: %v", err)
		}
		return OutputBytes() - before
	}
	if n := validated(data); n != int64(len(data)) {
		t.Errorf("the first check validated %d bytes, want the whole output, %d", n, len(data))
	}
	if n := validated(data); n > 10 {
		t.Errorf("the second check validated %d bytes, want only the empty list around the known items", n)
	}
	if n := validated(data); n != 0 {
		t.Errorf("the third check validated %d bytes, want none", n)
	}
	tasks[200] = task(1000)
	one := indented(t, task(1000))
	if n := validated(indented(t, tasks)); n < int64(len(one)) || n > int64(2*len(one)) {
		t.Errorf("after one item changed the check validated %d bytes, want that item (%d bytes unindented) and the list's brackets", n, len(one))
	}

	bad := task(2000)
	bad["phase"] = "forged"
	tasks[321] = bad
	err := CheckOutput("output.tasks.json", indented(t, tasks), m)
	if err == nil || !strings.Contains(err.Error(), "output.tasks.json") || !strings.Contains(err.Error(), `"/321/phase"`) {
		t.Errorf("an item the schema refuses among known ones: %v, want an error naming output.tasks.json at /321/phase", err)
	}
	if m.known["\x00"+string(indented(t, bad))] {
		t.Error("the refused item was kept as valid")
	}

	small := &memo{known: map[string]bool{}}
	short := indented(t, tasks[:3])
	if err := CheckOutput("output.tasks.json", short, small); err != nil || len(small.known) != 0 || small.saves != 0 {
		t.Errorf("a small output: %v, kept %d parts, saved %d times: want it valid and nothing kept", err, len(small.known), small.saves)
	}
	if err := CheckOutput("output.tasks.json", indented(t, []any{bad}), small); err == nil || !strings.Contains(err.Error(), `"/0/phase"`) {
		t.Errorf("a small output the schema refuses: %v", err)
	}
}

// splitOutput finds the lists of a top-level object (the items of each
// member that holds a list, whatever they hold, and the members of each
// member that holds an object) and of a top-level list;
// join with nothing dropped gives the output back, and with items dropped
// a document of the rest that reads; text in another shape (compact) is
// one part.
func TestSplitOutput(t *testing.T) {
	obj := map[string]any{
		"a":     []any{map[string]any{"x": []any{1, 2}, "y": map[string]any{"z": "}"}}, "s", []any{}, map[string]any{}, 3},
		"b":     map[string]any{"c": []any{1}},
		"d":     []any{},
		"e":     "[",
		"f/g~h": []any{true, false},
	}
	data := indented(t, obj)
	doc := splitOutput(data, nil)
	var names []string
	for _, l := range doc.lists {
		names = append(names, l.name+fmt.Sprint(len(l.items)))
	}
	if want := []string{`"a"5`, `"b"1`, `"f/g~h"2`}; !slices.Equal(names, want) {
		t.Errorf("lists %v, want %v", names, want)
	}
	if !bytes.Equal(doc.join(), data) {
		t.Errorf("joined:\n%s\nwant:\n%s", doc.join(), data)
	}
	doc.drop(&memo{known: map[string]bool{`"a"` + "\x00" + `    "s"`: true, `"f/g~h"` + "\x00    true": true}})
	var back map[string]any
	if err := json.Unmarshal(doc.join(), &back); err != nil {
		t.Fatalf("joined after drop does not read: %v\n%s", err, doc.join())
	}
	if len(back["a"].([]any)) != 4 || len(back["f/g~h"].([]any)) != 1 || back["e"] != "[" {
		t.Errorf("joined after drop: %v", back)
	}
	if got := doc.where("/f~1g~0h/0"); got != "/f~1g~0h/1" {
		t.Errorf("where of the first item kept of f/g~h: %s, want /f~1g~0h/1", got)
	}
	if got := doc.where("/a/1/y"); got != "/a/2/y" {
		t.Errorf("where of the second item kept of a: %s, want /a/2/y", got)
	}

	list := indented(t, []any{1, []any{"a"}, map[string]any{"k": 1}})
	if l := splitOutput(list, nil).lists; len(l) != 1 || len(l[0].items) != 3 || string(l[0].items[2].text) != "  {\n    \"k\": 1\n  }" {
		t.Errorf("a top-level list: %+v", l)
	}
	compact, _ := json.Marshal(obj)
	if l := splitOutput(append(compact, '\n'), nil).lists; len(l) != 0 {
		t.Errorf("compact text split into %d lists", len(l))
	}
}

// wholeOf is the whole lists of the embedded document name.
func wholeOf(t *testing.T, name string) map[string]bool {
	t.Helper()
	o, err := OutputDocument(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return o.whole
}

// The lists a published document puts a rule on as a whole are found,
// and validated with the text around them: the changed list of remote
// setup (at most one item) is refused with two items whose every part a
// memo knows.
func TestWholeLists(t *testing.T) {
	if w := wholeOf(t, "output.demo.json"); !w[`"records"`] || !w[`"status"`] || len(w) != 2 {
		t.Errorf("demo's whole lists: %v, want records and status (an object with required members)", w)
	}
	if w := wholeOf(t, "output.remote-setup.json"); !w[`"changed"`] || len(w) != 1 {
		t.Errorf("remote setup's whole lists: %v, want changed alone", w)
	}
	if w := wholeLists([]byte(`{"properties": {"a<b": {"maxItems": 1}}}`)); !w[`"a<b"`] {
		t.Errorf("a member named a<b: %v, want it named as the exporter writes it", w)
	}
	for _, doc := range []string{
		`{"properties": {"names": {"$ref": "#/$defs/names"}}, "$defs": {"names": {"$ref": "#"}}}`,
		`{"properties": {"names": {"$ref": "share.names.json"}}}`,
		`{"properties": {"names": {"$ref": "#/$defs/missing"}}}`,
		`{"properties": {"names": {"$dynamicRef": "#names"}}}`,
	} {
		if w := wholeLists([]byte(doc)); !w[""] {
			t.Errorf("%s: whole lists %v, want nothing split (a reference sameValue does not follow)", doc, w)
		}
	}
	if w := wholeOf(t, "output.tasks.json"); len(w) != 0 {
		t.Errorf("tasks' whole lists: %v, want none", w)
	}
	long := strings.Repeat("r", memoFrom/2)
	data := indented(t, map[string]any{"remote": "origin", "changed": []any{"+a" + long, "+b" + long}})
	m := &memo{known: map[string]bool{}}
	for _, l := range splitOutput(data, nil).lists {
		for _, it := range l.items {
			m.Keep(l.name, it.text)
		}
	}
	if err := CheckOutput("output.remote-setup.json", data, m); err == nil || !strings.Contains(err.Error(), `at "/changed"`) {
		t.Errorf("two changed refspecs, each known to the memo: %v, want refused at /changed", err)
	}
}

// A list whose items the document's alternatives hold to different
// schemas is validated with the text around it, which decides the branch:
// names valid under kind a, kept by the memo, are refused under kind b
// (at most 3 characters), where split they were taken as known. A branch
// that forbids the member, and an if on the type alone, split it still.
func TestAlternativeLists(t *testing.T) {
	doc := []byte(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "oneOf": [
 {"properties": {"kind": {"const": "a"}, "names": {"type": "array", "items": {"type": "string"}}}, "required": ["kind"]},
 {"properties": {"kind": {"const": "b"}, "names": {"type": "array", "items": {"type": "string", "maxLength": 3}}}, "required": ["kind"]}]}`)
	o, err := OutputDocument("alternatives.json", doc)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("n", memoFrom)
	m := &memo{known: map[string]bool{}}
	if err := o.Check(indented(t, map[string]any{"kind": "a", "names": []any{long}}), m, ""); err != nil {
		t.Fatalf("kind a: %v", err)
	}
	if err := o.Check(indented(t, map[string]any{"kind": "b", "names": []any{long}}), m, ""); err == nil {
		t.Error("kind b with a name of more than 3 characters, the memo knowing it from kind a: accepted")
	}
	for name, doc := range map[string]string{
		"a branch forbids it": `{"anyOf": [{"properties": {"names": {"items": {"type": "string"}}}}, {"additionalProperties": false, "properties": {"code": {}}}]}`,
		"an if on the type":   `{"if": {"type": "array"}, "then": {"items": {"type": "string"}}, "else": {"properties": {"names": {"items": {"type": "string"}}}}}`,
	} {
		if w := wholeLists([]byte(doc)); w[`"names"`] || w[""] {
			t.Errorf("%s: whole lists %v, want names split", name, w)
		}
	}
}

// A list whose items a member's own alternatives, a value it must equal
// or a dependent schema decide is validated with the text around it: an
// output the document refuses whole is refused when the memo knows its
// first item from an output the document accepted. Split item by item,
// each was accepted. The published documents split what they split
// before: a scalar's const or enum is no rule on a list.
func TestListsDecidedAsAWhole(t *testing.T) {
	long := strings.Repeat("n", memoFrom)
	for name, c := range map[string]struct {
		doc         string
		first, then map[string]any
	}{
		"a member's oneOf": {
			doc:   `"properties": {"names": {"oneOf": [{"items": {"minLength": 5}}, {"items": {"maxLength": 3}}]}}`,
			first: map[string]any{"names": []any{long}},
			then:  map[string]any{"names": []any{long, "abc"}},
		},
		"a member's if": {
			doc:   `"properties": {"names": {"if": {"items": {"minLength": 2}}, "then": {"items": {"maxLength": 3}}}}`,
			first: map[string]any{"names": []any{long, "x"}},
			then:  map[string]any{"names": []any{long, "abc"}},
		},
		"a member's enum": {
			doc:   `"properties": {"names": {"enum": [["abc"], ["` + long + `"]]}}`,
			first: map[string]any{"names": []any{long}},
			then:  map[string]any{"names": []any{long, "abc"}},
		},
		"a dependent schema": {
			doc:   `"dependentSchemas": {"short": {"properties": {"names": {"items": {"maxLength": 3}}}}}`,
			first: map[string]any{"names": []any{long}},
			then:  map[string]any{"short": true, "names": []any{long}},
		},
	} {
		o, err := OutputDocument(name+".json", []byte(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", `+c.doc+`}`))
		if err != nil {
			t.Fatal(err)
		}
		m := &memo{known: map[string]bool{}}
		if err := o.Check(indented(t, c.first), m, ""); err != nil {
			t.Fatalf("%s: the first output: %v", name, err)
		}
		if err := o.Check(indented(t, c.then), nil, ""); err == nil {
			t.Fatalf("%s: the second output is valid whole; the case proves nothing", name)
		}
		if err := o.Check(indented(t, c.then), m, ""); err == nil {
			t.Errorf("%s: refused whole, accepted with the memo (whole lists %v)", name, o.whole)
		}
	}
	if w := wholeOf(t, "output.status.json"); w[`"phase"`] || len(w) != 4 {
		t.Errorf("status' whole lists: %v, want closed, does_not_verify, person_step and signatures", w)
	}
}
