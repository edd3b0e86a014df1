// Command pagefaults measures what a fresh page of memory costs this
// machine: it maps anonymous memory, touches each 4 KiB page once and
// reports the CPU time (user + system, getrusage) and the minor faults a
// page, then the same with the mapping advised MADV_HUGEPAGE (transparent
// huge pages, when the kernel has them to give). Every page a process
// touches for the first time (its heap, its stacks, the binary's pages)
// costs one such fault, so on a machine where a fault is dear a
// command's start-up is mostly its faults (docs/PERFORMANCE.md).
// Usage: go run ./bench/pagefaults [-pages N] [-rounds N]
package main

import (
	"flag"
	"fmt"
	"os"
	"syscall"
	"time"
)

func main() {
	pages := flag.Int("pages", 4096, "pages to touch a round")
	rounds := flag.Int("rounds", 5, "rounds of each kind")
	flag.Parse()
	for _, huge := range []bool{false, true} {
		for range *rounds {
			cpu, faults, err := touch(*pages, huge)
			if err != nil {
				fmt.Fprintln(os.Stderr, "pagefaults:", err)
				os.Exit(1)
			}
			kind := "4 KiB pages"
			if huge {
				kind = "MADV_HUGEPAGE"
			}
			fmt.Printf("%-13s %6.2f us cpu a page, %d faults for %d pages\n", kind, float64(cpu.Nanoseconds())/1e3/float64(*pages), faults, *pages)
		}
	}
}

// touch maps pages fresh pages (2 MiB more, so that huge pages can be
// aligned within), writes one byte of each and returns the CPU time and
// the minor faults that took.
func touch(pages int, huge bool) (time.Duration, int64, error) {
	const page = 4096
	b, err := syscall.Mmap(-1, 0, pages*page+(2<<20), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return 0, 0, err
	}
	defer syscall.Munmap(b)
	if huge {
		if err := syscall.Madvise(b, 14); err != nil { // MADV_HUGEPAGE
			return 0, 0, err
		}
	}
	var r0, r1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	for i := range pages {
		b[i*page] = 1
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	cpu := syscall.TimevalToNsec(r1.Utime) + syscall.TimevalToNsec(r1.Stime) - syscall.TimevalToNsec(r0.Utime) - syscall.TimevalToNsec(r0.Stime)
	return time.Duration(cpu), r1.Minflt - r0.Minflt, nil
}
