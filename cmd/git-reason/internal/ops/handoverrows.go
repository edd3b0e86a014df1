package ops

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"git-reason/gitstore"
	"git-reason/record"
)

// handoverRowsFile is the sealed journal (gitstore.Sealed) of what the
// handover of every task shows of each task, kept by head.
const handoverRowsFile = "handover-rows.journal"

// handoverRow is what the handover of every task keeps of one task at its
// head: its handover, the advisors its latest plan selected while its
// next step is a consultation (whether a person must decide instead
// depends on the moment, and is judged when shown), and who signed its
// records.
type handoverRow struct {
	h        record.Handover
	selected []string
	sigs     *SignatureSummary
	// reused is the head each task whose conclusion the task reuses had
	// when its reuses were checked ("": no ref; Session.reuseChecked):
	// the row holds while they do.
	reused map[string]string
}

// handoverShown says whether a task of the handover of every task is
// shown, from what the row keeps first: whether it is finished, when it
// was settled, and who wrote its records. The rest of a row is read only
// for a task shown.
type handoverShown func(finished bool, settled string, actors []string) bool

// handoverRows returns the row of every task that reads and that shown
// keeps, in task order. With no task moved it lists the task refs and
// reads one entry per task from .git/reason/handover-rows.journal, a
// sealed journal (each entry's MAC checked, kept for what git judged its
// signatures by, readDigest): no task is derived and no JSON
// decoded but what a task's rarer parts (disagreements, failed
// consultations, conclusions, validations, attempts, closure, findings)
// hold. A task without an entry at its head (it moved, or its entry was
// edited) is derived alone and its signatures asked about (a few each
// from its own signature cache, more from the summaries of every task),
// and its entry appended: the cost grows with the tasks that moved.
func (e *Session) handoverRows(ctx context.Context, shown handoverShown) ([]handoverRow, error) {
	tasks, j, err := e.rowsJournal(ctx, handoverRowsFile, "handover rows 2")
	if err != nil {
		return nil, err
	}
	rows := make([]handoverRow, 0, len(tasks))
	sums := map[string]*SignatureSummary{} // by entry: most tasks share one
	var moved []record.TaskHead
	at := gitstore.ListedHeads(tasks)
	for _, t := range tasks {
		data, ok := j.Get(t.Task, t.Head)
		if !ok {
			moved = append(moved, t)
			continue
		}
		r, keep, ok := parseHandoverRow(t.Task, data, shown, sums)
		if ok && keep {
			ok = !gitstore.MovedFrom(r.reused, at) // a task its reuses were checked against moved
		}
		switch {
		case !ok:
			moved = append(moved, t)
		case keep:
			rows = append(rows, r)
		}
	}
	e.noticeTexts(len(rows), func(i int) (string, string) { return rows[i].h.Task, rows[i].sigs.Text() })
	if len(moved) == 0 {
		return rows, nil
	}
	fresh, err := e.movedHandoverRows(ctx, j, moved)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(tasks))
	for i, t := range tasks {
		names[i] = t.Task
	}
	j.Save(names)
	for _, r := range fresh {
		if shown(r.h.Finished, r.h.Settled, r.h.Actors) {
			rows = append(rows, r)
		}
	}
	if len(fresh) > 0 && len(fresh) < len(tasks) {
		sortRows(rows)
	}
	return rows, nil
}

