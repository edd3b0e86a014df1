package record

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"git-reason/schemas"
)

// SchemaDocument returns the raw embedded schema of a kind's part ("body",
// "derived") or of the envelope (kind "record", part "envelope").
func SchemaDocument(kind Kind, part string) (json.RawMessage, error) {
	name := schemaName(kind, part)
	data, err := schemas.FS.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read schema %s: %w", name, err)
	}
	return data, nil
}

// SchemasDigest names what validating a record means in this build: the
// SHA-256 of the embedded documents records are validated against (the
// envelope, each kind's body and derived fields) and of the version of
// the JSON Schema library that validates them, as the build records it
// (SchemasDigestWith). A verdict kept under it (gitstore's list of the
// blobs its writer validated) holds for every build with the same
// digest, and for no other. "" when it cannot be told (a build that
// records no module versions, as a test binary).
var SchemasDigest = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, m := range bi.Deps {
		if m.Path == schemaLibrary {
			if m.Replace != nil {
				m = m.Replace
			}
			return SchemasDigestWith(m.Version + " " + m.Sum)
		}
	}
	return ""
})

// schemaLibrary is the module that validates records.
const schemaLibrary = "github.com/santhosh-tekuri/jsonschema/v5"

// SchemasDigestWith is SchemasDigest for the schema library's version and
// checksum lib ("v5.3.1 h1:..." as `go version -m` shows them), "" when
// lib is.
func SchemasDigestWith(lib string) string {
	if strings.TrimSpace(lib) == "" {
		return ""
	}
	h := sha256.New()
	names, err := fs.Glob(schemas.FS, "*.json")
	if err != nil {
		return ""
	}
	for _, name := range names { // fs.Glob's order: sorted
		if name != "envelope.json" && !strings.HasSuffix(name, ".body.json") && !strings.HasSuffix(name, ".derived.json") {
			continue
		}
		data, err := schemas.FS.ReadFile(name)
		if err != nil {
			return ""
		}
		fmt.Fprintf(h, "%s %d\n", name, len(data))
		h.Write(data)
	}
	fmt.Fprintf(h, "library %s %s\n", schemaLibrary, lib)
	return hex.EncodeToString(h.Sum(nil))
}

// schemaName is the embedded document of a kind's part, or the envelope's.
func schemaName(kind Kind, part string) string {
	if part == "envelope" {
		return "envelope.json"
	}
	return string(kind) + "." + part + ".json"
}

// Prepare starts compiling the schemas a write of kind validates against
// (its body, then the envelope and its derived fields, in the order the
// writer asks for them), then SchemasDigest, and returns at once: a
// command calls it before it waits for git, so that the compiling, most
// of a write's own CPU, runs while git discovers the repository. The
// writer then finds them compiled, or waits for the one being compiled
// (schemas.Compile compiles each once per process); the store's note of
// the blob it validated, made once the ref has moved, finds the digest
// worked out (it hashes every record schema). An error is left for the
// writer to meet.
func Prepare(kind Kind) { go prepare(kind) }

// prepare compiles and works out what Prepare does, and returns the
// first error.
func prepare(kind Kind) error {
	for _, part := range []string{"body", "input", "envelope", "derived"} {
		if part == "input" && !hasInput(kind) {
			continue
		}
		if _, err := schemas.Compile(schemaName(kind, part)); err != nil {
			return err
		}
	}
	SchemasDigest()
	return nil
}

// SchemaCompiles is how many schema documents this process compiled
// (schemas.Compiles), for the counts tests hold commands to.
func SchemaCompiles() int64 { return schemas.Compiles() }

// validations counts validate's calls: Validations.
var validations atomic.Int64

// Validations is how many documents this process validated against a
// record schema (one a part): what a test holds a read to, so that a
// record read once is validated once.
func Validations() int64 { return validations.Load() }

