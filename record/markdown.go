package record

import "strings"

// Markdown returns record text made inert for markdown on one line: made
// printable first, then every character markdown, HTML or a forge gives
// meaning to is escaped, so that a record cannot inject HTML, links,
// images, emphasis, code spans, tables or mentions. Line breaks become
// spaces: a record's text never starts a markdown block of its own.
func Markdown(s string) string {
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
			b.WriteByte('\\')
			b.WriteByte(c)
		case '@':
			// A forge makes a mention of @name after rendering, so an
			// escape does not stop it: a zero-width space after the @
			// does, and reads the same.
			b.WriteString("@\u200b")
		case ':':
			// Bare addresses are linked after rendering too: a
			// zero-width space breaks the scheme's "://".
			b.WriteByte(':')
			if strings.HasPrefix(s[i+1:], "//") {
				b.WriteString("\u200b")
			}
		case '.':
			b.WriteByte('.')
			// "www." is linked without a scheme.
			if i >= 3 && strings.EqualFold(s[i-3:i], "www") {
				b.WriteString("\u200b")
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