// movedHandoverRows derives each task of moved at its head and asks who
// signed its records, and puts the rows of those whose signatures were
// read into j: a task git could not be asked about is shown without
// them and derived again next time. A task whose history does not read
// is left out (reported by Index.StateAt).
func (e *Session) movedHandoverRows(ctx context.Context, j *gitstore.Sealed, moved []record.TaskHead) ([]handoverRow, error) {
	// More than a few: their signatures from the summaries of every task
	// (the moved ones asked of one git log together), none when git could
	// not be asked; never a git process per task.
	many := len(moved) > fewMoved
	var sums map[string]*SignatureSummary
	if many {
		sums, _ = e.SignatureSummaries(ctx)
	}
	// The task caches the reads write: at the end, packed when many.
	defer e.Store.HoldCaches()()
	out := make([]handoverRow, 0, len(moved))
	for i, t := range moved {
		e.Store.Progress("Reading tasks", i, len(moved))
		st, err := e.Index.StateAt(ctx, t.Task, t.Head)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue
		}
		// A reuse is shown as the reused task's ref holds it now, as
		// status shows it; a row whose check failed is not kept.
		shownSt, reused, rerr := e.reuseChecked(ctx, t.Task, t.Head, st)
		if rerr == nil {
			st = shownSt
		} else if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		r := handoverRow{h: st.Handover(), selected: consultSelected(st, st.Summarize().Next), reused: reused}
		if many {
			r.sigs = sums[t.Task]
		} else if sigs, err := e.RecordSignatures(ctx, t.Task, t.Head); err == nil {
			r.sigs = e.summarize(ctx, sigs)
		}
		if r.sigs.Kept() && rerr == nil {
			j.Put(t.Task, t.Head, formatHandoverRow(r))
		}
		out = append(out, r)
	}
	e.Store.Progress("Reading tasks", len(moved), len(moved))
	e.Store.SaveVerdicts()
	return out, nil
}

// consultSelected is the advisors the latest plan of st selected when
// next is a consultation (what personStep judges), else nil.
func consultSelected(st *record.State, next string) []string {
	if !strings.HasPrefix(next, "git reason consult ") {
		return nil
	}
	if a := st.LatestAssessment(); a != nil {
		if p := st.LatestPlan(a.ID); p != nil {
			return p.Derived.(*record.PlanDerived).Selected
		}
	}
	return nil
}

// sortRows sorts rows by task name, as the task refs are listed.
func sortRows(rows []handoverRow) {
	slices.SortStableFunc(rows, func(a, b handoverRow) int { return strings.Compare(a.h.Task, b.h.Task) })
}

// handoverRare is what a handover holds beyond its texts and lists of
// texts: kept as JSON in a row, and present only when a part is.
type handoverRare struct {
	Disagreements []record.HandoverDispute   `json:"d,omitempty"`
	Consultations []record.HandoverConsult   `json:"c,omitempty"`
	Reuse         *record.HandoverReuse      `json:"r,omitempty"`
	Standing      []record.Standing          `json:"s,omitempty"`
	Validation    *record.HandoverValidation `json:"v,omitempty"`
	Attempt       *record.HandoverAttempt    `json:"a,omitempty"`
	Closed        *record.Closed             `json:"x,omitempty"`
	DoesNotVerify *record.Finding            `json:"f,omitempty"`
	Reused        map[string]string          `json:"u,omitempty"`
}

// formatHandoverRow is a row's entry: tab-separated fields, the texts
// quoted (Go syntax: no tab or newline in them), a list as its length
// then its items; first what says whether the task is shown (finished,
// settled, actors), then the rest of the handover, the selected
// advisors, the signature summary (formatSummary's), and last the rarer
// parts as JSON ("-" when there are none). Handover.PersonStep is the
// moment's and never kept.
func formatHandoverRow(r handoverRow) []byte {
	h := &r.h
	b := make([]byte, 0, 256)
	b = strconv.AppendBool(b, h.Finished)
	b = appendQuoted(b, h.Settled)
	b = appendList(b, h.Actors)
	for _, s := range []string{h.Subject, string(h.Phase), h.Updated, h.Next, h.AnsweredBy} {
		b = appendQuoted(b, s)
	}
	b = appendList(b, h.LocalReview)
	b = appendList(b, h.Missing)
	b = appendList(b, r.selected)
	b = appendQuoted(b, string(formatSummary(r.sigs)))
	b = append(b, '\t')
	rare := handoverRare{Disagreements: h.Disagreements, Consultations: h.Consultations, Reuse: h.Reuse, Standing: h.Standing,
		Validation: h.Validation, Attempt: h.Attempt, Closed: h.Closed, DoesNotVerify: h.DoesNotVerify, Reused: r.reused}
	data, err := json.Marshal(rare)
	if err != nil || string(data) == "{}" {
		return append(b, '-')
	}
	return append(b, data...)
}

