package web

import (
	"fmt"
	"net/url"
	"testing"

	"git-reason/record"
)

// A long timeline opens on its latest records; ?tl=N goes back a page at
// a time and ?record=ID to the page that holds it.
func TestTimelineWindow(t *testing.T) {
	recs := make([]recordView, 120)
	for i := range recs {
		recs[i] = recordView{Entry: &record.Entry{Record: &record.Record{ID: fmt.Sprintf("R%03d", i)}}}
	}
	for _, c := range []struct {
		query          string
		first, last    string
		page           int
		earlier, later string
	}{
		{"", "R070", "R119", 1, "?tl=2", ""},
		{"tl=2", "R020", "R069", 2, "?tl=3", "?tl=1"},
		{"tl=3", "R000", "R019", 3, "", "?tl=2"},
		{"tl=99", "R000", "R019", 3, "", "?tl=2"},
		{"tl=-1", "R070", "R119", 1, "?tl=2", ""},
		{"record=R005", "R000", "R019", 3, "", "?tl=2"},
		{"record=R069", "R020", "R069", 2, "?tl=3", "?tl=1"},
		{"record=NOPE", "R070", "R119", 1, "?tl=2", ""},
	} {
		q, _ := url.ParseQuery(c.query)
		shown, p := timelineWindow(recs, q)
		if shown[0].ID != c.first || shown[len(shown)-1].ID != c.last || p.Page != c.page || p.Pages != 3 ||
			p.Earlier != c.earlier || p.Later != c.later || p.Total != 120 || p.To-p.From+1 != len(shown) {
			t.Errorf("?%s: %s..%s, %+v", c.query, shown[0].ID, shown[len(shown)-1].ID, p)
		}
	}
	if shown, p := timelineWindow(nil, url.Values{}); len(shown) != 0 || p.Pages != 1 || p.Earlier != "" {
		t.Errorf("no records: %d shown, %+v", len(shown), p)
	}
}
