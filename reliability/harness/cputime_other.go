//go:build !unix

package harness

import "time"

// CPUTime is not measured here; figures that need it say 0.
func CPUTime() time.Duration { return 0 }
