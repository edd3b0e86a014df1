package settings

import (
	"bytes"
	"strings"
)

// rawVar is one variable of a config file as git's parser hands it on:
// the full name (section lowercased, subsection as written, variable
// lowercased) and the value, hasValue false for a variable written
// without "=".
type rawVar struct {
	key      string
	value    string
	hasValue bool
}

// parseConfig reads a config file as git's parser (config.c,
// git_parse_source) does: section headers [section], [section "sub"] with
// \-escapes, the legacy [section.sub], a header followed by a variable on
// the same line, values with "…" quoting, \t \n \b \\ \" escapes and
// backslash-newline continuation, whitespace inside a value kept as that
// many spaces, comments from # or ; outside quotes, CRLF line ends and a
// leading UTF-8 byte-order mark. ok is false for anything git would refuse
// (git then says where) and for the few forms whose meaning this reader
// does not pin down: a NUL byte, a variable before any section header, a
// partial byte-order mark, an empty or odd section name.
func parseConfig(data []byte) (vars []rawVar, ok bool) {
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, false
	}
	if rest, found := bytes.CutPrefix(data, []byte("\xef\xbb\xbf")); found {
		data = rest
	} else if len(data) > 0 && data[0] == 0xef {
		return nil, false
	}
	p := &cfgParser{data: data}
	section := "" // "section." or "section.sub." once a header was read
	for {
		c := p.next()
		switch {
		case c == '\n':
			if p.eof {
				return vars, true
			}
		case isSpace(c):
		case c == '#' || c == ';':
			p.skipLine()
			if p.eof {
				return vars, true
			}
		case c == '[':
			name, ok := p.sectionHeader()
			if !ok {
				return nil, false
			}
			section = name + "."
		case isAlpha(c):
			if section == "" {
				return nil, false
			}
			v, ok := p.variable(section, c)
			if !ok {
				return nil, false
			}
			vars = append(vars, v)
		default:
			return nil, false
		}
	}
}

type cfgParser struct {
	data []byte
	pos  int
	eof  bool
}

// next returns the next character, "\r\n" as '\n', and '\n' at the end
// (setting eof), as git's get_next_char does.
func (p *cfgParser) next() byte {
	if p.pos >= len(p.data) {
		p.eof = true
		return '\n'
	}
	c := p.data[p.pos]
	p.pos++
	if c == '\r' && p.pos < len(p.data) && p.data[p.pos] == '\n' {
		p.pos++
		return '\n'
	}
	return c
}

// skipLine consumes a comment up to and including its line end.
func (p *cfgParser) skipLine() {
	for {
		if c := p.next(); c == '\n' {
			return
		}
	}
}

// sectionHeader reads what follows "[": "name]" or "name \"sub\"]". The
// name is lowercased; a subsection keeps its case.
func (p *cfgParser) sectionHeader() (string, bool) {
	var name strings.Builder
	for {
		c := p.next()
		if p.eof {
			return "", false
		}
		switch {
		case c == ']':
			n := name.String()
			if n == "" || strings.HasPrefix(n, ".") || strings.HasSuffix(n, ".") || strings.Contains(n, "..") {
				return "", false
			}
			return n, true
		case isSpace(c):
			base := name.String()
			if base == "" || strings.Contains(base, ".") {
				return "", false
			}
			return p.subsection(base, c)
		case isKeyChar(c) || c == '.':
			name.WriteByte(lower(c))
		default:
			return "", false
		}
	}
}

// subsection reads ` "sub"]` after a section name, c being the first
// whitespace character.
func (p *cfgParser) subsection(base string, c byte) (string, bool) {
	for isSpace(c) {
		if c == '\n' {
			return "", false
		}
		c = p.next()
	}
	if c != '"' {
		return "", false
	}
	var sub strings.Builder
	for {
		c := p.next()
		if c == '\n' {
			return "", false
		}
		if c == '"' {
			break
		}
		if c == '\\' {
			if c = p.next(); c == '\n' {
				return "", false
			}
		}
		sub.WriteByte(c)
	}
	if p.next() != ']' {
		return "", false
	}
	return base + "." + sub.String(), true
}

// variable reads a variable whose name starts with first, and its value.
func (p *cfgParser) variable(section string, first byte) (rawVar, bool) {
	var name strings.Builder
	name.WriteString(section)
	name.WriteByte(lower(first))
	var c byte
	for {
		c = p.next()
		if p.eof || !isKeyChar(c) {
			break
		}
		name.WriteByte(lower(c))
	}
	for c == ' ' || c == '\t' {
		c = p.next()
	}
	if c == '\n' {
		return rawVar{key: name.String()}, true
	}
	if c != '=' {
		return rawVar{}, false
	}
	v, ok := p.value()
	return rawVar{key: name.String(), value: v, hasValue: true}, ok
}

// value reads a value up to its line end, as git's parse_value does.
func (p *cfgParser) value() (string, bool) {
	var b []byte
	quote, space := false, 0
	for {
		c := p.next()
		if c == '\n' {
			if quote {
				return "", false
			}
			return string(b), true
		}
		if isSpace(c) && !quote {
			if len(b) > 0 {
				space++
			}
			continue
		}
		if !quote && (c == ';' || c == '#') {
			p.skipLine()
			return string(b), true
		}
		for ; space > 0; space-- {
			b = append(b, ' ')
		}
		switch c {
		case '\\':
			switch c = p.next(); c {
			case '\n':
				if p.eof {
					// git's reader then sees the end again and
					// ends the value there.
					if quote {
						return "", false
					}
					return string(b), true
				}
				continue
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'n':
				c = '\n'
			case '\\', '"':
			default:
				return "", false
			}
			b = append(b, c)
		case '"':
			quote = !quote
		default:
			b = append(b, c)
		}
	}
}

// isSpace is git's isspace (its own ctype table): space, tab, line feed
// and carriage return; not vertical tab or form feed.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isKeyChar(c byte) bool { return isAlpha(c) || '0' <= c && c <= '9' || c == '-' }

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// canonicalKey validates and canonicalises a key given on the command line
// as git's git_config_parse_key does: section and variable lowercased,
// subsection as given; ok is false where git refuses the key.
func canonicalKey(key string) (string, bool) {
	last := strings.LastIndexByte(key, '.')
	if last <= 0 || last == len(key)-1 {
		return "", false
	}
	first := strings.IndexByte(key, '.')
	b := []byte(key)
	for i := 0; i < len(b); i++ {
		c := b[i]
		if i < first || i > last {
			if !isKeyChar(c) || i == last+1 && !isAlpha(c) {
				return "", false
			}
			b[i] = lower(c)
		} else if c == '\n' {
			return "", false
		}
	}
	return string(b), true
}
