package proctest

import (
	"runtime/metrics"
	"time"
)

// HeapPeak samples the live heap (as of each GC) every 10 ms until stop is
// called, which returns the highest value seen in bytes, the one at the
// call included.
func HeapPeak() (stop func() uint64) {
	return SamplePeak("/gc/heap/live:bytes", 10*time.Millisecond)
}

// SamplePeak samples the runtime metric name (a uint64 one, see
// runtime/metrics) every period until stop is called, which returns the
// highest value seen, the one at the call included. The sampling goroutine
// ends before stop returns.
func SamplePeak(name string, period time.Duration) (stop func() uint64) {
	done := make(chan struct{})
	res := make(chan uint64, 1)
	go func() {
		sample := []metrics.Sample{{Name: name}}
		var peak uint64
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				metrics.Read(sample)
				res <- max(peak, sample[0].Value.Uint64())
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 { close(done); return <-res }
}
