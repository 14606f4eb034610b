package logs

import (
	"context"
	"flag"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

// memLines sizes TestMemoryBound; the default keeps the test quick, and
//
//	go test ./logs -run TestMemoryBound -v -logs.lines=5000000
//
// runs the multi-million-line proof.
var memLines = flag.Int("logs.lines", 400_000, "lines of the generated log of TestMemoryBound")

// liveHeap returns the heap bytes held by live objects as of the last GC.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestMemoryBound streams a generated log of -logs.lines lines, every bot
// line for a URL of its own (the hostile case: distinct URLs without end),
// and samples the live heap every 100,000 lines. The peak must stay under
// EstimateMemory, the tracked URLs at MaxURLs, and the estimate of the
// other URLs within three standard errors of the true count.
func TestMemoryBound(t *testing.T) {
	lines := *memLines
	opts := &Options{ProgressLines: 100_000}
	runtime.GC()
	base := liveHeap()
	var peak uint64
	samples := 0
	opts.Progress = func(Progress) {
		runtime.GC() // live heap of this moment, not of the last cycle
		samples++
		peak = max(peak, liveHeap())
	}
	start := time.Now()
	rep, err := Analyze(context.Background(), []Input{Reader("gen", newGenLog(lines, true))}, opts)
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Requests != int64(lines) {
		t.Fatalf("requests = %d, want %d", rep.Requests, lines)
	}
	used := int64(peak) - int64(base)
	bound := EstimateMemory(opts)
	t.Logf("%d lines in %v (%.0f lines/s); live heap peak %.1f MiB above a %.1f MiB baseline over %d samples; bound %.1f MiB",
		lines, elapsed.Round(time.Millisecond), float64(lines)/elapsed.Seconds(), float64(used)/(1<<20), float64(base)/(1<<20), samples, float64(bound)/(1<<20))
	if samples < lines/100_000 {
		t.Fatalf("only %d heap samples", samples)
	}
	if used > bound {
		t.Fatalf("live heap peak %d bytes above the bound %d", used, bound)
	}
	if rep.URLsTracked != 50_000 {
		t.Fatalf("URLs tracked = %d, want the cap 50000", rep.URLsTracked)
	}
	// Four of the six generated agents are bots; each bot line has its own URL.
	botLines := int64(0)
	for i := range lines {
		if i%len(genAgents) < 4 {
			botLines++
		}
	}
	if rep.Totals.BotHits != botLines {
		t.Fatalf("bot hits = %d, want %d", rep.Totals.BotHits, botLines)
	}
	wantOther := botLines - 50_000
	got := rep.OtherURLs.URLs.Value
	if rel := float64(got-wantOther) / float64(wantOther); rel > 3*DistinctError || rel < -3*DistinctError || !rep.OtherURLs.URLs.Approximate {
		t.Fatalf("other URLs estimate %d, true %d (error %.2f%%, allowed %.2f%%)", got, wantOther, 100*rel, 300*DistinctError)
	}
	t.Logf("other URLs: estimate %d, true %d (%.2f%% off)", got, wantOther, 100*float64(got-wantOther)/float64(wantOther))
	perURL := float64(used) / 50_000
	t.Logf("about %.0f bytes per tracked URL (model: %d)", perURL, memPerURL)
}
