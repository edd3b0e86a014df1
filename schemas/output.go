package schemas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// A command's --json output is held to the document it publishes
// (Outputs), and an MCP tool's result to its output schema, before a byte
// of it is sent: an output the document
// refuses is this program's bug, and no script should read it.
//
// Validating a whole output costs about 70 ms a megabyte (decoding it
// into values the library walks), and the status of every task at 20,000
// tasks is 9 MB, nearly all of it the same from one run to the next. So
// Output.Check validates the parts of an output it has not seen valid
// before: the items of its lists (a top-level list, and each list or
// object a member of a top-level object holds, such as the signatures of
// every open task by task) one by one, and the rest of the document with
// only the new items in its lists. An item valid in its list is valid
// wherever it stands in it, and without the others, as long as the
// document puts no rule on the list as a whole (its length, unique or
// contained items, required members): such a list is validated with the
// text around it (wholeLists). What
// was seen valid is kept by the caller (an OutputMemo: gitstore's, under
// the repository's key and this build's schemas), so what a command
// validates grows with what changed since it last ran.

// OutputMemo is what Output.Check asks whether a part of an output
// (the document around the lists, list "", or an item of the list list)
// was seen valid before, and tells what it has now seen valid.
type OutputMemo interface {
	Known(list string, part []byte) bool
	Keep(list string, part []byte)
	Save() // writes what Keep noted
}

// memoFrom is the size from which Output.Check asks its memo: a smaller
// output is validated whole (about 4 ms at this size), and its parts are
// not kept, so that the many small outputs of a document (the status of
// one task) neither fill its memo nor make it forget the parts of its
// large ones (the status of every task).
const memoFrom = 64 << 10

// outputBytes counts the bytes of output this process decoded and
// validated (OutputBytes).
var outputBytes atomic.Int64

// OutputBytes is how many bytes of --json output this process decoded
// and validated: an output's new parts, not the parts its memo knew.
func OutputBytes() int64 { return outputBytes.Load() }

// Output is a document outputs are held to, compiled on its first Check.
type Output struct {
	Name  string
	Doc   []byte
	whole map[string]bool // wholeLists
	once  sync.Once
	s     *Schema
	err   error
}

// OutputDocument is the document name: doc, or the embedded document of
// that name when doc is nil. Each is made once per process.
func OutputDocument(name string, doc []byte) (*Output, error) {
	key := name + "\x00" + string(doc)
	if o, ok := outputs.Load(key); ok {
		return o.(*Output), nil
	}
	o := &Output{Name: name, Doc: doc}
	if doc == nil {
		data, err := FS.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("read schema %s: %w", name, err)
		}
		o.Doc = data
	}
	o.whole = wholeLists(o.Doc)
	o2, _ := outputs.LoadOrStore(key, o)
	return o2.(*Output), nil
}

// outputs keeps OutputDocument's documents, by name and content.
var outputs sync.Map

// Check holds data, an output of o as the program's one exporter indents
// it (two spaces a level), to o; memo may be nil (everything is
// validated), and is asked only for an output of memoFrom bytes or more.
// Its error names the document and the place in data, as a JSON pointer,
// then says then.
func (o *Output) Check(data []byte, memo OutputMemo, then string) error {
	if len(data) < memoFrom {
		memo = nil
	}
	doc := splitOutput(data, o.whole)
	if memo != nil {
		doc.drop(memo)
	}
	reduced := doc.join()
	if memo != nil && memo.Known("", reduced) {
		return nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(reduced))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("the JSON output of %s does not read back: %v", o.Name, err)
	}
	outputBytes.Add(int64(len(reduced)))
	o.once.Do(func() {
		if embedded, err := FS.ReadFile(o.Name); err == nil && bytes.Equal(embedded, o.Doc) {
			o.s, o.err = Compile(o.Name)
		} else {
			o.s, o.err = CompileDocument(o.Name, o.Doc)
		}
	})
	if o.err != nil {
		return o.err
	}
	if err := o.s.Validate(v); err != nil {
		where, what := "", err.Error()
		if leaves := Leaves(err); len(leaves) > 0 {
			where, what = doc.where(leaves[0].InstanceLocation), leaves[0].Message
		}
		return fmt.Errorf("the JSON output does not match its published schema %s at %q: %s; %s", o.Name, where, what, then)
	}
	if memo != nil {
		memo.Keep("", reduced)
		for _, l := range doc.lists {
			for _, it := range l.kept {
				memo.Keep(l.name, it.text)
			}
		}
		memo.Save()
	}
	return nil
}

