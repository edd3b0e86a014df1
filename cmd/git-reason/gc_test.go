package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcPercent returns the collector's current target percentage.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// collectLate raises the target only until the first cycle: a command
// that reads much collects as it did before after that.
func TestCollectLateRestoresAfterTheFirstCycle(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set: collectLate leaves it alone")
	}
	before := gcPercent()
	collectLate()
	if p := gcPercent(); p != startPercent {
		t.Fatalf("target %d after collectLate, want %d", p, startPercent)
	}
	// The finalizer runs on its own goroutine after the cycle; wait for it
	// by cycles, not by a time asserted.
	for i := 0; i < 1000 && gcPercent() != before; i++ {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if p := gcPercent(); p != before {
		t.Errorf("target %d after a cycle, want %d again", p, before)
	}
}