func appendQuoted(b []byte, s string) []byte { return strconv.AppendQuote(append(b, '\t'), s) }

func appendList(b []byte, xs []string) []byte {
	b = strconv.AppendInt(append(b, '\t'), int64(len(xs)), 10)
	for _, x := range xs {
		b = appendQuoted(b, x)
	}
	return b
}

// parseHandoverRow reads formatHandoverRow's entry of task: the row, and
// whether shown keeps it (the rest is read only then); false when the
// entry does not read. The signature summaries read are kept in sums by
// their entry, and shared: they are not changed after.
func parseHandoverRow(task string, data []byte, shown handoverShown, sums map[string]*SignatureSummary) (handoverRow, bool, bool) {
	p := rowParser{rest: string(data)}
	finished, err := strconv.ParseBool(p.field())
	settled := p.quoted()
	actors := p.list()
	if p.bad || err != nil {
		return handoverRow{}, false, false
	}
	if !shown(finished, settled, actors) {
		return handoverRow{}, false, true
	}
	h := record.Handover{Task: task, Finished: finished, Settled: settled, Actors: actors}
	h.Subject, h.Phase, h.Updated, h.Next, h.AnsweredBy = p.quoted(), record.Phase(p.quoted()), p.quoted(), p.quoted(), p.quoted()
	h.LocalReview, h.Missing = p.list(), p.list()
	r := handoverRow{selected: p.list()}
	sigs := p.quoted()
	if p.bad {
		return handoverRow{}, false, false
	}
	if r.sigs = sums[sigs]; r.sigs == nil {
		r.sigs = parseSummary([]byte(sigs))
		sums[sigs] = r.sigs
	}
	// The lists a handover always has are empty, not absent, when its row
	// keeps none (omitempty), as State.Handover makes them.
	rare := handoverRare{Disagreements: []record.HandoverDispute{}, Consultations: []record.HandoverConsult{}, Standing: []record.Standing{}}
	if p.rest != "-" && json.Unmarshal([]byte(p.rest), &rare) != nil {
		return handoverRow{}, false, false
	}
	h.Disagreements, h.Consultations, h.Reuse, h.Standing = rare.Disagreements, rare.Consultations, rare.Reuse, rare.Standing
	h.Validation, h.Attempt, h.Closed, h.DoesNotVerify = rare.Validation, rare.Attempt, rare.Closed, rare.DoesNotVerify
	r.h, r.reused = h, rare.Reused
	return r, true, true
}

// rowParser takes the fields of a row off rest, one at a time; bad once
// a field is missing or does not read.
type rowParser struct {
	rest string
	bad  bool
}

func (p *rowParser) field() string {
	f, rest, ok := strings.Cut(p.rest, "\t")
	if !ok {
		p.bad = true
		return ""
	}
	p.rest = rest
	return f
}

// fieldAs is the next field read by parse: the row is bad when it does
// not read.
func fieldAs[T any](p *rowParser, parse func(string) (T, error)) T {
	v, err := parse(p.field())
	if err != nil {
		p.bad = true
	}
	return v
}

func (p *rowParser) quoted() string { return fieldAs(p, strconv.Unquote) }

// lastQuoted is quoted for the row's last field, which no tab follows:
// bad when one does.
func (p *rowParser) lastQuoted() string {
	if strings.Contains(p.rest, "\t") {
		p.bad = true
		return ""
	}
	s, err := strconv.Unquote(p.rest)
	if err != nil {
		p.bad = true
	}
	p.rest = ""
	return s
}

// number is a field that reads as an integer.
func (p *rowParser) number() int { return fieldAs(p, strconv.Atoi) }

func (p *rowParser) list() []string {
	n, err := strconv.Atoi(p.field())
	if err != nil || n < 0 || n > len(p.rest) {
		p.bad = true
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = p.quoted()
	}
	return out
}
