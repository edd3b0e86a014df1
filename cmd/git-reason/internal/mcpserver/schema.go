package mcpserver

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"git-reason/record"
	"git-reason/schemas"
)

// obj is a JSON Schema under construction.
type obj = map[string]any

// readDoc returns an embedded schema document as a map.
func readDoc(name string) (obj, error) {
	data, err := fs.ReadFile(schemas.FS, name)
	if err != nil {
		return nil, err
	}
	var m obj
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("parse schema %s: %w", name, err)
	}
	return m, nil
}

// taskProperty is the task argument, with the envelope's own rules.
func taskProperty() (obj, error) {
	env, err := readDoc("envelope.json")
	if err != nil {
		return nil, err
	}
	p := env["properties"].(obj)["task"].(obj)
	return obj{"type": "string", "minLength": p["minLength"], "maxLength": p["maxLength"], "pattern": p["pattern"], "not": p["not"],
		"description": "the task (see status for every task)"}, nil
}

// bodyInput derives a write tool's input schema from its record kind's body
// schema, the one source: the body's properties plus "task". Fields named
// in defaults are no longer required: when absent, the server fills them
// as the command line does (the task's latest record of that kind). edit,
// when not nil, narrows the result further.
func bodyInput(kind record.Kind, defaults map[string]string, edit func(obj)) (json.RawMessage, error) {
	doc, err := readDoc(string(kind) + ".body.json")
	if err != nil {
		return nil, err
	}
	delete(doc, "$id")
	delete(doc, "title")
	task, err := taskProperty()
	if err != nil {
		return nil, err
	}
	props := doc["properties"].(obj)
	props["task"] = task
	required := []any{"task"}
	for _, r := range doc["required"].([]any) {
		if _, relaxed := defaults[r.(string)]; !relaxed {
			required = append(required, r)
		}
	}
	doc["required"] = required
	for field, what := range defaults {
		p := props[field].(obj)
		p["description"] = fmt.Sprintf("%s; default: the task's latest %s", describe(p), what)
	}
	if edit != nil {
		edit(doc)
	}
	return json.Marshal(doc)
}

func describe(p obj) string {
	if d, ok := p["description"].(string); ok && d != "" {
		return d
	}
	return "a record id (ULID) or unique prefix"
}

// recordOutput is the output schema of a tool that returns a stored record
// of kind: the envelope with its kind fixed and the kind's derived schema in
// place (an embedded resource with its own $id, so its references resolve
// inside it), the commit that stores it, and the suggested next tools. The
// body is what the caller sent, whose schema is the tool's input schema
// (less task): it is not repeated here, since every tools/list carries each
// schema it lists and a repeated body schema only made the list longer.
func recordOutput(kind record.Kind) (json.RawMessage, error) {
	env, err := readDoc("envelope.json")
	if err != nil {
		return nil, err
	}
	delete(env, "$id")
	env["title"] = strings.TrimSpace(string(kind) + " record")
	props := env["properties"].(obj)
	if kind != "" {
		props["kind"] = obj{"const": string(kind)}
		props["body"] = obj{"type": "object", "description": "the body as stored: this tool's arguments less task, defaults filled in (the schema tool gives its schema)"}
		sub, err := readDoc(string(kind) + ".derived.json")
		if err != nil {
			return nil, err
		}
		delete(sub, "$schema")
		if d, _ := sub["description"].(string); d == "" {
			delete(sub, "description")
		}
		props["derived"] = sub
	}
	props["commit"] = obj{"type": "string", "description": "the commit that stores the record"}
	addSuggestions(env)
	return json.Marshal(env)
}

// outline is the output schema of a tool whose command's --json output
// publishes its schema in schemas/ (schemas.Outputs): that schema's top
// level, each property with its type and description. The full document
// is several kilobytes that every tools/list would carry; the schema tool
// gives it on demand.
func outline(verb string) (json.RawMessage, error) {
	name, ok := schemas.Outputs[verb]
	if !ok {
		return nil, fmt.Errorf("no published output schema for %s", verb)
	}
	doc, err := readDoc(name)
	if err != nil {
		return nil, err
	}
	props := obj{}
	for key, v := range doc["properties"].(obj) {
		p, q := v.(obj), obj{}
		for _, k := range []string{"type", "description"} {
			if x, ok := p[k]; ok {
				q[k] = x
			}
		}
		props[key] = q
	}
	return json.Marshal(obj{"type": "object", "required": doc["required"], "additionalProperties": doc["additionalProperties"],
		"properties":  props,
		"description": fmt.Sprintf("%v In full: the schema tool with kind %s.", doc["description"], verb)})
}

// addSuggestions declares suggested_next_tools on an output schema.
func addSuggestions(doc obj) {
	props, _ := doc["properties"].(obj)
	if props == nil {
		props = obj{}
		doc["properties"] = props
	}
	props["suggested_next_tools"] = obj{
		"description": "the task's next step as tool calls; present only for a host without native tool search",
		"type":        "array",
		"items": obj{"type": "object", "required": []any{"tool", "arguments"},
			"properties": obj{"tool": obj{"type": "string"}, "arguments": obj{"type": "object"}}},
	}
}

// inferred is the output schema of a Go type, as the SDK's schema library
// infers it, optionally with suggested_next_tools.
func inferred(t reflect.Type, suggestions bool) (json.RawMessage, error) {
	// Raw JSON (the schema documents) is any JSON value, not bytes.
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{IgnoreInvalidTypes: true,
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[json.RawMessage](): {}}})
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var doc obj
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	if suggestions {
		addSuggestions(doc)
	}
	return json.Marshal(doc)
}

// objectSchema is a small hand-written input schema: an object with these
// properties, these required, nothing else.
func objectSchema(props obj, required ...string) json.RawMessage {
	req := []any{}
	for _, r := range required {
		req = append(req, r)
	}
	raw, err := json.Marshal(obj{"type": "object", "additionalProperties": false, "properties": props, "required": req})
	if err != nil {
		panic(err) // only literal maps are marshalled
	}
	return raw
}

// inferredType is inferred for a type parameter.
func inferredType[T any](suggestions bool) (json.RawMessage, error) {
	return inferred(reflect.TypeFor[T](), suggestions)
}
