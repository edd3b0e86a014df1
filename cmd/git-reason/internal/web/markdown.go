package web

import (
	"bytes"
	"html/template"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// markdown renders a task's report (record.State.Report, markdown whose
// record text is written as it was recorded) for the page: headings,
// lists, tables and code. What record text could make of it is kept text:
// goldmark's default refuses raw HTML, and inertText turns every raw HTML,
// link, image and autolink into the text it was written as, so the page
// holds no element and no address a record chose.
var markdown = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.Table, extension.Strikethrough),
		goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(inertText{}, 100))),
	)
})

// renderMarkdown is src as HTML for a template: goldmark's output, with
// every text escaped by its renderer.
func renderMarkdown(src string) (template.HTML, error) {
	var b bytes.Buffer
	if err := markdown().Convert([]byte(src), &b); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil // goldmark escapes every text it writes
}

// inertText replaces links, images, autolinks and raw HTML with text.
type inertText struct{}

func (inertText) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	var found []ast.Node
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.(type) {
		case *ast.Link, *ast.Image, *ast.AutoLink, *ast.RawHTML, *ast.HTMLBlock:
			found = append(found, n)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	for _, n := range found {
		parent := n.Parent()
		switch n := n.(type) {
		case *ast.Link, *ast.Image:
			// Its text stays; the address goes.
			var kids []ast.Node
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				kids = append(kids, c)
			}
			for _, c := range kids {
				parent.InsertBefore(parent, n, c)
			}
		case *ast.AutoLink:
			parent.InsertBefore(parent, n, ast.NewString(n.Label(src)))
		case *ast.RawHTML:
			var b []byte
			for i := range n.Segments.Len() {
				seg := n.Segments.At(i)
				b = append(b, seg.Value(src)...)
			}
			parent.InsertBefore(parent, n, ast.NewString(b))
		case *ast.HTMLBlock:
			b := n.Lines().Value(src)
			if n.HasClosure() {
				b = append(b, n.ClosureLine.Value(src)...)
			}
			p := ast.NewParagraph()
			p.AppendChild(p, ast.NewString(bytes.TrimSpace(b)))
			parent.InsertBefore(parent, n, p)
		}
		parent.RemoveChild(parent, n)
	}
}
