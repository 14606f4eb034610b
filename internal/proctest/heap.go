package proctest

import (
	"runtime/metrics"
	"time"
)

// HeapPeak samples the live heap (as of each GC) every 10 ms until stop is
// called, which returns the highest value seen in bytes, the one at the
// call included. The sampling
// goroutine ends before stop returns.
func HeapPeak() (stop func() uint64) {
	done := make(chan struct{})
	res := make(chan uint64, 1)
	go func() {
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		var peak uint64
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				// The live heap as of stop counts too.
				metrics.Read(sample)
				res <- max(peak, sample[0].Value.Uint64())
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 { close(done); return <-res }
}
