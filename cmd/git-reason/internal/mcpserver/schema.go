package mcpserver

import (
	"encoding/json"
	"errors"
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
	// The dialect is 2020-12 wherever no $schema says otherwise (MCP
	// schemas default to it), so the list need not repeat it per tool.
	delete(doc, "$schema")
	delete(doc, "$id")
	delete(doc, "title")
	task, err := taskProperty()
	if err != nil {
		return nil, err
	}
	if defs, ok := doc["$defs"].(obj); ok && defs["id"] != nil {
		// An id the caller names: in full or by a unique prefix, which
		// the writer resolves as show does and stores in full.
		defs["id"] = idArgument()
	}
	if err := withInputRules(kind, doc); err != nil {
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

// withInputRules adds to a body schema doc what its kind's input document
// (<kind>.input.json) asks of a new body, as the writer holds it: each
// text it names refers to its definition of a text that is not blank,
// copied into doc's $defs. A kind with no input document is left as it is.
func withInputRules(kind record.Kind, doc obj) error {
	in, err := readDoc(string(kind) + ".input.json")
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defs, _ := doc["$defs"].(obj)
	if defs == nil {
		defs = obj{}
		doc["$defs"] = defs
	}
	for name, def := range in["$defs"].(obj) {
		if _, clash := defs[name]; clash && name != "text" {
			return fmt.Errorf("%s.input.json's $defs %s is the body schema's too", kind, name)
		}
		defs[name] = def
	}
	return markTexts(doc, doc, in)
}

// inputKeywords are the keywords markTexts carries from an input document
// to the body schema (properties and items walked, a text's $ref set, a
// rule that applies when a condition holds copied whole) or that say
// nothing a caller is held to. Another keyword fails the tools' schemas
// rather than being dropped: a rule the writer holds callers to that the
// published schema did not say (evidence's ref was one) is learnt only by
// being refused.
var inputKeywords = map[string]bool{
	"properties": true, "items": true, "$ref": true, "if": true, "then": true,
	"$schema": true, "$id": true, "$defs": true, "title": true, "description": true, "type": true,
}

// markTexts walks in's properties and items beside at's (following at's
// references into root's $defs) and makes each text in names refer to
// the definition of a text.
func markTexts(root, at, in obj) error {
	at = deref(root, at)
	for k := range in {
		if !inputKeywords[k] {
			return fmt.Errorf("input rules use %s, which the tools' schemas do not carry", k)
		}
	}
	for _, k := range []string{"if", "then"} {
		if rule, ok := in[k]; ok {
			if _, clash := at[k]; clash {
				return fmt.Errorf("input rules' %s meets the body's own", k)
			}
			at[k] = rule
		}
	}
	if items, ok := in["items"].(obj); ok {
		sub, ok := at["items"].(obj)
		if !ok {
			return fmt.Errorf("input rules name items where the body has none")
		}
		if err := markTexts(root, sub, items); err != nil {
			return err
		}
	}
	props, _ := in["properties"].(obj)
	for name, rule := range props {
		target, ok := deref(root, at)["properties"].(obj)[name].(obj)
		if !ok {
			return fmt.Errorf("input rules name %s, which the body has not", name)
		}
		if rule.(obj)["$ref"] == schemas.TextDef {
			target["$ref"] = schemas.TextDef
			continue
		}
		if err := markTexts(root, target, rule.(obj)); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// deref is the schema a reference into root's $defs names, or at itself.
func deref(root, at obj) obj {
	ref, _ := at["$ref"].(string)
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok {
		return at
	}
	if d, ok := root["$defs"].(obj)[name].(obj); ok {
		return d
	}
	return at
}

// idArgument is an argument that names an existing record: its id or a
// unique prefix of it, as show and every write tool take one.
func idArgument() obj {
	return obj{"type": "string", "minLength": record.MinPrefix, "maxLength": 26,
		"description": fmt.Sprintf("a record id or a unique prefix of at least %d characters", record.MinPrefix)}
}

func describe(p obj) string {
	if d, ok := p["description"].(string); ok && d != "" {
		return d
	}
	return "a record id (ULID) or unique prefix"
}

// recordOutput is the output schema of a tool that returns a stored record
// of kind (any kind when ""): the envelope's top level (each field with its
// type), the commit that stores it and, for a write, the suggested next
// tools. body is
// what the caller sent (the tool's input schema, less task) and derived
// what the writer computed; the schema tool gives envelope, body and
// derived in full. Every tools/list carries each schema it lists, and
// repeating those documents made the list several times longer than what
// a host routes with.
func recordOutput(kind record.Kind) (json.RawMessage, error) {
	env, err := readDoc("envelope.json")
	if err != nil {
		return nil, err
	}
	props := obj{}
	for name, p := range env["properties"].(obj) {
		props[name] = obj{"type": "string"} // id, kind, task, created, actor, origin
		if t, ok := p.(obj)["type"]; ok {
			props[name] = obj{"type": t}
		}
	}
	desc := "a record as stored: envelope, body and derived; the schema tool with the record's kind gives their schemas in full"
	if kind != "" {
		props["kind"] = obj{"const": string(kind)}
		desc = "the " + string(kind) + " record as stored: body is the tool's arguments less task, with defaults filled in; " +
			"derived is what the writer computed; the schema tool with kind " + string(kind) + " gives their schemas in full"
	}
	props["commit"] = obj{"type": "string"}
	if kind == "" {
		props["signature"] = obj{"type": "object", "description": "the record's commit's signature: status (good, unsigned, bad, unknown_key, key_removed, signer_not_actor, expired_or_revoked), signer, key, commit, text"}
		props["does_not_verify"] = obj{"type": "object", "description": "present when the record's task does not replay clean (derived is then what replay computes): the first finding, with its code and message"}
	}
	if kind == record.KindPlan {
		props["lowered"] = obj{"type": "object", "description": "present when the repository's declarations made the plan select fewer advisors " +
			"than the shipped and user declarations alone: file, selected, without_repository, notice"}
	}
	doc := obj{"type": "object", "additionalProperties": false, "required": env["required"], "properties": props, "description": desc}
	if kind != "" { // a write concerns a task: it carries the next step
		addSuggestions(doc)
	}
	return json.Marshal(doc)
}

// outline is the output schema of a tool whose command's --json output
// publishes its schema in schemas/ (schemas.Outputs): that schema's top
// level, each property with its type. The full document is several
// kilobytes that every tools/list would carry; the schema tool gives it on
// demand.
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
		q := obj{}
		if x, ok := v.(obj)["type"]; ok {
			q["type"] = x
		}
		props[key] = q
	}
	return json.Marshal(obj{"type": "object", "required": doc["required"], "additionalProperties": doc["additionalProperties"],
		"properties":  props,
		"description": fmt.Sprintf("%v In full: the schema tool with kind %s.", doc["description"], verb)})
}

// actionDef is the schema of one tool call (Action): what
// suggested_next_tools and recovery_actions hold. Every output schema
// defines it once, as $defs/action.
var actionDef = obj{"type": "object", "additionalProperties": false, "required": []any{"tool", "arguments"},
	"properties": obj{"tool": obj{"type": "string"}, "arguments": obj{"type": "object"}}}

// noticesDef is the schema of a result's notices (the call's warnings,
// notices in server.go), present only when there are some.
var noticesDef = obj{"type": "array", "items": obj{"type": "string"}}

// allowNotices declares notices on a result's schema: on its properties,
// or on each object of its anyOf, a reference to defs resolved (the
// status tool's one task or every task).
func allowNotices(doc, defs obj) {
	if props, _ := doc["properties"].(obj); props != nil {
		props["notices"] = noticesDef
	}
	alts, _ := doc["anyOf"].([]any)
	for _, a := range alts {
		a, _ := a.(obj)
		if ref, ok := a["$ref"].(string); ok {
			a, _ = defs[strings.TrimPrefix(ref, "#/$defs/")].(obj)
		}
		if props, _ := a["properties"].(obj); props != nil {
			props["notices"] = noticesDef
		}
	}
}

// addSuggestions declares suggested_next_tools on an output schema: the
// task's next step as tool calls, present only for a host without native
// tool search.
func addSuggestions(doc obj) {
	props, _ := doc["properties"].(obj)
	if props == nil {
		props = obj{}
		doc["properties"] = props
	}
	props["suggested_next_tools"] = obj{"type": "array", "items": obj{"$ref": "#/$defs/action"}}
}

// outputSchema is a tool's output schema as tools/list carries it: its
// result, or a tool error, since a client may validate the structured
// content of every answer, errors included. Descriptions below the
// result's top level are dropped (the schema tool gives the documents in
// full), and definitions move to the root, where references of the form
// #/$defs/... resolve.
func outputSchema(output json.RawMessage) (json.RawMessage, error) {
	var ok obj
	if err := json.Unmarshal(output, &ok); err != nil {
		return nil, err
	}
	delete(ok, "$schema")
	defs, _ := ok["$defs"].(obj)
	delete(ok, "$defs")
	if defs == nil {
		defs = obj{}
	}
	undescribe(ok, true)
	for _, d := range defs {
		undescribe(d, false)
	}
	defs["action"] = actionDef
	allowNotices(ok, defs)
	codes := []any{CodeBadInput, CodeRefused, CodeUnknownTask, CodeCancelled, CodeFailed}
	errSchema := obj{"additionalProperties": false, "required": []any{"code", "message", "recovery_actions"},
		"properties": obj{
			"code":             obj{"enum": codes},
			"message":          obj{"type": "string"},
			"recovery_actions": obj{"type": "array", "items": obj{"$ref": "#/$defs/action"}},
			"notices":          noticesDef,
		}}
	return json.Marshal(obj{"type": "object", "$defs": defs, "anyOf": []any{ok, errSchema}})
}

// undescribe removes the descriptions of a schema's subschemas, and its
// own unless top; a property named "description" stays.
func undescribe(v any, top bool) {
	switch x := v.(type) {
	case obj:
		if !top {
			delete(x, "description")
		}
		for k, sub := range x {
			if k == "enum" || k == "const" || k == "default" || k == "examples" {
				continue // values, not schemas
			}
			if k == "properties" || k == "$defs" || k == "patternProperties" || k == "dependentSchemas" {
				if m, ok := sub.(obj); ok {
					for _, s := range m {
						undescribe(s, false)
					}
				}
				continue
			}
			undescribe(sub, false)
		}
	case []any:
		for _, sub := range x {
			undescribe(sub, false)
		}
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
