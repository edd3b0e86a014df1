package schemas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// compiled holds each schema document compiled on its first use, so that a
// command compiles only the schemas it validates against.
var compiled struct {
	sync.Mutex
	m map[string]*schema
}

// schema is a compiled document with its subschemas by absolute location,
// which turn a validation error's keyword location back into the rule that
// failed (the properties an object may have, the types a value may take).
type schema struct {
	root  *jsonschema.Schema
	byLoc map[string]*jsonschema.Schema
}

// Compile returns the embedded document name (e.g. "plan.body.json")
// compiled as JSON Schema 2020-12 with format assertions. Each document is
// compiled once per process, on first use; a reference that leaves the
// document is refused, so nothing is ever fetched.
func Compile(name string) (*jsonschema.Schema, error) {
	s, err := compile(name)
	if err != nil {
		return nil, err
	}
	return s.root, nil
}

func compile(name string) (*schema, error) {
	compiled.Lock()
	defer compiled.Unlock()
	if s, ok := compiled.m[name]; ok {
		return s, nil
	}
	data, err := FS.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read schema %s: %w", name, err)
	}
	var head struct {
		ID string `json:"$id"`
	}
	if err := json.Unmarshal(data, &head); err != nil || head.ID == "" {
		return nil, fmt.Errorf("schema %s has no $id", name)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	c.LoadURL = func(url string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("schema %s refers outside itself to %s", name, url)
	}
	if err := c.AddResource(head.ID, bytes.NewReader(data)); err != nil {
		return nil, fmt.Errorf("load schema %s: %w", name, err)
	}
	root, err := c.Compile(head.ID)
	if err != nil {
		return nil, fmt.Errorf("compile schema %s: %w", name, err)
	}
	s := &schema{root: root, byLoc: map[string]*jsonschema.Schema{}}
	s.index(root)
	if compiled.m == nil {
		compiled.m = map[string]*schema{}
	}
	compiled.m[name] = s
	return s, nil
}

// index records sch and every subschema it reaches by location.
func (s *schema) index(sch *jsonschema.Schema) {
	if sch == nil || s.byLoc[sch.Location] != nil {
		return
	}
	s.byLoc[sch.Location] = sch
	for _, sub := range sch.Properties {
		s.index(sub)
	}
	for _, sub := range sch.PatternProperties {
		s.index(sub)
	}
	if sub, ok := sch.AdditionalProperties.(*jsonschema.Schema); ok {
		s.index(sub)
	}
	switch items := sch.Items.(type) {
	case *jsonschema.Schema:
		s.index(items)
	case []*jsonschema.Schema:
		for _, sub := range items {
			s.index(sub)
		}
	}
	for _, list := range [][]*jsonschema.Schema{sch.PrefixItems, sch.AllOf, sch.AnyOf, sch.OneOf} {
		for _, sub := range list {
			s.index(sub)
		}
	}
	for _, sub := range []*jsonschema.Schema{sch.Ref, sch.Items2020, sch.Not, sch.If, sch.Then, sch.Else,
		sch.Contains, sch.PropertyNames, sch.UnevaluatedProperties, sch.UnevaluatedItems} {
		s.index(sub)
	}
}

// owner returns the schema holding the keyword an error's absolute keyword
// location names, or nil.
func (s *schema) owner(keywordLocation string) *jsonschema.Schema {
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
