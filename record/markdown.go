package record

import "strings"

// Markdown returns record text made inert for markdown on one line: made
// printable first, then every character markdown, HTML or a forge gives
// meaning to is escaped, so that a record cannot inject HTML, links,
// images, emphasis, code spans, tables or mentions. Line breaks become
// spaces: a record's text never starts a markdown block of its own.
func Markdown(s string) string { return inert(s, true) }

// MarkdownQuote returns record text of many lines (a question, a
// rationale) as a markdown block quote: each line made inert as Markdown
// makes it and written after "> ", a blank line as ">". The text keeps
// its lines, and none of them can start a block of the document's own
// (a heading, a conclusion, a review count): everything it says is
// inside the quote, and reads as quoted where the markdown is not
// rendered. It ends in a newline.
func MarkdownQuote(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		if line = Markdown(line); line == "" {
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
// read): made printable, '<', '>' and '&' as entities, mentions and bare
// addresses broken as Markdown breaks them, and no backslash escapes,
// which HTML would show.
func HTMLText(s string) string { return inert(s, false) }

func inert(s string, markdown bool) string {
	s = Printable(strings.Join(strings.Fields(s), " "))
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\\', '`', '*', '_', '{', '}', '[', ']', '(', ')', '#', '!', '|', '~':
			if markdown {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		case '@':
			// A forge makes a mention of @name after rendering, so an
			// escape does not stop it: a zero-width space after the @
			// does, and reads the same. After a letter or digit an @ is
			// an address's, never a mention, and stays as it is.
			b.WriteByte('@')
			if i == 0 || !wordByte(s[i-1]) {
				b.WriteString(zeroWidth)
			}
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
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// zeroWidth is a zero-width space as a markdown entity.
const zeroWidth = "&#8203;"

func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