// validate checks v (as decoded by encoding/json with UseNumber) against
// the schema of kind's part and returns every violation, not just the
// first.
func validate(kind Kind, part string, v any) error {
	validations.Add(1)
	if huge, ok := HugeNumber(v); ok {
		return &SchemaError{Kind: kind, Part: part, Violations: []Violation{huge}}
	}
	s, err := schemas.Compile(schemaName(kind, part))
	if err != nil {
		return err
	}
	err = s.Validate(v)
	if err == nil {
		return nil
	}
	leaves := schemas.Leaves(err)
	if leaves == nil {
		return fmt.Errorf("validate %s %s: %w", kind, part, err)
	}
	return &SchemaError{Kind: kind, Part: part, Violations: flatten(leaves)}
}

// validateNew checks a body a caller writes anew against its kind's body
// schema and then its input document (<kind>.input.json, where the kind
// has one): what a new body must say beyond what every stored record is
// held to, a required text that is more than blank. Only the writer asks
// it, of a caller's body; replay and reads hold records to the body
// schema alone, so a history written before the input rule still reads
// and verifies. Both documents' violations are one body's, listed
// together; a field the body schema already faults is not faulted again.
func validateNew(kind Kind, v any) error {
	bodyErr := validate(kind, "body", v)
	var se *SchemaError
	if bodyErr != nil && !errors.As(bodyErr, &se) {
		return bodyErr
	}
	if !hasInput(kind) {
		return bodyErr
	}
	inErr := validate(kind, "input", v)
	var in *SchemaError
	if inErr == nil {
		return bodyErr
	}
	if !errors.As(inErr, &in) {
		return inErr
	}
	out := &SchemaError{Kind: kind, Part: "body"}
	faulted := map[string]bool{}
	if se != nil {
		out.Violations = append(out.Violations, se.Violations...)
		for _, v := range se.Violations {
			faulted[v.Pointer] = true
		}
	}
	for _, v := range in.Violations {
		if !faulted[v.Pointer] {
			out.Violations = append(out.Violations, v)
		}
	}
	return out
}

// hasInput reports whether kind has an input document.
func hasInput(kind Kind) bool {
	_, err := fs.Stat(schemas.FS, schemaName(kind, "input"))
	return err == nil
}

// flatten turns the library's violations, in its deterministic order, into
// the record's, without repeats.
func flatten(leaves []*schemas.ValidationError) []Violation {
	var out []Violation
	seen := map[string]bool{}
	for _, e := range leaves {
		v := Violation{Pointer: e.InstanceLocation, Message: tidy(e.Message)}
		switch {
		case schemas.Points(e):
			v.Message = schemas.PointsMessage
		case schemas.Blank(e):
			v.Message = schemas.BlankMessage
		}
		if k := v.String(); !seen[k] {
			seen[k] = true
			out = append(out, v)
		}
	}
	return out
}

func tidy(msg string) string {
	msg = strings.ReplaceAll(msg, "additionalProperties ", "unknown field ")
	return strings.TrimSuffix(msg, " not allowed")
}

