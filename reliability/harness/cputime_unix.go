//go:build unix

package harness

import (
	"os"
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

// usage is the minor page faults and the peak resident memory (KiB) of
// the process that ended in ps and of the children it waited for.
func usage(ps *os.ProcessState) (faults, maxRSS int64) {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Minflt, ru.Maxrss
	}
	return 0, 0
}

// childFaults is the minor page faults of this process's waited-for
// children so far.
func childFaults() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return ru.Minflt
}
