//go:build unix

package proctest

import (
	"syscall"
	"time"
)

// CPUTime returns the CPU time of the process so far (user and system,
// every thread, the garbage collector's included): a figure a busy machine
// does not inflate as it inflates wall time.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
