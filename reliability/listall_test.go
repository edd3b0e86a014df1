package reliability

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"git-reason/reliability/harness"
)

// TestStatusAllCounts holds `status` of every task with nothing moved to
// the rows kept by head (.git/reason/status-rows.journal), with counts
// that do not depend on timing (bench/listall times it): at 1,000 tasks
// (200 with -short) it decodes no journal entry from JSON (it decoded one
// per task, 1,000, from status.journal), reads no task's records and
// lists the task refs once (twice before: the signature summaries listed
// them again); after one record it derives that task alone and shows it
// (it read every task's status before, 1,000 entries decoded, and listed
// the refs three times), and the status after that decodes none again.
func TestStatusAllCounts(t *testing.T) {
	t.Parallel()
	holdListingCounts(t, 1000, tableListing("status", func(out string) (string, bool) {
		line := lineStarting(out, "T-000007")
		return line, strings.Contains(line, "one more") && strings.Contains(line, " 3 ")
	}))
}

// asIs is a command's output compared as it is.
func asIs(out string) string { return out }

// tableListing is cmd printing a table, a header then a line per task,
// compared as it is from one run to the next; shows is as listing's.
func tableListing(cmd string, shows func(out string) (string, bool)) listing {
	return listing{
		cmd:   cmd,
		same:  asIs,
		rows:  func(out string) int { return strings.Count(out, "\n") - 1 },
		shows: shows,
	}
}

// shortListing is how many tasks holdListingCounts lists with -short:
// more than ops' fewMoved (16), the moved tasks a listing asks about one
// at a time, so that nothing moved and one task moved are each a small
// part of the whole, as at 1,000.
const shortListing = 200

// listing is a command that lists every task from rows kept by head, as
// holdListingCounts holds it.
type listing struct {
	cmd string
	// same is the listing as compared from one run to the next.
	same func(out string) string
	// rows is how many tasks the listing shows.
	rows func(out string) int
	// shows is what the listing shows of T-000007, and whether that is
	// its new subject ("one more") after its third record.
	shows func(out string) (string, bool)
}

// holdListingCounts holds l at n tasks to counts that do not depend on
// timing: with nothing moved it decodes no journal entry, reads no task
// and lists the task refs once, and shows what it showed when it made its
// rows; after one record it derives that task alone and shows it; the run
// after that decodes and reads nothing again. With -short it holds them
// at shortListing tasks instead: every count is exact at any number of
// tasks, and the first listing, which derives every task, is most of the
// test's time.
func holdListingCounts(t *testing.T, n int, l listing) {
	t.Helper()
	if testing.Short() {
		n = shortListing
	}
	c := scaleWorld(t, n)
	first := l.same(c.mustReason(l.cmd)) // builds the caches
	warm := c.costed(l.cmd)
	if warm.EntryDecodes != 0 || warm.Tasks != 0 || warm.Histories != 0 || warm.RefsListed != int64(n) {
		t.Errorf("%s of %d tasks with nothing moved: %+v, want no journal entry decoded, no task read and the task refs listed once", l.cmd, n, warm)
	}
	if out := l.same(c.mustReason(l.cmd)); out != first {
		t.Errorf("%s from the rows kept differs from the %s that made them:\n%s\nthen\n%s", l.cmd, l.cmd, first, out)
	}
	if rows := l.rows(first); rows != n {
		t.Errorf("%s of %d tasks shows %d", l.cmd, n, rows)
	}
	c.mustReason("assess", "T-000007", "--subject", "one more", "--question", "q?", "--materiality", "trivial", "--reversibility", "reversible")
	moved := c.costed(l.cmd)
	if moved.EntryDecodes != 0 || moved.Tasks > 1 || moved.Histories > 1 || moved.RefsListed != int64(n) {
		t.Errorf("%s after one record of one of %d tasks: %+v, want that task alone derived, no journal entry decoded and the task refs listed once", l.cmd, n, moved)
	}
	again := c.costed(l.cmd)
	if again.EntryDecodes != 0 || again.Tasks != 0 {
		t.Errorf("%s after one record, then again: %+v, then %+v: want no journal entry decoded and no task read the second time", l.cmd, moved, again)
	}
	if what, ok := l.shows(c.mustReason(l.cmd)); !ok {
		t.Errorf("%s after one record shows T-000007 as %q, want its new subject and 3 records", l.cmd, what)
	}
}

