package ops

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"

	"git-reason/gitstore"
	"git-reason/record"
)

// statusRowsFile is the sealed journal (gitstore.Sealed) of the line the
// table of every task prints of each task, kept by head.
const statusRowsFile = "status-rows.journal"

// StatusRow is what the table of every task shows of one task: its line,
// and the lines after the table when its history does not replay clean
// or its signatures say something.
type StatusRow struct {
	Task        string
	Phase       record.Phase
	Closed      bool
	Records     int
	Reviews     int
	Updated     string
	Subject     string
	NotVerified string // record.NotVerified of the replay's first finding, "" when it replays clean
	Signatures  string // the signature summary's Text
	// Needs: a merge in its history made a record inadmissible that no
	// record settles yet (gitstore.Store.MergeRefusals): Needs says which.
	Needs bool
	// Reused is each task whose conclusion the task's latest assessment
	// reuses, with the head it had when the reuse was checked
	// ("<task> <head>", space-separated; noRef for a ref missing): the
	// row holds while they do.
	Reused string
}

// statusReuse marks s, the status of task at head, with what its reuses'
// check finds now (reuseFinding) and returns the heads it was checked
// against as a row keeps them.
func (e *Session) statusReuse(ctx context.Context, task, head string, s *record.Status) (string, error) {
	f, reused, err := e.reuseFinding(ctx, task, head, s.Reuses, s.DoesNotVerify)
	if err != nil {
		return "", err
	}
	s.WithFinding(f)
	return reusedField(reused), nil
}

// indexedStatus is the status of task t as its index entry x holds it,
// marked with what its reuses' check found (x.Reuse), and the heads that
// check was made against as a row keeps them. An entry whose reuses went
// unchecked (the check failed as the entry was made) is checked now
// (statusReuse), which reports why.
func (e *Session) indexedStatus(ctx context.Context, t record.TaskHead, x *gitstore.IndexEntry) (record.Status, string, error) {
	s := x.Status
	if x.Reuse == nil {
		reused, err := e.statusReuse(ctx, t.Task, t.Head, &s)
		return s, reused, err
	}
	s.WithFinding(x.Reuse.Finding)
	return s, reusedField(x.Reuse.Reused), nil
}

// reusedField is a row's Reused of the heads reused gives each reused
// task ("": a ref missing).
func reusedField(reused map[string]string) string {
	var b strings.Builder
	for _, u := range slices.Sorted(maps.Keys(reused)) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(u + " " + cmp.Or(reused[u], noRef))
	}
	return b.String()
}

// noRef stands in a row's Reused for a reused task with no ref: a field
// of its own, so that the row holds while the ref stays missing.
const noRef = "-"

// reusedMoved reports whether a task a row's Reused names has its ref at
// another head than the row was made with, as the refs were listed (at).
func reusedMoved(reused string, at func(task string) string) bool {
	f := strings.Fields(reused)
	for i := 0; i+1 < len(f); i += 2 {
		if cmp.Or(at(f[i]), noRef) != f[i+1] {
			return true
		}
	}
	return len(f)%2 != 0
}

