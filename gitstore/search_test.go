package gitstore_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"git-reason/gitstore"
	"git-reason/record"
	"git-reason/reliability/harness"
)

// TestSearchFor: a search that asks only the texts holding a literal gives
// what asking every text gives, in any case (the Kelvin sign lowers to an
// ASCII k); the index reads again only the task whose head moved, none
// while no ref moved, and follows refs moved by plain git.
func TestSearchFor(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	open := func() gitstore.Index {
		t.Helper()
		s, err := gitstore.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		return gitstore.Index{Store: s}
	}
	w := &record.Writer{Store: open().Store, Actor: "Search Test <search@example.com>", Origin: "origin-search"}
	assess := func(task, subject, question string) {
		t.Helper()
		if _, err := w.Append(ctx, task, record.KindAssessment, []byte(fmt.Sprintf(
			`{"subject":%q,"question":%q,"materiality":"trivial","reversibility":"reversible"}`, subject, question))); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 12 {
		assess(fmt.Sprintf("T-%02d", i), fmt.Sprintf("Subject %d of the Queue", i), fmt.Sprintf("which way for %d?", i))
	}
	assess("T-05", "Another look", "Kafka or the queue?")
	assess("T-k", "\u212Aelvin scale", "degrees or \u212A?")
	cases := []struct {
		lit, fold string // one of them set
	}{{fold: "subject 1"}, {fold: "QUEUE"}, {fold: "kelvin"}, {fold: "k"}, {fold: "zzz"}, {fold: "which way for 1"},
		{lit: "Subject 1"}, {lit: "subject 1"}, {lit: "Kafka"}, {lit: "\u212Aelvin"}}
	for _, c := range cases {
		var match func(string) bool
		lit, fold := c.lit, c.fold != ""
		if fold {
			q := strings.ToLower(c.fold)
			lit, match = q, func(s string) bool { return strings.Contains(strings.ToLower(s), q) }
		} else {
			match = func(s string) bool { return strings.Contains(s, c.lit) }
		}
		want, err := open().Search(ctx, match)
		if err != nil {
			t.Fatal(err)
		}
		got, err := open().SearchFor(ctx, lit, fold, match)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("SearchFor(%q, fold %v):\n%+v\nwant (every text asked)\n%+v", lit, fold, got, want)
		}
		if c.fold == "kelvin" && len(got) != 1 {
			t.Errorf("search kelvin: %d hits, want the Kelvin sign's record", len(got))
		}
	}
	count := func(what string, want int64) {
		t.Helper()
		before := gitstore.TasksRead()
		hits, err := open().SearchFor(ctx, "queue", true, func(s string) bool { return strings.Contains(strings.ToLower(s), "queue") })
		if err != nil {
			t.Fatal(err)
		}
		if got := gitstore.TasksRead() - before; got != want {
			t.Errorf("search %s read %d tasks, want %d", what, got, want)
		}
		if len(hits) == 0 {
			t.Errorf("search %s found nothing", what)
		}
	}
	count("with nothing moved", 0)
	assess("T-03", "Moved", "the queue again?")
	count("after one task moved", 1)
	count("after that", 0)
	harness.Git(t, dir, "update-ref", "-d", "refs/reasoning/tasks/T-04")
	harness.Git(t, dir, "pack-refs", "--all")
	count("after a ref deleted and refs packed by git", 0)
	hits, err := open().Search(ctx, func(s string) bool { return strings.Contains(s, "for 4?") })
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 0 {
		t.Errorf("a deleted task is still found: %+v", hits)
	}
}