// TestStatusAllManyMoved: `status` of every task after more tasks moved
// than are asked about one at a time (20 of 200, over ops' fewMoved of
// 16) derives those tasks alone, their signatures read from their logs
// or asked of git together: no journal entry decoded, at most the
// moved tasks read, the task refs listed once; main read every task's
// status then (180 entries decoded). Their rows show the new records, and
// the status after that reads nothing again.
func TestStatusAllManyMoved(t *testing.T) {
	t.Parallel()
	const n, k = 200, 20
	c := scaleWorld(t, n)
	c.mustReason("status") // builds the caches
	for i := range k {
		c.mustReason("assess", fmt.Sprintf("T-%06d", 5*i+1), "--subject", fmt.Sprintf("moved %d", i), "--question", "q?", "--materiality", "trivial", "--reversibility", "reversible")
	}
	moved, gits := c.costedTraced(true, "status")
	if moved.EntryDecodes != 0 || moved.Tasks > k || moved.Histories > k || moved.RefsListed != n {
		t.Errorf("status after %d of %d tasks moved: %+v, want those tasks alone derived, no journal entry decoded and the task refs listed once", k, n, moved)
	}
	if gits > 5 {
		t.Errorf("status after %d of %d tasks moved started %d git processes, want at most 5 (discovery, git config --list, and one rev-list, cat-file and log for every moved task's signatures)", k, n, gits)
	}
	out := c.mustReason("status")
	for i := range k {
		if line := lineStarting(out, fmt.Sprintf("T-%06d", 5*i+1)); !strings.Contains(line, fmt.Sprintf("moved %d", i)) || !strings.Contains(line, " 3 ") {
			t.Errorf("status after %d tasks moved shows moved task %d as %q, want its new subject and 3 records", k, i, line)
		}
	}
	if again := c.costed("status"); again.EntryDecodes != 0 || again.Tasks != 0 || again.Histories != 0 {
		t.Errorf("status after %d tasks moved, then again: %+v, want nothing read the second time", k, again)
	}
}

// TestStatusAllServedIsDerived: `status` of every task and `status
// --json`, served from the journals kept by head after some tasks moved
// (entries appended after a sorted run: tasks rewritten, one new task
// sorting before every other and one after, which a reader of the
// journal finds past the run), print byte for byte what they print when
// every task is derived again (.git/reason removed).
func TestStatusAllServedIsDerived(t *testing.T) {
	t.Parallel()
	c := scaleWorld(t, 60)
	c.mustReason("status")
	c.mustReason("status", "--json")
	for _, task := range []string{"T-000007", "A-first", "T-000042", "Z-last"} {
		c.mustReason("assess", task, "--subject", "moved "+task, "--question", "q?", "--materiality", "trivial", "--reversibility", "reversible")
	}
	c.mustReason("status") // the moved tasks' entries appended
	c.mustReason("status", "--json")
	served, servedJSON := c.mustReason("status"), c.mustReason("status", "--json")
	if warm := c.costed("status"); warm.EntryDecodes != 0 || warm.Tasks != 0 {
		t.Errorf("status, nothing moved since: %+v, want every row served from the journal", warm)
	}
	if err := os.RemoveAll(filepath.Join(c.dir, ".git", "reason")); err != nil {
		t.Fatal(err)
	}
	derived, derivedJSON := c.mustReason("status"), c.mustReason("status", "--json")
	if served != derived {
		t.Errorf("status served from the journal:\n%s\nderived:\n%s", served, derived)
	}
	if servedJSON != derivedJSON {
		t.Errorf("status --json served from the journal:\n%s\nderived:\n%s", servedJSON, derivedJSON)
	}
	if !strings.Contains(served, "moved A-first") || !strings.Contains(served, "moved Z-last") || strings.Count(served, "\n") < 62 {
		t.Errorf("status shows not every task, or not the moved ones:\n%s", served)
	}
}

// TestStatusRowsForged: a row of status-rows.journal edited by hand is
// not shown: the task's status is read as if the row were missing, and
// the true row is kept again.
func TestStatusRowsForged(t *testing.T) {
	t.Parallel()
	holdRowsForged(t, "status-rows.journal", asIs, nil, []string{"status"})
}

// holdRowsForged holds the rows journal file under .git/reason/ to its
// MACs: after T-1 and T-2 are assessed (and prepare has run, when given),
// a row of T-1 edited by hand (its checksum and length written anew, so
// that only its MAC refuses it) is not shown: each of views (the
// arguments of a command that reads the rows) shows what it showed
// before, as same compares it, and the true row is kept again. It returns
// what the views showed.
func holdRowsForged(t *testing.T, file string, same func(string) string, prepare func(*sandbox), views ...[]string) []string {
	t.Helper()
	s := newSandbox(t)
	for _, task := range []string{"T-1", "T-2"} {
		s.mustReason("assess", task, "--subject", "true subject of "+task, "--question", "q?", "--materiality", "trivial", "--reversibility", "reversible")
	}
	if prepare != nil {
		prepare(s)
	}
	s.mustReason(views[0]...) // keeps the rows
	before := make([]string, len(views))
	for i, v := range views {
		before[i] = same(s.mustReason(v...))
	}
	path := filepath.Join(s.dir, ".git", "reason", file)
	editJournalEntry(t, path, "T-1", func(data []byte) []byte {
		return bytes.Replace(data, []byte("true subject of T-1"), []byte("forged subject"), 1)
	})
	for i, v := range views {
		if out := same(s.mustReason(v...)); strings.Contains(out, "forged") || out != before[i] {
			t.Errorf("%s after its row was edited:\n%s\nwant as before:\n%s", strings.Join(v, " "), out, before[i])
		}
	}
	if data, err := os.ReadFile(path); err != nil || !bytes.Contains(data[bytes.LastIndex(data, []byte("\nT-1 ")):], []byte("true subject of T-1")) {
		t.Errorf("the true row of T-1 is not kept again after the forged one (%v)", err)
	}
	return before
}

