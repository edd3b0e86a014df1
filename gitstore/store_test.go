package gitstore_test

import (
	"bytes"
	"os/exec"
	"testing"

	"git-reason/gitstore"
	"git-reason/record"
	"git-reason/record/storetest"
)

// newRepo makes an empty repository with the real git binary.
func newRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("git", "init", "-q", dir)
	cmd.Env = append(cmd.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return dir
}

func TestStoreContract(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) record.Store {
		dir := newRepo(t)
		s, err := gitstore.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { fsck(t, dir) })
		return s
	})
}

// TestStoreContractUnderFaults runs the contract suite and the writer's
// fault cases through storetest.Faulty over the git store. With -short the
// in-memory store's run (package record) stands for it: the writer's
// behaviour does not depend on the store, and this run costs the contract
// suite's time again.
func TestStoreContractUnderFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("the contract suite again, through faults; skipped with -short")
	}
	t.Parallel()
	storetest.RunFaults(t, func(t *testing.T) record.Store {
		dir := newRepo(t)
		s, err := gitstore.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { fsck(t, dir) })
		return s
	})
}

// fsck runs git fsck --strict on the repository and fails on any complaint.
func fsck(t *testing.T, dir string) {
	t.Helper()
	cmd := exec.Command("git", "-C", dir, "fsck", "--strict", "--no-dangling")
	cmd.Env = append(cmd.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	complaints := 0
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		if len(line) > 0 && !bytes.HasPrefix(line, []byte("notice: ")) {
			complaints++
		}
	}
	if err != nil || complaints > 0 {
		t.Errorf("git fsck --strict: %v\n%s", err, out)
	}
}
