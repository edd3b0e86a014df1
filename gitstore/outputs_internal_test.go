package gitstore

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestOutputChecksReadsAnyFile: the memo of --json outputs reads what it
// wrote back, and a file in any other shape (a line cut and joined with
// the next by a crash between appends, one of more than 32 hex digits,
// binary data, lines without a break at the end) is read without a
// crash: its lines that are not one MAC match nothing, and the lines
// that are still match.
func TestOutputChecksReadsAnyFile(t *testing.T) {
	dir := t.TempDir()
	s := &Store{Repo: &Repo{GitDir: dir, CommonDir: dir}}
	if err := os.MkdirAll(filepath.Join(dir, "reason"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "reason", "verified.key"), bytes.Repeat([]byte{7}, 32), 0o600); err != nil {
		t.Fatal(err)
	}
	open := func() *OutputChecks {
		return &OutputChecks{store: s, name: "output.status.json", doc: []byte(`{}`), digest: "d"}
	}
	o := open()
	o.Keep("", []byte("part one"))
	o.Save()
	path := filepath.Join(dir, "reason", "outputs.d", "output.status.json")
	written, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !open().Known("", []byte("part one")) {
		t.Fatal("a part kept is not known after it was saved")
	}
	for name, extra := range map[string]string{
		"a line cut, then another": "0123456789ab" + string(written),
		"34 hex digits":            "0123456789abcdef0123456789abcdef01\n",
		"64 hex digits":            string(bytes.Repeat([]byte("ab"), 32)) + "\n",
		"binary":                   "\x00\xff\n\xfe\n",
		"no last line break":       "0123456789abcdef0123456789abcdef",
	} {
		if err := os.WriteFile(path, []byte(string(written)+extra), 0o600); err != nil {
			t.Fatal(err)
		}
		o := open()
		if !o.Known("", []byte("part one")) {
			t.Errorf("%s: the part written is no longer known", name)
		}
		if o.Known("", []byte("part two")) {
			t.Errorf("%s: a part never kept is known", name)
		}
	}
}
