package web

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

// pageSize is how many tasks one page of the list shows.
const pageSize = 100

// taskFilter is what the task list is asked for: its form's fields.
type taskFilter struct {
	Phase, Actor, Q string
	State           string // "open", "closed" or "" for both
	Sig             string // "signed", "unsigned", "unverified" or "" for any
	Quarantined     bool
	Page            int // from 1
}

// parseTaskFilter reads the list's query. A phase, state or signature
// filter the form does not offer is an error (the filter returned is the
// rest of the query): taken as given it would list nothing, or every
// task, as if it had filtered. A page is found as the timeline's is: past
// the last, the last; not a number from 2, the first.
func parseTaskFilter(q url.Values) (taskFilter, error) {
	f := taskFilter{Phase: q.Get("phase"), Actor: strings.TrimSpace(q.Get("actor")), Q: strings.TrimSpace(q.Get("q")),
		State: q.Get("state"), Sig: q.Get("sig"), Quarantined: q.Get("quarantined") != "", Page: 1}
	names := func(field *string, name string, allowed []string) error {
		if *field == "" || slices.Contains(allowed, *field) {
			return nil
		}
		err := fmt.Errorf("%s %q: give one of %s, or none", name, *field, strings.Join(allowed, ", "))
		*field = ""
		return err
	}
	var phaseNames, sigNames []string
	for _, p := range phases {
		phaseNames = append(phaseNames, string(p))
	}
	for _, sf := range sigFilters {
		sigNames = append(sigNames, sf.Value)
	}
	for _, err := range []error{names(&f.Phase, "phase", phaseNames), names(&f.State, "state", []string{"open", "closed"}),
		names(&f.Sig, "sig", sigNames)} {
		if err != nil {
			return f, err
		}
	}
	if n, err := strconv.Atoi(q.Get("page")); err == nil && n > 1 {
		f.Page = n
	}
	return f, nil
}

// at is the list's address for page n under the same filter.
func (f taskFilter) at(n int) string {
	q := url.Values{}
	for k, v := range map[string]string{"phase": f.Phase, "actor": f.Actor, "q": f.Q, "state": f.State, "sig": f.Sig} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if f.Quarantined {
		q.Set("quarantined", "1")
	}
	if n > 1 {
		q.Set("page", strconv.Itoa(n))
	}
	if len(q) == 0 {
		return "/"
	}
	return "/?" + q.Encode()
}

// sigFilters are the signature filters of the list: the query value, what
// the form says, and which summaries it keeps.
var sigFilters = []sigFilter{
	{"signed", "every record signed", (*ops.SignatureSummary).AllSigned},
	{"unsigned", "a record unsigned", (*ops.SignatureSummary).SomeUnsigned},
	{"unverified", "a signature not verifying", (*ops.SignatureSummary).SomeNotVerifying},
}

// sigFilter is one signature filter of the list.
type sigFilter struct {
	Value, Label string
	keep         func(*ops.SignatureSummary) bool
}

// taskRow is a task as the list shows it: its summary, its signatures in
// brief and, when a pull held its fetched history back, that quarantine.
type taskRow struct {
	record.Status
	Signatures *ops.SignatureSummary
	Quarantine *ops.Quarantine
}

