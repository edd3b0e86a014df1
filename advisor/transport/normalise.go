package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"git-reason/record"
)

// Limits of the consultation record's conclusion.
const (
	maxSummary = 4000
	maxItem    = 2000
	maxItems   = 50
	// maxCandidates bounds how many opening braces are tried (see
	// eachObject). An answer asked for "only JSON" rarely has more than a
	// handful of braces before it.
	maxCandidates = 256
)

// Normalise reads the conclusion out of an advisor's raw output. It accepts
// the JSON object alone, inside prose, or inside a ``` or ```json fence: it
// takes the first JSON object in the text that parses and carries a valid
// stance (matched without regard to case or surrounding space), and then
// checks that object against the record's limits. Nothing is clamped or cut:
// a confidence outside 0..1, a blank summary or an overlong item makes the
// answer malformed. Blank output is an [Empty] failure, anything else that
// does not yield a conclusion a [Malformed] one. Errors never quote the
// output.
//
// The result is the consultation record's own conclusion type, with the
// record schema's limits, so an answer Normalise returns is one the writer
// admits.
func Normalise(output string) (record.Answer, error) {
	if strings.TrimSpace(output) == "" {
		return record.Answer{}, failf(Empty, "the answer is blank")
	}
	obj, ok := firstStanceObject(output)
	if !ok {
		return record.Answer{}, failf(Malformed, "no JSON object with a valid stance in the answer")
	}
	c, err := decodeConclusion(obj)
	if err != nil {
		return record.Answer{}, failf(Malformed, "the answer's conclusion %v", err)
	}
	return c, nil
}

// firstStanceObject returns the first JSON object in s that parses and has
// a valid stance.
func firstStanceObject(s string) (map[string]json.RawMessage, bool) {
	var found map[string]json.RawMessage
	eachObject(s, func(obj map[string]json.RawMessage) bool {
		var stance string
		if json.Unmarshal(obj["stance"], &stance) == nil && validStance(stance) != "" {
			found = obj
			return true
		}
		return false
	})
	return found, found != nil
}

// eachObject calls yield with each JSON object that starts at an opening
// brace of s, in order, until yield returns true. Each try may read to the
// end of s (an unterminated object reads everything after it), so the tries
// are bounded in number and in bytes read: at most maxCandidates braces and
// about scanFactor times the length of s, which keeps 1 MiB of adversarial
// nesting to milliseconds. It returns that work: the braces tried and the
// bytes read.
func eachObject(s string, yield func(map[string]json.RawMessage) bool) (tried int, read int64) {
	budget := int64(scanFactor*len(s) + 64<<10)
	for i := 0; i < len(s) && tried < maxCandidates && read < budget; i++ {
		j := strings.IndexByte(s[i:], '{')
		if j < 0 {
			return tried, read
		}
		i += j
		tried++
		r := &countingReader{r: strings.NewReader(s[i:])}
		var obj map[string]json.RawMessage
		err := json.NewDecoder(r).Decode(&obj)
		read += r.n
		if err == nil && yield(obj) {
			return tried, read
		}
	}
	return tried, read
}

// scanFactor is how many times its length eachObject may read of s.
const scanFactor = 4

type countingReader struct {
	r *strings.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func validStance(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, v := range Stances() {
		if s == v {
			return v
		}
	}
	return ""
}

// decodeConclusion checks every field of a stance-bearing object. Errors
// read as the end of "the answer's conclusion ...".
func decodeConclusion(obj map[string]json.RawMessage) (record.Answer, error) {
	var c record.Answer
	var stance string
	_ = json.Unmarshal(obj["stance"], &stance) // checked by the caller
	c.Stance = validStance(stance)

	if err := strictString(obj["summary"], &c.Summary); err != nil {
		return c, fmt.Errorf("has %w summary", err)
	}
	c.Summary = strings.TrimSpace(c.Summary)
	if c.Summary == "" {
		return c, fmt.Errorf("has no summary")
	}
	if n := utf8.RuneCountInString(c.Summary); n > maxSummary {
		return c, fmt.Errorf("summary is %d characters, more than %d", n, maxSummary)
	}
	var err error
	if c.Recommendations, err = stringList(obj["recommendations"], "recommendations"); err != nil {
		return c, err
	}
	if c.Risks, err = stringList(obj["risks"], "risks"); err != nil {
		return c, err
	}
	raw, ok := obj["confidence"]
	if !ok || isNull(raw) {
		return c, fmt.Errorf("has no confidence")
	}
	if err := json.Unmarshal(raw, &c.Confidence); err != nil {
		return c, fmt.Errorf("confidence is not a number")
	}
	if c.Confidence < 0 || c.Confidence > 1 {
		return c, fmt.Errorf("confidence %g is outside 0..1", c.Confidence)
	}
	// What the writer would refuse is malformed here, so that an answer is
	// never accepted and then lost: no control characters but tab and
	// newline, and a conclusion well inside the writer's body limit.
	for _, s := range append(append([]string{c.Summary}, c.Recommendations...), c.Risks...) {
		if i := strings.IndexFunc(s, isControl); i >= 0 {
			return c, fmt.Errorf("has a control character (%U)", []rune(s[i:])[0])
		}
	}
	if size := len(c.Summary) + textSize(c.Recommendations) + textSize(c.Risks); size > maxConclusionBytes {
		return c, fmt.Errorf("is %d bytes of text, more than %d", size, maxConclusionBytes)
	}
	return c, nil
}

// maxConclusionBytes bounds the text of a conclusion, well inside the
// writer's 64 KiB limit on a whole consultation body.
const maxConclusionBytes = 48 << 10

func isControl(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7f
}

func textSize(xs []string) int {
	n := 0
	for _, x := range xs {
		n += len(x) + 8 // quotes, comma and escapes, roughly
	}
	return n
}

// strictString decodes a JSON string; a missing or null field is "".
func strictString(raw json.RawMessage, into *string) error {
	if raw == nil || isNull(raw) {
		return nil
	}
	if json.Unmarshal(raw, into) != nil {
		return fmt.Errorf("a non-string")
	}
	return nil
}

// stringList decodes an optional list of non-blank strings within the
// record's limits. A missing or null list is an empty one.
func stringList(raw json.RawMessage, field string) ([]string, error) {
	out := []string{}
	if raw == nil || isNull(raw) {
		return out, nil
	}
	if json.Unmarshal(raw, &out) != nil {
		return nil, fmt.Errorf("%s is not a list of strings", field)
	}
	if len(out) > maxItems {
		return nil, fmt.Errorf("has %d %s, more than %d", len(out), field, maxItems)
	}
	for i, s := range out {
		out[i] = strings.TrimSpace(s)
		if out[i] == "" {
			return nil, fmt.Errorf("has a blank item in %s", field)
		}
		if n := utf8.RuneCountInString(out[i]); n > maxItem {
			return nil, fmt.Errorf("has an item of %d characters in %s, more than %d", n, field, maxItem)
		}
	}
	return out, nil
}

func isNull(raw json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}
