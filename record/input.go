package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxBodyBytes is the largest body accepted, in bytes of JSON.
const MaxBodyBytes = 64 << 10

// decodeBody parses a caller's body: one JSON object of at most
// MaxBodyBytes, valid UTF-8, with no control characters other than tab,
// newline and carriage return in any key or string.
func decodeBody(kind Kind, raw []byte) (map[string]any, error) {
	if len(raw) > MaxBodyBytes {
		return nil, badInput(fmt.Sprintf("%s body is %d bytes; the limit is %d", kind, len(raw), MaxBodyBytes))
	}
	if !utf8.Valid(raw) {
		return nil, badInput(fmt.Sprintf("%s body is not valid UTF-8", kind))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, badInput(fmt.Sprintf("%s body is not valid JSON: %v", kind, err))
	}
	if dec.More() {
		return nil, badInput(fmt.Sprintf("%s body has data after the JSON object", kind))
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, badInput(fmt.Sprintf("%s body must be a JSON object", kind))
	}
	if p, ok := findControl(m, ""); ok {
		return nil, badInput(fmt.Sprintf("%s body has a control character at %s", kind, Printable(p)))
	}
	return m, nil
}

// findControl returns the JSON pointer of the first key or string holding a
// control character other than tab, newline or carriage return.
func findControl(v any, at string) (string, bool) {
	switch x := v.(type) {
	case string:
		if hasControl(x) {
			return at, true
		}
	case map[string]any:
		for k, e := range x {
			p := at + "/" + k
			if hasControl(k) {
				return p, true
			}
			if q, ok := findControl(e, p); ok {
				return q, true
			}
		}
	case []any:
		for i, e := range x {
			if q, ok := findControl(e, fmt.Sprintf("%s/%d", at, i)); ok {
				return q, true
			}
		}
	}
	return "", false
}

func hasControl(s string) bool {
	for _, r := range s {
		if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7f {
			return true
		}
	}
	return false
}

// MinPrefix is the shortest id prefix commands accept.
const MinPrefix = 6

// Resolve returns the full id of the record of the task that id names:
// the full id or a unique prefix of at least MinPrefix characters.
func (s *State) Resolve(id string) (*Entry, error) {
	id = strings.ToUpper(strings.TrimSpace(id))
	if e, ok := s.byID[id]; ok {
		return e, nil
	}
	if len(id) < MinPrefix {
		return nil, badInput(fmt.Sprintf("record id %q is too short: give at least %d characters", id, MinPrefix))
	}
	var found *Entry
	for _, e := range s.Entries {
		if strings.HasPrefix(e.ID, id) {
			if found != nil {
				return nil, badInput(fmt.Sprintf("record id prefix %q is ambiguous in task %s: give more characters", id, s.Task))
			}
			found = e
		}
	}
	if found == nil {
		return nil, badInput(fmt.Sprintf("no record %q in task %s (see 'git reason log %s')", id, s.Task, s.Task))
	}
	return found, nil
}

// resolveIDs replaces id prefixes in the body's id fields by full ids of
// records in the task. Values that are not strings are left for the schema
// to reject.
func resolveIDs(kind Kind, m map[string]any, st *State) error {
	for _, field := range idFields[kind] {
		top, sub, nested := strings.Cut(field, ".")
		switch v := m[top].(type) {
		case string:
			if nested {
				continue
			}
			e, err := st.Resolve(v)
			if err != nil {
				return fmt.Errorf("%s: %w", top, err)
			}
			m[top] = e.ID
		case []any:
			for i, item := range v {
				if nested {
					obj, ok := item.(map[string]any)
					if !ok {
						continue
					}
					s, ok := obj[sub].(string)
					if !ok {
						continue
					}
					e, err := st.Resolve(s)
					if err != nil {
						return fmt.Errorf("%s/%d/%s: %w", top, i, sub, err)
					}
					obj[sub] = e.ID
					continue
				}
				if s, ok := item.(string); ok {
					e, err := st.Resolve(s)
					if err != nil {
						return fmt.Errorf("%s/%d: %w", top, i, err)
					}
					v[i] = e.ID
				}
			}
		}
	}
	return nil
}

// Printable escapes what a terminal would act on (control characters, and
// escape sequences with them) in text taken from input, so that an error
// quoting it stays one honest line.
func Printable(s string) string {
	if !strings.ContainsFunc(s, unprintable) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unprintable(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func unprintable(r rune) bool { return r != ' ' && !unicode.IsPrint(r) }
