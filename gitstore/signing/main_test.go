package signing

import (
	"os"
	"testing"

	"git-reason/reliability/harness"
)

// TestMain runs the package's tests with their repositories on a memory
// file system where there is one (harness.MemoryTemp), and removes the
// ssh fixture they share (newSSHFixture) after them.
func TestMain(m *testing.M) {
	harness.MemoryTemp()
	code := m.Run()
	if sshShared.dir != "" {
		os.RemoveAll(sshShared.dir)
	}
	os.Exit(code)
}
