//go:build !unix

package main

import "time"

// cpuTime is not measured here: the walks it times need a shell.
func cpuTime() time.Duration { return 0 }
