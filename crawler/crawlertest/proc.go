package crawlertest

import (
	"os"
	"strconv"
	"strings"
)

// PeakRSS returns the process's peak resident set size in bytes (VmHWM),
// or 0 where /proc is not available. The crawler's benchmarks report it.
func PeakRSS() int64 { return procStatus("VmHWM:") }

// RSS returns the process's resident set size in bytes now (VmRSS), or 0
// where /proc is not available.
func RSS() int64 { return procStatus("VmRSS:") }

// procStatus returns the size in bytes of a field of /proc/self/status
// given in kB, or 0.
func procStatus(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// ResetPeakRSS resets the process's peak RSS (VmHWM) to its current RSS,
// where Linux allows it, so that a benchmark measures its own peak; it
// reports whether it could.
func ResetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// MemoryBudget is the memory budget crawler/MEMORY.md gives a crawl of
// maxPages pages, which the crawler's benchmarks set as its
// Options.MemoryLimit: 64 MiB for the runtime, the pages in flight and the
// crawl's fixed state, and 768 bytes a page, about what a page holds at
// the peak of the site report's build (TestMemoryModel).
func MemoryBudget(maxPages int) int64 { return 64<<20 + int64(maxPages)*768 }
