package gitstore_test

import (
	"os"
	"testing"
)

// TestMain removes the honest history the forgery tests share (see
// honest in forgery_test.go) after the run.
func TestMain(m *testing.M) {
	code := m.Run()
	if honest.dir != "" {
		os.RemoveAll(honest.dir)
	}
	os.Exit(code)
}
