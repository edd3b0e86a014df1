package record

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// A record's text must render inert: no HTML, link, image, mention, code
// span or block of its own.
func TestMarkdownInert(t *testing.T) {
	cases := map[string]string{
		"<img src=x onerror=alert(1)>": "&lt;img src=x onerror=alert\\(1\\)&gt;",
		"[x](http://evil.example)":     "\\[x\\]\\(http:&#8203;//evil.example\\)",
		"ping @someone":                "ping `@someone`",
		"`rm -rf /`":                   "\\`rm -rf /\\`",
		"a\n# heading\n| t |":          "a \\# heading \\| t \\|",
		"see www.example.com":          "see www.&#8203;example.com",
		"&amp; \x1b[31m":               "&amp;amp; \\\\x1b\\[31m",
		"@start, (@paren)":             "`@start`, \\(`@paren`\\)",
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
		for _, bad := range []string{"<", "](", "://", " @s", "(@p"} {
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
		"fixes #12, GH-3, $x$":         "fixes #&#8203;12, GH-&#8203;3, &#36;x&#36;",
		"</summary></details>":         "&lt;/summary&gt;&lt;/details&gt;",
		"a & b\nc":                     "a &amp; b c",
	}
	for in, want := range cases {
		if got := HTMLText(in); got != want {
			t.Errorf("HTMLText(%q) = %q, want %q", in, got, want)
		}
	}
}

// forge reads markdown as a code forge does: GitHub's flavour (tables,
// strikethrough, bare links, task lists) and footnotes.
var forge = goldmark.New(goldmark.WithExtensions(extension.GFM, extension.Footnote))

var (
	htmlTag = regexp.MustCompile(`</?([a-z0-9]+)[^>]*>`)
	// What a forge links after rendering, in text outside code: a
	// mention, an issue reference (GitHub's own patterns, loosely).
	forgeLinks = regexp.MustCompile(`(?i)(^|[^a-z0-9_])(@[a-z0-9]|#[0-9]|gh-[0-9])`)
	// A dollar sign markdown does not escape opens math.
	mathDollar = regexp.MustCompile(`(^|[^\\])(\\\\)*\$`)
)

// A record's text, where the report writes it (a paragraph of its own
// under a heading, a table cell, a quote), renders on a forge as its own
// text and nothing else: no element it chose (a link, an image, HTML, a
// footnote, a task box, a rule, a list, a heading, emphasis), no extra
// table cell, no math, and no mention or reference a forge would make a
// ping, a link or an issue's closing of.
func TestMarkdownForgeInert(t *testing.T) {
	for _, in := range []string{
		"Math $x^2 + y_1$ and $$\\sum_{i=0}^n i$$ end",
		"$$",
		"```math",
		"ping @octocat and @github/security-team",
		"fixes #7, refs #123 GH-1 gh-2 owner/repo#1",
		"![x](https://tracker.example/p.png) <https://evil.example/a> https://bare.example/x www.example.com",
		"<img src=https://t.example/x.png> <details><summary>hi</summary>hidden</details> <!-- hidden --> visible",
		"footnote[^1]",
		"[^1]: https://evil.example/fn",
		"[x]: https://evil.example/ref",
		"a | b | c",
		"===",
		"---",
		"- [x] Validated by 3 advisors",
		"Review count: 3\n===\nValidated\n---",
		"+ plus",
		"1. numbered",
		"2) paren",
		"* star",
		"~~strike~~ **bold** _em_",
		"&lt; &copy; &#x41;",
		"zero\u200bwidth \u202e bidi",
	} {
		md := Markdown(in)
		doc := "### Conclusion `ID`\n\n" + md + "\n\n| advisor | summary |\n|---|---|\n| " + md + " | s |\n\n" + MarkdownQuote(in+"\n"+in)
		if m := mathDollar.FindString(doc); m != "" {
			t.Errorf("%q: %q opens math", in, m)
		}
		var out bytes.Buffer
		if err := forge.Convert([]byte(doc), &out); err != nil {
			t.Fatal(err)
		}
		got := out.String()
		// The document's own: a heading, a paragraph, a table of one
		// row of two cells, a quote (whose lines may be a list).
		count := map[string]int{}
		for _, m := range htmlTag.FindAllStringSubmatch(got, -1) {
			count[m[1]]++
		}
		want := map[string]int{"h3": 2, "table": 2, "thead": 2, "tbody": 2, "tr": 4, "th": 4, "td": 4, "blockquote": 2}
		for tag, n := range count {
			switch tag {
			case "code", "p", "ul", "ol", "li":
				continue // the heading's, mentions written as code; the quote's
			}
			if want[tag] != n {
				t.Errorf("%q renders %d <%s>, want %d:\n%s", in, n, tag, want[tag], got)
			}
		}
		if !strings.Contains(got, "<h3>Conclusion <code>ID</code></h3>\n<p>") {
			t.Errorf("%q is no paragraph of its own:\n%s", in, got)
		}
		text := html.UnescapeString(htmlTag.ReplaceAllString(regexp.MustCompile(`(?s)<code>.*?</code>`).ReplaceAllString(got, ""), " "))
		if m := forgeLinks.FindString(text); m != "" {
			t.Errorf("%q renders %q, which a forge links:\n%s", in, m, got)
		}
	}
}
