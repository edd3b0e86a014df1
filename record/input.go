package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// MaxBodyBytes is the largest body accepted, in bytes of JSON.
const MaxBodyBytes = 64 << 10

// bodyDecodes counts the bodies decodeBody has parsed, so that a test can
// hold the write path to one parse per write.
var bodyDecodes atomic.Int64

// decodeBody parses a caller's body: one JSON object of at most
// MaxBodyBytes, valid UTF-8, with no control character (C0, C1, DEL, CR)
// and no bidirectional override in any key or string, newline and tab
// allowed only in texts of many lines (not in shortFields).
func decodeBody(kind Kind, raw []byte) (map[string]any, error) {
	if len(raw) > MaxBodyBytes {
		return nil, badInput(fmt.Sprintf("%s body is %d bytes; the limit is %d", kind, len(raw), MaxBodyBytes))
	}
	if !utf8.Valid(raw) {
		return nil, badInput(fmt.Sprintf("%s body is not valid UTF-8", kind))
	}
	if at, ok := TooDeep(raw); ok {
		// Said on one line, as the body's other bad input is.
		return nil, badInput(fmt.Sprintf("%s body at %s: %s", kind, at, tooDeepMessage))
	}
	bodyDecodes.Add(1)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, badInput(notJSON(kind, raw, err))
	}
	if dec.More() {
		return nil, badInput(fmt.Sprintf("%s body has data after the JSON object", kind))
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, badInput(fmt.Sprintf("%s body must be a JSON object", kind))
	}
	if p, r, ok := findControl(m, ""); ok {
		return nil, badInput(fmt.Sprintf("%s body has %s at %s", kind, describeRune(r), Printable(p)))
	}
	return m, nil
}

// notJSON says, in the terms of the file a person wrote, why raw does not
// parse: where (line and column) and what was expected there, never the
// decoder's own words ("invalid character 's' looking for beginning of
// object key string", "unexpected EOF", a bare "EOF" for an empty body).
func notJSON(kind Kind, raw []byte, err error) string {
	text := bytes.TrimSpace(raw)
	switch {
	case len(text) == 0:
		return fmt.Sprintf("%s body is empty: give one JSON object (see 'git reason schema %s')", kind, kind)
	case bytes.HasPrefix(raw, []byte("\uFEFF")):
		return fmt.Sprintf("%s body starts with a byte order mark: save it as UTF-8 without one", kind)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("%s body is not valid JSON: it ends before its object does (a '}', ']' or '\"' is missing)", kind)
	}
	var syntax *json.SyntaxError
	if !errors.As(err, &syntax) || syntax.Offset < 1 || syntax.Offset > int64(len(raw)) {
		return fmt.Sprintf("%s body is not valid JSON", kind)
	}
	at := int(syntax.Offset) - 1 // the byte the decoder stopped at
	r, _ := utf8.DecodeRune(raw[at:])
	line := 1 + bytes.Count(raw[:at], []byte("\n"))
	column := 1 + utf8.RuneCount(raw[bytes.LastIndexByte(raw[:at], '\n')+1:at])
	where := fmt.Sprintf("%s body is not valid JSON: line %d, column %d:", kind, line, column)
	found := strconv.QuoteRune(r)
	msg := syntax.Error()
	switch {
	case at == len(raw)-len(bytes.TrimLeft(raw, " \t\r\n")):
		return fmt.Sprintf("%s found %s: a body is one JSON object, starting with '{' (YAML is not read)", where, found)
	case strings.HasSuffix(msg, "looking for beginning of object key string") && r == '}':
		return fmt.Sprintf("%s expected a field name in double quotes, found '}' (a comma after the last field?)", where)
	case strings.HasSuffix(msg, "in string literal"):
		return fmt.Sprintf("%s found %s inside a string: write a control character escaped (\\n, \\t, \\u0007)", where, found)
	}
	expected := ""
	for _, c := range []struct{ suffix, expected string }{
		{"looking for beginning of object key string", "a field name in double quotes"},
		{"looking for beginning of value", "a value (a string in double quotes, a number, true, false, null, [ or {)"},
		{"after object key", "':' after the field name"},
		{"after object key:value pair", "',' or '}' after the field's value"},
		{"after array element", "',' or ']' after the list's element"},
		{"in string escape code", "an escape of \\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\u"},
		{"in \\u hexadecimal character escape", "four hexadecimal digits after \\u"},
		{"numeric literal", "a number"},
		{")", "true, false or null"}, // "in literal true (expecting 'r')"
	} {
		if strings.HasSuffix(msg, c.suffix) {
			expected = c.expected
			break
		}
	}
	if expected == "" {
		return fmt.Sprintf("%s unexpected %s", where, found)
	}
	return fmt.Sprintf("%s expected %s, found %s", where, expected, found)
}

// shortFields are the body fields that are one line of text: a newline or
// tab there would let a record forge a line of 'status' or 'log'.
var shortFields = map[string]bool{"subject": true, "decision": true, "ref": true, "item": true}