// lineStarting is the line of out that starts with prefix.
func lineStarting(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// editJournalEntry rewrites the last entry of task in the journal at path
// (gitstore/journal.go's format: "<task> <head> <crc> <length>", the
// data, a newline) with edit's data, its checksum and length written anew.
func editJournalEntry(t *testing.T, path, task string, edit func([]byte) []byte) {
	t.Helper()
	data := harness.ReadFile(t, path)
	at := bytes.LastIndex(data, []byte("\n"+task+" ")) + 1
	if at == 0 {
		t.Fatalf("no entry of %s in %s", task, path)
	}
	end := at + bytes.IndexByte(data[at:], '\n')
	f := strings.Fields(string(data[at:end]))
	size, _ := strconv.Atoi(f[3])
	body := data[end+1 : end+1+size]
	edited := edit(append([]byte(nil), body...))
	if bytes.Equal(edited, body) {
		t.Fatalf("the edit changes nothing of %s's entry %q", task, body)
	}
	header := fmt.Sprintf("%s %s %x %d\n", f[0], f[1], crc32.ChecksumIEEE(edited), len(edited))
	out := append(append(append(append([]byte(nil), data[:at]...), header...), edited...), data[end+1+size:]...)
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestHandoverAllCounts holds `handover` of every task with nothing moved
// to the rows kept by head (.git/reason/handover-rows.journal), with
// counts that do not depend on timing (bench/listall times it): at 1,000
// tasks (200 with -short) it decodes no journal entry from JSON (it
// decoded one per task, 1,000, from handover.journal), reads no task's
// records and lists the task refs once (twice before: the signature
// summaries listed them again); after one record it derives that task
// alone and shows it, and the handover after that decodes none again.
func TestHandoverAllCounts(t *testing.T) {
	t.Parallel()
	holdListingCounts(t, 1000, listing{
		cmd:  "handover",
		same: withoutSince,
		rows: func(out string) int { return strings.Count(out, "\n### `T-") }, // every task is open
		shows: func(out string) (string, bool) {
			const head = "### `T-000007`: "
			i := strings.Index(out, head)
			if i < 0 {
				return "missing", false
			}
			shown := out[i:min(len(out), i+600)]
			return shown, strings.HasPrefix(out[i+len(head):], "one more\n") && strings.Contains(out[i:], "next: `git reason plan T-000007`")
		},
	})
}

// TestHandoverRowsForged: a row of handover-rows.journal edited by hand
// is not shown: the task is derived again from its ref, and the true row
// is kept again.
func TestHandoverRowsForged(t *testing.T) {
	t.Parallel()
	holdRowsForged(t, "handover-rows.journal", withoutSince, nil, []string{"handover"})
}

// withoutSince is a handover without the line naming the time its
// settled tasks are counted from (now, less seven days).
func withoutSince(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "## Settled since ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// TestDoctorWarmReadsNoTask: doctor counts the records of every task from
// the status index, kept by head, so that run again with nothing moved it
// reads no task's records (it loaded and derived every task on every
// run: 60 here), and after one task moved, that task alone.
func TestDoctorWarmReadsNoTask(t *testing.T) {
	t.Parallel()
	const n = 60
	c := scaleWorld(t, n)
	c.mustReason("doctor")
	if again := c.costed("doctor"); again.Tasks != 0 || again.Histories != 0 {
		t.Errorf("doctor again with nothing moved: %+v, want no task read", again)
	}
	c.mustReason("assess", "T-000003", "--subject", "moved", "--question", "q?", "--materiality", "trivial", "--reversibility", "reversible")
	if moved := c.costed("doctor"); moved.Tasks > 1 || moved.Histories > 1 {
		t.Errorf("doctor after one task moved: %+v, want that task alone read", moved)
	}
	if out := c.mustReason("doctor"); !strings.Contains(out, fmt.Sprintf("refs: %d tasks, ", n)) {
		t.Errorf("doctor counts: %s", out)
	}
}
