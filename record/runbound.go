package record

import (
	"fmt"
	"sync"
)

// MaxRunFindings is the most blocking findings the verifications of one
// run (a pull, push or sync; a verify) keep of all their tasks. A replay
// lists at most MaxFindings, but a remote of 2,000 task refs naming one
// commit of 1,500 bad entries gave 2 million findings: pull took 4 GB
// and wrote 750 MB of quarantine.json.
const MaxRunFindings = 10 * MaxFindings

// RunBound keeps the findings of one run's tasks within MaxRunFindings.
// The zero value is ready; it is safe for concurrent use.
type RunBound struct {
	mu   sync.Mutex
	kept int // the blocking findings kept so far
}

// Keep is found as the run keeps it: whole while the run's findings stay
// within MaxRunFindings; past it, every merge_refused finding (a person
// settles each) and the first blocking ones that still fit, at least
// one, then one more, of the first left out's commit and code, saying
// how many were left out. A history is refused all the same: it keeps a
// blocking finding.
func (b *RunBound) Keep(found []Finding) []Finding {
	blocking := len(Blocking(found))
	b.mu.Lock()
	defer b.mu.Unlock()
	room := max(MaxRunFindings-b.kept, 1)
	if blocking <= room {
		b.kept += blocking
		return found
	}
	out := make([]Finding, 0, room+len(found)-blocking+1)
	var first *Finding
	for i, f := range found {
		switch {
		case f.Code == FindMergeRule || room > 0:
			if f.Code != FindMergeRule {
				room--
				b.kept++
			}
			out = append(out, f)
		case first == nil:
			first = &found[i]
		}
	}
	return append(out, Finding{Task: first.Task, Commit: first.Commit, Code: first.Code,
		Message: fmt.Sprintf("and %d more findings, not listed (one run lists the first %d of all its tasks)", blocking-len(Blocking(out)), MaxRunFindings)})
}