// findControl returns the JSON pointer of the first key or string holding a
// character the writer refuses (see decodeBody), and that character.
func findControl(v any, at string) (string, rune, bool) {
	switch x := v.(type) {
	case string:
		if r, ok := refused(x, shortFields[at[strings.LastIndexByte(at, '/')+1:]]); ok {
			return at, r, true
		}
	case map[string]any:
		for k, e := range x {
			p := at + "/" + k
			if r, ok := refused(k, true); ok {
				return p, r, true
			}
			if q, r, ok := findControl(e, p); ok {
				return q, r, true
			}
		}
	case []any:
		for i, e := range x {
			if q, r, ok := findControl(e, fmt.Sprintf("%s/%d", at, i)); ok {
				return q, r, true
			}
		}
	}
	return "", 0, false
}

// refused returns the first character of s the writer refuses: a control
// character other than newline and tab (those too when short), or a
// bidirectional override.
func refused(s string, short bool) (rune, bool) {
	for _, r := range s {
		switch {
		case (r == '\n' || r == '\t') && !short:
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f, bidiControl(r):
			return r, true
		}
	}
	return 0, false
}

// describeRune names a refused character for an error message.
func describeRune(r rune) string {
	switch {
	case r == '\r':
		return "a carriage return"
	case r == '\n' || r == '\t':
		return "a line break or tab in a one-line field"
	case bidiControl(r):
		return fmt.Sprintf("a bidirectional override (U+%04X)", r)
	}
	return "a control character"
}

// MinPrefix is the shortest id prefix commands accept.
const MinPrefix = 6

// idDigits are the characters of a record id, a ULID: Crockford's base32.
const idDigits = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// CheckIDPrefix refuses, as bad input, an id (in either case) no record's id
// can begin with: one with a character no id has, or one shorter than
// MinPrefix, which may name too many.
func CheckIDPrefix(id string) error {
	trimmed := strings.TrimSpace(id)
	if i := strings.IndexFunc(trimmed, func(r rune) bool { return !strings.ContainsRune(idDigits, unicode.ToUpper(r)) }); i >= 0 {
		r, _ := utf8.DecodeRuneInString(trimmed[i:])
		return badInput(fmt.Sprintf("record id %q has %q, which no record id has: ids are 26 digits and letters, 0-9 and A-Z but I, L, O and U", id, r))
	}
	if len(trimmed) < MinPrefix {
		return badInput(fmt.Sprintf("record id %q is too short: give at least %d characters", id, MinPrefix))
	}
	return nil
}

// Resolve returns the full id of the record of the task that id names:
// the full id or a unique prefix of at least MinPrefix characters.
func (s *State) Resolve(id string) (*Entry, error) {
	if err := CheckIDPrefix(id); err != nil {
		return nil, err
	}
	id = strings.ToUpper(strings.TrimSpace(id))
	if e := s.Find(id); e != nil {
		return e, nil
	}
	var matches []*Entry
	for _, e := range slices.Concat(s.Entries, s.Refused) {
		if strings.HasPrefix(e.ID, id) {
			matches = append(matches, e)
		}
	}
	if len(matches) > 1 {
		return nil, &ambiguousError{fmt.Sprintf("record id prefix %q is ambiguous in task %s: it names %d records, %s; give more characters", id, s.Task, len(matches), candidates(matches))}
	}
	if len(matches) == 0 {
		return nil, badInputAdvised(fmt.Sprintf("no record %q in task %s", id, s.Task),
			fmt.Sprintf(" (see 'git reason log %s')", s.Task), fmt.Sprintf(" (the log tool lists them, given task %q)", s.Task))
	}
	return s.ready(matches[0]), nil
}

// maxCandidates is how many of the records an ambiguous prefix names are
// listed.
const maxCandidates = 5

// candidates lists the records an ambiguous prefix names, in the task's
// order, each with its kind and cut to one width: the shortest, of at
// least IDPrefix characters, at which every one differs from the others
// ("01M8ZTWNBF (assessment), 01M8ZTWND2 (plan) and 3 more"). The width
// comes from neighbours in id order, so a prefix matching thousands of
// records costs a sort, not every pair.
func candidates(es []*Entry) string {
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	slices.Sort(ids)
	n := IDPrefix
	for i := 1; i < len(ids); i++ {
		a, b := ids[i-1], ids[i]
		common := 0
		for common < len(a) && common < len(b) && a[common] == b[common] {
			common++
		}
		n = max(n, min(common+1, len(a)))
	}
	var parts []string
	for _, e := range es[:min(len(es), maxCandidates)] {
		parts = append(parts, fmt.Sprintf("%s (%s)", e.ID[:min(n, len(e.ID))], e.Kind))
	}
	if more := len(es) - len(parts); more > 0 {
		return strings.Join(parts, ", ") + fmt.Sprintf(" and %d more", more)
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// IDError is a body's id field that names no record of its task, or too
// short or ambiguous a prefix: Field is where it is in the body
// ("weighed/0/consultation"), so that a surface can name what the user
// gave it instead; Err says what is wrong and is what the error is.
type IDError struct {
	Field string
	Err   error
}

func (e *IDError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *IDError) Unwrap() error { return e.Err }

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
				return &IDError{Field: top, Err: err}
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
						return &IDError{Field: fmt.Sprintf("%s/%d/%s", top, i, sub), Err: err}
					}
					obj[sub] = e.ID
					continue
				}
				if s, ok := item.(string); ok {
					e, err := st.Resolve(s)
					if err != nil {
						return &IDError{Field: fmt.Sprintf("%s/%d", top, i), Err: err}
					}
					v[i] = e.ID
				}
			}
		}
	}
	return nil
}

