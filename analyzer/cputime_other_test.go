//go:build !unix

package analyzer

import "time"

// processCPU is not measured on this system: the CPU figures read zero.
func processCPU() time.Duration { return 0 }
