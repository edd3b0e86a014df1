package gitstore

import (
	"bytes"
	"fmt"
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
	dir, s := keyedStore(t)
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

// TestOutputChecksKeepTheWholeForItsViews: an output of a few tasks (a
// view: tasks --open, log --grep) after one of every task leaves the
// memo's lines for the others, so the next output of every task
// validates nothing again; an output of every task after its tasks
// changed writes the file again with its own lines alone; and outputs of
// a view alone, its tasks changing, do not grow the file past 64 times
// the parts it asks about.
func TestOutputChecksKeepTheWholeForItsViews(t *testing.T) {
	dir, s := keyedStore(t)
	path := filepath.Join(dir, "reason", "outputs.d", "output.tasks.json")
	lines := func() int {
		data, _ := os.ReadFile(path)
		n := 0
		for _, line := range bytes.Split(data, []byte{'\n'}) {
			if len(line) == 32 {
				n++
			}
		}
		return n
	}
	// check asks about the parts of tasks from to to (state names each
	// task's state), keeps those it did not know, and says how many it
	// did not know.
	check := func(from, to int, state string) (unknown int) {
		o := &OutputChecks{store: s, name: "output.tasks.json", doc: []byte(`{}`), digest: "d"}
		for i := from; i < to; i++ {
			part := []byte(fmt.Sprintf(`{"task": "t%d", "state": %q}`, i, state))
			if !o.Known("", part) {
				unknown++
				o.Keep("", part)
			}
		}
		o.Save()
		return unknown
	}
	// The memo begun by a view of 100 tasks.
	if n := check(0, 100, "a"); n != 100 {
		t.Fatalf("the first output of a view knew %d parts", 100-n)
	}
	if n := check(0, 1000, "a"); n != 900 {
		t.Fatalf("the first output of every task knew %d parts, want the view's 100", 1000-n)
	}
	if n := check(0, 100, "a"); n != 0 {
		t.Fatalf("a view of 100 tasks validated %d parts again", n)
	}
	if n := check(0, 1000, "a"); n != 0 {
		t.Fatalf("after a view of 100 tasks, the output of every task validated %d parts again (the memo has %d lines)", n, lines())
	}
	// Every task changes twice: the whole adds 1,000 lines each time,
	// then its next output, of the same states, writes the file with its
	// own alone.
	for _, state := range []string{"b", "c"} {
		if n := check(0, 1000, state); n != 1000 {
			t.Fatalf("every task changed, and %d parts were known", 1000-n)
		}
	}
	if got := lines(); got != 3000 {
		t.Fatalf("the memo has %d lines, want the 3,000 of three states", got)
	}
	if n := check(0, 1000, "c"); n != 0 || lines() != 1000 {
		t.Fatalf("the output of every task validated %d parts again and left %d lines, want 0 and 1,000", n, lines())
	}
	// A view of 10 tasks alone, its tasks changing each time: the file
	// stays under 64 times the view's parts plus one change of them.
	for i := 0; i < 200; i++ {
		check(0, 10, fmt.Sprintf("v%d", i))
		if got := lines(); got > 64*10+10 {
			t.Fatalf("after %d outputs of a view of 10 tasks, each changed, the memo has %d lines", i+1, got)
		}
	}
}

// keyedStore is a store of a git dir holding only the repository's key.
func keyedStore(t *testing.T) (string, *Store) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "reason"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "reason", "verified.key"), bytes.Repeat([]byte{7}, 32), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, &Store{Repo: &Repo{GitDir: dir, CommonDir: dir}}
}
