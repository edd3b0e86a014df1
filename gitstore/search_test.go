package gitstore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
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
	open := func() gitstore.Index { return gitstore.Index{Store: openStore(t, dir)} }
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
	assess("T-i", "\u0130stanbul office", "Stra\u00dfe or street?")
	cases := []struct {
		lit, fold string // one of them set
	}{{fold: "subject 1"}, {fold: "QUEUE"}, {fold: "kelvin"}, {fold: "k"}, {fold: "zzz"}, {fold: "which way for 1"},
		{fold: "istanbul"}, {fold: "\u0130stanbul"}, {fold: "STRASSE"}, {fold: "straße"}, {fold: "for 1?"},
		{lit: "Subject 1"}, {lit: "subject 1"}, {lit: "Kafka"}, {lit: "\u212Aelvin"}, {lit: "\u0130stan"}}
	// Each case three times: the terms made, then used as made, then
	// followed after a task moved.
	for i, c := range append(append(cases, cases...), cases...) {
		if i == 2*len(cases) {
			assess("T-07", "Subject 1 again", "the queue, again?")
		}
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

// TestSearchTermsCount: a query reads the index's terms and the blocks of
// the tasks that hold its terms, not every task's texts: a text held by
// one task of 400 reads one block and a few postings, one held by 11
// tasks reads those 11 blocks; after a record the moved task's block is
// read too, and the terms are made again only when many tasks moved; a
// text held by more than an eighth of the tasks is found by one scan of
// the file.
func TestSearchTermsCount(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	if err := harness.BulkTasks(ctx, dir, "T-", 400); err != nil {
		t.Fatal(err)
	}
	open := func() gitstore.Index { return gitstore.Index{Store: openStore(t, dir)} }
	query := func(q string) (tasks []string, blocks, postings, shared int64) {
		t.Helper()
		b0, p0, s0 := gitstore.SearchRead()
		hits, err := open().SearchFor(ctx, q, true, func(s string) bool { return strings.Contains(strings.ToLower(s), q) })
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if !slices.Contains(tasks, h.Task) {
				tasks = append(tasks, h.Task)
			}
		}
		b1, p1, s1 := gitstore.SearchRead()
		return tasks, b1 - b0, p1 - p0, s1 - s0
	}
	query("bulk") // the index and its terms are made
	fi, err := os.Stat(filepath.Join(dir, ".git", "reason", "search"))
	if err != nil {
		t.Fatal(err)
	}
	tasks, blocks, postings, shared := query("which way for 17?")
	if want := []string{"T-000017"}; !slices.Equal(tasks, want) || blocks != 1 || postings > 200 || shared > fi.Size()/100 {
		t.Errorf("one task's text: found %v, read %d blocks, %d postings, %d bytes of the %d-byte index; want %v, 1 block, at most 200 postings, 1%% of the index",
			tasks, blocks, postings, shared, fi.Size(), want)
	}
	tasks, blocks, _, _ = query("subject 39")
	if len(tasks) != 11 || blocks != 11 {
		t.Errorf("a text of 11 tasks: found %d tasks, read %d blocks; want 11 and 11", len(tasks), blocks)
	}
	// Held by more than an eighth of the tasks: one scan of the file
	// costs less than asking each block.
	tasks, blocks, _, shared = query("which way for 1")
	if len(tasks) != 111 || blocks != 0 || shared < fi.Size()/2 {
		t.Errorf("a text of 111 tasks of 400: found %d tasks, read %d blocks and %d bytes; want 111, none, the index", len(tasks), blocks, shared)
	}
	w := &record.Writer{Store: open().Store, Actor: "Search Test <search@example.com>", Origin: "origin-search"}
	if _, err := w.Append(ctx, "T-000200", record.KindAssessment, []byte(`{"subject":"moved","question":"which way for 17?","materiality":"trivial","reversibility":"reversible"}`)); err != nil {
		t.Fatal(err)
	}
	tasks, blocks, postings, _ = query("which way for 17?")
	if want := []string{"T-000017", "T-000200"}; !slices.Equal(tasks, want) || blocks != 2 || postings > 200 {
		t.Errorf("after a record: found %v, read %d blocks, %d postings; want %v, 2 blocks (the match and the moved task), at most 200 postings", tasks, blocks, postings, want)
	}
	terms := filepath.Join(dir, ".git", "reason", "search.terms")
	before, err := os.Stat(terms)
	if err != nil {
		t.Fatal(err)
	}
	// Many tasks moved: the terms are made again, and read as made.
	harness.Git(t, dir, "update-ref", "-d", "refs/reasoning/tasks/T-000017")
	for i := range 80 {
		task := fmt.Sprintf("T-%06d", 300+i)
		if _, err := w.Append(ctx, task, record.KindAssessment, []byte(`{"subject":"moved","question":"again?","materiality":"trivial","reversibility":"reversible"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if tasks, blocks, _, _ = query("which way for 17?"); !slices.Equal(tasks, []string{"T-000200"}) || blocks != 1 {
		t.Errorf("after 80 tasks moved and one deleted: found %v reading %d blocks, want [T-000200] reading 1", tasks, blocks)
	}
	after, err := os.Stat(terms)
	if err != nil {
		t.Fatal(err)
	}
	if os.SameFile(before, after) {
		t.Errorf("the terms were not made again after 81 of 400 tasks moved")
	}
}
