package harness

import (
	"os"
	"testing"
)

// MainInMemory is the TestMain of a package whose tests need nothing
// else: it runs them (m) with their temporary directories on a memory
// file system where there is one (MemoryTemp), and exits with their
// status (CheckRaces's).
func MainInMemory(m *testing.M) {
	MemoryTemp()
	os.Exit(CheckRaces(m.Run()))
}
