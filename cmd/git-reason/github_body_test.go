package main

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
	xhtml "golang.org/x/net/html"
)

// bodyElements are the elements a context comment body may render to:
// what its own markdown makes (headings, lists, tables, code, emphasis,
// a quote for the note on cuts) and the raw HTML it writes itself
// (details, summary, strong, sub, code). A link, image, script or any
// other element can only have come from record text.
var bodyElements = map[string]bool{
	"html": true, "head": true, "body": true,
	"h2": true, "h3": true, "p": true, "ul": true, "li": true, "strong": true, "em": true, "code": true, "pre": true,
	"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true, "blockquote": true,
	"details": true, "summary": true, "sub": true,
}

// cmdGitHubBody checks a 'git reason context --format github' body as a
// hosting platform renders it: goldmark with GitHub's extensions (tables,
// autolinks, strikethrough) and raw HTML passed through, as a forge does
// for <details>. It fails when the body is over LIMIT bytes, renders an
// element outside bodyElements (record HTML that came alive, or a link),
// holds a <details> whose first element is not its <summary>, or a
// Mermaid block outside a <details>. It prints what a reader sees
// collapsed: one "details: SUMMARY" line per block, then the counts.
//
//	githubbody FILE LIMIT
func cmdGitHubBody(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: githubbody FILE LIMIT")
	}
	limit, err := strconv.Atoi(args[1])
	ts.Check(err)
	src := ts.ReadFile(args[0])
	if len(src) > limit {
		ts.Fatalf("the body is %d bytes, over its limit of %d", len(src), limit)
	}
	md := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	var out bytes.Buffer
	ts.Check(md.Convert([]byte(src), &out))
	doc, err := xhtml.Parse(&out)
	ts.Check(err)
	var summaries []string
	mermaids, inDetails := 0, 0
	var walk func(n *xhtml.Node, details bool)
	walk = func(n *xhtml.Node, details bool) {
		if n.Type == xhtml.ElementNode {
			if !bodyElements[n.Data] {
				ts.Fatalf("the rendered body holds a <%s> element:\n%s", n.Data, out.String())
			}
			switch n.Data {
			case "details":
				first := n.FirstChild
				for first != nil && first.Type != xhtml.ElementNode {
					first = first.NextSibling
				}
				if first == nil || first.Data != "summary" {
					ts.Fatalf("a <details> does not start with its <summary>")
				}
				summaries = append(summaries, nodeText(first))
				details = true
			case "code":
				for _, a := range n.Attr {
					if a.Key == "class" && a.Val == "language-mermaid" {
						mermaids++
						if details {
							inDetails++
						}
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, details)
		}
	}
	walk(doc, false)
	if inDetails != mermaids {
		ts.Fatalf("%d of %d mermaid blocks are outside a <details> block", mermaids-inDetails, mermaids)
	}
	for _, s := range summaries {
		fmt.Fprintf(ts.Stdout(), "details: %s\n", s)
	}
	fmt.Fprintf(ts.Stdout(), "%d details, %d mermaid, %d bytes\n", len(summaries), mermaids, len(src))
}

// nodeText is the text a reader sees in n, a zero-width space shown as [zw].
func nodeText(n *xhtml.Node) string {
	var b strings.Builder
	var walk func(*xhtml.Node)
	walk = func(n *xhtml.Node) {
		if n.Type == xhtml.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.ReplaceAll(b.String(), "\u200b", "[zw]")
}
