package harness

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// LoadAverage is the machine's 1, 5 and 15 minute load averages as
// "load average A B C", or "load average unknown" where the system does
// not say. A benchmark prints it beside its figures: on a shared machine
// they are comparable only within one run, and a load above the processor
// count measures the scheduler as much as the program.
func LoadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(data)); err == nil && len(f) >= 3 {
		return "load average " + strings.Join(f[:3], " ")
	}
	return "load average unknown"
}

// ModuleRoot is the directory of the go.mod above the working directory.
func ModuleRoot() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", errors.New("no go.mod above the working directory: run from inside the module")
		}
		d = parent
	}
}
