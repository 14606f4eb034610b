//go:build !linux

package analyzer

import "time"

var wallStart = time.Now()

// threadCPU returns the time elapsed, where the thread's CPU time is not
// read.
func threadCPU() time.Duration { return time.Since(wallStart) }
