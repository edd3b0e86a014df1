package signing

import (
	"os"
	"testing"

	"git-reason/reliability/harness"
)

// TestMain runs the package's tests with their repositories on a memory
// file system where there is one (harness.MemoryTemp).
func TestMain(m *testing.M) {
	harness.MemoryTemp()
	os.Exit(m.Run())
}
