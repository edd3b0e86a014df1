package advisor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"gopkg.in/yaml.v3"
)

// schemaCache compiles each declaration schema once per schema FS.
type schemaCache struct {
	mu   sync.Mutex
	fsys fs.FS
	done map[string]*jsonschema.Schema
}

func (c *schemaCache) get(name string) (*jsonschema.Schema, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.done[name]; ok {
		return s, nil
	}
	data, err := fs.ReadFile(c.fsys, name)
	if err != nil {
		return nil, fmt.Errorf("read schema %s: %w", name, err)
	}
	var head struct {
		ID string `json:"$id"`
	}
	if err := json.Unmarshal(data, &head); err != nil || head.ID == "" {
		return nil, fmt.Errorf("schema %s has no $id: %v", name, err)
	}
	comp := jsonschema.NewCompiler()
	comp.Draft = jsonschema.Draft2020
	comp.AssertFormat = true
	comp.LoadURL = func(url string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("schema %s refers outside itself to %s", name, url)
	}
	if err := comp.AddResource(head.ID, bytes.NewReader(data)); err != nil {
		return nil, fmt.Errorf("load schema %s: %w", name, err)
	}
	s, err := comp.Compile(head.ID)
	if err != nil {
		return nil, fmt.Errorf("compile schema %s: %w", name, err)
	}
	if c.done == nil {
		c.done = map[string]*jsonschema.Schema{}
	}
	c.done[name] = s
	return s, nil
}

// validateSchema checks a parsed file against its schema and reports the
// first violation as a ParseError at the line of the offending value.
func (c *schemaCache) validateSchema(file, name string, root *yaml.Node) error {
	s, err := c.get(name)
	if err != nil {
		return err
	}
	err = s.Validate(toJSON(root))
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return fmt.Errorf("validate %s against %s: %w", file, name, err)
	}
	leaf := firstLeaf(ve)
	at := locate(root, leaf.InstanceLocation)
	return &ParseError{File: file, Line: at.Line, Column: at.Column,
		Field: pointerPath(leaf.InstanceLocation), Msg: leaf.Message}
}

// firstLeaf is the most specific cause of a validation error.
func firstLeaf(ve *jsonschema.ValidationError) *jsonschema.ValidationError {
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	return ve
}

// toJSON turns a YAML tree into the values a JSON decoder would produce,
// keeping scalars' types as YAML resolved them.
func toJSON(n *yaml.Node) any {
	n = unalias(n)
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 1 {
			return toJSON(n.Content[0])
		}
		return nil
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = toJSON(n.Content[i+1])
		}
		return m
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		for i, c := range n.Content {
			s[i] = toJSON(c)
		}
		return s
	}
	switch n.Tag {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		_ = n.Decode(&b)
		return b
	case "!!int", "!!float":
		var f float64
		if err := n.Decode(&f); err == nil {
			return f
		}
	}
	return n.Value
}

// locate finds the node a JSON pointer designates, or the deepest node on
// its way.
func locate(root *yaml.Node, pointer string) *yaml.Node {
	n := root
	if pointer == "" {
		return n
	}
	for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		n = unalias(n)
		next := (*yaml.Node)(nil)
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == tok {
					next = n.Content[i+1]
				}
			}
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(n.Content) {
				next = n.Content[i]
			}
		}
		if next == nil {
			return n
		}
		n = next
	}
	return n
}

// pointerPath renders /advisors/2/local as advisors[2].local.
func pointerPath(pointer string) string {
	if pointer == "" {
		return ""
	}
	var b strings.Builder
	for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if _, err := strconv.Atoi(tok); err == nil {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteString(".")
		}
		b.WriteString(tok)
	}
	return b.String()
}
