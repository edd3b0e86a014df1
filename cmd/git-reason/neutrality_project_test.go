package main

import (
	"context"
	"path/filepath"
	"testing"

	"git-reason/cmd/git-reason/internal/ops"
)

// TestProjectIsNeutral runs the neutrality check over this project itself,
// with its own .reason/neutrality.yaml and the names share/ declares: no
// file outside share/ may name a provider, vendor, model or advisor.
func TestProjectIsNeutral(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	sess, err := ops.Open(context.Background(), ops.Options{Dir: root})
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	res, err := sess.CheckNeutrality(context.Background(), ops.NeutralityRequest{Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Configured {
		t.Fatal("the project has no .reason/neutrality.yaml")
	}
	if res.Files < 50 {
		t.Fatalf("checked only %d files: the check is not looking at the project", res.Files)
	}
	for _, v := range res.Violations {
		t.Error(v)
	}
	t.Logf("%d files checked, %d occurrences allowed, %d files not checked", res.Files, res.Allowed, len(res.Skipped))
}
