package schemas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Schema is a compiled schema document, safe for concurrent use. Its
// Validate takes a value as encoding/json decodes it into an any (numbers
// as float64, json.Number or Go integers) and returns nil or a
// *ValidationError.
type Schema = jsonschema.Schema

// ValidationError is a value that its schema refuses: a tree whose leaves
// (no Causes) are the violations, each naming its instance location (an
// RFC 6901 pointer into the value), the keyword's absolute location in the
// document ("document-id#/pointer/keyword") and a message.
type ValidationError = jsonschema.ValidationError

// compiled holds each embedded document compiled on its first use, so that
// a command compiles only the schemas it validates against.
var compiled struct {
	sync.Mutex
	m map[string]*Schema
}

// Compile returns the embedded document name (e.g. "plan.body.json")
// compiled as JSON Schema 2020-12 with format assertions. Each document is
// compiled once per process, on first use; a reference that leaves the
// document is refused, so nothing is ever fetched.
func Compile(name string) (*Schema, error) {
	compiled.Lock()
	defer compiled.Unlock()
	if s, ok := compiled.m[name]; ok {
		return s, nil
	}
	data, err := FS.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read schema %s: %w", name, err)
	}
	s, err := CompileDocument(name, data)
	if err != nil {
		return nil, err
	}
	if compiled.m == nil {
		compiled.m = map[string]*Schema{}
	}
	compiled.m[name] = s
	return s, nil
}

// compiles counts the documents this process compiled (Compiles).
var compiles atomic.Int64

// Compiles is how many schema documents this process compiled (each
// embedded one once, at most, and every CompileDocument): what a test
// holds a command's cost to, since compiling is most of validating once.
func Compiles() int64 { return compiles.Load() }

// CompileDocument compiles a schema document that is not embedded (one
// built at run time from the embedded ones), named name in its errors. The
// caller keeps the result: nothing is cached here.
func CompileDocument(name string, doc []byte) (*Schema, error) {
	compiles.Add(1)
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	c.LoadURL = func(url string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("$ref %s leaves the document: every reference must be #/…", url)
	}
	url := "urn:git-reason:document:" + name
	if err := c.AddResource(url, bytes.NewReader(doc)); err != nil {
		return nil, fmt.Errorf("schema %s is not JSON: %w", name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("compile schema %s: %w", name, err)
	}
	return s, nil
}

// parsed returns the embedded document name as encoding/json decodes it,
// or nil: what a refusal is worded from.
func parsed(name string) any {
	data, err := FS.ReadFile(name)
	if err != nil {
		return nil
	}
	var doc any
	if json.Unmarshal(data, &doc) != nil {
		return nil
	}
	return doc
}

// subschema returns the object of a parsed document that an absolute
// keyword location ("id#/properties/x/required") names the keyword of, or
// nil.
func subschema(doc any, keywordLocation string) map[string]any {
	_, ptr, ok := strings.Cut(keywordLocation, "#")
	if !ok {
		return nil
	}
	if i := strings.LastIndexByte(ptr, '/'); i >= 0 {
		ptr = ptr[:i]
	}
	v := doc
	for _, tok := range strings.Split(ptr, "/")[1:] {
		tok = unescape(tok)
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	m, _ := v.(map[string]any)
	return m
}

// keyword is the last token of a keyword location: "type", "required", ….
func keyword(keywordLocation string) string {
	return keywordLocation[strings.LastIndexByte(keywordLocation, '/')+1:]
}
