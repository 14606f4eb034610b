package proctest

import (
	"runtime"
	"testing"
	"time"
)

// sink keeps the test's allocation alive across a collection.
var sink []byte

func TestCPUTimeGrowsWithWork(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("CPU time is not read on this system")
	}
	start := CPUTime()
	// Spin until the process's CPU clock moves: rusage has a coarse tick,
	// so the work is sized by the clock it measures, not by a guess.
	x, now := 0, start
	for now == start {
		for i := range 1_000_000 {
			x += i
		}
		now = CPUTime()
	}
	if now < start {
		t.Fatalf("CPU time went back: %v then %v (work %d)", start, now, x)
	}
}

func TestHeapPeakSeesALiveAllocation(t *testing.T) {
	const size = 64 << 20
	stop := HeapPeak()
	sink = make([]byte, size)
	runtime.GC() // the live-heap metric is as of the last collection
	peak := stop()
	if peak < size {
		t.Fatalf("peak live heap %d bytes with %d bytes live", peak, size)
	}
	sink = nil
}

func TestSamplePeakReadsTheNamedMetric(t *testing.T) {
	const size = 32 << 20
	stop := SamplePeak("/memory/classes/heap/objects:bytes", time.Millisecond)
	sink = make([]byte, size)
	peak := stop()
	if peak < size {
		t.Fatalf("peak heap objects %d bytes with %d bytes allocated", peak, size)
	}
	sink = nil
}
