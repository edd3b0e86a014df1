package schemas

import (
	"fmt"
	"strings"
	"sync"
)

// compiled holds each schema document compiled on its first use, so that a
// command compiles only the schemas it validates against.
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
	s, err := compileDoc(name, data)
	if err != nil {
		return nil, err
	}
	if compiled.m == nil {
		compiled.m = map[string]*Schema{}
	}
	compiled.m[name] = s
	return s, nil
}

// CompileDocument compiles a schema document that is not embedded (one
// built at run time from the embedded ones), named name in its errors. The
// caller keeps the result: nothing is cached here.
func CompileDocument(name string, doc []byte) (*Schema, error) {
	return compileDoc(name, doc)
}

// owner returns the schema holding the keyword an error's absolute keyword
// location names, or nil.
func (s *Schema) owner(keywordLocation string) *rule {
	i := strings.LastIndexByte(keywordLocation, '/')
	if i < 0 {
		return nil
	}
	return s.byLoc[keywordLocation[:i]]
}

// keyword is the last token of a keyword location: "type", "required", ….
func keyword(keywordLocation string) string {
	return keywordLocation[strings.LastIndexByte(keywordLocation, '/')+1:]
}
