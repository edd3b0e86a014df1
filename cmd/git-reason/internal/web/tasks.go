package web

import (
	"context"
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
	Page            int    // from 1
}

func parseTaskFilter(q url.Values) taskFilter {
	f := taskFilter{Phase: q.Get("phase"), Actor: strings.TrimSpace(q.Get("actor")), Q: strings.TrimSpace(q.Get("q")), State: q.Get("state"), Page: 1}
	if n, err := strconv.Atoi(q.Get("page")); err == nil && n > 1 {
		f.Page = n
	}
	return f
}

// at is the list's address for page n under the same filter.
func (f taskFilter) at(n int) string {
	q := url.Values{}
	for k, v := range map[string]string{"phase": f.Phase, "actor": f.Actor, "q": f.Q, "state": f.State} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if n > 1 {
		q.Set("page", strconv.Itoa(n))
	}
	if len(q) == 0 {
		return "/"
	}
	return "/?" + q.Encode()
}

// tasks is the task list: every task's cached summary (the index the
// command line's status reads, brought up to date with the refs), filtered
// by phase, open or closed, actor and text, newest activity first, one page at a time.
// Only the page's rows are rendered, so a list of 20,000 tasks costs the
// cache's read and one pass over its entries.
func (s *server) tasks(w http.ResponseWriter, r *http.Request) {
	sess, err := s.open()
	if err != nil {
		fail(w, err)
		return
	}
	f := parseTaskFilter(r.URL.Query())
	all, actors, err := s.summaries.get(r.Context(), sess, f.Actor != "")
	if err != nil {
		fail(w, err)
		return
	}
	rows := make([]record.Status, 0, len(all))
	for _, st := range all {
		if f.Phase != "" && string(st.Phase) != f.Phase {
			continue
		}
		if f.State == "open" && st.Closed != nil || f.State == "closed" && st.Closed == nil {
			continue
		}
		if f.Q != "" && !contains(st.Task, f.Q) && !contains(st.Subject, f.Q) {
			continue
		}
		if actors != nil && !slices.ContainsFunc(actors[st.Task], func(a string) bool { return contains(a, f.Actor) }) {
			continue
		}
		rows = append(rows, st)
	}
	// Last activity first: record times are UTC RFC 3339 and compare as
	// text; a task's name breaks ties.
	slices.SortFunc(rows, func(a, b record.Status) int {
		if c := strings.Compare(b.Updated, a.Updated); c != 0 {
			return c
		}
		return strings.Compare(a.Task, b.Task)
	})
	pages := max(1, (len(rows)+pageSize-1)/pageSize)
	page := min(f.Page, pages)
	shown := rows[min(len(rows), (page-1)*pageSize):min(len(rows), page*pageSize)]
	data := map[string]any{
		"Title": "Tasks", "Rows": shown, "Matched": len(rows), "Total": len(all), "Filter": f, "Phases": phases,
		"Page": page, "Pages": pages, "Live": "/head",
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

// summaryCache holds the task summaries the list last read, and their
// actors when a filter needed them, with the digest of the task refs they
// were read at: while no ref moves, the list reuses them instead of
// decoding the whole cache file again (a summary is derived from its
// task's head alone, so equal refs mean equal summaries).
type summaryCache struct {
	mu     sync.Mutex
	digest string
	all    []record.Status
	actors map[string][]string
}

// get returns every task's summary, sorted by task, and, when withActors
// is set, who wrote each task's records.
func (c *summaryCache) get(ctx context.Context, sess *ops.Session, withActors bool) ([]record.Status, map[string][]string, error) {
	digest, err := sess.TasksDigest()
	if err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if digest != c.digest {
		all, err := sess.StatusAll(ctx)
		if err != nil {
			return nil, nil, err
		}
		c.digest, c.all, c.actors = digest, all, nil
	}
	if withActors && c.actors == nil {
		// Who wrote a task's records is in the handover cache, read only
		// when the list is filtered by it.
		hs, err := sess.Index.Handovers(ctx)
		if err != nil {
			return nil, nil, err
		}
		c.actors = make(map[string][]string, len(hs))
		for _, h := range hs {
			c.actors[h.Task] = h.Actors
		}
	}
	return c.all, c.actors, nil
}
