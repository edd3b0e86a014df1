package record

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A record's text must render inert: no HTML, link, image, mention, code
// span or block of its own.
func TestMarkdownInert(t *testing.T) {
	cases := map[string]string{
		"<img src=x onerror=alert(1)>": "&lt;img src=x onerror=alert\\(1\\)&gt;",
		"[x](http://evil.example)":     "\\[x\\]\\(http:&#8203;//evil.example\\)",
		"ping @someone":                "ping @&#8203;someone",
		"`rm -rf /`":                   "\\`rm -rf /\\`",
		"a\n# heading\n| t |":          "a \\# heading \\| t \\|",
		"see www.example.com":          "see www.&#8203;example.com",
		"&amp; \x1b[31m":               "&amp;amp; \\\\x1b\\[31m",
		"@start, (@paren)":             "@&#8203;start, \\(@&#8203;paren\\)",
		"ada@example.invalid":          "ada@example.invalid",
		"zero\u200bwidth":              "zero\\\\u200bwidth",
	}
	for in, want := range cases {
		if got := Markdown(in); got != want {
			t.Errorf("Markdown(%q) = %q, want %q", in, got, want)
		}
		// What the terminal filter would change: nothing but the
		// record's own unprintable characters, already escaped here.
		if got := Markdown(in); PrintableText(got) != got {
			t.Errorf("Markdown(%q) = %q holds an unprintable character", in, got)
		}
		for _, bad := range []string{"<", "](", "://", "@s", "@p"} {
			if strings.Contains(Markdown(in), bad) {
				t.Errorf("Markdown(%q) keeps %q", in, bad)
			}
		}
	}
}

// A byte that is no UTF-8 never reaches the output raw: 0x9b alone is
// CSI to a terminal that reads 8-bit controls.
func TestPrintableInvalidUTF8(t *testing.T) {
	for in, want := range map[string]string{
		"a\x9b2Jb":    `a\x9b2Jb`,
		"ok \ufffd":   "ok \ufffd",
		"\xff\x1b[0m": `\xff\x1b[0m`,
	} {
		for _, f := range []func(string) string{Printable, PrintableText, Markdown} {
			got := f(in)
			if !utf8.ValidString(got) || f(want) != got {
				t.Errorf("%q printed as %q, want %q", in, got, f(want))
			}
		}
	}
}

// A long text keeps its lines inside one block quote: no line of it can
// start a block of the document's own (a heading, a line the document
// writes), and each is inert as Markdown makes it.
func TestMarkdownQuote(t *testing.T) {
	for _, c := range [][2]string{
		{"", ">\n"},
		{"one line", "> one line\n"},
		{"a\n\n### Conclusion", "> a\n>\n> \\#\\#\\# Conclusion\n"},
		{"Review count: 3\n", "> Review count: 3\n"},
		{"x\n\t  \n> quoted\n```\n<b>", "> x\n>\n> &gt; quoted\n> \\`\\`\\`\n> &lt;b&gt;\n"},
		{"cr\r\n# h", "> cr\n> \\# h\n"}, // a carriage return is a space
	} {
		got := MarkdownQuote(c[0])
		if got != c[1] {
			t.Errorf("MarkdownQuote(%q) = %q, want %q", c[0], got, c[1])
		}
		for line := range strings.Lines(got) {
			if !strings.HasPrefix(line, "> ") && line != ">\n" {
				t.Errorf("MarkdownQuote(%q) has a line outside the quote: %q", c[0], line)
			}
		}
	}
}

// Text for a line of raw HTML a forge renders is inert without markdown's
// backslashes, which HTML would show.
func TestHTMLTextInert(t *testing.T) {
	cases := map[string]string{
		"<img src=x onerror=alert(1)>": "&lt;img src=x onerror=alert(1)&gt;",
		"[x](http://evil.example)":     "[x](http:&#8203;//evil.example)",
		"ping @someone *bold*":         "ping @&#8203;someone *bold*",
		"</summary></details>":         "&lt;/summary&gt;&lt;/details&gt;",
		"a & b\nc":                     "a &amp; b c",
	}
	for in, want := range cases {
		if got := HTMLText(in); got != want {
			t.Errorf("HTMLText(%q) = %q, want %q", in, got, want)
		}
	}
}
