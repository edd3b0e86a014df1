package reliability

import (
	"strings"
	"testing"
)

// TestTasksCounts holds `git reason tasks` with nothing moved to the rows
// kept by head (.git/reason/task-rows.journal), with counts that do not
// depend on timing (bench/listall times it): at 1,000 tasks (200 with
// -short) it decodes no journal entry from JSON (it decoded one per task,
// 1,000, from status.journal, before task-rows.journal), reads no task's
// records and lists the task refs once; after one record it derives that
// task alone and shows it, and the list after that decodes none again.
func TestTasksCounts(t *testing.T) {
	t.Parallel()
	holdListingCounts(t, 1000, tableListing("tasks", func(out string) (string, bool) {
		// Newest activity first: the task just written is the first row.
		line := strings.SplitN(out, "\n", 3)[1]
		return line, strings.HasPrefix(line, "T-000007") && strings.Contains(line, "one more") && strings.Contains(line, " 3 ")
	}))
}

// TestTaskRowsForged: a row of task-rows.journal edited by hand is not
// shown, in the list or its JSON: the task's status is read as if the row
// were missing, and the true row is kept again. A closed task's row keeps
// how it closed.
func TestTaskRowsForged(t *testing.T) {
	t.Parallel()
	closeT2 := func(s *sandbox) { s.mustReason("close", "T-2", "--outcome", "abandoned", "--reason", "not needed") }
	before := holdRowsForged(t, "task-rows.journal", asIs, closeT2, []string{"tasks"}, []string{"tasks", "--json"})
	if json := before[1]; !strings.Contains(json, `"outcome": "abandoned"`) && !strings.Contains(json, `"outcome":"abandoned"`) {
		t.Errorf("tasks --json from the rows kept lost how T-2 closed:\n%s", json)
	}
}
