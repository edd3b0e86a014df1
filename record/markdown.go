package record

import "strings"

// Markdown returns record text made inert for markdown on one line: made
// printable first, then every character markdown, HTML or a forge gives
// meaning to is escaped, so that a record cannot inject HTML, links,
// images, emphasis, code spans, math, tables, mentions or references.
// Line breaks become spaces, and a text that would begin a block where
// it starts a line (a list item, a rule, an underline) has that first
// character escaped: a record's text never starts a markdown block of
// its own.
func Markdown(s string) string { return inert(s, true, false) }

// MarkdownQuote returns record text of many lines (a question, a
// rationale) as a markdown block quote: each line made inert as Markdown
// makes it and written after "> ", a blank line as ">". The text keeps
// its lines, and none of them can start a block of the document's own
// (a heading, a conclusion, a review count): everything it says is
// inside the quote, and reads as quoted where the markdown is not
// rendered. Its lists stay lists, inside the quote. It ends in a newline.
func MarkdownQuote(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		if line = inert(line, true, true); line == "" {
			b.WriteString(">\n")
			continue
		}
		b.WriteString("> " + line + "\n")
	}
	if b.Len() == 0 {
		return ">\n"
	}
	return b.String()
}

// MarkdownCode returns a record's text as a markdown code span: made
// printable (so on one line), a backquote, which would end the span,
// written as "'".
func MarkdownCode(s string) string {
	return "`" + strings.ReplaceAll(Printable(s), "`", "'") + "`"
}

// HTMLText returns record text made inert for a line of raw HTML that a
// forge renders (the <summary> of a <details> block, where markdown is not
// read): made printable, '<', '>', '&' and '$' as entities, mentions,
// references and bare addresses broken by a zero-width space, and no
// backslash escapes, which HTML would show.
func HTMLText(s string) string { return inert(s, false, true) }

func inert(s string, markdown, lists bool) string {
	s = Printable(strings.Join(strings.Fields(s), " "))
	var b strings.Builder
	b.Grow(len(s) + 8)
	if markdown {
		s = blockStart(&b, s, lists)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\\', '`', '*', '_', '{', '}', '[', ']', '(', ')', '!', '|', '~', '$':
			// '$' opens math ($x$, $$x$$) where a forge renders it.
			switch {
			case markdown:
				b.WriteByte('\\')
				b.WriteByte(c)
			case c == '$':
				b.WriteString("&#36;")
			default:
				b.WriteByte(c)
			}
		case '@', '#':
			// A forge makes a mention of @name, and a reference of #123
			// (an issue that "fixes #123" closes), after rendering, so
			// a backslash does not stop it: in markdown the mention or
			// reference is written as code, which no forge links, and in
			// HTML a zero-width space after it breaks it. After a letter
			// or digit an @ is an address's, never a mention.
			n := mentionEnd(s, i)
			if n == i+1 || c == '@' && i > 0 && wordByte(s[i-1]) {
				if markdown && c == '#' {
					b.WriteByte('\\')
				}
				b.WriteByte(c)
				continue
			}
			if markdown {
				b.WriteString("`" + s[i:n] + "`")
				i = n - 1
				continue
			}
			b.WriteByte(c)
			b.WriteString(zeroWidth)
		case ':':
			// Bare addresses are linked after rendering too: a
			// zero-width space breaks the scheme's "://".
			b.WriteByte(':')
			if strings.HasPrefix(s[i+1:], "//") {
				b.WriteString(zeroWidth)
			}
		case '.':
			b.WriteByte('.')
			// "www." is linked without a scheme.
			if i >= 3 && strings.EqualFold(s[i-3:i], "www") {
				b.WriteString(zeroWidth)
			}
		case 'G', 'g':
			// GH-123 is a reference too.
			if n := ghEnd(s, i); markdown && n > i {
				b.WriteString("`" + s[i:n] + "`")
				i = n - 1
				continue
			} else if n > i {
				b.WriteString(s[i:i+3] + zeroWidth)
				i += 2
				continue
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// ghEnd is where the reference GH-123 starting at s[i] ends: i when there
// is none.
func ghEnd(s string, i int) int {
	if i > 0 && wordByte(s[i-1]) || len(s) < i+4 || !strings.EqualFold(s[i:i+3], "gh-") {
		return i
	}
	if n := digitsEnd(s, i+3); n > i+3 {
		return n
	}
	return i
}

// digitsEnd is where the run of ASCII digits starting at s[n] ends.
func digitsEnd(s string, n int) int {
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// blockStart escapes what would make s, written at the start of a line,
// a block of markdown's: a rule ("---") or a heading's underline ("==="),
// and unless lists, a list item ("- ", "+ ", "1. "). ('#', '>', '*' and
// '_' are escaped wherever they are.) It returns the rest of s.
func blockStart(b *strings.Builder, s string, lists bool) string {
	if s == "" {
		return s
	}
	switch c := s[0]; {
	case c == '=' || c == '-' && strings.Trim(s, "- ") == "" || !lists && (c == '-' || c == '+'):
		b.WriteByte('\\')
		b.WriteByte(c)
		return s[1:]
	case !lists && c >= '0' && c <= '9':
		if n := digitsEnd(s, 1); n < len(s) && s[n] == '.' && (n+1 == len(s) || s[n+1] == ' ') {
			b.WriteString(s[:n] + "\\.")
			return s[n+1:]
		}
	}
	return s
}

// mentionEnd is where the mention (@name, @org/team) or reference (#123)
// starting at s[i] ends: i+1 when there is none.
func mentionEnd(s string, i int) int {
	n := i + 1
	if s[i] == '#' {
		return digitsEnd(s, n)
	}
	for n < len(s) && (wordByte(s[n]) || s[n] == '-' || s[n] == '_' || s[n] == '/' && n > i+1) {
		n++
	}
	return n
}

// zeroWidth is a zero-width space as a markdown entity.
const zeroWidth = "&#8203;"

func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
