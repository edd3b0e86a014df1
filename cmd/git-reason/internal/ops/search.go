package ops

import (
	"context"
	"regexp"
	"sort"
	"strings"

	"git-reason/gitstore"
	"git-reason/record"
)

// Search returns every record, across all tasks, with a text that
// contains text, in any case: subjects, questions, decisions, evidence,
// answers, resolutions and the other texts record.Texts names. It reads
// the search index under .git/reason/ (gitstore.Index.SearchFor), which
// reads again only the tasks whose head moved, and asks about the texts
// holding text alone. Hits come newest first.
func (e *Session) Search(ctx context.Context, text string) ([]gitstore.SearchHit, error) {
	q := strings.ToLower(strings.TrimSpace(text))
	if q == "" {
		// The command line refuses a blank TEXT as its missing argument
		// before it gets here; this says it to the MCP tool, whose
		// argument is text.
		return nil, Usage("text is blank: give the text to look for")
	}
	hits, err := e.Index.SearchFor(ctx, q, true, func(s string) bool { return strings.Contains(strings.ToLower(s), q) })
	if err != nil {
		return nil, err
	}
	if hits == nil {
		hits = []gitstore.SearchHit{}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Created > hits[j].Created })
	return hits, nil
}

// Grep returns the log lines (of task, or of every task when task is "")
// of the records with a text re matches (Pattern compiles it: Go's syntax,
// case-sensitive as git log --grep is unless asked otherwise). The lines
// come in log's order, without their signatures (withSignatures adds them
// to the lines kept).
func (e *Session) Grep(ctx context.Context, task string, re *regexp.Regexp) ([]LogLine, error) {
	if task != "" {
		if err := record.CheckTask(task); err != nil {
			return nil, err
		}
	}
	// Every text the pattern matches holds its literal prefix: only
	// those are asked of the pattern (none is known under (?i)).
	lit, _ := re.LiteralPrefix()
	hits, err := e.Index.SearchFor(ctx, lit, false, re.MatchString)
	if err != nil {
		return nil, err
	}
	out := []LogLine{}
	for _, h := range hits {
		if task == "" || h.Task == task {
			out = append(out, LogLine{Task: h.Task, TimelineEntry: h.TimelineEntry, DoesNotVerify: h.DoesNotVerify, head: h.Head})
		}
	}
	if task == "" {
		sort.SliceStable(out, func(i, j int) bool { return out[i].Created < out[j].Created })
	}
	return out, nil
}
