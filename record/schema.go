package record

import (
	"encoding/json"
	"fmt"
	"strings"

	"git-reason/schemas"
)

// SchemaDocument returns the raw embedded schema of a kind's part ("body",
// "derived") or of the envelope (kind "record", part "envelope").
func SchemaDocument(kind Kind, part string) (json.RawMessage, error) {
	name := string(kind) + "." + part + ".json"
	if part == "envelope" {
		name = "envelope.json"
	}
	data, err := schemas.FS.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read schema %s: %w", name, err)
	}
	return data, nil
}

// validate checks v (as decoded by encoding/json with UseNumber) against
// the schema document name and returns every violation, not just the first.
func validate(kind Kind, part string, v any) error {
	name := string(kind) + "." + part + ".json"
	if part == "envelope" {
		name = "envelope.json"
	}
	s, err := schemas.Compile(name)
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

// flatten turns the library's violations, in its deterministic order, into
// the record's, without repeats.
func flatten(leaves []*schemas.ValidationError) []Violation {
	var out []Violation
	seen := map[string]bool{}
	for _, e := range leaves {
		v := Violation{Pointer: e.InstanceLocation, Message: tidy(e.Message)}
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
