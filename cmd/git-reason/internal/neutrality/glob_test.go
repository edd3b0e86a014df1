package neutrality

import "testing"

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