// outputDoc is an output split into the text around its lists and their
// items.
type outputDoc struct {
	text  []byte       // the whole output
	lists []outputList // in the order they stand in text
}

// outputList is one list (or object) of an output: where its items stand in the
// text, and which of them Output.Check validates (kept, with their
// indexes in the list).
type outputList struct {
	name       string // "" for a top-level list, else the member's name as written (JSON-quoted)
	start, end int    // the items' text: after the line that opens the list, up to the line that closes it
	items      []outputItem
	kept       []outputItem // all items, until drop
	object     bool         // the items are an object's members ("name": value)
	bad        bool         // the text is not in the exporter's shape
}

type outputItem struct {
	index int
	text  []byte // without the comma that separates it from the next
}

// splitOutput finds the lists of data by its indentation, which encoding/
// json's indenting encoder makes exact: a value at depth d starts its
// every line with 2d spaces, and a string never holds a line break. data
// in another shape is one part: no list; the lists named in whole (their
// names as in lists) stay part of the text around.
func splitOutput(data []byte, whole map[string]bool) *outputDoc {
	doc := &outputDoc{text: data}
	switch {
	case whole[""]:
	case bytes.HasPrefix(data, []byte("[\n")) && bytes.HasSuffix(data, []byte("\n]\n")):
		doc.lists = []outputList{listAt(data, "", 2, len(data)-len("]\n"), 1)}
	case bytes.HasPrefix(data, []byte("{\n")) && bytes.HasSuffix(data, []byte("\n}\n")):
		for at := 2; at < len(data); {
			line := lineAt(data, at)
			next := at + len(line) + 1
			if indent(line) != 2 {
				break // not this exporter's shape: no lists
			}
			if !opens(line) {
				at = next
				continue
			}
			end := closing(data, next, 2)
			if end < 0 {
				return &outputDoc{text: data}
			}
			name, open := bytes.CutSuffix(line[2:], []byte(": ["))
			if !open {
				name, open = bytes.CutSuffix(line[2:], []byte(": {"))
			}
			if open && !whole[string(name)] {
				l := listAt(data, string(name), next, end, 2)
				l.object = line[len(line)-1] == '{'
				doc.lists = append(doc.lists, l)
			}
			at = end + len(lineAt(data, end)) + 1
		}
	}
	for i := range doc.lists {
		if doc.lists[i].bad {
			return &outputDoc{text: data} // not this exporter's shape
		}
		doc.lists[i].kept = doc.lists[i].items
	}
	return doc
}

// listAt is the list whose items, at depth, stand in data[start:end]
// (end: where the line that closes the list starts).
func listAt(data []byte, name string, start, end, depth int) outputList {
	l := outputList{name: name, start: start, end: end}
	for at, i := start, 0; at < end; i++ {
		line := lineAt(data, at)
		if indent(line) != 2*depth {
			return outputList{bad: true}
		}
		last := at
		if opens(line) {
			if last = closing(data, at+len(line)+1, 2*depth); last < 0 || last >= end {
				return outputList{bad: true}
			}
		}
		stop := last + len(lineAt(data, last))
		l.items = append(l.items, outputItem{index: i, text: bytes.TrimSuffix(data[at:stop], []byte(","))})
		at = stop + 1
	}
	return l
}

