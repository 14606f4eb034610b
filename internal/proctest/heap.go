package proctest

import (
	"os"
	"runtime/metrics"
	"runtime/pprof"
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

// ProfileHeapPeak writes a heap profile to path each time the live heap
// (as of the last GC) passes its highest value so far by 2%, until stop is
// called, so the file shows what was live at the peak. stop returns the
// peak in bytes and the first error met writing the profile.
func ProfileHeapPeak(path string) (stop func() (uint64, error)) {
	done := make(chan struct{})
	type result struct {
		peak uint64
		err  error
	}
	res := make(chan result, 1)
	go func() {
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		var peak uint64
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				res <- result{peak: peak}
				return
			case <-tick.C:
			}
			metrics.Read(sample)
			live := sample[0].Value.Uint64()
			if live <= peak+peak/50 {
				continue
			}
			peak = live
			if err := writeHeapProfile(path); err != nil {
				res <- result{peak, err}
				return
			}
		}
	}()
	return func() (uint64, error) { close(done); r := <-res; return r.peak, r.err }
}

// writeHeapProfile writes the heap profile to path.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
