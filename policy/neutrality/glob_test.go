package neutrality

import (
	"strings"
	"testing"
	"time"
)

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		glob, path string
		want       bool
	}{
		{"src/**", "src/a.go", true},
		{"src/**", "src/a/b/c.go", true},
		{"src/**", "src", false}, // a trailing ** needs something below it
		{"src/**", "srcx/a.go", false},
		{"src", "src/a/b.go", true}, // a directory covers what it holds
		{"src", "srcx/a.go", false},
		{"/src", "src/a.go", true},
		{"**", "a.go", true},
		{"**/*.md", "README.md", true},
		{"**/*.md", "docs/deep/guide.md", true},
		{"**/*.md", "docs/guide.mdx", false},
		{"docs/*.md", "docs/guide.md", true},
		{"docs/*.md", "docs/deep/guide.md", false},
		{"src/**/gen/*.go", "src/gen/a.go", true},
		{"src/**/gen/*.go", "src/x/y/gen/a.go", true},
		{"src/**/gen/*.go", "src/x/y/gen/sub/a.go", false},
		{"src/*/adapters", "src/net/adapters/acme.go", true},
		{"src/?.go", "src/a.go", true},
		{"src/[ab].go", "src/c.go", false},
		{"*.go", "src/a.go", false}, // globs are rooted
	}
	for _, tt := range tests {
		g, err := compileGlob(tt.glob)
		if err != nil {
			t.Fatalf("compileGlob(%q): %v", tt.glob, err)
		}
		if got := g.match(tt.path); got != tt.want {
			t.Errorf("glob %q match %q = %v, want %v", tt.glob, tt.path, got, tt.want)
		}
	}
}

func TestGlobSyntax(t *testing.T) {
	for glob, want := range map[string]string{
		"":         `glob "" is empty`,
		"/":        `glob "/" is empty`,
		"a//b":     `glob "a//b" has an empty path segment`,
		"a/**b":    `glob "a/**b": '**' must be a whole path segment`,
		"a/[b":     `glob "a/[b": bad pattern "[b"`,
		`a/b\`:     `glob "a/b\\": bad pattern "b\\"`,
		"src/**/x": "",
	} {
		_, err := compileGlob(glob)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("compileGlob(%q) error = %q, want %q", glob, got, want)
		}
	}
}

// Many '**' segments against a deep path must not backtrack: a matcher that
// tries every way of sharing the path among them takes minutes here. The
// guard is generous (a loaded machine may stall the test for seconds);
// the match takes microseconds.
func TestGlobManyDoubleStarsIsLinear(t *testing.T) {
	g, p := manyDoubleStars(t)
	done := make(chan [2]bool, 1)
	go func() { done <- [2]bool{g.match(p), g.match(p + "x")} }()
	select {
	case got := <-done:
		if !got[0] || got[1] {
			t.Errorf("match = %v, %v; want true for the path ending in z.go, false for z.gox", got[0], got[1])
		}
	case <-time.After(20 * time.Second):
		t.Fatal("16 '**' segments against a 21-level path did not finish within 20 s")
	}
}

// BenchmarkGlobManyDoubleStars is the same case, to watch its cost.
func BenchmarkGlobManyDoubleStars(b *testing.B) {
	g, p := manyDoubleStars(b)
	for b.Loop() {
		if !g.match(p) {
			b.Fatal("no match")
		}
	}
}

// manyDoubleStars is "a/**/**/…(16 times)/*.go" and a path of 21 segments
// ending in "z.go".
func manyDoubleStars(tb testing.TB) (glob, string) {
	tb.Helper()
	g, err := compileGlob("a/" + strings.Repeat("**/", 16) + "*.go")
	if err != nil {
		tb.Fatal(err)
	}
	return g, "a/" + strings.Repeat("d/", 19) + "z.go"
}