// lineAt is the line of data that starts at at, without its line break.
func lineAt(data []byte, at int) []byte {
	if i := bytes.IndexByte(data[at:], '\n'); i >= 0 {
		return data[at : at+i]
	}
	return data[at:]
}

func indent(line []byte) int { return len(line) - len(bytes.TrimLeft(line, " ")) }

// opens reports whether line opens an object or a list that goes on on
// the lines below it.
func opens(line []byte) bool {
	return bytes.HasSuffix(line, []byte("{")) || bytes.HasSuffix(line, []byte("["))
}

// closing is where the first line at or after at with n spaces of indent
// starts (the line that closes what the line before at opened), -1 for
// none.
func closing(data []byte, at, n int) int {
	for at < len(data) {
		line := lineAt(data, at)
		if indent(line) == n {
			return at
		}
		at += len(line) + 1
	}
	return -1
}

// drop leaves in each list's kept only the items memo does not know.
func (d *outputDoc) drop(memo OutputMemo) {
	for i := range d.lists {
		l := &d.lists[i]
		var kept []outputItem
		for _, it := range l.items {
			if !memo.Known(l.name, it.text) {
				kept = append(kept, it)
			}
		}
		l.kept = kept
	}
}

// join is the output with only the kept items in its lists (all of them
// before drop).
func (d *outputDoc) join() []byte {
	if len(d.lists) == 0 {
		return d.text
	}
	var b bytes.Buffer
	at := 0
	for _, l := range d.lists {
		b.Write(d.text[at:l.start])
		for j, it := range l.kept {
			if j > 0 {
				b.WriteString(",\n")
			}
			b.Write(it.text)
		}
		b.WriteByte('\n')
		at = l.end
	}
	b.Write(d.text[at:])
	return b.Bytes()
}

// where is the place in the whole output of ptr, a JSON pointer into the
// output joined: an item's index in its list is its index in the whole.
func (d *outputDoc) where(ptr string) string {
	segs := strings.Split(ptr, "/")
	for _, l := range d.lists {
		if l.object {
			continue // a member's place is its name, the same in the whole
		}
		at := 1 // the index's segment: /i/… for a top-level list, /name/i/… in an object
		if l.name != "" {
			var name string
			if json.Unmarshal([]byte(l.name), &name) != nil || len(segs) < 2 || segs[1] != PointerToken(name) {
				continue
			}
			at = 2
		}
		if len(segs) <= at {
			return ptr
		}
		i, err := strconv.Atoi(segs[at])
		if err != nil || i < 0 || i >= len(l.kept) {
			return ptr
		}
		segs[at] = strconv.Itoa(l.kept[i].index)
		return strings.Join(segs, "/")
	}
	return ptr
}

// wholeLists is the lists and objects of the outputs of data, a document,
// that it puts a rule on as a whole (a length, unique or contained items,
// items by position, required or dependent members, a value it must
// equal, alternatives of its own), by their names in outputDoc's lists: "" for a top-level list,
// a member's name JSON-quoted. Output.Check validates them with the text
// around them, never item by item. A document with a reference other than
// one into its own $defs splits nothing: what it refers to is not read
// here.
func wholeLists(data []byte) map[string]bool {
	out := map[string]bool{}
	var doc map[string]any
	if json.Unmarshal(data, &doc) != nil {
		out[""] = true // splits nothing; compiling says what is wrong
		return out
	}
	defs, _ := doc["$defs"].(map[string]any)
	if !refsKnown(doc, defs) {
		out[""] = true // a rule may stand where sameValue does not look
		return out
	}
	listRules := []string{"minItems", "maxItems", "uniqueItems", "contains", "minContains", "maxContains", "prefixItems", "unevaluatedItems", "const", "enum"}
	// A member's own alternatives may hold its items to different schemas,
	// which the list as a whole decides between: the member is whole.
	objectRules := append([]string{"minProperties", "maxProperties", "required", "dependentRequired", "dependentSchemas", "unevaluatedProperties", "anyOf", "oneOf", "if", "not"}, listRules...)
	rules := func(n any, keywords []string) bool {
		for _, s := range sameValue(n, defs) {
			for _, k := range keywords {
				if v, ok := s[k]; ok && (k != "const" && k != "enum" || composite(v, k == "enum")) {
					return true
				}
			}
		}
		return false
	}
	// The top-level object is never split (only what its members hold):
	// only a top-level list's rules count, and a value it must equal.
	if rules(doc, listRules) {
		out[""] = true
	}
	alternatives(doc, defs, out)
	for _, s := range sameValue(doc, defs) {
		props, _ := s["properties"].(map[string]any)
		for member, p := range props {
			if rules(p, objectRules) {
				out[quoted(member)] = true
			}
		}
		unnamed := []any{s["additionalProperties"]}
		patterns, _ := s["patternProperties"].(map[string]any)
		for _, p := range patterns {
			unnamed = append(unnamed, p)
		}
		for _, p := range unnamed {
			if rules(p, objectRules) {
				out[""] = true // members not named: split nothing
			}
		}
	}
	return out
}

