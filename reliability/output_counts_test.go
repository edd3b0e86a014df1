package reliability

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// sinceLine is handover --json's since member, which names the second
// the command ran.
var sinceLine = regexp.MustCompile(`(?m)^  "since": "[^"]*",$`)

// TestJSONOutputChecked: the status and the handover of every task, with
// --json, are held to their published schemas by the real binary, at a
// cost that grows with what changed: the first run decodes and validates
// the whole output (Cost.OutputBytes at least its length), the next ones
// with nothing moved validate next to nothing, a run after one record
// validates that task's part alone, and once the memo's lines are edited
// (or come from elsewhere) they match nothing and the whole output is
// validated again. What is printed stays the same.
func TestJSONOutputChecked(t *testing.T) {
	t.Parallel()
	c := scaleWorld(t, shortListing)
	for _, cmd := range [][]string{{"status", "--json"}, {"handover", "--json"}} {
		first := c.costed(cmd...)
		out := c.mustReason(cmd...)
		if len(out) < 64<<10 {
			t.Fatalf("%v prints %d bytes, too few for its memo to be used", cmd, len(out))
		}
		if first.OutputBytes < int64(len(out)) {
			t.Errorf("%v first validated %d bytes of output, want all %d", cmd, first.OutputBytes, len(out))
		}
		// With nothing moved nothing is validated, but for handover the
		// rest of the document around its lists when its since (the
		// second it ran) moved on: some 115 bytes.
		limit := int64(0)
		if cmd[0] == "handover" {
			limit = 512
		}
		if again := c.costed(cmd...); again.OutputBytes > limit {
			t.Errorf("%v with nothing moved validated %d bytes of output, want at most %d", cmd, again.OutputBytes, limit)
		}
		// handover's since names the second it ran: two runs may straddle one.
		if again := c.mustReason(cmd...); sinceLine.ReplaceAllString(again, "") != sinceLine.ReplaceAllString(out, "") {
			t.Errorf("%v prints otherwise with its memo:\n%s\nthen\n%s", cmd, out, again)
		}
	}
	c.mustReason("assess", "T-000007", "--subject", "one more", "--question", "q?", "--materiality", "trivial", "--reversibility", "reversible")
	for _, cmd := range [][]string{{"status", "--json"}, {"handover", "--json"}} {
		if moved := c.costed(cmd...); moved.OutputBytes == 0 || moved.OutputBytes > 4<<10 {
			t.Errorf("%v after one record validated %d bytes of output, want that task's part alone", cmd, moved.OutputBytes)
		}
	}
	dir := filepath.Join(c.dir, ".git", "reason", "outputs.d")
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != 2 {
		t.Fatalf("memo files %v, want one for each document", files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i := range data {
			if data[i] != '\n' {
				data[i] = "01"[data[i]&1]
			}
		}
		if err := os.WriteFile(f, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, cmd := range [][]string{{"status", "--json"}, {"handover", "--json"}} {
		edited := c.costed(cmd...)
		if out := c.mustReason(cmd...); edited.OutputBytes < int64(len(out)) {
			t.Errorf("%v with its memo's lines edited validated %d bytes of output, want all %d", cmd, edited.OutputBytes, len(out))
		}
	}
}
