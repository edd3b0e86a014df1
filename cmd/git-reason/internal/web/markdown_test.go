package web

import (
	"strings"
	"testing"
)

// The report renders as HTML (headings, lists, tables, code), and what a
// record could write into it stays text: no element, no address.
func TestRenderMarkdownInert(t *testing.T) {
	src := "# Reasoning: T-1\n\n## Cache <script>alert(1)</script> [link](http://x.invalid/) ![i](http://x.invalid/p.png)\n\n" +
		"- item `code` <https://x.invalid/auto> <img src=x onerror=alert(1)>\n\n" +
		"<div onclick=\"x()\">block</div>\n\n| a | b |\n|---|---|\n| 1 | [t](javascript:alert(1)) |\n"
	got, err := renderMarkdown(src)
	if err != nil {
		t.Fatal(err)
	}
	h := string(got)
	for _, want := range []string{"<h1>Reasoning: T-1</h1>", "<h2>Cache &lt;script&gt;alert(1)&lt;/script&gt; link i</h2>",
		"<li>item <code>code</code> https://x.invalid/auto &lt;img src=x onerror=alert(1)&gt;</li>",
		"<p>&lt;div onclick=&quot;x()&quot;&gt;block&lt;/div&gt;</p>", "<table>", "<td>t</td>"} {
		if !strings.Contains(h, want) {
			t.Errorf("rendered report lacks %q:\n%s", want, h)
		}
	}
	for _, bad := range []string{"<script", "<img", "<a ", "href", "src=\"", "<div", "raw HTML omitted"} {
		if strings.Contains(h, bad) {
			t.Errorf("rendered report holds %q:\n%s", bad, h)
		}
	}
}
