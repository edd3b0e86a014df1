package advisor

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

// fixtureBase is a made-up base declaration set; its names exist nowhere
// else.
func fixtureBase() fstest.MapFS {
	return fstest.MapFS{
		"advisors.yaml": {Data: []byte(`capabilities:
  - id: reasoning
  - id: code_review
  - id: drawing
advisors:
  - id: alpha
    transport: api
    adapter: chat_completions
    base_url: https://alpha.invalid/v1
    credential: ALPHA_TOKEN
    provider: fix_gateway
    vendor: fixvendor
    model: fix-large
    capabilities: [reasoning, code_review]
  - id: bravo
    transport: cli
    adapter: exec
    executable: bravo-cli
    command: [bravo-cli, ask]
    vendor: fixvendor
    model: fix-small
    capabilities: [reasoning]
    cooldown: 5m
  - id: charlie
    transport: local_runtime
    adapter: chat_completions
    base_url: http://127.0.0.1:9999/v1
    executable: charlie-serve
    capabilities: [reasoning]
    local: true
`)},
		"providers.yaml": {Data: []byte("providers:\n  - id: fix_gateway\n    name: Fixture Gateway\n")},
		"vendors.yaml": {Data: []byte(`vendors:
  - id: fixvendor
    name: Fixture Vendor
    models:
      - id: fix-large
      - id: fix-small
`)},
		"profiles.yaml": {Data: []byte(`profiles:
  - id: default
    mode: normal
  - id: offline
    mode: offline
  - id: ci
    mode: ci
`)},
	}
}

// writeFile writes data to a new file in a test directory and returns its
// path.
func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func ids(c *Catalog) []string {
	var out []string
	for _, d := range c.Advisors {
		out = append(out, d.ID)
	}
	return out
}
