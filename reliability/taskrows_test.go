package reliability

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTasksCounts holds `git reason tasks` with nothing moved to the rows
// kept by head (.git/reason/task-rows.journal), with counts that do not
// depend on timing (bench/listall times it): at 1,000 tasks it decodes
// no journal entry from JSON (it decoded one per task, 1,000, from
// status.journal, before task-rows.journal), reads no task's records and
// lists the task refs once; after one record it derives that task alone
// and shows it, and the list after that decodes none again.
func TestTasksCounts(t *testing.T) {
	holdListingCounts(t, 1000, listing{
		cmd:  "tasks",
		same: func(out string) string { return out },
		rows: func(out string) int { return strings.Count(out, "\n") - 1 }, // a header, then a line per task
		shows: func(out string) (string, bool) {
			// Newest activity first: the task just written is the first row.
			line := strings.SplitN(out, "\n", 3)[1]
			return line, strings.HasPrefix(line, "T-000007") && strings.Contains(line, "one more") && strings.Contains(line, " 3 ")
		},
	})
}

// TestTaskRowsForged: a row of task-rows.journal edited by hand (its
// checksum and length written anew, so that only its MAC refuses it) is
// not shown: the task's status is read as if the row were missing, and
// the true row is kept again. A closed task's row keeps how it closed.
func TestTaskRowsForged(t *testing.T) {
	s := newSandbox(t)
	for _, task := range []string{"T-1", "T-2"} {
		s.mustReason("assess", task, "--subject", "true subject of "+task, "--question", "q?", "--materiality", "trivial", "--reversibility", "reversible")
	}
	s.mustReason("close", "T-2", "--outcome", "abandoned", "--reason", "not needed")
	s.mustReason("tasks")
	before := s.mustReason("tasks")
	beforeJSON := s.mustReason("tasks", "--json")
	if !strings.Contains(beforeJSON, `"outcome": "abandoned"`) && !strings.Contains(beforeJSON, `"outcome":"abandoned"`) {
		t.Fatalf("tasks --json from the rows kept lost how T-2 closed:\n%s", beforeJSON)
	}
	path := filepath.Join(s.dir, ".git", "reason", "task-rows.journal")
	editJournalEntry(t, path, "T-1", func(data []byte) []byte {
		return bytes.Replace(data, []byte("true subject of T-1"), []byte("forged subject"), 1)
	})
	out := s.mustReason("tasks")
	if strings.Contains(out, "forged") || out != before {
		t.Errorf("tasks after its row was edited:\n%s\nwant as before:\n%s", out, before)
	}
	if data, err := os.ReadFile(path); err != nil || !bytes.Contains(data[bytes.LastIndex(data, []byte("\nT-1 ")):], []byte("true subject of T-1")) {
		t.Errorf("the true row of T-1 is not kept again after the forged one (%v)", err)
	}
	if out := s.mustReason("tasks", "--json"); out != beforeJSON {
		t.Errorf("tasks --json after the forged row:\n%s\nwant as before:\n%s", out, beforeJSON)
	}
}