// WriteOutput is the schema of what verb, which writes a record of kind,
// prints with --json: the record's envelope, with the kind's body and
// derived documents where the envelope has any object, and beside them
// the commit that stores the record (the task ref's head after the write)
// and, on a plan, what each selected advisor would be sent (questions) and
// whether the repository's declarations lowered its review (lowered), as
// consult --json has them. It is made from the documents the
// writer validates against, so that the two cannot drift apart.
func WriteOutput(verb string, kind Kind) (json.RawMessage, error) {
	if _, err := ParseKind(string(kind)); err != nil {
		return nil, err
	}
	part := func(name string) (map[string]any, error) {
		data, err := schemas.FS.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("read schema %s: %w", name, err)
		}
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		delete(doc, "$schema") // a subschema's dialect is the document's
		return doc, nil
	}
	out, err := part(schemaName(kind, "envelope"))
	if err != nil {
		return nil, err
	}
	props, _ := out["properties"].(map[string]any)
	required, _ := out["required"].([]any)
	if props == nil {
		return nil, fmt.Errorf("schema %s: no properties", schemaName(kind, "envelope"))
	}
	for _, p := range []string{"body", "derived"} {
		if props[p], err = part(schemaName(kind, p)); err != nil {
			return nil, err
		}
	}
	props["kind"] = map[string]any{"const": string(kind)}
	props["commit"] = map[string]any{"type": "string", "pattern": "^([0-9a-f]{40}|[0-9a-f]{64})$",
		"description": "the commit that stores the record: the task ref's head after the write"}
	out["required"] = append(required, "commit")
	if kind == KindPlan {
		consult, err := part("output.consult.json")
		if err != nil {
			return nil, err
		}
		cp, _ := consult["properties"].(map[string]any)
		for _, p := range []string{"lowered", "questions"} {
			if cp[p] == nil {
				return nil, fmt.Errorf("schema output.consult.json: no %s", p)
			}
			props[p] = cp[p]
		}
	}
	out["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	out["$id"] = "urn:git-reason:schema:output:" + verb
	out["title"] = "git reason " + verb + " --json"
	out["description"] = "The " + string(kind) + " record " + verb + " stored (its envelope, body and derived fields, as 'git reason schema " + string(kind) + "' gives them) and the commit that stores it."
	// Its name and purpose first, as in the documents in schemas/.
	var b strings.Builder
	b.WriteString("{")
	keys := []string{"$schema", "$id", "title", "description"}
	for k := range out {
		if !slices.Contains(keys[:4], k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys[4:])
	for i, k := range keys {
		name, _ := json.Marshal(k)
		value, err := json.Marshal(out[k])
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteString(",")
		}
		b.Write(name)
		b.WriteString(":")
		b.Write(value)
	}
	b.WriteString("}")
	return json.RawMessage(b.String()), nil
}

// MaxNesting is how deeply a stored record or a body written anew may
// nest its arrays and objects: deeper is a violation of its own, found by
// TooDeep in the bytes before anything is decoded. The schemas' deepest
// legal nesting is 5 levels, in a consultation's derived fields (the
// record, derived, question, material, an item of it); a body's is 3 (an
// assessment's, its evidence, an item of it); TestNestingBoundAboveSchemas
// works them out from schemas/ and holds this bound to at least four times
// the deepest. encoding/json decodes up to 10,000 levels, each a map or a
// slice and a frame of its recursion, and the walks after it (hugeNumber,
// findControl) recurse as deep: a fetched record of 1 MiB holding 19
// objects nested 9,000 deep cost each status of its task 124 MB and 1 s
// of CPU, again at each command, and a body of 54 KiB nested 9,000 deep,
// given to a write, 113 MB (findControl's pointer to each level).
const MaxNesting = 64

// tooDeepMessage is the violation of a document TooDeep finds.
const tooDeepMessage = "arrays and objects nested more than 64 levels deep, which no record is"

// TooDeep reports whether data, a JSON document, nests arrays and objects
// deeper than MaxNesting, counting '[' and '{' outside strings, and where
// (nestedAt). It allocates nothing on a document within the bound; it
// does not check that data is JSON (the decoder after it does). Records
// and bodies are scanned, and so is a request to a server before anything
// decodes it (the MCP server's transports: the SDK decodes a message's
// _meta, and the server a tool's arguments, into maps and slices, up to
// 1,000 levels): no record, and no request of a server, nests so deep.
func TooDeep(data []byte) (string, bool) {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			i = stringEnd(data, i)
		case '[', '{':
			if depth++; depth > MaxNesting {
				return nestedAt(data[:i]), true
			}
		case ']', '}':
			depth--
		}
	}
	return "", false
}

// tooDeepError is the schema error of kind's part that TooDeep found
// nested too deep at at, said as validate says a huge number: the
// document's one violation.
func tooDeepError(kind Kind, part, at string) error {
	return &SchemaError{Kind: kind, Part: part, Violations: []Violation{{Pointer: at, Message: tooDeepMessage}}}
}

