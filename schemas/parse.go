package schemas

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// decodeDoc decodes a schema document as encoding/json's Decoder does
// with UseNumber (objects as map[string]any, arrays as []any, numbers as
// json.Number; the first value only). Every command compiles the schemas
// it validates against, and encoding/json's generic decoding was half of
// that: decodeDoc reads the plain forms every document uses itself, and
// hands a document holding anything else (an escape, invalid UTF-8, deep
// nesting, a syntax error) to encoding/json, so that the value, and the
// error, are always encoding/json's.
func decodeDoc(data []byte) (any, error) {
	p := docParser{data: data}
	if v, ok := p.value(0); ok {
		return v, nil
	}
	var doc any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// docParser reads one JSON value from data; ok false means "not a form
// it reads", never a verdict on the document.
type docParser struct {
	data []byte
	i    int
}

// maxDocDepth bounds nesting; deeper documents go to encoding/json, which
// has its own limit.
const maxDocDepth = 100

func (p *docParser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *docParser) value(depth int) (any, bool) {
	p.space()
	if p.i >= len(p.data) || depth > maxDocDepth {
		return nil, false
	}
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.str()
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	}
	for _, lit := range [...]struct {
		word string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if bytes.HasPrefix(p.data[p.i:], []byte(lit.word)) {
			p.i += len(lit.word)
			return lit.v, true
		}
	}
	return nil, false
}

func (p *docParser) object(depth int) (any, bool) {
	p.i++ // {
	m := map[string]any{}
	p.space()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		return m, true
	}
	for {
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			return nil, false
		}
		k, ok := p.str()
		if !ok {
			return nil, false
		}
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return nil, false
		}
		p.i++
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		m[k.(string)] = v // a repeated name: the last wins, as in encoding/json
		p.space()
		if p.i >= len(p.data) {
			return nil, false
		}
		switch p.data[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return m, true
		default:
			return nil, false
		}
	}
}

func (p *docParser) array(depth int) (any, bool) {
	p.i++ // [
	a := []any{}
	p.space()
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		return a, true
	}
	for {
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		p.space()
		if p.i >= len(p.data) {
			return nil, false
		}
		switch p.data[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return a, true
		default:
			return nil, false
		}
	}
}

// str reads a string in valid UTF-8 without control characters, whose
// escapes are the one-letter ones (\uXXXX is left to encoding/json).
func (p *docParser) str() (any, bool) {
	start := p.i + 1
	var buf []byte // the string unescaped, once it holds an escape
	from := start  // what is not yet copied to buf
	for j := start; j < len(p.data); j++ {
		switch c := p.data[j]; {
		case c == '"':
			s := p.data[start:j]
			if buf != nil {
				s = append(buf, p.data[from:j]...)
			}
			if !utf8.Valid(s) {
				return nil, false
			}
			p.i = j + 1
			return string(s), true
		case c < 0x20:
			return nil, false
		case c == '\\':
			if j+1 >= len(p.data) {
				return nil, false
			}
			r := escaped(p.data[j+1])
			if r == 0 {
				return nil, false
			}
			buf = append(append(buf, p.data[from:j]...), r)
			j++
			from = j + 1
		}
	}
	return nil, false
}

// escaped returns the byte a one-letter escape of JSON stands for, 0 for
// any other.
func escaped(c byte) byte {
	switch c {
	case '"', '\\', '/':
		return c
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return 0
}

// number reads a number in JSON's grammar, kept as its text.
func (p *docParser) number() (any, bool) {
	d, i := p.data, p.i
	digits := func() bool {
		j := i
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(d) && d[i] == '-' {
		i++
	}
	if i < len(d) && d[i] == '0' {
		i++
	} else if !digits() {
		return nil, false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if !digits() {
			return nil, false
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if !digits() {
			return nil, false
		}
	}
	n := json.Number(d[p.i:i])
	p.i = i
	return n, true
}
