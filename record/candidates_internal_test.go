package record

import (
	"fmt"
	"testing"
)

// An ambiguous prefix's error names the records it matches, each by a
// prefix that tells it from the others (longer than IDPrefix where two
// share more), with its kind, and at most maxCandidates of them.
func TestCandidates(t *testing.T) {
	entry := func(id string, kind Kind) *Entry { return &Entry{Record: &Record{ID: id, Kind: kind}} }
	many := func(n int) []*Entry {
		var es []*Entry
		for i := range n {
			es = append(es, entry(fmt.Sprintf("01M8ZTWN%02dQQQQQQQQQQQQQQQQ", i), KindPlan))
		}
		return es
	}
	a := entry("01M8ZTWNBF5T9T5GBFFBBMJ9XQ", KindAssessment)
	p := entry("01M8ZTWND294YFR5TA3JENCC8J", KindPlan)
	c := entry("01M8ZTWNBFZZZZZZZZZZZZZZZZ", KindConclusion) // a's first 10, made in the same millisecond
	for _, tc := range []struct {
		es   []*Entry
		want string
	}{
		{[]*Entry{a, p}, "01M8ZTWNBF (assessment) and 01M8ZTWND2 (plan)"},
		{[]*Entry{a, p, c}, "01M8ZTWNBF5 (assessment), 01M8ZTWND29 (plan) and 01M8ZTWNBFZ (conclusion)"},
		{many(7), "01M8ZTWN00 (plan), 01M8ZTWN01 (plan), 01M8ZTWN02 (plan), 01M8ZTWN03 (plan), 01M8ZTWN04 (plan) and 2 more"},
	} {
		if got := candidates(tc.es); got != tc.want {
			t.Errorf("candidates:\n got %s\nwant %s", got, tc.want)
		}
	}
}
