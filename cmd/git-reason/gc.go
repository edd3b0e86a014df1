package main

import (
	"os"
	"runtime"
	"runtime/debug"
)

// startPercent is the garbage collector's target percentage until its
// first cycle: the first collection comes when the heap reaches 16 MB
// (the runtime's 4 MB minimum times startPercent/100) instead of 4 MB.
const startPercent = 400

// collectLate lets a short command finish without collecting garbage: a
// write allocates about 5 MB (most of it the JSON Schema library's
// compiled metaschemas and the schemas a command compiles), just over the
// runtime's first 4 MB target, so that one collection cost every write
// CPU time for memory the process returns at exit a few milliseconds
// later. After the first cycle the percentage is 100 again (or what GOGC
// said), so a command that reads much (verify, status of every task) holds
// at most one 16 MB target more than before. git-reason serves nothing:
// the long-lived servers run in git-reason--net, which does not do this.
// GOGC set in the environment is the user's choice and is left alone.
func collectLate() {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	before := debug.SetGCPercent(startPercent)
	// Reclaimed in the first cycle (a pointer-holding object, never the
	// tiny allocator's, whose finalizers may not run): then its finalizer
	// puts the percentage back.
	sentinel := new(*byte)
	runtime.SetFinalizer(sentinel, func(**byte) { debug.SetGCPercent(before) })
}
