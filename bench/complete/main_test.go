package main

import (
	"testing"

	"git-reason/reliability/harness"
)

// TestSmall runs the whole benchmark on a small repository, so that the
// program keeps working as the code it times changes: run fails when an
// answer has not the size the repository gives (the ids of one task's
// assessments, every record's id), as it did once the tree reader refused
// the records/ entries it generated (ids that were no ULIDs).
func TestSmall(t *testing.T) {
	harness.SkipShort(t, "builds the binary and runs git")
	if err := run(options{tasks: 12, records: 3, runs: 1}); err != nil {
		t.Fatal(err)
	}
}
