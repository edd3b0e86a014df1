package ops

import (
	"context"
	"fmt"
	"strings"

	"git-reason/gitstore/signing"
	"git-reason/record"
)

// authors implements record.Authorship: a standing conclusion is reused
// only when its record and every consultation it weighed (the local-review
// answers are in the conclusion itself) were written by this clone's
// writer (gitstore's list of the commits it made; never the records'
// origin field, which anyone can copy) or signed by an allowed signer who
// is the record's actor.
type authors struct{ e *Session }

func (a authors) AuthorsTrusted(ctx context.Context, task, conclusion string) error {
	head, recs, err := a.e.Store.Load(ctx, task)
	if err != nil {
		return err
	}
	st, err := record.Derive(task, recs)
	if err != nil {
		return err
	}
	c := st.Get(conclusion)
	if c == nil || c.Kind != record.KindConclusion {
		return fmt.Errorf("task %s holds no conclusion %s", task, conclusion)
	}
	ids := []string{conclusion}
	for _, w := range c.Body.(*record.Conclusion).Weighed {
		ids = append(ids, w.Consultation)
	}
	// The task's commits, read as they are (signaturesSince: a short
	// linear history is read in this process, and git is asked only
	// about commits that carry a signature, or about a longer or merged
	// history); no cache is read, so nothing a fetch could write decides.
	checks, err := a.e.signaturesSince(ctx, head, "")
	if err != nil {
		return err
	}
	byRecord := make(map[string]signing.Check, len(checks))
	commits := make([]string, 0, len(checks))
	for _, ch := range checks {
		byRecord[ch.Record] = ch
		commits = append(commits, ch.Commit)
	}
	// The task's own list of what this clone wrote, not every write's.
	written := a.e.Store.WrittenHere(task, commits)
	var untrusted []string
	for _, id := range ids {
		ch, ok := byRecord[id]
		if ok && (written[ch.Commit] || ch.Allowed()) {
			continue
		}
		kind, why := "record", "not found in its history"
		if r := st.Get(id); r != nil {
			kind = string(r.Kind)
		}
		if ok {
			why = ch.Describe()
		}
		untrusted = append(untrusted, fmt.Sprintf("%s %s (%s)", kind, id, why))
	}
	if len(untrusted) > 0 {
		return fmt.Errorf("in task %s, %s: neither written in this clone nor signed by an allowed signer", task, strings.Join(untrusted, ", "))
	}
	return nil
}
