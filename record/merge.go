package record

import "context"

// ReplayMerge verifies one merge commit whose parents' histories were
// verified already, exactly as Replay verifies a merge inside a history:
// its tree must be the union of its parents' (parents maps each parent's
// hash to its records/ tree, entry name -> blob hash), and the union is
// replayed through the admission rules in (clock, id) order. It returns
// the findings of that commit alone; merge_refused ones name the records
// the union made inadmissible and does not settle (State.Settled). It
// reuses and remembers the records k holds.
func (k *Checked) ReplayMerge(ctx context.Context, task string, merge *Commit, parents map[string]map[string]string, blob func(hash string) (*Record, error)) []Finding {
	v := newVerifier(task, blob)
	v.shared = k
	for h, files := range parents {
		v.files[h] = files
		v.kids[h] = 1
	}
	v.merge(ctx, merge)
	// A refusal the union settles already (a record brought together
	// again, whose settlement one side holds) is no refusal of the merge.
	v.settle(v.states[merge.Hash])
	return v.findings()
}