// alternatives adds to out the lists of the outputs of a document whose
// items its alternatives hold to different schemas: a member declared
// otherwise (or left free) by two branches of an anyOf or a oneOf, or by
// the then and the else of an if, and a top-level list whose items do;
// with every member the condition of an if, a not or a dependent schema
// reads. An item seen
// valid under one branch may not be under another, and the text around
// the lists decides which branch applies: such a list is never split.
// A branch that forbids the member (additionalProperties false) applies
// to no output that has it, and an if on the type alone is decided by the
// output's type, which the text around keeps: neither makes a list whole.
func alternatives(doc map[string]any, defs map[string]any, out map[string]bool) {
	every := func(n any) { // every list n reads
		for _, s := range sameValue(n, defs) {
			props, _ := s["properties"].(map[string]any)
			for member := range props {
				out[quoted(member)] = true
			}
			for _, k := range []string{"additionalProperties", "patternProperties", "items", "prefixItems", "contains"} {
				if _, ok := s[k]; ok {
					out[""] = true
				}
			}
		}
	}
	differ := func(branches []any) {
		var units [][]map[string]any
		names := map[string]bool{}
		for _, b := range branches {
			u := unconditional(b, defs)
			units = append(units, u)
			for _, s := range u {
				props, _ := s["properties"].(map[string]any)
				for member := range props {
					names[member] = true
				}
				if _, ok := s["patternProperties"]; ok {
					out[""] = true
				}
			}
		}
		seen := func(view func(u []map[string]any) (string, bool)) bool {
			first, any := "", false
			for _, u := range units {
				v, forbidden := view(u)
				if forbidden {
					continue
				}
				if any && v != first {
					return true
				}
				first, any = v, true
			}
			return false
		}
		for member := range names {
			if seen(func(u []map[string]any) (string, bool) { return memberView(u, member, true) }) {
				out[quoted(member)] = true
			}
		}
		if seen(func(u []map[string]any) (string, bool) { return memberView(u, "", false) }) ||
			seen(func(u []map[string]any) (string, bool) { return itemsView(u), false }) {
			out[""] = true
		}
	}
	for _, s := range sameValue(doc, defs) {
		for _, k := range []string{"anyOf", "oneOf"} {
			if list, _ := s[k].([]any); len(list) > 1 {
				differ(list)
			}
		}
		if cond, ok := s["if"]; ok && !typeOnly(cond) {
			every(cond)
			differ([]any{s["then"], s["else"]})
		}
		if n, ok := s["not"]; ok {
			every(n)
		}
		deps, _ := s["dependentSchemas"].(map[string]any)
		for _, d := range deps {
			every(d) // applies only when the member it depends on is there
		}
	}
}

