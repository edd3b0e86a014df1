package gitstore

import (
	"fmt"
	"strings"
)

// configEvent is a section header (name == "") or a variable of a file.
type configEvent struct {
	section, subsection, name, value string
	hasValue                         bool
	end                              int // offset just past its last line
}

func (ev configEvent) key() string {
	if ev.section == "" {
		return ev.name
	}
	if ev.subsection == "" {
		return ev.section + "." + ev.name
	}
	return ev.section + "." + ev.subsection + "." + ev.name
}

// cfgParser is a port of git's config.c parser: comments, quoting, escapes,
// line continuations, legacy [section.sub] headers and valueless variables.
type cfgParser struct {
	data []byte
	pos  int
	line int
	eof  bool
}

// parseConfig calls fn for every header and variable of data, in order. A
// valueless variable has hasValue false and value "true".
func parseConfig(data []byte, fn func(configEvent) error) error {
	p := &cfgParser{data: data, line: 1}
	if strings.HasPrefix(string(data[:min(3, len(data))]), "\xef\xbb\xbf") {
		p.pos = 3
	}
	var sec, sub string
	comment := false
	for {
		c := p.next()
		switch {
		case c == '\n' && p.eof:
			return nil
		case c == '\n':
			comment = false
		case comment || isSpace(c):
		case c == '#' || c == ';':
			comment = true
		case c == '[':
			var err error
			if sec, sub, err = p.header(); err != nil {
				return err
			}
			end := len(data)
			if i := strings.IndexByte(string(data[p.pos:]), '\n'); i >= 0 {
				end = p.pos + i + 1
			}
			if err := fn(configEvent{section: sec, subsection: sub, end: end}); err != nil {
				return err
			}
		case isAlpha(c): // git accepts a key before any section
			name, value, has, err := p.variable(c)
			if err != nil {
				return err
			}
			if !has {
				value = "true"
			}
			ev := configEvent{sec, sub, name, value, has, p.pos}
			if err := fn(ev); err != nil {
				return err
			}
		default:
			return p.bad()
		}
	}
}

func (p *cfgParser) next() byte {
	if p.pos >= len(p.data) {
		p.eof = true
		return '\n'
	}
	c := p.data[p.pos]
	p.pos++
	if c == '\r' && p.pos < len(p.data) && p.data[p.pos] == '\n' {
		c = '\n'
		p.pos++
	}
	if c == '\n' {
		p.line++
	}
	return c
}

func (p *cfgParser) bad() error { return fmt.Errorf("bad config line %d", p.line) }

func (p *cfgParser) header() (sec, sub string, err error) {
	var b []byte
	for {
		c := p.next()
		switch {
		case p.eof:
			return "", "", p.bad()
		case c == ']' && len(b) > 0:
			s := string(b)
			if i := strings.IndexByte(s, '.'); i > 0 { // legacy [section.sub]
				return s[:i], s[i+1:], nil
			}
			return s, "", nil
		case isSpace(c) && len(b) > 0:
			return p.subsection(string(b))
		case isKeyChar(c) || c == '.':
			b = append(b, lower(c))
		default:
			return "", "", p.bad()
		}
	}
}

func (p *cfgParser) subsection(sec string) (string, string, error) {
	c := p.next()
	for isSpace(c) && c != '\n' {
		c = p.next()
	}
	if c != '"' {
		return "", "", p.bad()
	}
	var b []byte
	for {
		c = p.next()
		if c == '\\' {
			c = p.next()
		} else if c == '"' {
			break
		}
		if c == '\n' {
			return "", "", p.bad()
		}
		b = append(b, c)
	}
	if p.next() != ']' {
		return "", "", p.bad()
	}
	return sec, string(b), nil
}

func (p *cfgParser) variable(first byte) (name, value string, hasValue bool, err error) {
	b := []byte{lower(first)}
	c := p.next()
	for !p.eof && isKeyChar(c) {
		b = append(b, lower(c))
		c = p.next()
	}
	for c == ' ' || c == '\t' {
		c = p.next()
	}
	if c == '\n' {
		return string(b), "", false, nil
	}
	if c != '=' {
		return "", "", false, p.bad()
	}
	value, err = p.value()
	return string(b), value, true, err
}

func (p *cfgParser) value() (string, error) {
	var b []byte
	quote, comment, space := false, false, 0
	for {
		c := p.next()
		switch {
		case c == '\n':
			if quote {
				return "", p.bad()
			}
			return string(b), nil
		case comment:
			continue
		case isSpace(c) && !quote:
			if len(b) > 0 {
				space++
			}
			continue
		case !quote && (c == ';' || c == '#'):
			comment = true
			continue
		}
		for ; space > 0; space-- {
			b = append(b, ' ')
		}
		switch c {
		case '"':
			quote = !quote
			continue
		case '\\':
			switch c = p.next(); c {
			case '\n':
				continue
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'n':
				c = '\n'
			case '\\', '"':
			default:
				return "", p.bad()
			}
		}
		b = append(b, c)
	}
}

func isSpace(c byte) bool   { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func isAlpha(c byte) bool   { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isKeyChar(c byte) bool { return isAlpha(c) || '0' <= c && c <= '9' || c == '-' }

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c | 0x20
	}
	return c
}
