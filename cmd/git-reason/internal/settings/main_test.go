package settings

import (
	"testing"

	"git-reason/reliability/harness"
)

func TestMain(m *testing.M) { harness.MainInMemory(m) }