// tasks is the task list: every task's cached summary (the index the
// command line's status reads, brought up to date with the refs), with its
// signatures in brief (ops.SignatureSummaries) and its quarantine
// (ops.Quarantined), filtered by phase, open or closed, actor, signatures,
// quarantine and text (the search index's records, or the task's name),
// newest activity first, one page at a time. Only the page's rows are
// rendered, so a list of 20,000 tasks costs the caches' reads and one pass
// over their entries.
func (s *server) tasks(w http.ResponseWriter, r *http.Request) {
	f, err := parseTaskFilter(r.URL.Query())
	if err != nil {
		filtered{w, "tasks.html", map[string]any{"Title": "Tasks", "Filter": f, "Phases": phases, "SigFilters": sigFilters}}.refuse(err)
		return
	}
	sess := s.session(w)
	if sess == nil {
		return
	}
	// What the page polls, taken from the refs what it shows is read at,
	// before the rest of it: a change meanwhile moves it again.
	heads, err := sess.TaskHeads(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	head, _ := pageDigest(r.Context(), sess, "", heads)
	all, err := s.summaries.get(r.Context(), sess, f, heads)
	if err != nil {
		fail(w, err)
		return
	}
	held, err := sess.Quarantined(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	var keepSig func(*ops.SignatureSummary) bool
	for _, sf := range sigFilters {
		if sf.Value == f.Sig {
			keepSig = sf.keep
		}
	}
	// The rows are made for the page shown alone: a list of 20,000 tasks
	// keeps the index of each task that passes the filters.
	matched := make([]int, 0, len(all.statuses))
	local := map[string]bool{} // the held-back tasks that have a local history
	for i, st := range all.statuses {
		_, isHeld := held[st.Task]
		if isHeld {
			local[st.Task] = true
		}
		if f.Phase != "" && string(st.Phase) != f.Phase {
			continue
		}
		if f.State == "open" && st.Closed != nil || f.State == "closed" && st.Closed == nil {
			continue
		}
		if f.Q != "" && !contains(st.Task, f.Q) && !all.found[st.Task] {
			continue
		}
		if all.actors != nil && !slices.ContainsFunc(all.actors[st.Task], func(a string) bool { return contains(a, f.Actor) }) {
			continue
		}
		if keepSig != nil && !keepSig(all.sigs[st.Task]) {
			continue
		}
		if f.Quarantined && !isHeld {
			continue
		}
		matched = append(matched, i)
	}
	// A task whose only history a pull held back is listed too, last:
	// it has no phase, records or signatures to filter by.
	var heldOnly []string
	if f.Phase == "" && f.State == "" && f.Sig == "" && f.Actor == "" {
		for _, task := range slices.Sorted(maps.Keys(held)) {
			if !local[task] && (f.Q == "" || contains(task, f.Q)) {
				heldOnly = append(heldOnly, task)
			}
		}
	}
	n := len(matched) + len(heldOnly)
	pages := max(1, (n+pageSize-1)/pageSize)
	page := min(f.Page, pages)
	shown := make([]taskRow, 0, pageSize)
	for k := (page - 1) * pageSize; k < min(n, page*pageSize); k++ {
		if k >= len(matched) {
			q := held[heldOnly[k-len(matched)]]
			shown = append(shown, taskRow{Status: record.Status{Task: heldOnly[k-len(matched)]}, Quarantine: &q})
			continue
		}
		st := all.statuses[matched[k]]
		row := taskRow{Status: *st, Signatures: all.sigs[st.Task]}
		if q, isHeld := held[st.Task]; isHeld {
			row.Quarantine = &q
		}
		shown = append(shown, row)
	}
	data := map[string]any{
		"Title": "Tasks", "Rows": shown, "Matched": n, "Total": len(all.statuses) + len(held) - len(local), "Filter": f, "Phases": phases,
		"SigFilters": sigFilters, "Quarantined": len(held), "Page": page, "Pages": pages, "Live": "/head", "Head": head,
	}
	if page > 1 {
		data["Prev"] = f.at(page - 1)
	}
	if page < pages {
		data["Next"] = f.at(page + 1)
	}
	render(w, "tasks.html", data)
}

func contains(s, sub string) bool { return strings.Contains(strings.ToLower(s), strings.ToLower(sub)) }

// summaryCache holds what the list last read, with the task heads it was
// read at: while no ref moves, the list reuses it instead of decoding the
// caches again (a summary is derived from its task's head alone, so equal
// heads mean equal summaries). When a few tasks moved (a record arrived),
// only they are read again; signatures are kept with what they were
// judged by (ops.Session.ReadDigest) too, and only those it decides.
type summaryCache struct {
	mu      sync.Mutex
	heads   map[string]string // task -> head, of the tasks read
	signers string
	cur     summaries
}

// fewMoved is how many moved tasks the list reads one by one (their
// histories and signature caches); more are read from the caches of every
// task (ops.Session.StatusAll, ops.Session.SignatureSummaries).
const fewMoved = 16

// summaries are every task's summary, latest activity first, and what the
// filters asked so far needed: who wrote each task's records, each task's
// signatures in brief, and the tasks whose records hold the text of the
// last text filter. A summaries is never changed once handed out, nor
// the summaries it points to: an update makes new slices and maps.
type summaries struct {
	statuses []*record.Status
	actors   map[string][]string
	sigs     map[string]*ops.SignatureSummary
	q        string
	found    map[string]bool
}

// get returns what the list needs for f, at the task heads tasks.
func (c *summaryCache) get(ctx context.Context, sess *ops.Session, f taskFilter, tasks []record.TaskHead) (summaries, error) {
	signers, err := sess.ReadDigest(ctx)
	if err != nil {
		return summaries{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.update(ctx, sess, tasks); err != nil {
		return summaries{}, err
	}
	if signers != c.signers {
		c.signers, c.cur.sigs = signers, nil
	}
	if f.Actor != "" && c.cur.actors == nil {
		// Who wrote a task's records is in the handover cache, read only
		// when the list is filtered by it.
		hs, err := sess.Index.Handovers(ctx)
		if err != nil {
			return summaries{}, err
		}
		c.cur.actors = make(map[string][]string, len(hs))
		for _, h := range hs {
			c.cur.actors[h.Task] = h.Actors
		}
	}
	if c.cur.sigs == nil {
		if c.cur.sigs, err = sess.SignatureSummaries(ctx); err != nil {
			return summaries{}, err
		}
	}
	for _, s := range c.cur.sigs {
		if s != nil && !s.Kept() {
			c.signers = "" // judged by what ReadDigest does not cover: read again next time
			break
		}
	}
	if f.Q != "" && (f.Q != c.cur.q || c.cur.found == nil) {
		// The text is looked for in every record's texts through the
		// search index, as 'git reason search' looks.
		hits, err := sess.Search(ctx, f.Q)
		if err != nil {
			return summaries{}, err
		}
		c.cur.q, c.cur.found = f.Q, make(map[string]bool, len(hits))
		for _, h := range hits {
			c.cur.found[h.Task] = true
		}
	}
	out := c.cur
	if f.Actor == "" {
		out.actors = nil
	}
	return out, nil
}

// update brings the summaries to tasks' heads: nothing when none moved,
// the moved ones alone when they are few, else every summary from the
// cache of every task.
func (c *summaryCache) update(ctx context.Context, sess *ops.Session, tasks []record.TaskHead) error {
	var moved []record.TaskHead
	for _, t := range tasks {
		if c.heads[t.Task] != t.Head {
			moved = append(moved, t)
		}
	}
	if len(moved) == 0 && len(tasks) == len(c.heads) {
		return nil
	}
	// When no task was deleted (the tasks are the ones read before and
	// the new ones among moved), the heads read are the last ones with
	// the moved ones changed.
	added := 0
	for _, t := range moved {
		if _, ok := c.heads[t.Task]; !ok {
			added++
		}
	}
	deleted := c.heads == nil || len(c.heads)+added != len(tasks)
	var heads map[string]string
	if deleted {
		heads = make(map[string]string, len(tasks))
		for _, t := range tasks {
			heads[t.Task] = t.Head
		}
	} else {
		heads = maps.Clone(c.heads)
		for _, t := range moved {
			heads[t.Task] = t.Head
		}
	}
	if c.heads != nil && len(moved) <= fewMoved {
		fresh := map[string]*record.Status{} // nil: the moved task does not read
		for _, t := range moved {
			st, _, err := sess.State(ctx, t.Task)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				delete(heads, t.Task) // does not read: left out, as StatusAll leaves it out
				fresh[t.Task] = nil
				continue
			}
			sum := st.Summarize()
			fresh[t.Task] = &sum
		}
		all := make([]*record.Status, 0, len(tasks))
		for _, st := range c.cur.statuses {
			if _, moved := fresh[st.Task]; moved {
				continue
			}
			if _, ok := heads[st.Task]; ok || !deleted {
				all = append(all, st)
			}
		}
		// What did not move stays in its order; the moved ones go in at
		// their places.
		for _, task := range slices.Sorted(maps.Keys(fresh)) {
			if fresh[task] == nil {
				continue
			}
			i, _ := slices.BinarySearchFunc(all, fresh[task], byActivity)
			all = slices.Insert(all, i, fresh[task])
		}
		sigs := c.cur.sigs
		if sigs != nil {
			sigs = maps.Clone(sigs)
			for _, t := range moved {
				sigs[t.Task] = sess.TaskSignatures(ctx, t.Task, t.Head)
			}
		}
		c.heads, c.cur = heads, summaries{statuses: all, sigs: sigs}
		return nil
	}
	sums, err := sess.StatusAll(ctx)
	if err != nil {
		return err
	}
	// What StatusAll left out does not read: it is looked at again.
	read := make(map[string]bool, len(sums))
	all := make([]*record.Status, len(sums))
	for i := range sums {
		all[i] = &sums[i]
		read[sums[i].Task] = true
	}
	maps.DeleteFunc(heads, func(task, _ string) bool { return !read[task] })
	slices.SortFunc(all, byActivity)
	c.heads, c.cur = heads, summaries{statuses: all}
	return nil
}

// byActivity orders the list: last activity first, once for every request
// until a ref moves. Record times are UTC RFC 3339 and compare as text; a
// task's name breaks ties.
func byActivity(a, b *record.Status) int {
	if c := strings.Compare(b.Updated, a.Updated); c != 0 {
		return c
	}
	return strings.Compare(a.Task, b.Task)
}
