package settings

import (
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"git-reason/reliability/harness"
)

var (
	keyToken = regexp.MustCompile("`([a-z]+(?:\\.<name>|\\.[a-z0-9]+)?\\.[A-Za-z]+)`")
	envToken = regexp.MustCompile("`([A-Z][A-Z0-9_]*)`")
)

// documented returns the keys and variables named in the first and last
// columns of docs/CONFIGURATION.md's table; keys lowercased as git lists
// them.
func documented(t *testing.T) map[string]bool {
	t.Helper()
	data := harness.ReadFile(t, filepath.Join("..", "..", "..", "..", "docs", "CONFIGURATION.md"))
	out := map[string]bool{}
	rows := 0
	for _, line := range strings.Split(string(data), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 7 || strings.HasPrefix(cells[1], "---") || strings.TrimSpace(cells[1]) == "Key" {
			continue
		}
		rows++
		for _, cell := range []string{cells[1], cells[5]} {
			for _, m := range keyToken.FindAllStringSubmatch(cell, -1) {
				out[strings.ToLower(m[1])] = true
			}
			for _, m := range envToken.FindAllStringSubmatch(cell, -1) {
				out[m[1]] = true
			}
		}
	}
	if rows < 10 {
		t.Fatalf("found %d table rows in docs/CONFIGURATION.md", rows)
	}
	return out
}

// TestTableMatchesSettings holds docs/CONFIGURATION.md and resolve to the
// same set: a key or variable resolve reads must have a row, and a row
// must name only what resolve reads.
func TestTableMatchesSettings(t *testing.T) {
	read := map[string]bool{}
	src := source{config: config{}, lookupEnv: func(string) (string, bool) { return "", false }, seen: read}
	if _, err := resolve(src, Flags{}); err != nil {
		t.Fatal(err)
	}
	doc := documented(t)
	var missing, extra []string
	for k := range read {
		if !doc[k] {
			missing = append(missing, k)
		}
	}
	for k := range doc {
		if !read[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 {
		t.Errorf("read by settings but not in docs/CONFIGURATION.md's table: %v", missing)
	}
	if len(extra) > 0 {
		t.Errorf("in docs/CONFIGURATION.md's table but not read by settings: %v", extra)
	}
}
