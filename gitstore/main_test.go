package gitstore_test

import (
	"os"
	"testing"

	"git-reason/gitstore"
	"git-reason/reliability/harness"
)

// TestMain gives every test of the package (internal and external) one
// sandboxed git setup (harness.InTempHome): a HOME of its own with a git
// identity, no system configuration, and none of the variables through
// which the machine's git setup could leak in. After the run it removes
// that HOME, the honest history the forgery tests share (see honest in
// forgery_test.go) and the repositories the others copy (see
// NewEmptyRepoIn and newTestRepo). Every temporary directory is on a
// memory file system where there is one (harness.MemoryTemp).
func TestMain(m *testing.M) {
	harness.MemoryTemp()
	code := harness.InTempHome("gitstore-test-home-", m.Run)
	gitstore.RemoveTestRepo()
	if honest.dir != "" {
		os.RemoveAll(honest.dir)
	}
	os.Exit(code)
}
