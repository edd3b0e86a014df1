package record

import (
	"cmp"
	"strings"
)

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
// written as "'", and no text as a space (two backquotes alone are no
// span, and would open one up to the next two).
func MarkdownCode(s string) string {
	return "`" + cmp.Or(strings.ReplaceAll(Printable(s), "`", "'"), " ") + "`"
}

// MarkdownCodeCell is MarkdownCode for a cell of a table: a '|' is
// written "\|". A table finds its cells' ends before their code spans, so
// a bare '|' ends the cell even inside one (a stranger's advisor "a|b"
// was a column more); inside the span the backslash is dropped again.
func MarkdownCodeCell(s string) string { return strings.ReplaceAll(MarkdownCode(s), "|", `\|`) }

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
	// span is where the last code span written ends in s: what follows
	// it starts a text node of its own, as the start of s does.
	span := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		// joined: s[i] goes on a word in the same text node.
		joined := i > 0 && i != span && wordByte(s[i-1])
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
			// or digit an @ is an address's, never a mention, unless its
			// word has an @ before it: "a@b.example@name" is an address
			// linked as mailto: and then "@name", a text node of its own.
			n := mentionEnd(s, i)
			if n == i+1 || c == '@' && joined && !strings.Contains(s[strings.LastIndexByte(s[:i], ' ')+1:i], "@") {
				if markdown && c == '#' {
					b.WriteByte('\\')
				}
				b.WriteByte(c)
				continue
			}
			if markdown {
				b.WriteString("`" + s[i:n] + "`")
				i, span = n-1, n
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
			if n := ghEnd(s, i); markdown && n > i && !joined {
				b.WriteString("`" + s[i:n] + "`")
				i, span = n-1, n
				continue
			} else if n > i && !joined {
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
// is none (or it goes on a word: see inert).
func ghEnd(s string, i int) int {
	if len(s) < i+4 || !strings.EqualFold(s[i:i+3], "gh-") {
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
// and unless lists, a list item ("- ", "+ ", "1. "); with lists, a list
// item's text starts a line too ("+ ---" is a rule in a list). ('#', '>',
// '*' and '_' are escaped wherever they are.) It returns the rest of s.
func blockStart(b *strings.Builder, s string, lists bool) string {
	if lists && strings.Trim(s, "- ") != "" {
		n := listMarkers(s)
		b.WriteString(s[:n])
		s = s[n:]
	}
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

// listMarkers is where the list markers s starts with ("- ", "+ ",
// "1. ", one in another) end.
func listMarkers(s string) int {
	n := 0
	for {
		m := digitsEnd(s, n)
		switch {
		case m > n && strings.HasPrefix(s[m:], ". "):
			n = m + 2
		case m == n && (strings.HasPrefix(s[n:], "- ") || strings.HasPrefix(s[n:], "+ ")):
			n += 2
		default:
			return n
		}
	}
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
