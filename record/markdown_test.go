package record

import (
	"strings"
	"testing"
)

// A record's text must render inert: no HTML, link, image, mention, code
// span or block of its own.
func TestMarkdownInert(t *testing.T) {
	cases := map[string]string{
		"<img src=x onerror=alert(1)>": "&lt;img src=x onerror=alert\\(1\\)&gt;",
		"[x](http://evil.example)":     "\\[x\\]\\(http:\u200b//evil.example\\)",
		"ping @someone":                "ping @\u200bsomeone",
		"`rm -rf /`":                   "\\`rm -rf /\\`",
		"a\n# heading\n| t |":          "a \\# heading \\| t \\|",
		"see www.example.com":          "see www.\u200bexample.com",
		"&amp; \x1b[31m":               "&amp;amp; \\\\x1b\\[31m",
	}
	for in, want := range cases {
		if got := Markdown(in); got != want {
			t.Errorf("Markdown(%q) = %q, want %q", in, got, want)
		}
		for _, bad := range []string{"<", "](", "://", "@s"} {
			if strings.Contains(Markdown(in), bad) {
				t.Errorf("Markdown(%q) keeps %q", in, bad)
			}
		}
	}
}
