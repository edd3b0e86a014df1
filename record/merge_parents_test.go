package record

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// A merge of many parents is checked in one pass over the parents'
// names. Each parent was compared with every earlier one, name by name:
// 6,000 parents of 40 records each (a 1 MiB commit names 21,000) cost 720
// million lookups, a chain of such merges hours of a pull's replay. The
// bound is on the names read (unionLookups), not on the time: a few
// reads of each parent's names, where the comparison with every earlier
// parent read them 1,000 times each at 2,000 parents.
func TestMergeOfManyParentsIsLinear(t *testing.T) {
	const parents, names = 2000, 40
	files := map[string]string{}
	for i := range names {
		files[fmt.Sprintf("%010d-attempt-01J%023d.json", i+1, i)] = fmt.Sprintf("%040x", i)
	}
	byParent := map[string]map[string]string{}
	merge := &Commit{Hash: strings.Repeat("f", 40), Files: files}
	for i := range parents {
		h := fmt.Sprintf("%040x", 1<<20+i)
		merge.Parents = append(merge.Parents, h)
		byParent[h] = files
	}
	noBlob := func(string) (*Record, error) { return nil, errors.New("no blob") }
	before := unionLookups.Load()
	found := new(Checked).ReplayMerge(context.Background(), "T", merge, byParent, noBlob)
	read, most := unionLookups.Load()-before, int64(4*parents*names)
	t.Logf("%d parents of %d records: %d of their names read", parents, names, read)
	if read > most {
		t.Errorf("checking a merge of %d parents of %d records read %d of their names, want at most %d (4 reads of each)", parents, names, read, most)
	} else if read < int64(parents*names) {
		t.Errorf("checking a merge of %d parents of %d records read %d of their names, fewer than they hold (%d): unionLookups counts nothing", parents, names, read, parents*names)
	}
	for _, f := range found {
		if f.Code == FindMerge {
			t.Errorf("parents holding one tree: %s", f)
		}
	}

	// The same parent named on each line: one merge finding.
	for i := range merge.Parents {
		merge.Parents[i] = merge.Parents[0]
	}
	before = unionLookups.Load()
	found = new(Checked).ReplayMerge(context.Background(), "T", merge, map[string]map[string]string{merge.Parents[0]: files}, noBlob)
	if read, most := unionLookups.Load()-before, int64(4*names); read > most {
		t.Errorf("checking a merge naming one parent of %d records %d times read %d of its names, want at most %d (the parent taken once)", names, parents, read, most)
	}
	n := 0
	for _, f := range found {
		if f.Code == FindMerge {
			n++
			if want := fmt.Sprintf("names %d parents, %d of them more than once", parents, parents-1); f.Message != want {
				t.Errorf("finding %q, want %q", f.Message, want)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d merge findings for a parent named %d times, want 1", n, parents)
	}
}