// stringEnd is the index of the quote that ends the JSON string whose
// opening quote is at data[i], or len(data).
func stringEnd(data []byte, i int) int {
	for i++; i < len(data) && data[i] != '"'; i++ {
		if data[i] == '\\' {
			i++
		}
	}
	return i
}

// nestedAt is the JSON pointer of the array or object that starts just
// after prefix, its first eight steps and then "/…": the member or element
// each enclosing array and object is in at the end of prefix.
func nestedAt(prefix []byte) string {
	type step struct {
		array bool
		index int
		key   string
	}
	var path []step
	key := false // the next string is an object's key
	for i := 0; i < len(prefix); i++ {
		switch c := prefix[i]; c {
		case '"':
			j := stringEnd(prefix, i)
			if n := len(path); key && n > 0 {
				_ = json.Unmarshal(prefix[i:min(j+1, len(prefix))], &path[n-1].key)
				key = false
			}
			i = j
		case '[', '{':
			path = append(path, step{array: c == '['})
			key = c == '{'
		case ']', '}':
			if len(path) > 0 {
				path = path[:len(path)-1]
			}
			key = false
		case ',':
			if n := len(path); n > 0 {
				path[n-1].index++
				key = !path[n-1].array
			}
		}
	}
	var b strings.Builder
	for i, s := range path {
		if i == 8 {
			b.WriteString("/…")
			break
		}
		b.WriteString("/")
		if s.array {
			b.WriteString(strconv.Itoa(s.index))
		} else {
			b.WriteString(schemas.PointerToken(s.key))
		}
	}
	return b.String()
}

// hugeNumberMessage is the violation of a number hugeNumber finds.
const hugeNumberMessage = "a number of more than 64 characters, or with an exponent past 1000, which no record holds"

// HugeNumber is the violation of the first number in v (decoded with
// UseNumber) that hugeNumber finds, which must never reach the schema
// library: a record's, or a tool's arguments (which the MCP server holds
// to the tool's input schema).
func HugeNumber(v any) (Violation, bool) {
	if _, ok := hugeNumber(v, "", false); !ok {
		return Violation{}, false
	}
	at, _ := hugeNumber(v, "", true) // where, once one is known to be there
	return Violation{Pointer: at, Message: hugeNumberMessage}, true
}

// hugeNumber finds, depth first, a number in v (decoded with UseNumber)
// that is never given to the schema library: longer than 64 characters
// or with an exponent past ±1000. The library reads every number it
// checks (a type, a bound, uniqueItems) as a big.Rat, and
// big.Rat.SetString("2e999999") computes 10^999999, about 30 ms: a fetched
// record of 1 MiB holding 80,000 such numbers in an array took every
// command that read its task (status, log, verify, pull) some 40 minutes,
// again at each command. A record's numbers (a clock, a count, a duration,
// a confidence) are far inside these bounds. Every record read or written
// is walked: with where unset the walk makes nothing (no pointer, no key
// sorted), and only a record that holds such a number is walked again
// with where set, for the pointer to the first, keys in order.
func hugeNumber(v any, at string, where bool) (string, bool) {
	switch x := v.(type) {
	case json.Number:
		n := string(x)
		if len(n) > 64 {
			return at, true
		}
		if i := strings.IndexAny(n, "eE"); i >= 0 {
			e, err := strconv.Atoi(strings.TrimPrefix(n[i+1:], "+"))
			if err != nil || e > 1000 || e < -1000 {
				return at, true
			}
		}
	case map[string]any:
		keys := maps.Keys(x)
		if where {
			keys = slices.Values(slices.Sorted(keys)) // the same pointer each time
		}
		for k := range keys {
			p := at
			if where {
				p += "/" + k
			}
			if p, ok := hugeNumber(x[k], p, where); ok {
				return p, true
			}
		}
	case []any:
		for i, e := range x {
			p := at
			if where {
				p += "/" + strconv.Itoa(i)
			}
			if p, ok := hugeNumber(e, p, where); ok {
				return p, true
			}
		}
	}
	return "", false
}
