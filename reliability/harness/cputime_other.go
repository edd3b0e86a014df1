//go:build !unix

package harness

import (
	"os"
	"time"
)

// CPUTime is not measured here; figures that need it say 0.
func CPUTime() time.Duration { return 0 }

// usage is not measured here: no faults, no resident memory.
func usage(*os.ProcessState) (faults, maxRSS int64) { return 0, 0 }

// childFaults is not measured here: 0.
func childFaults() int64 { return 0 }
