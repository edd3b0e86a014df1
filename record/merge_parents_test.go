package record_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"git-reason/record"
)

// A merge of many parents is checked in one pass over the parents'
// names. Each parent was compared with every earlier one, name by name:
// 6,000 parents of 40 records each (a 1 MiB commit names 21,000) cost 720
// million lookups, a chain of such merges hours of a pull's replay.
func TestMergeOfManyParentsIsLinear(t *testing.T) {
	const parents, names = 6000, 40
	files := map[string]string{}
	for i := range names {
		files[fmt.Sprintf("%010d-attempt-01J%023d.json", i+1, i)] = fmt.Sprintf("%040x", i)
	}
	byParent := map[string]map[string]string{}
	merge := &record.Commit{Hash: strings.Repeat("f", 40), Files: files}
	for i := range parents {
		h := fmt.Sprintf("%040x", 1<<20+i)
		merge.Parents = append(merge.Parents, h)
		byParent[h] = files
	}
	noBlob := func(string) (*record.Record, error) { return nil, errors.New("no blob") }
	start := time.Now()
	found := new(record.Checked).ReplayMerge(context.Background(), "T", merge, byParent, noBlob)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("a merge of %d parents of %d records took %s; the bound is 5 s", parents, names, took)
	}
	for _, f := range found {
		if f.Code == record.FindMerge {
			t.Errorf("parents holding one tree: %s", f)
		}
	}

	// The same parent named on each line: one merge finding.
	for i := range merge.Parents {
		merge.Parents[i] = merge.Parents[0]
	}
	found = new(record.Checked).ReplayMerge(context.Background(), "T", merge, map[string]map[string]string{merge.Parents[0]: files}, noBlob)
	n := 0
	for _, f := range found {
		if f.Code == record.FindMerge {
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