// StatusRows returns the row of every task that reads, sorted by task
// name, as StatusAll and SignatureSummaries give them. With no task
// moved it lists the task refs and reads one small entry per task from
// .git/reason/status-rows.journal, a sealed journal (each entry's MAC
// checked, kept for what git judged the signature lines by,
// readDigest): no status or signature summary is decoded. The tasks with
// no entry at their head (they moved, or an entry was edited) are
// derived alone and their rows appended (movedRows), up to manyMoved of
// them; past that, or when one does not read, every task's status and
// signatures are read as StatusAll and SignatureSummaries read them
// (deriving the moved ones) and the rows they lack are appended.
func (e *Session) StatusRows(ctx context.Context) ([]StatusRow, error) {
	tasks, j, err := e.rowsJournal(ctx, statusRowsFile, "status rows 3")
	if err != nil {
		return nil, err
	}
	limit := manyMoved(len(tasks))
	rows, moved := keptRows(j, tasks, limit, parseStatusRow)
	if len(moved) <= limit {
		moved = rowsReusedMoved(tasks, rows, moved)
	}
	if len(moved) == 0 {
		e.noticeTexts(len(rows), func(i int) (string, string) { return rows[i].Task, rows[i].Signatures })
		return rows, nil
	}
	// Some tasks moved: each is derived alone, their signatures asked
	// about as SignatureSummaries asks, and their rows appended; no other
	// task's status is read.
	if len(moved) <= limit && e.movedRows(ctx, j, tasks, rows, moved) {
		e.noticeTexts(len(rows), func(i int) (string, string) { return rows[i].Task, rows[i].Signatures })
		return rows, nil
	}
	rows = make([]StatusRow, 0, len(tasks))
	heads, entries, err := e.Index.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	// Each task's signatures in brief, kept by head: none when git could
	// not be asked (a read surface shows none rather than failing), and
	// then the rows are not kept.
	sums, sumsErr := e.SignatureSummaries(ctx)
	rows = rows[:0]
	names := make([]string, len(heads))
	for i, t := range heads {
		names[i] = t.Task
		s, reused, err := e.indexedStatus(ctx, t, entries[t.Task])
		if err != nil {
			return nil, err
		}
		r := StatusRow{Task: s.Task, Phase: s.Phase, Closed: s.Closed != nil, Records: s.Records, Reviews: s.ReviewCount,
			Updated: s.Updated, Subject: s.Subject, Signatures: sums[s.Task].Text(), Needs: entries[t.Task].Needs, Reused: reused}
		if s.DoesNotVerify != nil {
			r.NotVerified = record.NotVerified(s.DoesNotVerify).String()
		}
		rows = append(rows, r)
		if kept, ok := j.Get(t.Task, t.Head); (!ok || reused != "" && string(kept) != string(formatStatusRow(r))) && sumsErr == nil && sums[s.Task].Kept() {
			j.Put(t.Task, t.Head, formatStatusRow(r))
		}
	}
	j.Save(names)
	return rows, nil
}

// rowsReusedMoved is moved with the indexes of the rows kept whose
// reused tasks moved since (StatusRow.Reused): their reuses are checked
// again. Tasks whose rows name none cost nothing.
func rowsReusedMoved(tasks []record.TaskHead, rows []StatusRow, moved []int) []int {
	at := gitstore.ListedHeads(tasks)
	stale := map[int]bool{}
	for _, i := range moved {
		stale[i] = true
	}
	for i, r := range rows {
		if r.Reused == "" || stale[i] {
			continue
		}
		if reusedMoved(r.Reused, at) {
			moved = append(moved, i)
		}
	}
	slices.Sort(moved)
	return moved
}

// keptRows is the row of each task kept in j at its head, as parse reads
// it, and the indexes into tasks of the tasks without one (they moved, or
// their entry does not read); it stops once more than limit have none.
func keptRows[R any](j *gitstore.Sealed, tasks []record.TaskHead, limit int, parse func(task string, data []byte) (R, bool)) (rows []R, moved []int) {
	rows = make([]R, len(tasks))
	for i, t := range tasks {
		data, ok := j.Get(t.Task, t.Head)
		if ok {
			rows[i], ok = parse(t.Task, data)
		}
		if !ok {
			if moved = append(moved, i); len(moved) > limit {
				break
			}
		}
	}
	return rows, moved
}

// manyMoved is how many of n tasks may have moved for the table to be
// made from their rows alone (movedRows); past it, reading every task's
// status costs little more than the moved ones.
func manyMoved(n int) int { return max(fewMoved, n/4) }

// movedRows fills rows[i] of each task of moved (indexes into tasks)
// from the task derived at its head and its signatures, keeps them in j
// and saves it, and says whether every one of them read: a task whose
// history or signatures do not read is left to the table read whole,
// which reports it as it always has. A few moved tasks' signatures are
// asked about one at a time (RecordSignatures); of more, those whose
// signature log says nothing signed are read from it, and the others are
// asked of one git log together, as SignatureSummaries asks.
func (e *Session) movedRows(ctx context.Context, j *gitstore.Sealed, tasks []record.TaskHead, rows []StatusRow, moved []int) bool {
	sigs, ok := e.movedSignatures(ctx, tasks, moved)
	if !ok {
		return false
	}
	read := e.eachMovedStatus(ctx, tasks, moved, func(i int, s record.Status) bool {
		t := tasks[i]
		refused, err := e.Store.MergeRefusals(ctx, t.Task, t.Head) // StatusAt's replay found them
		if err != nil {
			return false
		}
		reused, err := e.statusReuse(ctx, t.Task, t.Head, &s)
		if err != nil {
			return false
		}
		sum := e.summarize(ctx, sigs[i])
		r := StatusRow{Task: t.Task, Phase: s.Phase, Closed: s.Closed != nil, Records: s.Records, Reviews: s.ReviewCount,
			Updated: s.Updated, Subject: s.Subject, Signatures: sum.Text(), Needs: len(refused) > 0, Reused: reused}
		if s.DoesNotVerify != nil {
			r.NotVerified = record.NotVerified(s.DoesNotVerify).String()
		}
		rows[i] = r
		if sum.Kept() {
			j.Put(t.Task, t.Head, formatStatusRow(r))
		}
		return true
	})
	if !read {
		return false
	}
	names := make([]string, len(tasks))
	for i, t := range tasks {
		names[i] = t.Task
	}
	j.Save(names)
	return true
}

