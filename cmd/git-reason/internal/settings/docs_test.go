package settings

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"git-reason/reliability/harness"
)

// TestDocTableIsGenerated holds docs/CONFIGURATION.md's table to Docs, the
// one source the manual page prints too. GIT_REASON_UPDATE_GOLDEN=1
// rewrites the file's table from Docs.
func TestDocTableIsGenerated(t *testing.T) {
	path := filepath.Join("..", "..", "..", "..", "docs", "CONFIGURATION.md")
	data := harness.ReadFile(t, path)
	text := string(data)
	start := strings.Index(text, "| Key |")
	if start < 0 {
		t.Fatal("docs/CONFIGURATION.md has no table")
	}
	end := strings.Index(text[start:], "\n\n")
	if end < 0 {
		t.Fatal("docs/CONFIGURATION.md: the table is not followed by a blank line")
	}
	got, want := text[start:start+end+1], docsMarkdown()
	if got == want {
		return
	}
	if os.Getenv("GIT_REASON_UPDATE_GOLDEN") == "1" {
		harness.WriteFile(t, path, text[:start]+want+text[start+end+1:])
		return
	}
	t.Errorf("docs/CONFIGURATION.md's table differs from settings.Docs: edit Docs, then run with GIT_REASON_UPDATE_GOLDEN=1\ngot:\n%s\nwant:\n%s", got, want)
}

// docsMarkdown is Docs as the Markdown table docs/CONFIGURATION.md holds.
func docsMarkdown() string {
	var b strings.Builder
	b.WriteString("| Key | Type | Default | What reads it | Environment and flags |\n|---|---|---|---|---|\n")
	for _, d := range Docs {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", d.Key, d.Type, d.Default, d.ReadBy, d.Overrides)
	}
	return b.String()
}
