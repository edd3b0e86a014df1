package record

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	gmtext "github.com/yuin/goldmark/text"
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

// A name from elsewhere is quoted whole up to 200 bytes, then cut at a
// character's start and followed by its size.
func TestPrintableName(t *testing.T) {
	long := strings.Repeat("a", 199) + "é\x1b" + strings.Repeat("b", 1000)
	for in, want := range map[string]string{
		strings.Repeat("a", 200):         strings.Repeat("a", 200),
		"\x1b[2J":                        `\x1b[2J`,
		long:                             strings.Repeat("a", 199) + "… (1202 bytes)",
		long[:199] + "\x1b" + long[199:]: strings.Repeat("a", 199) + `\x1b… (1203 bytes)`,
	} {
		if got := PrintableName(in); got != want {
			t.Errorf("PrintableName of %d bytes = %q, want %q", len(in), got, want)
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

// forgeAttacks are texts that take a forge's markdown over where they are
// written raw; they seed FuzzMarkdownInert too.
var forgeAttacks = []string{
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
}

// A record's text, where the report writes it (a paragraph of its own
// under a heading, a table cell, a quote), renders on a forge as its own
// text and nothing else: no element it chose (a link, an image, HTML, a
// footnote, a task box, a rule, a list, a heading, emphasis), no extra
// table cell, no math, and no mention or reference a forge would make a
// ping, a link or an issue's closing of.
func TestMarkdownForgeInert(t *testing.T) {
	for _, in := range forgeAttacks {
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

// forgeDoc is a document as the reports write record text: a and b at
// each place record/report.go and the ops handover and context write one
// (a heading, a paragraph of its own, prose, list items, bold, a table's
// cells, a block quote, and the raw HTML <summary> line of a comment's
// <details> block), next to the document's own code spans and bold.
func forgeDoc(a, b string) string {
	// A text of only spaces writes nothing, and an empty place ("2. ",
	// "****") is the document's doing, not the text's: such a place
	// holds a word.
	A, B := cmp.Or(Markdown(a), "x"), cmp.Or(Markdown(b), "x")
	return "# Handover\n\n## " + A + "\n\n### `id`: " + B + "\n\n" +
		"- **" + A + "**\n- phase: **" + B + "**, updated x, by " + A + ", " + B + "\n" +
		"- next, a person decides: " + A + "\n  - " + B + ", then `git reason x`\n" +
		"- open disagreement `id` by " + A + " (" + B + "): " + A + "\n- " + A + " — " + B + "\n\n" +
		"### Plan\n\nReview " + A + ": " + B + " (profile " + A + ", mode " + B + ").\nAdvisors asked: " + A + ", " + B + ".\n1. " + A + "\n2. " + B + "\n\n" +
		"### Conclusion `id`\n\n" + A + "\n\n" + MarkdownQuote(a+"\n"+b) + "\nReview count: 1 (" + A + ", " + B + ")\n- `id` " + A + ": " + B + "\n\n" +
		"Attempt: " + A + " (" + B + ").\nWithdrawn by `id` (" + A + "): " + B + "\n\n" +
		"Closed **" + A + "** (replaced by task " + B + ") by `id` (" + A + ", " + B + "): " + A + "\n\n" +
		"| advisor | outcome | model | summary |\n|---|---|---|---|\n| " + A + " | **" + B + "** | " + A + " (" + B + ") | " + B + " |\n| x | " + B + " | | " + A + ": " + B + " |\n\n" +
		"**Decision:** " + A + "\n\n" +
		"<details>\n<summary><strong>" + HTMLText(a) + "</strong>: " + HTMLText(b) + " · phase · review count 1</summary>\n\n" +
		"**Decision:** " + B + "\n\n</details>\n"
}

var (
	// escaperSpan is a code span Markdown writes itself: mentions and
	// references, run together when they touch ("`@a``#1`").
	escaperSpan = regexp.MustCompile("^(?:@[A-Za-z0-9_/-]+|#[0-9]+|(?i:gh-)[0-9]+)(?:``(?:@[A-Za-z0-9_/-]+|#[0-9]+|(?i:gh-)[0-9]+))*$")
	// forgeMention is what a forge links in a text node: a mention or a
	// GH- reference after no word character, an issue reference
	// anywhere.
	forgeMention = regexp.MustCompile(`(?i)(?:^|[^a-z0-9_])(?:@[a-z0-9]|gh-[0-9])|#[0-9]`)
	rawTag       = regexp.MustCompile(`<[^>]*>`)
)

// forgeShape is a rendered document's structure, the text left out: each
// node's kind, in order and nesting. A code span Markdown wrote and an
// address linked as mailto: (docs/SECURITY.md accepts it) are text. In a
// block quote only what is not a paragraph or a list counts: a quoted
// text's lists stay lists. A raw HTML block is its tags. Each text node
// as a forge sees it (the text between two elements) is checked against
// forgeMention on the way.
func forgeShape(t *testing.T, doc []byte, n ast.Node, quoted bool, b *strings.Builder) {
	switch k := n.Kind(); {
	case k == ast.KindText || k == ast.KindString:
		return
	case k == ast.KindCodeSpan && escaperSpan.Match(codeText(doc, n)):
		return
	case k == ast.KindAutoLink && n.(*ast.AutoLink).AutoLinkType == ast.AutoLinkEmail:
		return
	case k == ast.KindHTMLBlock:
		var raw []byte
		for i := 0; i < n.Lines().Len(); i++ {
			seg := n.Lines().At(i)
			raw = append(raw, seg.Value(doc)...)
		}
		for _, text := range rawTag.Split(string(raw), -1) {
			if m := forgeMention.FindString(html.UnescapeString(text)); m != "" {
				t.Errorf("raw HTML text %q holds %q, which a forge links", text, m)
			}
		}
		fmt.Fprintf(b, "HTML%q ", rawTag.FindAllString(string(raw), -1))
		return
	case quoted && (k == ast.KindParagraph || k == ast.KindTextBlock || k == ast.KindList || k == ast.KindListItem):
	case k == ast.KindHeading:
		fmt.Fprintf(b, "%s%d ", k, n.(*ast.Heading).Level)
	case k == ast.KindEmphasis:
		fmt.Fprintf(b, "%s%d ", k, n.(*ast.Emphasis).Level)
	case k == ast.KindList:
		fmt.Fprintf(b, "%s%v ", k, n.(*ast.List).IsOrdered())
	default:
		b.WriteString(k.String() + " ")
	}
	open := !(quoted && (n.Kind() == ast.KindParagraph || n.Kind() == ast.KindTextBlock || n.Kind() == ast.KindList || n.Kind() == ast.KindListItem))
	if open {
		b.WriteString("( ")
	}
	var run strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if s, ok := forgeText(doc, c); ok {
			run.WriteString(s)
			continue
		}
		forgeRun(t, run.String())
		run.Reset()
		forgeShape(t, doc, c, quoted || n.Kind() == ast.KindBlockquote, b)
	}
	forgeRun(t, run.String())
	if open {
		b.WriteString(") ")
	}
}

// forgeText is the text of a text node as rendered, escapes resolved.
func forgeText(doc []byte, n ast.Node) (string, bool) {
	switch n := n.(type) {
	case *ast.Text:
		var out bytes.Buffer
		w := bufio.NewWriter(&out)
		seg := n.Segment
		gmhtml.DefaultWriter.Write(w, seg.Value(doc))
		w.Flush()
		if n.SoftLineBreak() {
			out.WriteByte('\n')
		}
		return html.UnescapeString(out.String()), true
	case *ast.String:
		return string(n.Value), true
	}
	return "", false
}

func forgeRun(t *testing.T, text string) {
	if m := forgeMention.FindString(text); m != "" {
		t.Errorf("text node %q holds %q, which a forge links", text, m)
	}
}

func codeText(doc []byte, n ast.Node) []byte {
	var s []byte
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			seg := t.Segment
			s = append(s, seg.Value(doc)...)
		}
	}
	return s
}

func forgeParse(t *testing.T, doc string) string {
	var b strings.Builder
	forgeShape(t, []byte(doc), forge.Parser().Parse(gmtext.NewReader([]byte(doc))), false, &b)
	return b.String()
}

// Any record text, at every place a report writes one, renders on a
// forge (GitHub's extensions and footnotes) as text: the document has the
// structure it has with plain words there (headings, list items, table
// cells and rows, one quote whose lists alone are the text's), no node of
// the text's own but the code spans Markdown writes, no mention or
// reference in text, no math. Its words are all there. MarkdownCode is
// one code span of the text in prose, and MarkdownCodeCell in a table's
// cell. Seeds: the
// attacks of TestMarkdownForgeInert and testdata/fuzz/FuzzMarkdownInert.
// go test ./record -run '^$' -fuzz FuzzMarkdownInert -parallel 1
func FuzzMarkdownInert(f *testing.F) {
	for _, in := range forgeAttacks {
		f.Add(in, "x")
		f.Add("x", in)
	}
	want := ""
	f.Fuzz(func(t *testing.T, a, b string) {
		if want == "" {
			want = forgeParse(t, forgeDoc("x", "x"))
		}
		doc := forgeDoc(a, b)
		if got := forgeParse(t, doc); got != want {
			t.Errorf("%q, %q change the document's structure:\n got %s\nwant %s\n%s", a, b, got, want, doc)
		}
		for _, md := range []string{Markdown(a), Markdown(b), MarkdownQuote(a + "\n" + b)} {
			if m := mathDollar.FindString(md); m != "" {
				t.Errorf("%q opens math", md)
			}
		}
		if h := HTMLText(a); strings.Contains(h, "$") {
			t.Errorf("HTMLText(%q) = %q opens math", a, h)
		}
		// Its words: the paragraph reads as the text, less the
		// escaper's zero-width spaces and backquotes.
		var out bytes.Buffer
		if err := forge.Convert([]byte("x "+Markdown(a)+" y"), &out); err != nil {
			t.Fatal(err)
		}
		words := func(s string) string { return strings.NewReplacer("\u200b", "", "`", "").Replace(s) }
		if got, want := words(html.UnescapeString(htmlTag.ReplaceAllString(out.String(), ""))), words("x "+Printable(strings.Join(strings.Fields(a), " "))+" y\n"); got != want {
			t.Errorf("Markdown(%q) reads %q, want %q", a, got, want)
		}
		// A command as code: one span, its text, in prose and in a cell.
		code, cell := MarkdownCode(a), MarkdownCodeCell(a)
		content := cmp.Or(strings.ReplaceAll(Printable(a), "`", "'"), " ")
		if len(content) > 1 && content[0] == ' ' && content[len(content)-1] == ' ' && strings.Trim(content, " ") != "" {
			content = content[1 : len(content)-1]
		}
		wantCode := fmt.Sprintf("Document ( Paragraph ( CodeSpan[%q] ) Table ( TableHeader ( TableCell ( ) TableCell ( ) TableCell ( ) ) TableRow ( TableCell ( ) TableCell ( CodeSpan[%[1]q] ) TableCell ( ) ) ) ) ", content)
		if got := codeShape([]byte("x " + code + " y\n\n| a | b | c |\n|---|---|---|\n| x | " + cell + " | y |\n")); got != wantCode {
			t.Errorf("MarkdownCode(%q) = %q, MarkdownCodeCell %q render\n%s\nwant\n%s", a, code, cell, got, wantCode)
		}
	})
}

// codeShape is a document's nodes, a code span with its text.
func codeShape(doc []byte) string {
	var b strings.Builder
	_ = ast.Walk(forge.Parser().Parse(gmtext.NewReader(doc)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch k := n.Kind(); {
		case k == ast.KindText:
		case k == ast.KindCodeSpan:
			if entering {
				fmt.Fprintf(&b, "CodeSpan[%q] ", codeText(doc, n))
			}
			return ast.WalkSkipChildren, nil
		case entering:
			b.WriteString(k.String() + " ( ")
		default:
			b.WriteString(") ")
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// TestShellQuote: a word every shell reads as itself stays bare; shell
// syntax, a quote among it, is one single-quoted word.
func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"T-42":                 "T-42",
		"feature/db.migration": "feature/db.migration",
		"x$(touch${IFS}pwned)": `'x$(touch${IFS}pwned)'`,
		"q'$(id)'":             `'q'\''$(id)'\'''`,
		"-rf":                  "'-rf'",
		"":                     "''",
		"a\nb":                 `'a\nb'`,
	} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