// movedSignatures is the signatures of each task of moved (indexes into
// tasks) by index, as movedRows says; false when git could not be asked.
func (e *Session) movedSignatures(ctx context.Context, tasks []record.TaskHead, moved []int) (map[int]map[string]*Signature, bool) {
	out := make(map[int]map[string]*Signature, len(moved))
	var ask []int
	for _, i := range moved {
		t := tasks[i]
		if len(moved) <= fewMoved {
			sigs, err := e.RecordSignatures(ctx, t.Task, t.Head)
			if err != nil {
				return nil, false
			}
			out[i] = sigs
		} else if sigs, ok := e.unsignedSince(ctx, t.Task, t.Head, e.Store.SignatureLog(t.Task)); ok {
			out[i] = sigs
		} else {
			ask = append(ask, i)
		}
	}
	if len(ask) == 0 {
		return out, true
	}
	heads := make([]string, len(ask))
	for k, i := range ask {
		heads[k] = tasks[i].Head
	}
	byHead, err := e.signaturesOf(ctx, heads)
	if err != nil {
		return nil, false
	}
	for _, i := range ask {
		out[i] = byRecord(byHead[tasks[i].Head])
	}
	return out, true
}

// formatStatusRow is a row's entry: its fields separated by tabs, the
// texts quoted (Go syntax: no tab or newline in them).
func formatStatusRow(r StatusRow) []byte {
	closed, needs := "0", "0"
	if r.Closed {
		closed = "1"
	}
	if r.Needs {
		needs = "1"
	}
	return []byte(strings.Join([]string{string(r.Phase), closed, strconv.Itoa(r.Records), strconv.Itoa(r.Reviews),
		strconv.Quote(r.Updated), strconv.Quote(r.Subject), strconv.Quote(r.NotVerified), strconv.Quote(r.Signatures), strconv.Quote(r.Reused), needs}, "\t"))
}

// parseStatusRow reads formatStatusRow's entry of task, its fields cut
// off one string (rowParser): one allocation a row, not a slice more.
func parseStatusRow(task string, data []byte) (StatusRow, bool) {
	p := rowParser{rest: string(data)}
	r := StatusRow{Task: task, Phase: record.Phase(p.field())}
	switch p.field() {
	case "0":
	case "1":
		r.Closed = true
	default:
		return StatusRow{}, false
	}
	r.Records, r.Reviews = p.number(), p.number()
	r.Updated, r.Subject, r.NotVerified, r.Signatures, r.Reused = p.quoted(), p.quoted(), p.quoted(), p.quoted(), p.quoted()
	switch p.rest { // the last field, which no tab follows
	case "0":
	case "1":
		r.Needs = true
	default:
		return StatusRow{}, false
	}
	if p.bad {
		return StatusRow{}, false
	}
	return r, true
}

// rowsJournal lists the task refs and opens the sealed journal file of
// rows kept by head, scoped by kind and what git judges signatures by
// (readDigest: a row's signature lines were judged by it); a row
// whose signatures depend on more (SignatureSummary.Kept) is not kept.
func (e *Session) rowsJournal(ctx context.Context, file, kind string) ([]record.TaskHead, *gitstore.Sealed, error) {
	tasks, err := e.Store.Tasks(ctx)
	if err != nil {
		return nil, nil, err
	}
	digest, err := e.readDigest(ctx)
	if err != nil {
		return nil, nil, err
	}
	return tasks, gitstore.OpenSealed(e.Repo, file, kind+"; signatures "+digest), nil
}