// Printable is the one filter every text from a record, a ref name or a
// tree entry passes before a terminal sees it: it escapes what a terminal
// would act on or that would make text read other than it is written
// (control characters C0 and C1 with ESC, CR, newline and tab, DEL,
// bidirectional overrides and isolates, and every other character that is
// not printable) as Go escape sequences (\x1b, \r, \u202e), so that a
// line shown stays one honest line.
func Printable(s string) string { return printable(s, false) }

// maxShownName is how many bytes of a name PrintableName quotes.
const maxShownName = 200

// PrintableName is Printable of a name from elsewhere that a finding or a
// warning quotes (a fetched tree entry's), bounded: past 200 bytes, its
// first 200 (whole characters), then "… (N bytes)". git admits a name of
// 60,000 bytes, and every line that quoted one whole, in text and in
// --json alike, was as long.
func PrintableName(s string) string {
	if len(s) <= maxShownName {
		return Printable(s)
	}
	cut := maxShownName
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return Printable(s[:cut]) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// PrintableText is Printable for text of many lines: newline and tab are
// kept, everything else Printable escapes is escaped.
func PrintableText(s string) string { return printable(s, true) }

// TextPrintable reports whether PrintableText leaves b as it is, without
// making a string of it.
func TextPrintable(b []byte) bool {
	// Printable ASCII, newlines and tabs, byte by byte (a table of every
	// task is mostly that); from the first other byte on, rune by rune.
	for i, c := range b {
		if c >= utf8.RuneSelf {
			b = b[i:]
			return utf8.Valid(b) && bytes.IndexFunc(b, func(r rune) bool { return badText(r, true) }) < 0
		}
		if (c < ' ' || c == 0x7f) && c != '\n' && c != '\t' {
			return false
		}
	}
	return true
}

// badText reports whether printable escapes r (lines: in text of many lines).
func badText(r rune, lines bool) bool { return unprintable(r) && !(lines && (r == '\n' || r == '\t')) }

func printable(s string, lines bool) string {
	bad := func(r rune) bool { return badText(r, lines) }
	if utf8.ValidString(s) && !strings.ContainsFunc(s, bad) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if r == utf8.RuneError && !strings.HasPrefix(s[i:], string(utf8.RuneError)) {
			// A byte that is no UTF-8 (0x9b is CSI to a terminal that
			// reads 8-bit controls) is said as its escape.
			fmt.Fprintf(&b, `\x%02x`, s[i])
			continue
		}
		if !bad(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRune(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

// unprintable reports whether r is anything but a printable character or
// a space. Bidirectional controls are format characters, so they are
// unprintable too.
func unprintable(r rune) bool { return r != ' ' && !unicode.IsPrint(r) }

// Unprintable reports whether Printable escapes r.
func Unprintable(r rune) bool { return unprintable(r) }

// bidiControl reports whether r reorders the text around it: the
// embeddings, overrides and isolates of Unicode's bidirectional algorithm.
func bidiControl(r rune) bool { return (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) }

// CheckFields holds fields, some of a body of kind a caller is about to
// write (those a command line gave, before the rest is known), to what the
// writer holds the whole body to: the checks of decodeBody and the
// violations of the kind's body and input documents that lie inside one of
// them. A field that holds record ids (idFields) is left out: a prefix
// given there is resolved against the task's records first. A command
// refuses such a value before it reads or writes anything (nil: none of
// these fields would be refused by the writer for its value).
func CheckFields(kind Kind, fields map[string]any) error {
	checked := map[string]any{}
	for k, v := range fields {
		if !slices.ContainsFunc(idFields[kind], func(f string) bool { return k == f || strings.HasPrefix(f, k+".") }) {
			checked[k] = v
		}
	}
	if len(checked) == 0 || newBody(kind) == nil {
		return nil
	}
	raw, err := json.Marshal(checked)
	if err != nil {
		return err
	}
	m, err := decodeBody(kind, raw)
	if err != nil {
		return err
	}
	var se *SchemaError
	if err := validateNew(kind, m); !errors.As(err, &se) {
		return err
	}
	inside := &SchemaError{Kind: se.Kind, Part: se.Part}
	for _, v := range se.Violations {
		top, _, _ := strings.Cut(strings.TrimPrefix(v.Pointer, "/"), "/")
		if _, ok := checked[top]; ok && strings.HasPrefix(v.Pointer, "/") {
			inside.Violations = append(inside.Violations, v)
		}
	}
	if len(inside.Violations) == 0 {
		return nil
	}
	return inside
}
