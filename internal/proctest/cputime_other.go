//go:build !unix

package proctest

import "time"

// CPUTime returns 0 where the process's CPU time cannot be read.
func CPUTime() time.Duration { return 0 }
