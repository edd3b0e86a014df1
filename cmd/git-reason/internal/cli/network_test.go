package cli

import (
	"os"
	"strings"
	"testing"
)

// The command that says how to install NetProgram is README's own.
func TestInstallCommandAsREADME(t *testing.T) {
	data, err := os.ReadFile("../../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\n"+installCommand+" ") {
		t.Errorf("README's install command is not %q", installCommand)
	}
}
