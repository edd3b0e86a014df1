//go:build unix

package harness

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time (user and system) this process and its
// waited-for children (git processes, the programs a test runs) have used
// so far: unlike wall time, other processes' load does not inflate it.
func CPUTime() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if err := syscall.Getrusage(who, &ru); err == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return total
}
