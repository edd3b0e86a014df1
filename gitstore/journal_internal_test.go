package gitstore

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJournal: a journal appends what changed and nothing else, reads
// back the last entry of each task, is rewritten whole when its dead
// entries outweigh the live ones or its tail is damaged, and never grows
// past about twice what it holds however many rounds of changes it
// takes.
func TestJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "reason", "x.journal")
	head := func(task string, round int) string {
		return fmt.Sprintf("%040x", len(task)*1000+round)[:40]
	}
	const n = 1000
	tasks := make([]string, n)
	for i := range tasks {
		tasks[i] = fmt.Sprintf("T-%06d", i)
	}
	heads := map[string]string{}
	const scope = "journal test"
	// save brings the journal to the heads, as ops saves its signature
	// summaries, and returns how many bytes it wrote.
	save := func(changedTasks []string) int {
		j := ReadJournal(path, scope)
		var changed []string
		for _, task := range tasks {
			if h, _, ok := j.Entry(task); !ok || h != heads[task] {
				changed = append(changed, task)
			}
		}
		if len(changed) != len(changedTasks) {
			t.Fatalf("the journal lacks %d tasks, want the %d changed", len(changed), len(changedTasks))
		}
		before := costs.written.Load()
		j.Save(tasks, func(task string) (string, bool) { return heads[task], true }, func(task string) ([]byte, bool) {
			e := &handoverEntry{Head: heads[task]}
			e.Handover.Task = task
			data, err := json.Marshal(e)
			return data, err == nil
		}, changed)
		return int(costs.written.Load() - before)
	}
	// check reads the journal back: every task at its head.
	check := func() {
		t.Helper()
		j := ReadJournal(path, scope)
		if !j.file.whole || j.Len() != n {
			t.Fatalf("the journal reads %d entries (whole: %v), want %d", j.Len(), j.file.whole, n)
		}
		for _, task := range tasks {
			var e handoverEntry
			h, data, _ := j.Entry(task)
			if err := json.Unmarshal(data, &e); err != nil || e.Head != heads[task] || e.Handover.Task != task || h != heads[task] {
				t.Fatalf("%s reads back as %+v (%v), want head %s", task, e, err, heads[task])
			}
		}
	}
	for _, task := range tasks {
		heads[task] = head(task, 0)
	}
	full := save(tasks)
	check()
	compactions := 0
	for round := 1; round <= 80; round++ {
		at := round * 25 % n
		moved := tasks[at : at+25]
		for _, task := range moved {
			heads[task] = head(task, round)
		}
		wrote := save(moved)
		check()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > int64(2*full+journalMin) {
			t.Fatalf("round %d: the journal is %d bytes, holding %d", round, fi.Size(), full)
		}
		if wrote >= full/2 && int64(wrote) != fi.Size() {
			t.Fatalf("round %d: %d bytes written for 25 tasks moved, and not a compaction", round, wrote)
		}
		if wrote < full/2 && wrote > 25*(full/n+10) {
			t.Fatalf("round %d: %d bytes appended for 25 tasks moved (a whole file is %d)", round, wrote, full)
		}
		compactions += min(1, wrote/(full/2))
	}
	if compactions < 1 || compactions > 2 {
		t.Errorf("80 rounds of 25 tasks moved in 1,000 compacted the journal %d times, want 1 or 2", compactions)
	}
	// Nothing moved: nothing written.
	if wrote := save(nil); wrote != 0 {
		t.Errorf("nothing moved, and %d bytes were written", wrote)
	}
	// A write cut short: the entries before it read, and the next save
	// rewrites the file whole.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("T-000001 " + strings.Repeat("e", 40) + " 0 50\n{\"head\"")
	f.Close()
	if j := ReadJournal(path, scope); j.file.whole || j.Len() != n {
		t.Fatalf("a damaged tail: the journal reads %d entries, whole %v; want %d, not whole", j.Len(), j.file.whole, n)
	}
	heads[tasks[0]] = head(tasks[0], 99)
	if wrote := save(tasks[:1]); wrote < full/2 {
		t.Errorf("after a damaged tail, %d bytes written, want the file rewritten whole", wrote)
	}
	check()
	// A byte changed inside an entry: that entry and the ones after it
	// are not read.
	data, _ := os.ReadFile(path)
	i := strings.Index(string(data), `"T-000500"`)
	data[i+3] = '9'
	os.WriteFile(path, data, 0o600)
	if j := ReadJournal(path, scope); j.file.whole || j.Len() != 500 {
		t.Errorf("an entry changed: the journal reads %d entries (whole: %v), want 500, not whole", j.Len(), j.file.whole)
	}
}