// composite reports whether v, a const's value (or, in, an enum's list of
// values), is a list or an object: a value a list or an object must equal
// whole. A scalar's is no rule on a list.
func composite(v any, in bool) bool {
	values := []any{v}
	if list, ok := v.([]any); ok && in {
		values = list
	}
	for _, x := range values {
		switch x.(type) {
		case []any, map[string]any:
			return true
		}
	}
	return false
}

// refsKnown reports whether every reference in n is one sameValue
// follows: "#/$defs/" and the name of one of defs.
func refsKnown(n any, defs map[string]any) bool {
	switch x := n.(type) {
	case map[string]any:
		for k, v := range x {
			if k == "enum" || k == "const" || k == "default" || k == "examples" {
				continue // values, not schemas
			}
			if k == "$dynamicRef" || k == "$recursiveRef" {
				return false
			}
			if k == "$ref" {
				ref, _ := v.(string)
				def, ok := strings.CutPrefix(ref, "#/$defs/")
				if _, known := defs[def]; !ok || !known {
					return false
				}
				continue
			}
			if !refsKnown(v, defs) {
				return false
			}
		}
	case []any:
		for _, v := range x {
			if !refsKnown(v, defs) {
				return false
			}
		}
	}
	return true
}

// unconditional is the schema n and every schema that applies to the
// same value whatever it holds: through a reference into defs or allOf.
func unconditional(n any, defs map[string]any) []map[string]any {
	return reached(n, defs, nil, []string{"allOf"})
}

// reached is the schema n and every schema reached from it that applies
// to the same value: through a reference into defs, the keywords of one
// schema named in singles, and those of a list of schemas named in
// lists.
func reached(n any, defs map[string]any, singles, lists []string) []map[string]any {
	m, ok := n.(map[string]any)
	if !ok {
		return nil
	}
	out := []map[string]any{m}
	if ref, ok := m["$ref"].(string); ok {
		def, _ := strings.CutPrefix(ref, "#/$defs/")
		out = append(out, reached(defs[def], defs, singles, lists)...)
	}
	for _, k := range singles {
		out = append(out, reached(m[k], defs, singles, lists)...)
	}
	for _, k := range lists {
		list, _ := m[k].([]any)
		for _, s := range list {
			out = append(out, reached(s, defs, singles, lists)...)
		}
	}
	return out
}

// memberView is what the schemas u hold a member named member to (any
// member they do not declare, unless declared), as canonical JSON; true
// when they forbid it.
func memberView(u []map[string]any, member string, declared bool) (string, bool) {
	var views []any
	for _, s := range u {
		props, _ := s["properties"].(map[string]any)
		if p, ok := props[member]; ok && declared {
			views = append(views, p)
			continue
		}
		if a, ok := s["additionalProperties"]; ok {
			if a == false {
				return "", true
			}
			views = append(views, a)
		}
	}
	data, _ := json.Marshal(views)
	return string(data), false
}

// itemsView is what the schemas u hold the items of a list to, as
// canonical JSON.
func itemsView(u []map[string]any) string {
	var views []any
	for _, s := range u {
		for _, k := range []string{"items", "prefixItems"} {
			if v, ok := s[k]; ok {
				views = append(views, k, v)
			}
		}
	}
	data, _ := json.Marshal(views)
	return string(data)
}

// typeOnly reports whether the condition of an if reads only the type of
// the value.
func typeOnly(cond any) bool {
	m, ok := cond.(map[string]any)
	if !ok {
		return false
	}
	for k := range m {
		if k != "type" && k != "description" && k != "$comment" {
			return false
		}
	}
	_, ok = m["type"]
	return ok
}

// sameValue is the schema n and every schema that applies to the same
// value through a reference into defs or an applicator.
func sameValue(n any, defs map[string]any) []map[string]any {
	return reached(n, defs, []string{"if", "then", "else", "not"}, []string{"allOf", "anyOf", "oneOf"})
}

// quoted is name as the exporter writes a member's name (HTML characters
// as they are).
func quoted(name string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(name)
	return strings.TrimSuffix(b.String(), "\n")
}
