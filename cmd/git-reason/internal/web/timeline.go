package web

import (
	"net/url"
	"slices"
	"strconv"
)

// timelinePage is how many records one page of a task's timeline shows:
// a task of 1,000 records opens on its latest fifty, not on 1.5 MB, and
// the earlier ones are a link away.
const timelinePage = 50

// onDemand is how many records a task may have for its page to show its
// record graph and report at once; a longer task's page shows them when
// asked (?graph=1, ?report=1): the graph of 1,000 records is an image
// 34,000 pixels tall.
const onDemand = 200

// timelinePager is where a page of the timeline stands among the pages.
type timelinePager struct {
	From, To, Total int // the records shown, numbered from 1
	Page, Pages     int // page 1 holds the latest records
	Earlier, Later  string
}

// timelineWindow is the page of records a request asks for: ?tl=N (1, the
// default, is the latest), or the page that holds ?record=ID (what a link
// to a record on another page leads to).
func timelineWindow(recs []recordView, q url.Values) ([]recordView, timelinePager) {
	n := len(recs)
	pages := max(1, (n+timelinePage-1)/timelinePage)
	page := 1
	if p, err := strconv.Atoi(q.Get("tl")); err == nil && p > 1 {
		page = min(p, pages)
	}
	if id := q.Get("record"); id != "" {
		if i := slices.IndexFunc(recs, func(r recordView) bool { return r.ID == id }); i >= 0 {
			page = (n-1-i)/timelinePage + 1
		}
	}
	end := n - (page-1)*timelinePage
	start := max(0, end-timelinePage)
	tp := timelinePager{From: start + 1, To: end, Total: n, Page: page, Pages: pages}
	if page < pages {
		tp.Earlier = "?tl=" + strconv.Itoa(page+1)
	}
	if page > 1 {
		tp.Later = "?tl=" + strconv.Itoa(page-1)
	}
	return recs[start:end], tp
}
